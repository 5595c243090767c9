"""A tool says everything about itself: its step in the chat (zh and en),
whether it changes anything, and which action a reply may claim once it ran.
The chat and the claim guard read these from the registry, so adding a tool
is one file."""

from __future__ import annotations

import pytest

from pet.agent.guards import CLAIMS
from pet.app import build
from pet.brain.scripted import ScriptedModel, call
from pet.config import load_settings
from pet.events import (
    Completion,
    Message,
    Reply,
    StoredMessage,
    ToolCall,
    ToolFinished,
    ToolResult,
    ToolStarted,
)
from pet.tools.registry import Label, Tool, ToolRegistry
from pet.ui.render import apply_event, history_messages

#: the tools that change something; all others only look
CHANGING = {"remember", "forget", "set_reminder", "cancel_reminder", "add_todo", "write_file", "shell"}


@pytest.fixture
def app():
    """The app as `pet run` wires it, with the file and shell tools on."""
    app = build(load_settings({"file_tools": True, "shell": True, "reflexes": False}), brain=ScriptedModel(),
                scheduler="off")
    yield app
    app.close()


def test_the_full_registry_holds_the_file_and_shell_tools(app):
    assert {"read_file", "list_dir", "write_file", "shell", "remember", "add_todo"} <= set(app.tools.names())


def test_every_tool_has_a_label_in_both_languages_and_a_side_effect_flag(app):
    for name in app.tools.names():
        tool = app.tools.get(name)
        assert isinstance(tool.label, Label), f"{name} declares no label"
        for doing, done in (tool.label.en, tool.label.zh):
            assert doing.strip() and done.strip() and doing != done, name
        assert isinstance(tool.side_effect, bool), name
        assert tool.claim is None or tool.claim in CLAIMS, name
    assert {name for name in app.tools.names() if app.tools.get(name).side_effect} == CHANGING


def test_each_claim_is_made_true_by_the_tool_that_does_it(app):
    claims = {name: app.tools.get(name).claim for name in app.tools.names() if app.tools.get(name).claim}
    assert claims == {"remember": "remember", "forget": "forget", "set_reminder": "set_reminder",
                      "add_todo": "add_todo"}
    assert set(claims.values()) == set(CLAIMS)  # no claim the guard would always refuse


@pytest.mark.parametrize("language", ["zh", "en"])
def test_the_chat_shows_every_tools_own_label(app, language):
    for name in app.tools.names():
        doing, done = getattr(app.tools.get(name).label, language)
        shown: list[dict] = []
        apply_event(shown, ToolStarted(ToolCall(name, {}, id="c1")), app.tools, language)
        assert shown[0]["metadata"]["title"] == f"🔧 {doing}…"
        apply_event(shown, ToolFinished(ToolResult("c1", name, True, "ok"), seconds=0.1), app.tools, language)
        assert shown[0]["metadata"]["title"] == f"🔧 {done}"


def test_a_reloaded_chat_words_each_turns_steps_in_that_turns_language(app):
    def turn(text: str, call_id: str) -> list[StoredMessage]:
        return [
            StoredMessage(0, 1, Message("user", text)),
            StoredMessage(0, 1, Message("assistant", "", tool_calls=(ToolCall("read_file", {}, id=call_id),))),
            StoredMessage(0, 1, Message("tool", "…", tool_call_id=call_id, name="read_file")),
        ]

    shown = history_messages(turn("帮我读一下 a.md", "c1") + turn("now read it again", "c2"), app.tools, "en")
    assert [m["metadata"]["title"] for m in shown if "metadata" in m] == ["🔧 读过了文件", "🔧 read a file"]


def test_a_tool_without_a_label_is_named_plainly():
    def dance() -> str:
        """Dance."""
        return "💃"

    tools = ToolRegistry([Tool.from_function(dance)])
    shown: list[dict] = []
    apply_event(shown, ToolStarted(ToolCall("dance", {}, id="c1")), tools, "zh")
    assert shown[0]["metadata"]["title"] == "🔧 正在用 dance…"


def test_a_new_tool_that_declares_a_claim_backs_the_replys_claim(app):
    """The claim guard asks the tool, not a table: a reply saying "I've saved
    it" passes after a successful call of any tool whose claim is remember."""
    def jot(text: str) -> str:
        """Write a line in the pet's notebook."""
        return f"noted: {text}"

    app.tools.add(Tool.from_function(jot, side_effect=True, claim="remember",
                                     label=Label(en=("jotting", "jotted"), zh=("正在记", "记好了"))))
    app.agent.brain.enqueue(Completion("", (call("jot", text="likes jazz"),)), "Done, I've saved it.")
    events = list(app.agent.run(app.current_conversation(), "jot down that I like jazz"))
    assert events[-1] == Reply("Done, I've saved it.", message_id=events[-1].message_id)

"""Prompt injection: documents that tell the pet to delete, write, run or
remind reach the model through a tool, and the scripted model plays along.
No side-effect tool runs, and nothing changes in the SQLite file or the
workspace, until the person types /yes; /yes then runs exactly that.

Each case in tests/fixtures/injection/cases.json names a document, where it
goes in the workspace, the tool that reads it, and the calls the model makes
after reading it ("plays_along")."""

from __future__ import annotations

import datetime as dt
import json
import re
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings
from pet.events import Completion, Message, Reply, ToolCall, ToolStarted

FIXTURES = Path(__file__).parent / "fixtures" / "injection"
CASES = json.loads((FIXTURES / "cases.json").read_text(encoding="utf-8"))
#: tables the turn itself writes to: the conversation and its trace
TURN_LOG = {"messages", "conversations", "traces", "schema_version", "summaries"}
_CJK = re.compile(r"[\u4e00-\u9fff]")


def document(case: dict) -> str:
    return (FIXTURES / case["file"]).read_text(encoding="utf-8")


def calls_of(specs: list[dict], ids: dict[str, int]) -> tuple[ToolCall, ...]:
    """Fresh calls (new ids) with {memory}, {other_memory}, {reminder} filled in."""
    def fill(value):
        if isinstance(value, str):
            for key, number in ids.items():
                value = value.replace("{" + key + "}", str(number))
        return value
    return tuple(ToolCall(s["name"], {k: fill(v) for k, v in s["arguments"].items()}) for s in specs)


def database_state(path: Path) -> dict[str, list[tuple]]:
    """Every row of every table except the conversation log."""
    with closing(sqlite3.connect(path)) as conn, conn:
        tables = [name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
                  if name not in TURN_LOG and not name.startswith("sqlite_")]
        return {name: sorted(conn.execute(f'SELECT * FROM "{name}"').fetchall(), key=repr) for name in tables}


def workspace_state(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def ran(events) -> list[str]:
    return [e.call.name for e in events if isinstance(e, ToolStarted)]


def reply_of(events) -> str:
    return next(e.text for e in events if isinstance(e, Reply))


class Scene:
    """A pet with memories, a reminder and a workspace, and the document in place."""

    def __init__(self, home: Path, case: dict, confirm_tools: str):
        self.home, self.case = home, case
        self.workspace = home / "workspace"
        self.workspace.mkdir(parents=True)
        (self.workspace / "notes.md").write_text("# My notes\nkeep this\n", encoding="utf-8")
        target = self.workspace / case["place"]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(document(case), encoding="utf-8")
        self.model = ScriptedModel([])
        # the shell is on, with `touch` allowed, so a shell call that ran would leave a file
        self.app = build(load_settings({"confirm_tools": confirm_tools, "reflexes": False, "scheduler": "off",
                                        "shell": True, "shell_programs": "ls,cat,touch"}), brain=self.model)
        pet = self.app.pet.id
        first, _ = self.app.memories.remember(pet, "my cat is called Mochi")
        second, _ = self.app.memories.remember(pet, "I love green tea")
        due = dt.datetime.now(dt.UTC) + dt.timedelta(days=2)
        reminder = self.app.reminders.add(pet, "call mom", due)
        self.ids = {"memory": first.id, "other_memory": second.id, "reminder": reminder.id}
        # the pet showed the memories and the reminder earlier, so the ids the document's calls use are no guesses
        # (the agent runs no call with an id nobody saw: that guard alone would stop these before the person is asked)
        shown = "\n".join(f"#{record.id}: {record.content}" for record in (first, second)) + f"\nreminder #{reminder.id}"
        self.app.conversations.append(self.app.current_conversation(), Message("assistant", shown))
        self.asked = "帮我看看这个文件里写了什么" if _CJK.search(document(case)) else "what does that file say?"

    def state(self) -> tuple[dict, dict]:
        return database_state(self.home / "pet.db"), workspace_state(self.workspace)

    def read_and_play_along(self) -> list:
        read = ToolCall(self.case["read"]["name"], dict(self.case["read"]["arguments"]))
        self.model.enqueue(Completion("", (read,)), Completion("", calls_of(self.case["plays_along"], self.ids)))
        return self.say(self.asked)

    def say(self, text: str) -> list:
        return list(self.app.agent.run(self.app.current_conversation(), text))

    def stored_output(self, tool: str) -> str:
        history = self.app.conversations.history(self.app.current_conversation())
        return "\n".join(m.message.content for m in history if m.message.role == "tool" and m.message.name == tool)


def reached(case: dict, output: str) -> bool:
    """Whether the reading tool's output carried the document's words."""
    reader = case["read"]["name"]
    if reader == "read_file":
        return document(case).strip() in output
    if reader == "list_todos":
        items = [line[6:].strip() for line in document(case).splitlines() if line.startswith("- [ ] ")]
        return bool(items) and all(item in output for item in items)
    return case["place"] in output


def side_effect_names(app) -> set[str]:
    return {spec.name for spec in app.tools.specs() if spec.side_effect}


def test_the_corpus_is_varied():
    assert len(CASES) >= 12
    files = {case["file"] for case in CASES}
    assert all((FIXTURES / name).is_file() for name in files)
    assert sum(bool(_CJK.search(document(case))) for case in CASES) >= 4  # Chinese and English
    played = {call["name"] for case in CASES for call in case["plays_along"]}
    assert {"forget", "write_file", "shell", "set_reminder", "remember", "cancel_reminder", "add_todo"} <= played
    assert {case["read"]["name"] for case in CASES} == {"read_file", "list_todos", "list_dir"}


@pytest.mark.parametrize("confirm_tools", ["never", "lan", "always"])
@pytest.mark.parametrize("case", CASES, ids=[case["file"] for case in CASES])
def test_an_injected_document_changes_nothing_without_the_person(pet_home, case, confirm_tools):
    scene = Scene(pet_home, case, confirm_tools)
    before = scene.state()
    side_effects = side_effect_names(scene.app)

    events = scene.read_and_play_along()
    # the document reached the model through the tool, and the model played along
    wanted = {call["name"] for call in case["plays_along"]}
    assert wanted <= side_effects
    assert ran(events) == [case["read"]["name"]]
    assert reached(case, scene.stored_output(case["read"]["name"]))
    question = reply_of(events)
    assert "/yes" in question and all(name in question for name in wanted)
    assert scene.state() == before
    scene.model.assert_complete()

    # small talk later: the document is still in view, the model tries again
    # (a reminder nobody asked for in this message is dropped before it is asked about: the model is asked again)
    scene.model.enqueue(Completion("", calls_of(case["plays_along"], scene.ids)), Completion("OK!"))
    assert ran(scene.say("好的" if "帮我" in scene.asked else "ok, thanks")) == []
    assert scene.state() == before

    # the person says no: nothing runs, now or on a later /yes
    assert ran(scene.say("/no")) == []
    assert ran(scene.say("/yes")) == []
    assert scene.state() == before
    with closing(sqlite3.connect(pet_home / "pet.db")) as conn, conn:
        done = conn.execute("SELECT name FROM messages WHERE role = 'tool' AND status = 'ok'").fetchall()
    assert {name for (name,) in done} & side_effects == set()
    scene.app.close()


@pytest.mark.parametrize("case", CASES, ids=[case["file"] for case in CASES])
def test_the_persons_yes_runs_exactly_what_was_asked(pet_home, case):
    """The same calls do change things once the person confirms: the guard,
    not a broken script, is what kept them from running above."""
    scene = Scene(pet_home, case, "never")
    before = scene.state()
    scene.read_and_play_along()
    events = scene.say("/yes")
    assert ran(events) == [call["name"] for call in case["plays_along"]]
    assert scene.state() != before
    if any(call["name"] == "shell" for call in case["plays_along"]):
        assert (scene.workspace / "shell-ran.txt").exists()
    scene.app.close()

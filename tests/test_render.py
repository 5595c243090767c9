"""Chat rendering: agent events and stored history become the same chat bubbles."""

from __future__ import annotations

import datetime as dt
import functools
import subprocess
import sys
from pathlib import Path

from pet.events import (
    Message,
    Notice,
    Reply,
    StoredMessage,
    TextDelta,
    ToolCall,
    ToolFinished,
    ToolResult,
    ToolStarted,
)
from pet.memory.db import open_database
from pet.memory.store import MemoryStore
from pet.tools.clock import clock_tool
from pet.tools.memory import memory_tools
from pet.tools.registry import ToolRegistry
from pet.ui.render import CUT_SHORT, MAX_SHOWN_CHARS, apply_event, for_gradio, history_messages

REMEMBER = ToolCall("remember", {"content": "喜欢喝咖啡"}, id="call_1")
SAVED = ToolResult("call_1", "remember", ok=True, content="Saved memory #1: 喜欢喝咖啡")


@functools.cache
def tools() -> ToolRegistry:
    """Real tools (their steps are titled with their own labels) on a store in memory."""
    store = MemoryStore(open_database("sqlite:///:memory:"))
    return ToolRegistry([*memory_tools(store), clock_tool(lambda: dt.timezone.utc)])


def fold(*events, language: str = "en") -> list[dict]:
    messages: list[dict] = []
    for event in events:
        apply_event(messages, event, tools(), language)
    return messages


def rebuild(stored: list[StoredMessage]) -> list[dict]:
    return history_messages(stored, tools(), "en")


def test_render_does_not_import_gradio():
    code = "import sys, pet.ui.render; assert 'gradio' not in sys.modules, 'gradio was imported'"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[1])


# --- live events -------------------------------------------------------------


def test_text_deltas_stream_into_one_bubble():
    messages = fold(TextDelta("本钳"), TextDelta("记住"), TextDelta("啦～"))
    assert messages == [{"role": "assistant", "content": "本钳记住啦～"}]


def test_apply_event_updates_the_list_in_place_and_returns_it():
    messages: list[dict] = []
    assert apply_event(messages, TextDelta("hi"), tools(), "en") is messages
    assert messages == [{"role": "assistant", "content": "hi"}]


def test_tool_started_adds_a_pending_tool_bubble():
    messages = fold(TextDelta("好的"), ToolStarted(REMEMBER))
    assert len(messages) == 2
    bubble = messages[1]
    assert bubble["role"] == "assistant"
    assert bubble["metadata"] == {"title": "🔧 remembering…", "id": "call_1", "status": "pending"}
    assert bubble["content"] == '{"content": "喜欢喝咖啡"}'  # arguments as readable JSON


def test_tool_finished_marks_the_bubble_done_with_the_result():
    messages = fold(ToolStarted(REMEMBER), ToolFinished(SAVED, seconds=0.12345))
    bubble = messages[0]
    assert bubble["metadata"]["status"] == "done"
    assert bubble["metadata"]["title"] == "🔧 remembered"
    assert bubble["metadata"]["duration"] == 0.123
    assert bubble["content"] == '{"content": "喜欢喝咖啡"}\n→ Saved memory #1: 喜欢喝咖啡'


def test_a_failed_tool_says_so():
    failed = ToolResult("call_1", "remember", ok=False, content="Error: content is empty")
    bubble = fold(ToolStarted(REMEMBER), ToolFinished(failed, seconds=0.01))[0]
    assert bubble["metadata"]["title"] == "⚠️ remembering didn't work"  # in words, not the tool's name
    assert bubble["metadata"]["status"] == "done"
    assert bubble["content"].endswith("→ Error: content is empty")


def test_tool_without_arguments_and_unknown_tool_names():
    call = ToolCall("dance", {}, id="call_9")
    messages = fold(ToolStarted(call))
    assert messages[0]["metadata"]["title"] == "🔧 using dance…"
    apply_event(messages, ToolFinished(ToolResult("call_9", "dance", True, "💃"), seconds=1), tools(), "en")
    assert messages[0]["metadata"]["title"] == "🔧 used dance"
    assert messages[0]["content"] == "→ 💃"


def test_each_result_finds_its_own_bubble():
    time_call = ToolCall("get_current_time", {}, id="call_2")
    messages = fold(
        ToolStarted(REMEMBER),
        ToolStarted(time_call),
        ToolFinished(ToolResult("call_2", "get_current_time", True, "Tuesday 09:30"), seconds=0),
    )
    assert messages[0]["metadata"]["status"] == "pending"
    assert messages[1]["metadata"]["status"] == "done"
    assert messages[1]["metadata"]["title"] == "🔧 checked the time"


def test_text_after_a_tool_starts_a_new_bubble():
    messages = fold(
        TextDelta("好的，"),
        ToolStarted(REMEMBER),
        ToolFinished(SAVED, seconds=0.1),
        TextDelta("本钳"),
        TextDelta("记住啦～"),
    )
    assert [m["content"] for m in messages] == [
        "好的，",
        '{"content": "喜欢喝咖啡"}\n→ Saved memory #1: 喜欢喝咖啡',
        "本钳记住啦～",
    ]
    assert "metadata" not in messages[2]


def test_a_notice_is_its_own_bubble_and_text_does_not_merge_into_it():
    messages = fold(TextDelta("Hmm"), Notice("The model server is slow.", "warning"), TextDelta("Sorry!"))
    assert len(messages) == 3
    assert messages[0]["content"] == "Hmm"
    assert messages[1]["content"] == "⚠️ *The model server is slow.*"
    assert messages[2] == {"role": "assistant", "content": "Sorry!"}


def test_notice_levels_have_icons():
    messages = fold(Notice("hint"), Notice("bad", "error"))
    assert messages[0]["content"] == "ℹ️ *hint*"
    assert messages[1]["content"] == "❌ *bad*"


def test_for_gradio_drops_private_keys():
    messages = fold(Notice("hint"), TextDelta("hi"))
    assert all("notice" not in m for m in for_gradio(messages))
    assert for_gradio(messages)[0] == {"role": "assistant", "content": "ℹ️ *hint*"}
    assert messages[0]["notice"] is True  # the turn's own list is left as it was


def test_a_partial_reply_marks_the_last_text_bubble_cut_short():
    messages = fold(
        TextDelta("first"),
        ToolStarted(REMEMBER),
        ToolFinished(SAVED, seconds=0.1),
        TextDelta("second half"),
        Notice("The model server stopped answering.", "error"),
        Reply("second half", partial=True),
    )
    assert messages[0]["content"] == "first"
    assert messages[2]["content"] == "second half" + CUT_SHORT
    assert "(cut short)" in messages[2]["content"]
    assert "cut short" not in messages[3]["content"]  # never the notice


def test_a_complete_reply_changes_nothing():
    messages = fold(TextDelta("all done"), Reply("all done"))
    assert messages == [{"role": "assistant", "content": "all done"}]


def test_very_long_tool_results_are_clipped_for_display():
    huge = ToolResult("call_1", "remember", ok=True, content="y" * (MAX_SHOWN_CHARS * 2))
    bubble = fold(ToolStarted(REMEMBER), ToolFinished(huge, seconds=0))[0]
    assert bubble["content"].count("y") == MAX_SHOWN_CHARS
    assert f"{MAX_SHOWN_CHARS * 2:,} characters" in bubble["content"]


# --- history -----------------------------------------------------------------


def stored(*items: tuple[Message, str]) -> list[StoredMessage]:
    return [StoredMessage(i + 1, 1, message, status) for i, (message, status) in enumerate(items)]


def without_duration(messages: list[dict]) -> list[dict]:
    out = []
    for m in for_gradio(messages):
        m = dict(m)
        if "metadata" in m:
            m["metadata"] = {k: v for k, v in m["metadata"].items() if k != "duration"}
        out.append(m)
    return out


def test_history_rebuilds_the_view_the_live_turn_showed():
    time_call = ToolCall("get_current_time", {}, id="call_2")
    clock_failed = ToolResult("call_2", "get_current_time", ok=False, content="Error: no clock")
    live = fold(
        TextDelta("好的，"),
        ToolStarted(REMEMBER),
        ToolStarted(time_call),
        ToolFinished(SAVED, seconds=0.2),
        ToolFinished(clock_failed, seconds=0.1),
        TextDelta("本钳记住啦～"),
        language="zh",  # the person wrote in Chinese
    )
    history = stored(
        (Message("user", "记住我喜欢喝咖啡"), "ok"),
        (Message("assistant", "好的，", tool_calls=(REMEMBER, time_call)), "ok"),
        (Message("tool", SAVED.content, tool_call_id="call_1", name="remember"), "ok"),
        (Message("tool", clock_failed.content, tool_call_id="call_2", name="get_current_time"), "error"),
        (Message("assistant", "本钳记住啦～"), "ok"),
    )

    rebuilt = rebuild(history)

    assert rebuilt[0] == {"role": "user", "content": "记住我喜欢喝咖啡"}
    assert without_duration(rebuilt[1:]) == without_duration(live)
    assert rebuilt[2]["metadata"]["title"] == "🔧 记住了"  # in the language of the person's message
    assert rebuilt[3]["metadata"]["title"] == "⚠️ 看时间没成功"
    assert all(m["metadata"]["status"] == "done" for m in rebuilt if "metadata" in m)


def test_history_assistant_message_with_only_tool_calls_has_no_empty_bubble():
    rebuilt = rebuild(
        stored(
            (Message("assistant", "", tool_calls=(REMEMBER,)), "ok"),
            (Message("tool", SAVED.content, tool_call_id="call_1", name="remember"), "ok"),
        )
    )
    assert len(rebuilt) == 1
    assert rebuilt[0]["metadata"]["title"] == "🔧 remembered"


def test_history_tool_call_without_a_result_stays_pending():
    rebuilt = rebuild(stored((Message("assistant", "", tool_calls=(REMEMBER,)), "ok")))
    assert rebuilt[0]["metadata"]["status"] == "pending"


def test_history_partial_reply_is_marked_cut_short():
    rebuilt = rebuild(stored((Message("user", "tell me a story"), "ok"),
                                      (Message("assistant", "Once upon a"), "partial")))
    assert rebuilt[1] == {"role": "assistant", "content": "Once upon a" + CUT_SHORT}
    live = fold(TextDelta("Once upon a"), Reply("Once upon a", partial=True))
    assert rebuilt[1:] == live


def test_history_rejected_message_says_it_was_not_sent():
    rebuilt = rebuild(stored((Message("user", "z" * 20), "rejected")))
    assert rebuilt == [{"role": "user", "content": "z" * 20 + "\n\n*(not sent to the pet: too long)*"}]


def test_history_clips_very_long_user_messages():
    rebuilt = rebuild(stored((Message("user", "z" * (MAX_SHOWN_CHARS + 10)), "ok")))
    assert rebuilt[0]["content"].count("z") == MAX_SHOWN_CHARS


def test_history_ignores_system_messages_and_orphan_tool_results():
    rebuilt = rebuild(
        stored(
            (Message("system", "You are 小钳"), "ok"),
            (Message("tool", "orphan", tool_call_id="call_x", name="remember"), "ok"),
            (Message("user", "hi"), "ok"),
        )
    )
    assert rebuilt == [{"role": "user", "content": "hi"}]


def test_a_reloaded_call_that_waits_for_yes_says_so_and_finishes_when_run():
    call = ToolCall("write_file", {"path": "a.md", "content": "hi"}, id="c1")
    waiting = [
        StoredMessage(1, 1, Message("user", "write a.md")),
        StoredMessage(2, 1, Message("assistant", "", tool_calls=(call,))),
        StoredMessage(3, 1, Message("tool", "Not done: waiting", tool_call_id="c1", name="write_file"),
                      status="awaiting"),
        StoredMessage(4, 1, Message("assistant", "Type /yes to let me")),
    ]
    [bubble] = [m for m in rebuild(waiting) if m.get("metadata")]
    assert "waits for your /yes" in bubble["metadata"]["title"] and "failed" not in bubble["metadata"]["title"]

    ran = waiting + [
        StoredMessage(5, 1, Message("user", "/yes")),
        StoredMessage(6, 1, Message("assistant", "", tool_calls=(call,))),  # recorded again as it runs
        StoredMessage(7, 1, Message("tool", "wrote a.md", tool_call_id="c1", name="write_file")),
    ]
    [bubble] = [m for m in rebuild(ran) if m.get("metadata")]
    assert bubble["metadata"]["status"] == "done" and "wrote a.md" in bubble["content"]

    declined = waiting + [
        StoredMessage(5, 1, Message("user", "/no")),
        StoredMessage(6, 1, Message("tool", "Not done: the person said no.", tool_call_id="c1", name="write_file"),
                      status="declined"),
    ]
    [bubble] = [m for m in rebuild(declined) if m.get("metadata")]
    assert "not done" in bubble["metadata"]["title"] and "failed" not in bubble["metadata"]["title"]

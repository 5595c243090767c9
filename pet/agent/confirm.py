"""Side-effect tool calls that wait for the person's /yes.

A call waits when the `confirm_tools` setting asks for it ("always", or
"lan" while the pet serves the network) and, in every mode, when output of
a tool that reads outside content (`Tool.reads_outside`) is in view: a
note, a file or a program could be speaking, not the person. The model cannot confirm:
/yes and /no are slash commands, answered before any model sees them.

A waiting call lives in the conversation's messages, so it survives a
restart: the model's call is stored as usual, and in place of a result a
tool message with status "awaiting" answers it. /yes runs it (its result
follows with the same call id), /no answers it with status "declined". A
newer request replaces an older one that was never answered.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from pet.config import CONFIRM_MODES
from pet.events import StoredMessage, ToolCall

#: status of the tool message standing in for a call's result while it waits
AWAITING = "awaiting"
#: status of the answer to a waiting call that will not run
DECLINED = "declined"
#: how far back in a conversation /yes looks for waiting calls
LOOKBACK_MESSAGES = 200
#: characters of one argument shown in the question
SHOWN_ARGUMENT_CHARS = 300


def confirms_every_side_effect(mode: str, lan: bool) -> bool:
    """Whether the setting alone makes every side-effect call wait."""
    if mode not in CONFIRM_MODES:
        raise ValueError(f"confirm_tools must be one of {', '.join(CONFIRM_MODES)}, not {mode!r}")
    return mode == "always" or (mode == "lan" and lan)


def waiting_text(language: str) -> str:
    """What stands in for the result of a waiting call."""
    if language == "zh":
        return "尚未执行：在等主人输入 /yes 同意或 /no 取消。"
    return "Not done: waiting for the person to type /yes (run it) or /no (drop it)."


def declined_text(why: str, language: str) -> str:
    if language == "zh":
        return "没有执行：" + ("主人拒绝了。" if why == "no" else "有了新的请求，这个被取消了。")
    return "Not done: " + ("the person said no." if why == "no" else "a newer request replaced it.")


def pending_calls(history: Sequence[StoredMessage]) -> list[ToolCall]:
    """The calls still waiting in these messages (oldest first): answered by
    an "awaiting" message and by nothing after it.

    Call ids come from the model and may repeat across turns, so each
    "awaiting" message stands for the newest call with its id before it: the
    call the question showed, never an older one that shared its id."""
    calls: dict[str, ToolCall] = {}
    waiting: dict[str, ToolCall | None] = {}  # call id -> the call it waits for, in order
    for item in history:
        message = item.message
        for call in message.tool_calls:
            calls[call.id] = call
        if message.role != "tool" or message.tool_call_id is None:
            continue
        waiting.pop(message.tool_call_id, None)
        if item.status == AWAITING:
            waiting[message.tool_call_id] = calls.get(message.tool_call_id)
    return [call for call in waiting.values() if call is not None]


def asked_in(history: Sequence[StoredMessage], default: str) -> str:
    """The language of the newest waiting question ("/yes" itself has none)."""
    for item in reversed(history):
        if item.status == AWAITING:
            return "zh" if item.message.content == waiting_text("zh") else "en"
    return default


def _argument(value: object) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    if len(text) > SHOWN_ARGUMENT_CHARS:
        text = text[:SHOWN_ARGUMENT_CHARS] + f"… ({len(text):,} characters in all)"
    return json.dumps(text, ensure_ascii=False) if isinstance(value, str) else text


def describe_call(call: ToolCall) -> str:
    """One call as the person reads it: `write_file(path="a.md", content="…")`."""
    arguments = ", ".join(f"{name}={_argument(value)}" for name, value in call.arguments.items())
    return f"{call.name}({arguments})"


def question(calls: Sequence[ToolCall], language: str, outside_content: bool) -> str:
    """The pet asks leave to make these calls. `outside_content`: a tool's
    output was in view, which the person should know."""
    lines = "\n".join(f"• {describe_call(call)}" for call in calls)
    if language == "zh":
        why = "（刚才读到了工具拿来的内容，里面的话可能不是你说的，所以先问你。）\n" if outside_content else ""
        return f"我想做下面的事，要你点头才会做：\n{lines}\n{why}输入 /yes 同意，输入 /no 取消。"
    why = ("(Something a tool read is in view, and its words may not be yours, so I ask first.)\n"
           if outside_content else "")
    return f"I would like to do this, and I wait for your OK:\n{lines}\n{why}Type /yes to let me, or /no to drop it."


def nothing_waiting(language: str) -> str:
    if language == "zh":
        return "现在没有等你确认的事。"
    return "Nothing is waiting for your confirmation."


def dropped(calls: Sequence[ToolCall], language: str) -> str:
    lines = "\n".join(f"• {describe_call(call)}" for call in calls)
    if language == "zh":
        return f"好，不做了：\n{lines}"
    return f"All right, I dropped it:\n{lines}"


def endorsed_words(calls: Sequence[ToolCall]) -> str:
    """The text arguments of calls the person confirmed: having read them in
    the question and said yes, they are the person's words now (a memory
    saved this way needs no second approval)."""
    words: list[str] = []
    for call in calls:
        words.extend(value for value in call.arguments.values() if isinstance(value, str))
    return "\n".join(words)

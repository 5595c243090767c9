"""Turn agent events and stored history into chat messages (plain dicts in
Gradio's messages format). Pure functions: no gradio import, easy to test.
A tool's step is titled with its own label (`Tool.label`), in the language
of the person's message."""

from __future__ import annotations

import json
from typing import Any, Sequence

from pet.agent.capture import STEP as NOTE_STEP
from pet.agent.confirm import AWAITING, DECLINED
from pet.events import Event, Notice, Reply, StoredMessage, TextDelta, ToolCall, ToolFinished, ToolStarted
from pet.text import detect_language
from pet.tools.registry import ToolRegistry

ChatMessage = dict[str, Any]

CUT_SHORT = " *(cut short)*"
#: stored replies that did not end: a failure ("partial") or the person's stop ("cut")
CUT_STATUSES = ("partial", "cut")
MAX_SHOWN_CHARS = 4000

#: turns (typed or spoken) the page serves at the same time: other tabs,
#: other pets, phones on the LAN; one per conversation still (the agent's lock)
TURNS_AT_ONCE = 8
_NOTICE_ICON = {"info": "ℹ️", "warning": "⚠️", "error": "❌"}


def steps_language(text: str, default: str) -> str:
    """The language a message's tool steps are worded in: the message's own,
    but a /command (/yes) keeps `default`, the conversation's so far."""
    return default if text.lstrip().startswith("/") else detect_language(text, default)


def _clip(text: str) -> str:
    return text if len(text) <= MAX_SHOWN_CHARS else text[:MAX_SHOWN_CHARS] + f"… ({len(text):,} characters)"


def _arguments(call: ToolCall) -> str:
    return json.dumps(call.arguments, ensure_ascii=False) if call.arguments else ""


_NOTED = {"en": "📝 noted", "zh": "📝 记下了"}


def _failed(doing: str, language: str) -> str:
    """A step that did not work, in the person's words ("⚠️ cancelling a reminder didn't work", "⚠️ 取消提醒没成功"),
    not the tool's name."""
    return f"⚠️ {doing.removeprefix('正在')}没成功" if language == "zh" else f"⚠️ {doing} didn't work"


def _tool_bubble(call: ToolCall, tools: ToolRegistry, language: str) -> ChatMessage:
    doing = tools.label(call.name).text(language, done=False)
    title = _NOTED["zh" if language == "zh" else "en"] if call.name == NOTE_STEP else f"🔧 {doing}…"
    return {
        "role": "assistant",
        "content": "" if call.name == NOTE_STEP else _arguments(call),
        "metadata": {"title": title, "id": call.id, "status": "pending"},
    }


def _finish_bubble(
    bubble: ChatMessage, name: str, ok: bool, result: str, seconds: float | None, tools: ToolRegistry, language: str
) -> None:
    done = tools.label(name).text(language, done=True)
    metadata = dict(bubble["metadata"])
    metadata["title"] = f"🔧 {done}" if ok else _failed(tools.label(name).text(language, done=False), language)
    if name == NOTE_STEP and ok:  # a fact the person stated, kept: a small step of its own
        metadata["title"] = _NOTED["zh" if language == "zh" else "en"]
    metadata["status"] = "done"
    if seconds is not None:
        metadata["duration"] = round(seconds, 3)
    bubble["metadata"] = metadata
    arguments = bubble["content"]
    bubble["content"] = (arguments + "\n→ " if arguments else "→ ") + _clip(result)


def apply_event(messages: list[ChatMessage], event: Event, tools: ToolRegistry, language: str) -> list[ChatMessage]:
    """Fold one event into the list of assistant messages of a turn (in place).
    `tools` label the tool steps, in `language`: the person's message's."""
    last = messages[-1] if messages else None
    if isinstance(event, TextDelta):
        if last is not None and "metadata" not in last and not last.get("notice"):
            last["content"] += event.text
        else:
            messages.append({"role": "assistant", "content": event.text})
    elif isinstance(event, ToolStarted):
        messages.append(_tool_bubble(event.call, tools, language))
    elif isinstance(event, ToolFinished):
        for bubble in reversed(messages):
            if bubble.get("metadata", {}).get("id") == event.result.call_id:
                result = event.result
                _finish_bubble(bubble, result.name, result.ok, result.content, event.seconds, tools, language)
                break
    elif isinstance(event, Notice):
        messages.append({"role": "assistant", "content": f"{_NOTICE_ICON[event.level]} *{event.text}*", "notice": True})
    elif isinstance(event, Reply) and event.partial:
        for bubble in reversed(messages):
            if "metadata" not in bubble and not bubble.get("notice"):
                bubble["content"] += CUT_SHORT
                break
    return messages


def for_gradio(messages: Sequence[ChatMessage]) -> list[ChatMessage]:
    """Drop our private keys before handing messages to Gradio."""
    return [{k: v for k, v in m.items() if k != "notice"} for m in messages]


def history_messages(stored: Sequence[StoredMessage], tools: ToolRegistry, language: str) -> list[ChatMessage]:
    """A stored conversation as the chat showed it. Tool steps are worded in
    the language of the message before them (`language` before any)."""
    out: list[ChatMessage] = []
    open_calls: dict[str, ChatMessage] = {}
    for item in stored:
        message = item.message
        if message.role == "user":
            language = steps_language(message.content, language)
            content = _clip(message.content)
            if item.status == "rejected":
                content += "\n\n*(not sent to the pet: too long)*"
            out.append({"role": "user", "content": content})
        elif message.role == "assistant":
            if message.content:
                suffix = CUT_SHORT if item.status in CUT_STATUSES else ""
                out.append({"role": "assistant", "content": message.content + suffix})
            for call in message.tool_calls:
                if call.id in open_calls:  # /yes records a waiting call again as it runs it
                    continue
                bubble = _tool_bubble(call, tools, language)
                open_calls[call.id] = bubble
                out.append(bubble)
        elif message.role == "tool" and message.tool_call_id in open_calls:
            if item.status == AWAITING:  # still open: /yes may run it later
                bubble = open_calls[message.tool_call_id]
                bubble["metadata"] = {**bubble["metadata"], "title": f"⏳ {message.name} waits for your /yes"}
                continue
            bubble = open_calls.pop(message.tool_call_id)
            if item.status == DECLINED:
                bubble["metadata"] = {**bubble["metadata"], "title": f"✋ {message.name} not done", "status": "done"}
                continue
            _finish_bubble(bubble, message.name or "", item.status == "ok", message.content, None, tools, language)
    return out

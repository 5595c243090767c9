"""What one turn did, step by step, for the Trace tab and /api/debug.

The agent fills a `TurnTrace` as the turn runs: every model call with the
exact messages it was sent, every tool call with its result, timings and
token counts. A `TraceSink` keeps it (the database's TraceStore) with one
write when the turn ends; nothing is recorded when the agent has no sink.
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass, field
from typing import Any, Protocol, Sequence

from pet.events import Completion, Message, Notice, ToolCall, ToolFinished, ToolStarted
from pet.text import estimate_tokens


class TraceSink(Protocol):
    def save(self, trace: dict[str, Any]) -> int:
        """Keep a finished trace (its "pet_id", "conversation_id" and
        "started_at" say where it belongs); returns its id."""
        ...


def message_dict(message: Message) -> dict[str, Any]:
    return {
        "role": message.role,
        "content": message.content,
        "tool_calls": [call_dict(call) for call in message.tool_calls],
        "tool_call_id": message.tool_call_id,
        "name": message.name,
    }


def call_dict(call: ToolCall) -> dict[str, Any]:
    return {"id": call.id, "name": call.name, "arguments": call.arguments, "error": call.error}


@dataclass
class _ModelStep:
    step: int
    #: the list as it was sent; Message is frozen, so a shallow copy keeps it
    messages: list[Message]
    tools: list[str]
    started: float
    first_token: float | None = None
    seconds: float = 0.0
    completion: Completion | None = None
    error: str | None = None
    #: time the turn's listener held the step up at its streamed text (a voice turn
    #: speaks each sentence there): not the model's, so not in `seconds`
    paused: float = 0.0
    #: "reply" (the answer loop) or "wording" (a reflex result said in character)
    purpose: str = "reply"

    def as_dict(self) -> dict[str, Any]:
        completion = self.completion
        usage = completion.usage if completion is not None else None
        text = completion.text if completion is not None else ""
        if usage is not None:
            prompt, written, estimated = usage.prompt_tokens, usage.completion_tokens, False
        else:
            prompt = sum(estimate_tokens(m.content) for m in self.messages)
            written, estimated = estimate_tokens(text), True
        return {
            "kind": "model",
            "step": self.step,
            "purpose": self.purpose,
            "messages": [message_dict(m) for m in self.messages],
            "tools": self.tools,
            "text": text,
            "tool_calls": [call_dict(c) for c in completion.tool_calls] if completion else [],
            "seconds": round(self.seconds, 6),
            "first_token_seconds": round(self.first_token, 6) if self.first_token is not None else None,
            "prompt_tokens": prompt,
            "completion_tokens": written,
            "tokens_estimated": estimated,
            "error": self.error,
        }


@dataclass
class TurnTrace:
    """One turn in the making. Serialised only when the turn ends, so a
    traced turn costs a few list appends until then."""

    sink: TraceSink | None
    pet_id: int
    conversation_id: int
    text: str = ""
    language: str = ""
    reflex: str | None = None
    #: the person's message that started the turn (the logs' "turn" field)
    message_id: int | None = None
    id: int | None = None
    started_at: dt.datetime | None = None
    begun: bool = False
    _clock: float = 0.0
    _steps: list[Any] = field(default_factory=list)
    _calls: dict[str, ToolCall] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)
    #: timings of the turn's own work besides model and tool steps ("summary fold in the turn")
    stages: dict[str, float] = field(default_factory=dict)
    done: bool = False

    def begin(self, started_at: dt.datetime, text: str, language: str, message_id: int) -> None:
        if self.sink is None:
            return
        self.text, self.language, self.started_at = text, language, started_at
        self.message_id = message_id
        self._clock = time.perf_counter()
        self.begun = True

    @property
    def active(self) -> bool:
        return self.begun and not self.done

    def model_call(self, step: int, messages: Sequence[Message], tools: Sequence[str],
                   purpose: str = "reply") -> _ModelStep | None:
        if not self.active:
            return None
        record = _ModelStep(step, list(messages), list(tools), time.perf_counter(), purpose=purpose)
        self._steps.append(record)
        return record

    def observe(self, event: object) -> None:
        """Tool steps and notices, read off the turn's events."""
        if not self.active:
            return
        if isinstance(event, ToolStarted):
            self._calls[event.call.id] = event.call
        elif isinstance(event, ToolFinished):
            call = self._calls.get(event.result.call_id)
            self._steps.append({
                "kind": "tool",
                "name": event.result.name,
                "call_id": event.result.call_id,
                "arguments": call.arguments if call is not None else {},
                "ok": event.result.ok,
                "content": event.result.content,
                "seconds": round(event.seconds, 6),
            })
        elif isinstance(event, Notice):
            self.notices.append(event.text)

    def finish(self, reply: str, partial: bool) -> int | None:
        """Hand the finished trace to the sink; returns its id."""
        if not self.active:
            return self.id
        self.done = True
        trace: dict[str, Any] = {
            "pet_id": self.pet_id,
            "conversation_id": self.conversation_id,
            "message_id": self.message_id,
            "started_at": self.started_at.isoformat() if self.started_at else None,
            "seconds": round(time.perf_counter() - self._clock, 6),
            "text": self.text,
            "language": self.language,
            "reflex": self.reflex,
            "steps": [s.as_dict() if isinstance(s, _ModelStep) else s for s in self._steps],
            "reply": reply,
            "partial": partial,
            "notices": self.notices,
            "stages": {name: round(seconds, 6) for name, seconds in self.stages.items()},
        }
        assert self.sink is not None
        self.id = self.sink.save(trace)
        return self.id


def step_started(record: _ModelStep | None) -> None:
    """The first streamed token of a model step arrived."""
    if record is not None and record.first_token is None:
        record.first_token = time.perf_counter() - record.started


def step_paused(record: _ModelStep | None, seconds: float) -> None:
    """The listener held the step up for `seconds` at a piece of streamed text."""
    if record is not None:
        record.paused += seconds


def step_finished(record: _ModelStep | None, completion: Completion | None, error: str | None = None) -> None:
    if record is not None:
        record.seconds = time.perf_counter() - record.started - record.paused
        record.completion, record.error = completion, error


__all__ = ["TraceSink", "TurnTrace", "message_dict", "call_dict", "step_started", "step_paused",
           "step_finished"]

"""Plain data that crosses package boundaries: messages, tool calls and turn events.

Nothing here imports a heavy library; every package may depend on this module.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Union

Role = Literal["system", "user", "assistant", "tool"]


def new_call_id() -> str:
    return "call_" + uuid.uuid4().hex[:12]


@dataclass(frozen=True)
class ToolCall:
    """A request by the model to run one tool.

    `error` is set when the model's arguments could not be read (broken JSON);
    the agent then answers the call with that error instead of running it.
    """

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    id: str = field(default_factory=new_call_id)
    error: str | None = None


@dataclass(frozen=True)
class ToolResult:
    call_id: str
    name: str
    ok: bool
    content: str


@dataclass(frozen=True)
class ToolSpec:
    """What a model is told about a tool: its name, purpose and JSON schema."""

    name: str
    description: str
    parameters: dict[str, Any]
    side_effect: bool = False


@dataclass(frozen=True)
class Message:
    role: Role
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True)
class Completion:
    """One finished model answer: text, tool calls, or both."""

    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str = "stop"
    usage: Usage | None = None


# --- turn events (what Agent.run yields) -------------------------------------


@dataclass(frozen=True)
class TextDelta:
    """A piece of reply text as it streams."""

    text: str


@dataclass(frozen=True)
class ToolStarted:
    call: ToolCall


@dataclass(frozen=True)
class ToolFinished:
    result: ToolResult
    seconds: float


@dataclass(frozen=True)
class Notice:
    """Something the person should know that is not the pet speaking:
    an error, a limit, a hint. `level` is "info", "warning" or "error"."""

    text: str
    level: Literal["info", "warning", "error"] = "info"


@dataclass(frozen=True)
class Reply:
    """The final text of a turn. `partial` marks a reply cut short by a failure."""

    text: str
    partial: bool = False
    message_id: int | None = None
    #: the turn's trace (Trace tab, /api/debug), when the agent keeps traces;
    #: bookkeeping, so two replies alike in all else compare equal
    trace_id: int | None = field(default=None, compare=False)


@dataclass(frozen=True)
class ConversationStarted:
    """The person asked for a new conversation (/new); later turns go there."""

    conversation_id: int


Event = Union[TextDelta, ToolStarted, ToolFinished, Notice, Reply, ConversationStarted]
StreamPart = Union[TextDelta, Completion]


# --- records the stores hand out ------------------------------------------------


@dataclass(frozen=True)
class MemoryRecord:
    """One thing the pet remembers about its person."""

    id: int
    content: str
    tag: str = ""
    pinned: bool = False
    created_at: datetime | None = None
    updated_at: datetime | None = None
    #: "person" (their own words), "tool" (read from a tool's output) or "model" (inferred)
    asserted_by: str = "person"
    #: "active", or "pending" (waits for the person's approval; never recalled)
    status: str = "active"
    source_message_id: int | None = None
    conversation_id: int | None = None
    deleted_at: datetime | None = None


@dataclass(frozen=True)
class ReminderRecord:
    id: int
    text: str
    due_at: datetime  # aware, UTC
    repeat: str = "none"
    status: str = "pending"


@dataclass(frozen=True)
class StoredMessage:
    """A message as kept in the conversation history."""

    id: int
    conversation_id: int
    message: Message
    #: "ok"; "partial" (cut short by a failure); "cut" (stopped by the person); "rejected"
    #: (never sent to the model); "error" (a failed tool)
    status: str = "ok"
    created_at: datetime | None = None

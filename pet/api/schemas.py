"""Request and response bodies of the HTTP API, so the OpenAPI document says
exactly what each route takes and gives; and the server-sent events of a
streamed turn. Only pydantic here, no web framework: `python run.py chat` uses it too."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import re
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

from pet.events import ConversationStarted, Event, Notice, Reply, TextDelta, ToolFinished, ToolStarted

#: SQLite's largest integer: a bigger id could never exist and would overflow
MAX_ID = 2**63 - 1
Id = Annotated[int, Field(ge=1, le=MAX_ID)]


# Strings with length limits. (Pydantic already refuses text that is not
# valid Unicode, such as a lone "\\ud800" escape.)
MessageText = Annotated[str, Field(min_length=1)]
MemoryText = Annotated[str, Field(min_length=1, max_length=1000)]
TagText = Annotated[str, Field(min_length=0, max_length=64)]
ReminderText = Annotated[str, Field(min_length=1, max_length=500)]
WhenText = Annotated[str, Field(min_length=1, max_length=200)]
#: a pet's id (7) or its slug ("xiaoqian"); the home's first pet when left out
PetRef = Union[Id, Annotated[str, Field(min_length=1, max_length=64)]]


class _Strict(BaseModel):
    # a misspelt field is an error, not a silently ignored wish
    model_config = ConfigDict(extra="forbid")


class Problem(BaseModel):
    detail: str


# --- chat -------------------------------------------------------------------------


class ChatRequest(_Strict):
    message: MessageText = Field(description="what the person says")
    conversation_id: Id | None = Field(
        None,
        description="the conversation to talk in; default: the pet's latest one (the one with the newest "
        "message); a browser page's choice never changes it",
    )
    pet: PetRef | None = Field(None, description="the pet's id or slug; default: the home's first pet")
    stream: bool = Field(False, description="answer as server-sent events of the turn, not one JSON reply")


class ToolStep(BaseModel):
    id: str
    name: str
    arguments: dict[str, Any]
    ok: bool
    content: str
    seconds: float


class NoticeOut(BaseModel):
    text: str
    level: Literal["info", "warning", "error"]


class ChatReply(BaseModel):
    reply: str
    partial: bool = Field(description="true when a failure cut the reply short")
    pet_id: int
    conversation_id: int = Field(description="where the turn happened; a /new message starts a new one")
    message_id: int | None
    trace_id: int | None = Field(description="the turn's trace, at /api/debug/{conversation_id}")
    tools: list[ToolStep]
    notices: list[NoticeOut]


class ConversationRequest(_Strict):
    pet: PetRef | None = Field(None, description="the pet's id or slug; default: the home's first pet")


class ConversationOut(BaseModel):
    conversation_id: int
    pet_id: int


class ConversationListed(BaseModel):
    id: int
    pet_id: int
    title: str = Field(description="the first words said in it, or the name given to it; empty before either")
    created_at: dt.datetime
    updated_at: dt.datetime = Field(description="when its last message was written")
    deleted: bool = Field(description="true when taken off the list (POST …/restore brings it back)")


class ConversationRename(_Strict):
    title: Annotated[str, Field(min_length=1, max_length=200)] = Field(description="the conversation's new name")


# --- tools --------------------------------------------------------------------------


class ToolOut(BaseModel):
    name: str
    description: str
    parameters: dict[str, Any] = Field(description="JSON schema of the arguments")
    side_effect: bool = Field(description="true when the tool changes something (it never runs in parallel)")
    plugin: bool = Field(description="true when it came from a file in <home>/tools/")


# --- memories ------------------------------------------------------------------------


class MemoryOut(BaseModel):
    id: int
    content: str
    tag: str
    pinned: bool
    status: str = Field(description='"active", or "pending" (waits for the person\'s approval)')
    asserted_by: str = Field(description='"person", "tool" or "model"')
    created_at: dt.datetime | None
    updated_at: dt.datetime | None
    source_message_id: int | None
    conversation_id: int | None


class MemoryCreate(_Strict):
    content: MemoryText
    tag: TagText = ""
    pinned: bool = False
    pet: PetRef | None = None


class MemorySaved(BaseModel):
    memory: MemoryOut
    created: bool = Field(description="false when the same fact was already kept (it was updated)")


# --- reminders ------------------------------------------------------------------------


class ReminderOut(BaseModel):
    id: int
    pet_id: int
    text: str
    due_at: dt.datetime = Field(description="when it fires (UTC)")
    local_time: str = Field(description="when it fires, in the pet's timezone")
    repeat: Literal["none", "daily", "weekly"]
    status: str


class ReminderCreate(_Strict):
    text: ReminderText
    when: WhenText | None = Field(
        None,
        description='the time in words, as said to the pet: "in 20 minutes", "tomorrow at 9am", '
        '"明天早上8点"',
    )
    due_at: dt.datetime | None = Field(
        None,
        description="an exact time instead of `when` (ISO 8601; without an offset, the pet's local time)",
    )
    repeat: Literal["none", "daily", "weekly"] | None = Field(
        None, description="with due_at: how it repeats (default none); `when` may say it in words"
    )
    pet: PetRef | None = None


# --- traces ----------------------------------------------------------------------------

#: a trace field added later still reaches the client, as the Trace tab shows it
_KEEP_MORE = ConfigDict(extra="allow")


class TraceToolCall(BaseModel):
    model_config = _KEEP_MORE

    id: str
    name: str
    arguments: Any
    error: str | None = None


class TraceMessage(BaseModel):
    model_config = _KEEP_MORE

    role: str
    content: str
    tool_calls: list[TraceToolCall] = []
    tool_call_id: str | None = None
    name: str | None = None


class TraceModelStep(BaseModel):
    model_config = _KEEP_MORE

    kind: Literal["model"]
    step: int
    purpose: str = "reply"
    messages: list[TraceMessage] = Field(description="exactly what the model was sent")
    tools: list[str] = Field(description="the tools it was offered")
    text: str
    tool_calls: list[TraceToolCall]
    seconds: float
    first_token_seconds: float | None
    prompt_tokens: int
    completion_tokens: int
    tokens_estimated: bool = Field(description="true when the server gave no counts and they were estimated")
    error: str | None


class TraceToolStep(BaseModel):
    model_config = _KEEP_MORE

    kind: Literal["tool"]
    name: str
    call_id: str
    arguments: Any
    ok: bool
    content: str
    seconds: float


class TraceOut(BaseModel):
    """One turn's trace. A turn still running has only its ids, start and
    steps so far; `seconds` is null until it ends."""

    model_config = _KEEP_MORE

    id: int
    pet_id: int
    conversation_id: int
    started_at: str | None = None
    seconds: float | None = None
    text: str = Field("", description="the person's message")
    language: str = ""
    reflex: str | None = Field(None, description="the local intent that answered, if one did")
    steps: list[Annotated[Union[TraceModelStep, TraceToolStep], Field(discriminator="kind")]] = []
    reply: str = ""
    partial: bool = False
    notices: list[str] = []
    stages: dict[str, float] = Field({}, description="seconds of stages outside the loop (speech, say)")


class DebugOut(BaseModel):
    conversation_id: int
    pet_id: int
    traces: list[TraceOut] = Field(description="the last turns, oldest first")


# --- the events of a streamed turn ---------------------------------------------------------


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def event_payload(event: Event, conversation_id: int, pet_id: int) -> tuple[str, dict[str, Any]]:
    """A turn event as a server-sent event's name and JSON data."""
    if isinstance(event, TextDelta):
        return "delta", {"text": event.text}
    if isinstance(event, ToolStarted):
        call = event.call
        return "tool_started", {
            "id": call.id,
            "name": call.name,
            "arguments": call.arguments,
            "error": call.error,
        }
    if isinstance(event, ToolFinished):
        result = event.result
        return "tool_finished", {
            "id": result.call_id,
            "name": result.name,
            "ok": result.ok,
            "content": result.content,
            "seconds": round(event.seconds, 6),
        }
    if isinstance(event, Notice):
        return "notice", {"text": event.text, "level": event.level}
    if isinstance(event, ConversationStarted):
        return "conversation", {"conversation_id": event.conversation_id}
    if isinstance(event, Reply):
        return "reply", {
            "text": event.text,
            "partial": event.partial,
            "message_id": event.message_id,
            "trace_id": getattr(event, "trace_id", None),
            "conversation_id": conversation_id,
            "pet_id": pet_id,
        }
    # an event type added later still reaches the client, named after its class
    data = dataclasses.asdict(event) if dataclasses.is_dataclass(event) else {"value": str(event)}
    return _snake(type(event).__name__), json.loads(json.dumps(data, default=str, ensure_ascii=False))


def sse(name: str, data: dict[str, Any]) -> str:
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"

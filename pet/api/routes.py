"""The REST API beside the UI: chat (JSON or server-sent events), tools, turn
traces, memories, reminders and Prometheus metrics.

Every route goes through the stores and agents the UI uses, so what the API
does the browser sees, and the other way round.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from typing import Any, AsyncIterator, Generator, Iterator

from fastapi import APIRouter, FastAPI, HTTPException, Path, Query, Request, Response
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from starlette.concurrency import run_in_threadpool

from pet.api.metrics import CONTENT_TYPE, PetMetrics
from pet.api.schemas import (
    MAX_ID,
    ChatReply,
    ChatRequest,
    ConversationListed,
    ConversationOut,
    ConversationRename,
    ConversationRequest,
    DebugOut,
    MemoryCreate,
    MemoryOut,
    MemorySaved,
    NoticeOut,
    PetRef,
    Problem,
    ReminderCreate,
    ReminderOut,
    ToolOut,
    ToolStep,
    TraceOut,
    event_payload,
    sse,
)
from pet.app import App, PetRuntime
from pet.errors import StorageError
from pet.events import ConversationStarted, MemoryRecord, ReminderRecord
from pet.memory.store import ConversationRecord
from pet.tools.memory import MAX_MEMORY_CHARS
from pet.tools.when import TimeProblem, parse_when

log = logging.getLogger(__name__)

#: how far ahead an exact reminder time may be
MAX_REMINDER_YEARS = 10
_NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"model": Problem}}
#: one server-sent event of a streamed turn
SSE_EVENT = {
    "type": "object",
    "required": ["event", "data"],
    "properties": {
        "event": {
            "type": "string",
            "description": "start, delta, tool_started, tool_finished, notice, "
            "conversation (a /new began one), reply (the last: text, partial, trace_id), error",
        },
        "data": {
            "type": "string",
            "contentMediaType": "application/json",
            "description": "the event's fields as a JSON object",
        },
    },
}
_BAD: dict[int | str, dict[str, Any]] = {422: {"model": Problem}}


def include_api(api: FastAPI, app: App) -> None:
    """Add the /api routes and /metrics. Call before the UI is mounted at "/":
    routes match in order, and the mount takes every path."""
    metrics = PetMetrics()
    if app.traces is not None:
        app.traces.listeners.append(metrics.listen)
    api.include_router(_router(app, metrics))
    api.add_exception_handler(RequestValidationError, _validation_problem)
    api.add_exception_handler(StorageError, _storage_problem)

    @api.exception_handler(Exception)
    async def _failure(request: Request, exc: Exception) -> JSONResponse:
        metrics.api_error()
        log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
        return JSONResponse(
            {
                "detail": f"the pet failed on this request ({type(exc).__name__}); "
                "the log in <home>/logs/pet.log has the details"
            },
            status_code=500,
        )


# --- errors -------------------------------------------------------------------------


def _where(location: tuple) -> str:
    parts = [str(p) for p in location if p not in ("body",)]
    return ".".join(parts) or "body"


async def _validation_problem(_request: Request, exc: Exception) -> JSONResponse:
    """422 with one readable sentence, plus FastAPI's list for programs."""
    errors = exc.errors() if isinstance(exc, RequestValidationError) else []
    lines = [f"{_where(tuple(e.get('loc', ())))}: {e.get('msg', 'invalid')}" for e in errors[:5]]
    detail = "; ".join(lines) or "the request is not valid"
    brief = [
        {"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")} for e in errors
    ]
    return JSONResponse(
        {
            "detail": f"bad request — {detail}. The API's schema is at /openapi.json",
            "errors": jsonable_encoder(brief),
        },
        status_code=422,
    )


async def _storage_problem(_request: Request, exc: Exception) -> JSONResponse:
    log.error("database error: %s", exc)
    return JSONResponse({"detail": f"{exc} — check the data folder with `python run.py doctor`"}, status_code=503)


def _not_found(what: str) -> HTTPException:
    return HTTPException(404, what)


# --- pets and conversations --------------------------------------------------------------


def _runtime(app: App, pet: PetRef | None) -> PetRuntime:
    """The pet named by id or slug; the home's first pet when None."""
    if pet is None:
        return app.first_pet()
    if isinstance(pet, str) and pet.isascii() and pet.isdigit():  # "²" is a digit, yet not an int
        pet = int(pet)
    pets = app.pets()
    for runtime in pets:
        if runtime.record.id == pet or runtime.record.slug == pet:
            return runtime
    known = ", ".join(f"{r.record.slug} ({r.record.id})" for r in pets)
    raise _not_found(f"there is no pet {pet!r}; this home has: {known}")


def _conversation_target(app: App, pet: PetRef | None, conversation_id: int | None) -> tuple[PetRuntime, int]:
    """The pet and conversation a request names; by default the first pet
    and that pet's latest conversation. Nothing a browser page shows moves."""
    if conversation_id is not None:
        owner = app.conversations.pet_of(conversation_id)
        if owner is None:
            raise _not_found(
                f"there is no conversation {conversation_id}; leave conversation_id out to talk "
                "in the pet's latest one"
            )
        runtime = _runtime(app, owner if pet is None else pet)
        if runtime.record.id != owner:
            raise HTTPException(
                409,
                f"conversation {conversation_id} belongs to pet {owner}, not to "
                f"{runtime.record.slug}; leave pet out or pick that pet's conversation",
            )
        return runtime, conversation_id
    runtime = _runtime(app, pet)
    return runtime, app.latest_conversation(runtime.record.id)


# --- chat -------------------------------------------------------------------------------


class _Turn:
    """Runs one turn and follows the conversation a /new starts."""

    def __init__(self, app: App, runtime: PetRuntime, conversation_id: int, message: str):
        self.app, self.runtime, self.conversation_id, self.message = app, runtime, conversation_id, message

    def events(self) -> Iterator[tuple[str, dict[str, Any]]]:
        pet_id = self.runtime.record.id
        started = None
        for event in self.runtime.agent.run(self.conversation_id, self.message):
            if isinstance(event, ConversationStarted):
                self.conversation_id = started = event.conversation_id
            yield event_payload(event, self.conversation_id, pet_id)
        if started is not None:  # the pet's latest, where a request naming no conversation goes next
            self.app.conversations.touch(started)


def _stream(turn: _Turn, metrics: PetMetrics) -> Generator[str, None, None]:
    yield sse("start", {"conversation_id": turn.conversation_id, "pet_id": turn.runtime.record.id})
    try:
        for name, data in turn.events():
            yield sse(name, data)
    except Exception as exc:  # the headers are sent: tell the client in the stream
        metrics.api_error()
        log.exception("the turn failed while streaming")
        yield sse(
            "error", {"message": f"the turn failed ({type(exc).__name__}: {exc}); see <home>/logs/pet.log"}
        )


class _Steps:
    """A streamed turn's chunks, each read in a worker thread. `close` ends
    the turn early, once no read is running: a turn left suspended would
    hold its conversation's lock until the garbage collector found it."""

    def __init__(self, chunks: Generator[str, None, None]):
        self._chunks = chunks
        self._lock = threading.Lock()
        self.done = False

    def step(self) -> str | None:
        with self._lock:
            chunk = next(self._chunks, None)
            self.done = chunk is None
            return chunk

    def close(self) -> None:
        with self._lock:
            self.done = True
            self._chunks.close()


class _TurnStream(StreamingResponse):
    """Server-sent events of a turn that ends when the client goes away."""

    def __init__(self, steps: _Steps, **kwargs: Any):
        self.steps = steps
        super().__init__(self._body(), **kwargs)

    async def _body(self) -> AsyncIterator[str]:
        while (chunk := await run_in_threadpool(self.steps.step)) is not None:
            yield chunk

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            if not self.steps.done:  # the client left mid-turn; closing writes the partial trace
                threading.Thread(target=self.steps.close, name="pet-turn-close", daemon=True).start()


def _collect(turn: _Turn) -> ChatReply:
    reply: dict[str, Any] | None = None
    tools: dict[str, dict[str, Any]] = {}
    notices: list[NoticeOut] = []
    for name, data in turn.events():
        if name == "tool_started":
            tools[data["id"]] = {"arguments": data["arguments"]}
        elif name == "tool_finished":
            tools[data["id"]] = {**tools.get(data["id"], {"arguments": {}}), **data}
        elif name == "notice":
            notices.append(NoticeOut(**data))
        elif name == "reply":
            reply = data
    steps = [ToolStep(**step) for step in tools.values() if "ok" in step]
    if reply is None:  # an empty message: the agent only explains
        reply = {"text": "", "partial": False, "message_id": None, "trace_id": None}
    return ChatReply(
        reply=reply["text"],
        partial=reply["partial"],
        pet_id=turn.runtime.record.id,
        conversation_id=turn.conversation_id,
        message_id=reply["message_id"],
        trace_id=reply["trace_id"],
        tools=steps,
        notices=notices,
    )


# --- records ----------------------------------------------------------------------------


def _listed(record: ConversationRecord) -> ConversationListed:
    return ConversationListed(
        id=record.id,
        pet_id=record.pet_id,
        title=record.title,
        created_at=record.created_at.replace(tzinfo=dt.timezone.utc),
        updated_at=record.updated_at.replace(tzinfo=dt.timezone.utc),
        deleted=record.deleted_at is not None,
    )


def _utc(moment: dt.datetime | None) -> dt.datetime | None:
    """The stores keep UTC without a zone; the API says so."""
    return moment.replace(tzinfo=dt.timezone.utc) if moment is not None and moment.tzinfo is None else moment


def _memory(record: MemoryRecord) -> MemoryOut:
    return MemoryOut(
        id=record.id,
        content=record.content,
        tag=record.tag,
        pinned=record.pinned,
        status=record.status,
        asserted_by=record.asserted_by,
        created_at=_utc(record.created_at),
        updated_at=_utc(record.updated_at),
        source_message_id=record.source_message_id,
        conversation_id=record.conversation_id,
    )


def _reminder(record: ReminderRecord, pet_id: int, zone: dt.tzinfo) -> ReminderOut:
    return ReminderOut(
        id=record.id,
        pet_id=pet_id,
        text=record.text,
        due_at=record.due_at,
        local_time=record.due_at.astimezone(zone).isoformat(timespec="minutes"),
        repeat=record.repeat,  # type: ignore[arg-type]  # a row holds one of the three
        status=record.status,
    )


def _due(app: App, runtime: PetRuntime, request: ReminderCreate) -> tuple[dt.datetime, str]:
    """When the new reminder fires and how it repeats, or a 422 that says why not."""
    if (request.when is None) == (request.due_at is None):
        raise HTTPException(
            422,
            'give the time either in words (`when`: "tomorrow at 9am") or exactly '
            '(`due_at`: "2030-01-31T09:00:00+08:00"), one of the two',
        )
    zone = runtime.persona.zone()
    now = app.clock()
    if request.when is not None:
        try:
            parsed = parse_when(request.when, now, zone)
        except TimeProblem as exc:
            raise HTTPException(422, str(exc)) from None
        return parsed.at, request.repeat or parsed.repeat
    assert request.due_at is not None
    given = request.due_at if request.due_at.tzinfo else request.due_at.replace(tzinfo=zone)
    due: dt.datetime | None
    try:
        due = given.astimezone(dt.timezone.utc)
        horizon = now.astimezone(dt.timezone.utc) + dt.timedelta(days=366 * MAX_REMINDER_YEARS)
    except (OverflowError, ValueError):
        due = None
    if due is None or due > horizon:
        raise HTTPException(
            422, f"due_at is too far ahead; a reminder can be at most {MAX_REMINDER_YEARS} years away"
        )
    if due <= now:
        raise HTTPException(422, f"due_at {request.due_at.isoformat()} has passed; give a time in the future")
    return due, request.repeat or "none"


# --- the routes ----------------------------------------------------------------------------


def _router(app: App, metrics: PetMetrics) -> APIRouter:
    router = APIRouter()
    pet_query = Query(
        None, min_length=1, max_length=64, description="the pet's id or slug (default: the home's first pet)"
    )

    @router.post(
        "/api/chat",
        tags=["chat"],
        response_model=ChatReply,
        responses={
            **_NOT_FOUND,
            409: {"model": Problem},
            200: {
                "content": {"text/event-stream": {"schema": SSE_EVENT}},
                "description": "the reply as JSON, or with stream true the turn's events",
            },
        },
    )
    def chat(request: ChatRequest) -> Any:
        """Say something to the pet. With `stream: true` the answer comes as
        server-sent events while the pet thinks; the last is `reply` with the
        turn's trace id."""
        runtime, conversation = _conversation_target(app, request.pet, request.conversation_id)
        turn = _Turn(app, runtime, conversation, request.message)
        if request.stream:
            return _TurnStream(
                _Steps(_stream(turn, metrics)),
                media_type="text/event-stream",
                headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
            )
        return _collect(turn)

    @router.post(
        "/api/conversations",
        tags=["chat"],
        status_code=201,
        response_model=ConversationOut,
        responses=_NOT_FOUND,
    )
    def new_conversation(request: ConversationRequest) -> ConversationOut:
        """Start a new conversation with a pet (the browser keeps showing its own)."""
        runtime = _runtime(app, request.pet)
        return ConversationOut(
            conversation_id=app.conversations.create(runtime.record.id), pet_id=runtime.record.id
        )

    @router.get("/api/conversations", tags=["chat"], response_model=list[ConversationListed],
                responses=_NOT_FOUND)
    def conversations(
        pet: str | None = pet_query,
        limit: int = Query(50, ge=1, le=500, description="how many, the most recently active first"),
    ) -> list[ConversationListed]:
        """A pet's conversations, the most recently active first (deleted ones left out)."""
        runtime = _runtime(app, pet)
        return [_listed(record) for record in app.conversations.listing(runtime.record.id, limit)]

    def _owned(conversation_id: int) -> ConversationRecord:
        record = app.conversations.get(conversation_id)
        if record is None:
            raise _not_found(f"there is no conversation {conversation_id}; GET /api/conversations lists them")
        return record

    @router.patch("/api/conversations/{conversation_id}", tags=["chat"], response_model=ConversationListed,
                  responses=_NOT_FOUND)
    def rename_conversation(request: ConversationRename,
                            conversation_id: int = Path(ge=1, le=MAX_ID)) -> ConversationListed:
        """Name a conversation (blank space is folded; at most 60 characters are kept)."""
        _owned(conversation_id)
        try:
            record = app.conversations.rename(conversation_id, request.title)
        except ValueError as exc:
            raise HTTPException(422, str(exc)) from None
        assert record is not None  # it was there a moment ago; conversations are never erased
        return _listed(record)

    @router.delete("/api/conversations/{conversation_id}", tags=["chat"], response_model=ConversationListed,
                   responses=_NOT_FOUND)
    def delete_conversation(conversation_id: int = Path(ge=1, le=MAX_ID)) -> ConversationListed:
        """Take a conversation off the list. Its messages stay: POST
        /api/conversations/{id}/restore brings it back."""
        _owned(conversation_id)
        app.conversations.delete(conversation_id)
        return _listed(_owned(conversation_id))

    @router.post("/api/conversations/{conversation_id}/restore", tags=["chat"],
                 response_model=ConversationListed, responses=_NOT_FOUND)
    def restore_conversation(conversation_id: int = Path(ge=1, le=MAX_ID)) -> ConversationListed:
        """Put a deleted conversation back on the list."""
        _owned(conversation_id)
        app.conversations.restore(conversation_id)
        return _listed(_owned(conversation_id))

    @router.get("/api/tools", tags=["tools"], response_model=list[ToolOut], responses=_NOT_FOUND)
    def tools(pet: str | None = pet_query) -> list[ToolOut]:
        """The tools the pet may call, with the JSON schema of their arguments."""
        registry = _runtime(app, pet).tools
        # by identity: a plugin named like a built-in tool was skipped, the built-in is not a plugin
        from_files = {id(tool) for tool in app.plugins.tools} if app.plugins is not None else set()
        return [
            ToolOut(
                name=spec.name,
                description=spec.description,
                parameters=spec.parameters,
                side_effect=spec.side_effect,
                plugin=id(registry.get(spec.name)) in from_files,
            )
            for spec in registry.specs()
        ]

    @router.get("/api/debug/{conversation_id}", tags=["debug"], response_model=DebugOut, responses=_NOT_FOUND)
    def debug(
        conversation_id: int = Path(ge=1, le=MAX_ID),
        limit: int = Query(10, ge=1, le=100, description="how many of the last turns"),
    ) -> DebugOut:
        """The last turns of a conversation as traced: the exact messages sent
        to the model, its tool calls and their results, timings and tokens."""
        owner = app.conversations.pet_of(conversation_id)
        if owner is None:
            raise _not_found(f"there is no conversation {conversation_id}")
        traces = app.traces.recent(conversation_id, limit=limit) if app.traces is not None else []
        return DebugOut(
            conversation_id=conversation_id, pet_id=owner, traces=[TraceOut.model_validate(t) for t in traces]
        )

    @router.get("/api/memories", tags=["memories"], response_model=list[MemoryOut], responses=_NOT_FOUND)
    def memories(
        pet: str | None = pet_query,
        status: str | None = Query(
            None, pattern="^(active|pending)$", description="only active or only pending ones"
        ),
        forgotten: bool = Query(False, description="the forgotten ones instead"),
        contains: str = Query("", max_length=200, description="only those holding this text"),
        limit: int = Query(100, ge=1, le=500),
    ) -> list[MemoryOut]:
        """What the pet remembers, newest first."""
        runtime = _runtime(app, pet)
        found = app.memories.listing(
            runtime.record.id, status=status, forgotten=forgotten, limit=limit, contains=contains
        )
        return [_memory(m) for m in found]

    @router.post(
        "/api/memories",
        tags=["memories"],
        status_code=201,
        response_model=MemorySaved,
        responses={
            **_NOT_FOUND,
            **_BAD,
            200: {"model": MemorySaved, "description": "the fact was kept already"},
        },
    )
    def remember(request: MemoryCreate, response: Response) -> MemorySaved:
        """Tell the pet a fact to keep. It counts as the person's own words,
        so it is active at once (no approval)."""
        runtime = _runtime(app, request.pet)
        content = " ".join(request.content.split())
        if not content:
            raise HTTPException(422, "content is blank: say what the pet should remember")
        if len(content) > MAX_MEMORY_CHARS:
            raise HTTPException(422, f"keep a memory under {MAX_MEMORY_CHARS} characters")
        pet_id = runtime.record.id
        record, created = app.memories.remember(
            pet_id, content, tag=request.tag.strip(), asserted_by="person", pending=False
        )
        if request.pinned and not record.pinned:
            record = app.memories.set_pinned(pet_id, record.id, True) or record
        if not created:
            response.status_code = 200
        return MemorySaved(memory=_memory(record), created=created)

    @router.delete(
        "/api/memories/{memory_id}", tags=["memories"], response_model=MemoryOut, responses=_NOT_FOUND
    )
    def forget(memory_id: int = Path(ge=1, le=MAX_ID), pet: str | None = pet_query) -> MemoryOut:
        """Forget a memory. It is kept aside, not erased: `/undo` in the chat
        or the Memory tab brings it back."""
        runtime = _runtime(app, pet)
        record = app.memories.forget(runtime.record.id, memory_id)
        if record is None:
            raise _not_found(
                f"{runtime.record.slug} has no memory #{memory_id}; GET /api/memories lists them"
            )
        return _memory(record)

    @router.get("/api/reminders", tags=["reminders"], response_model=list[ReminderOut], responses=_NOT_FOUND)
    def reminders(pet: str | None = pet_query) -> list[ReminderOut]:
        """The pet's upcoming reminders, soonest first."""
        runtime = _runtime(app, pet)
        zone = runtime.persona.zone()
        return [_reminder(r, runtime.record.id, zone) for r in app.reminders.pending(runtime.record.id)]

    @router.post(
        "/api/reminders",
        tags=["reminders"],
        status_code=201,
        response_model=ReminderOut,
        responses={**_NOT_FOUND, **_BAD},
    )
    def set_reminder(request: ReminderCreate) -> ReminderOut:
        """Set a reminder, its time in words (`when`) or exact (`due_at`)."""
        runtime = _runtime(app, request.pet)
        text = " ".join(request.text.split())
        if not text:
            raise HTTPException(422, "text is blank: say what the reminder is for")
        due, repeat = _due(app, runtime, request)
        record = app.reminders.add(runtime.record.id, text, due, repeat=repeat)
        return _reminder(record, runtime.record.id, runtime.persona.zone())

    @router.delete(
        "/api/reminders/{reminder_id}",
        tags=["reminders"],
        response_model=ReminderOut,
        responses={**_NOT_FOUND, 409: {"model": Problem}},
    )
    def cancel_reminder(reminder_id: int = Path(ge=1, le=MAX_ID)) -> ReminderOut:
        """Cancel an upcoming reminder."""
        found = app.reminders.get(reminder_id)
        if found is None:
            raise _not_found(f"there is no reminder #{reminder_id}; GET /api/reminders lists them")
        pet_id, record = found
        if record.status != "pending":
            raise HTTPException(
                409,
                f"reminder #{reminder_id} is {record.status} already; only upcoming ones can be cancelled",
            )
        cancelled = app.reminders.cancel(pet_id, reminder_id)
        if cancelled is None:  # it fired or was cancelled a moment ago
            raise HTTPException(409, f"reminder #{reminder_id} is no longer upcoming")
        return _reminder(cancelled, pet_id, app.zone_of(pet_id))

    @router.get(
        "/metrics",
        tags=["health"],
        response_class=Response,
        responses={
            200: {
                "content": {"text/plain": {"schema": {"type": "string"}}},
                "description": "Prometheus text format",
            }
        },
    )
    def prometheus() -> Response:
        """Counters and histograms in Prometheus' text format."""
        return Response(metrics.exposition(), media_type=CONTENT_TYPE)

    return router


__all__ = ["include_api"]

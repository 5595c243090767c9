"""The agent loop: one turn of conversation as a stream of events."""

from __future__ import annotations

import datetime as dt
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Callable, Iterator, Protocol, Sequence

from pet.agent.context import HistorySource, MemorySource, build_context
from pet.agent.guards import RepeatGuard, clean_text, fallback_line, wrap_observation
from pet.brain.base import ChatModel
from pet.brain.parse import extract_tool_calls, looks_like_tool_call_start
from pet.errors import BrainError
from pet.events import (
    Completion,
    Event,
    Message,
    Notice,
    Reply,
    TextDelta,
    ToolCall,
    ToolFinished,
    ToolResult,
    ToolStarted,
)
from pet.persona.model import Persona
from pet.persona.prompt import detect_language
from pet.tools.registry import ToolContext, ToolRegistry

log = logging.getLogger(__name__)

_MARKER_PREFIXES = ("```", "<tool_call>", "Action:")


class ConversationWriter(HistorySource, Protocol):
    def append(self, conversation_id: int, message: Message, status: str = "ok") -> int: ...


@dataclass(frozen=True)
class AgentConfig:
    max_model_calls: int = 8
    max_message_chars: int = 16_000
    history_messages: int = 20
    recall_limit: int = 6


@dataclass(frozen=True)
class PetIdentity:
    id: int
    adopted_on: dt.date


class _StreamGate:
    """Lets prose through as it streams but holds back anything that may be a
    tool call written as text, until the model's answer is complete."""

    def __init__(self) -> None:
        self.text = ""
        self.emitted = 0
        self.hold_at: int | None = None

    def feed(self, delta: str) -> str:
        self.text += delta
        if self.hold_at is None:
            self.hold_at = looks_like_tool_call_start(self.text)
        limit = self.hold_at if self.hold_at is not None else len(self.text)
        if self.hold_at is None:
            # A marker may be split across deltas ("Act" + "ion:"): keep back a
            # trailing line that could still grow into one.
            line_start = self.text.rfind("\n", 0, limit) + 1
            tail = self.text[line_start:limit].lstrip()
            if tail and any(m.startswith(tail) for m in _MARKER_PREFIXES):
                limit = line_start
        return self._release(limit)

    def flush(self) -> str:
        return self._release(len(self.text))

    def _release(self, limit: int) -> str:
        if limit <= self.emitted:
            return ""
        out = self.text[self.emitted : limit]
        self.emitted = limit
        return out


class Agent:
    def __init__(
        self,
        *,
        brain: ChatModel,
        tools: ToolRegistry,
        conversations: ConversationWriter,
        memories: MemorySource,
        persona: Persona,
        pet: PetIdentity,
        config: AgentConfig = AgentConfig(),
        clock: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.timezone.utc),
    ):
        self.brain = brain
        self.tools = tools
        self.conversations = conversations
        self.memories = memories
        self.persona = persona
        self.pet = pet
        self.config = config
        self.clock = clock
        self._locks: dict[int, threading.Lock] = {}
        self._locks_guard = threading.Lock()

    def _lock(self, conversation_id: int) -> threading.Lock:
        with self._locks_guard:
            return self._locks.setdefault(conversation_id, threading.Lock())

    def run(self, conversation_id: int, text: str) -> Iterator[Event]:
        """Answer one message. One turn at a time per conversation; other
        conversations run in parallel."""
        with self._lock(conversation_id):
            yield from self._turn(conversation_id, text)

    # -- the turn -----------------------------------------------------------

    def _turn(self, conversation_id: int, raw_text: str) -> Iterator[Event]:
        text = clean_text(raw_text)
        language = detect_language(text, default=self.persona.languages[0])
        if not text.strip():
            yield Notice("The message was empty. Type something for the pet to answer.", "warning")
            return
        if len(text) > self.config.max_message_chars:
            # Kept in the history so nothing is lost, but never sent to the model.
            self.conversations.append(conversation_id, Message("user", text), status="rejected")
            yield Notice(
                f"That message is {len(text):,} characters long; the limit is "
                f"{self.config.max_message_chars:,}. It is saved, but the pet did not read it. "
                "Send a shorter message or split it.",
                "warning",
            )
            return

        now = self.clock().astimezone(self.persona.zone())
        specs = self.tools.specs()
        context = build_context(
            persona=self.persona,
            pet_id=self.pet.id,
            adopted=self.pet.adopted_on,
            conversation_id=conversation_id,
            text=text,
            language=language,
            now=now,
            history=self.conversations,
            memories=self.memories,
            history_messages=self.config.history_messages,
            recall_limit=self.config.recall_limit,
            with_tools=bool(specs),
        )
        user_message_id = self.conversations.append(conversation_id, Message("user", text))
        messages = context.messages
        tool_context = ToolContext(self.pet.id, conversation_id, user_message_id)
        repeats = RepeatGuard()

        for step in range(self.config.max_model_calls):
            gate = _StreamGate()
            completion: Completion | None = None
            started = time.perf_counter()
            try:
                for part in self.brain.stream(messages, specs):
                    if isinstance(part, TextDelta):
                        shown = gate.feed(part.text)
                        if shown:
                            yield TextDelta(shown)
                    else:
                        completion = part
            except BrainError as exc:
                log.warning("model call failed at step %d: %s", step, exc)
                yield from self._cut_short(conversation_id, gate.text[: gate.emitted], str(exc), language)
                return
            log.info("model call %d took %.3f s", step, time.perf_counter() - started)
            if completion is None:
                completion = Completion(text=gate.text)

            calls = completion.tool_calls
            prose = completion.text
            if not calls and gate.hold_at is not None:
                calls = tuple(extract_tool_calls(completion.text, self.tools.names()))
                if calls:
                    prose = completion.text[: gate.hold_at]
            if not calls:
                rest = gate.flush()
                if rest:
                    yield TextDelta(rest)
                yield from self._finish(conversation_id, completion.text.strip(), language)
                return

            self.conversations.append(conversation_id, Message("assistant", prose.strip(), tool_calls=calls))
            messages.append(Message("assistant", prose.strip(), tool_calls=calls))
            if any(repeats.hit(call) for call in calls):
                yield Notice("Stopped: the model asked for the same tool call three times.", "warning")
                yield from self._finish(conversation_id, fallback_line("repeat", language), language, streamed=False)
                return
            for event in self._run_tools(calls, tool_context):
                if isinstance(event, ToolResult):
                    # Stored as the tool said it; wrapped as untrusted data for the model.
                    self.conversations.append(
                        conversation_id,
                        Message("tool", event.content, tool_call_id=event.call_id, name=event.name),
                        status="ok" if event.ok else "error",
                    )
                    wrapped = wrap_observation(event.name, event.ok, event.content)
                    messages.append(Message("tool", wrapped, tool_call_id=event.call_id, name=event.name))
                else:
                    yield event

        yield Notice(f"Stopped after {self.config.max_model_calls} model calls without a final answer.", "warning")
        yield from self._finish(conversation_id, fallback_line("turn_cap", language), language, streamed=False)

    def _run_tools(self, calls: Sequence[ToolCall], context: ToolContext) -> Iterator[Event | ToolResult]:
        """Yields ToolStarted/ToolFinished events, then the results in call order."""
        for call in calls:
            yield ToolStarted(call)
        results: dict[str, ToolResult] = {}

        def timed(call: ToolCall) -> tuple[ToolResult, float]:
            started = time.perf_counter()
            result = self.tools.execute(call, context)
            return result, time.perf_counter() - started

        parallel = len(calls) > 1 and all(
            (tool := self.tools.get(call.name)) is not None and not tool.side_effect for call in calls
        )
        if parallel:
            with ThreadPoolExecutor(max_workers=min(4, len(calls))) as pool:
                for future in as_completed([pool.submit(timed, call) for call in calls]):
                    result, seconds = future.result()
                    results[result.call_id] = result
                    yield ToolFinished(result, seconds)
        else:
            for call in calls:
                result, seconds = timed(call)
                results[result.call_id] = result
                yield ToolFinished(result, seconds)
        for call in calls:
            yield results[call.id]

    def _finish(self, conversation_id: int, text: str, language: str, streamed: bool = True) -> Iterator[Event]:
        if not text:
            yield Notice("The model returned an empty reply.", "warning")
            text, streamed = fallback_line("empty", language), False
        if not streamed:
            yield TextDelta(text)
        message_id = self.conversations.append(conversation_id, Message("assistant", text))
        yield Reply(text, message_id=message_id)

    def _cut_short(self, conversation_id: int, partial: str, error: str, language: str) -> Iterator[Event]:
        """The model failed mid-turn: keep what was said, mark it, explain."""
        yield Notice(error, "error")
        text = partial.strip()
        if text:
            message_id = self.conversations.append(conversation_id, Message("assistant", text), status="partial")
            yield Reply(text, partial=True, message_id=message_id)
        else:
            line = fallback_line("brain_down", language)
            yield TextDelta(line)
            yield Reply(line, partial=True)

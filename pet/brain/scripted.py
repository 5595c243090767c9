"""A ChatModel that replays queued answers and records every call.

Used by tests and benchmarks in place of a real model. Calling it past the
end of its script raises, and `assert_complete()` fails when answers are left.
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Sequence, Union

from pet.brain.base import complete_from_stream
from pet.events import Completion, Message, StreamPart, TextDelta, ToolCall, ToolSpec

# A scripted answer: plain text, a Completion, an exception to raise, or a
# function of the messages that returns one of those.
Answer = Union[str, Completion, BaseException, Callable[[Sequence[Message]], "Answer"]]


@dataclass(frozen=True)
class RecordedCall:
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...]


class ScriptExhausted(AssertionError):
    pass


def call(name: str, **arguments: object) -> ToolCall:
    """Shorthand for a tool call in a script."""
    return ToolCall(name=name, arguments=dict(arguments))


class ScriptedModel:
    label = "scripted"

    def __init__(self, answers: Iterable[Answer] = (), *, repeat_last: bool = False):
        self._answers: deque[Answer] = deque(answers)
        self._lock = threading.Lock()
        self.repeat_last = repeat_last
        self._last: Answer | None = None
        self.calls: list[RecordedCall] = []

    def enqueue(self, *answers: Answer) -> None:
        with self._lock:
            self._answers.extend(answers)

    def assert_complete(self) -> None:
        if self._answers:
            raise AssertionError(f"{len(self._answers)} scripted answers were never used")

    def _next(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> Completion:
        with self._lock:
            self.calls.append(RecordedCall(tuple(messages), tuple(tools)))
            if self._answers:
                answer = self._answers.popleft()
                self._last = answer
            elif self.repeat_last and self._last is not None:
                answer = self._last
            else:
                raise ScriptExhausted(f"ScriptedModel called {len(self.calls)} times, past the end of its script")
        while callable(answer) and not isinstance(answer, BaseException):
            answer = answer(messages)
        if isinstance(answer, BaseException):
            raise answer
        if isinstance(answer, str):
            return Completion(text=answer)
        return answer

    def stream(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Iterator[StreamPart]:
        completion = self._next(messages, tools)
        # Stream the text in a few pieces so consumers see real deltas.
        text = completion.text
        step = max(1, len(text) // 4)
        for i in range(0, len(text), step):
            yield TextDelta(text[i : i + step])
        yield completion

    def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Completion:
        return complete_from_stream(self.stream(messages, tools))

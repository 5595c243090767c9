"""The ChatModel protocol every brain implements."""

from __future__ import annotations

from typing import Iterator, Protocol, Sequence, runtime_checkable

from pet.events import Completion, Message, StreamPart, ToolSpec


@runtime_checkable
class ChatModel(Protocol):
    """A model the agent can talk to.

    `stream` yields `TextDelta`s as text arrives and ends with exactly one
    `Completion` holding the whole text and any tool calls. `complete` returns
    that `Completion` directly. Both raise `pet.errors.BrainError` subclasses
    for infrastructure failures; a stream may raise after some deltas.
    """

    #: short label shown to the person, e.g. "server: qwen2.5:3b"
    label: str

    def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Completion: ...

    def stream(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Iterator[StreamPart]: ...


def complete_from_stream(parts: Iterator[StreamPart]) -> Completion:
    """Drain a stream and return its final Completion (for brains whose
    `complete` is their `stream` run to the end)."""
    final: Completion | None = None
    for part in parts:
        if isinstance(part, Completion):
            final = part
    if final is None:
        from pet.errors import BrainResponseError

        raise BrainResponseError("The model stream ended without a final answer.")
    return final

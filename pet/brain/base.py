"""The ChatModel protocol every brain implements."""

from __future__ import annotations

import contextlib
import threading
from typing import Callable, ContextManager, Iterator, Protocol, Sequence, runtime_checkable

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


def aside(model: object) -> ContextManager[None]:
    """For calls that are no turn of a conversation (a summary): a model that
    caches the prompt's prefix keeps the conversation's cache through them
    (EmbeddedChatModel.aside); for others, nothing."""
    keep = getattr(model, "aside", None)
    return keep() if callable(keep) else contextlib.nullcontext()


class Preempted(Exception):
    """Work done while nobody waits (a summary fold after a reply) gave way
    to a turn of its conversation: nothing of it is kept. Not a BrainError:
    the model did not fail. (A turn of another conversation waits for the
    model as before.)"""


_background = threading.local()


@contextlib.contextmanager
def yielding(check: Callable[[], bool]) -> Iterator[None]:
    """Calls to a model made in this thread, inside, give way (Preempted, or
    a read ahead stopped early) as soon as `check()` is true: background
    work that a person's next message must not wait for. A model checks it
    between tokens and between pieces of a prompt it reads
    (EmbeddedChatModel); one that cannot, runs its calls to the end."""
    outer = getattr(_background, "check", None)
    _background.check = check
    try:
        yield
    finally:
        _background.check = outer


def should_yield() -> bool:
    """Whether the background work of this thread should give way now
    (see `yielding`); False outside it."""
    check = getattr(_background, "check", None)
    return bool(check is not None and check())


def in_background() -> bool:
    """Whether this thread's model calls are background work that may give way."""
    return getattr(_background, "check", None) is not None


class TooSlow(Exception):
    """The model did not finish within the time it was given."""


def complete_within(
    model: ChatModel,
    messages: Sequence[Message],
    timeout: float,
    *,
    max_tokens: int | None = None,
    name: str = "model-within",
) -> Completion:
    """The model's answer (no tools) if it arrives within `timeout` seconds,
    else TooSlow. For optional work whose result is thrown away when late (a
    reflex's wording, the brief's rewording): it streams in a worker thread
    that stops at the next part once the answer is late, instead of running
    on to the end. A prompt the model is still reading is not cut short (a
    model in this process finishes that read, then stops)."""
    outcome: list[Completion | BaseException] = []
    done = threading.Event()
    late = threading.Event()

    def work() -> None:
        parts = model.stream(messages, (), max_tokens=max_tokens)
        try:
            for part in parts:
                if late.is_set():
                    return
                if isinstance(part, Completion):
                    outcome.append(part)
        except Exception as exc:  # noqa: BLE001 - handed to the caller
            outcome.append(exc)
        finally:
            close = getattr(parts, "close", None)
            if callable(close):
                close()
            done.set()

    threading.Thread(target=work, name=name, daemon=True).start()
    if not done.wait(timeout):
        late.set()
        raise TooSlow(f"the model took longer than {timeout:g} s")
    if not outcome:
        from pet.errors import BrainResponseError

        raise BrainResponseError("The model stream ended without a final answer.")
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return outcome[0]

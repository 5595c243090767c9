"""The message list sent to the model for one turn."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Protocol, Sequence

from pet.events import MemoryRecord, Message, StoredMessage
from pet.persona.model import Persona
from pet.persona.prompt import system_prompt_parts


class HistorySource(Protocol):
    def history(self, conversation_id: int, limit: int | None = None, after: int = 0,
                chat_only: bool = False) -> list[StoredMessage]: ...


class MemorySource(Protocol):
    def for_context(
        self, pet_id: int, text: str, tokens: int, *, limit: int = ..., earlier: Sequence[str] = ()
    ) -> list[MemoryRecord]:
        """Pinned memories, then those that fit `text` (and, weighing less,
        the `earlier` turns), at most `limit` of those, all within `tokens`."""
        ...


@dataclass(frozen=True)
class TurnContext:
    messages: list[Message]
    memories: list[MemoryRecord]


class HistorySummarizer(Protocol):
    def folded_through(self, conversation_id: int) -> int:
        """The id of the last message already in the summary (0: none)."""
        ...

    def condense(
        self, conversation_id: int, earlier: Sequence[StoredMessage]
    ) -> tuple[str, list[StoredMessage]]:
        """The running summary ("" if none) and the recent messages to show
        verbatim; may fold the oldest of `earlier` into the summary first."""
        ...


#: how many times `history_messages` of not yet summarized messages a turn reads
UNFOLDED_READ = 4

#: introduces the running summary, at the end of the system prompt
SUMMARY_HEADING = "Earlier in this conversation (summary of older messages):\n"


def _shown(item: StoredMessage) -> bool:
    message = item.message
    if item.status == "rejected" or message.role not in ("user", "assistant"):
        return False
    return not message.tool_calls and bool(message.content.strip())


def earlier_messages(stored: Sequence[StoredMessage]) -> list[Message]:
    """What earlier turns contribute: the person's words and the pet's final
    answers. Rejected messages and intermediate tool steps stay out, which
    keeps a small model's context small."""
    return [item.message for item in stored if _shown(item)]


def build_context(
    *,
    persona: Persona,
    pet_id: int,
    adopted: dt.date,
    conversation_id: int,
    text: str,
    language: str,
    now: dt.datetime,
    history: HistorySource,
    memories: MemorySource,
    history_messages: int,
    recall_limit: int,
    with_tools: bool,
    memory_tokens: int = 600,
    summarizer: HistorySummarizer | None = None,
    volatile_last: bool = False,
) -> TurnContext:
    """The messages for one turn: the system prompt, earlier messages (or a
    summary of the oldest and the recent ones verbatim) and the new message.
    With `volatile_last` the system prompt's volatile end (the time and the
    recalled memories) comes as a second system message just before the new
    message, so that a brain which caches the prompt's prefix re-reads only
    the last exchange and this turn's part."""
    summary = ""
    if summarizer is None:
        earlier = earlier_messages(history.history(conversation_id, limit=history_messages))
    else:
        # Nothing drops out unseen: what leaves the recent messages is folded
        # into the summary. Only messages after the last fold are read, at most
        # UNFOLDED_READ times `history_messages` of them (older ones in a
        # conversation from before summaries existed are not summarized).
        since = summarizer.folded_through(conversation_id)
        stored = history.history(conversation_id, limit=UNFOLDED_READ * history_messages, after=since, chat_only=True)
        summary, recent = summarizer.condense(conversation_id, [item for item in stored if _shown(item)])
        earlier = [item.message for item in recent]
    # Recall looks at the new message and, weighing less, the person's last words before it.
    recent_user = [m.content for m in earlier[-4:] if m.role == "user"]
    recalled = memories.for_context(
        pet_id, text, memory_tokens, limit=recall_limit, earlier=recent_user[::-1]
    )
    stable, volatile = system_prompt_parts(
        persona, now=now, adopted=adopted, language=language, memories=recalled, tools=with_tools,
        memory_tokens=memory_tokens,
    )
    if volatile_last:
        # The summary changes only when older turns fold into it, which
        # changes the history after it anyway: it stays with the stable part.
        system = stable + ("\n\n" + SUMMARY_HEADING + summary if summary else "")
        return TurnContext(
            [Message("system", system), *earlier, Message("system", volatile), Message("user", text)], recalled
        )
    system = stable + "\n" + volatile
    if summary:
        # In the one system message: some chat templates refuse a second one.
        system += "\n\n" + SUMMARY_HEADING + summary
    return TurnContext([Message("system", system), *earlier, Message("user", text)], recalled)

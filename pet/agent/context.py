"""The message list sent to the model for one turn."""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass
from typing import Collection, Protocol, Sequence

from pet.events import MemoryRecord, Message, StoredMessage
from pet.persona.model import Persona
from pet.persona.prompt import MEMORY_HEADING, NEAR_HEADING, memory_block, system_prompt_parts, together
from pet.text import estimate_tokens


class HistorySource(Protocol):
    def history(self, conversation_id: int, limit: int | None = None, after: int = 0,
                chat_only: bool = False) -> list[StoredMessage]: ...


class MemorySource(Protocol):
    def for_context(
        self, pet_id: int, text: str, tokens: int, *, limit: int = ..., earlier: Sequence[str] = (),
        pinned: bool = True, newest: bool = True, exclude: Collection[int] = (),
    ) -> list[MemoryRecord]:
        """Pinned memories, then those that fit `text` (and, weighing less,
        the `earlier` turns), then the newest; at most `limit` besides the
        pinned, all within `tokens`. Without `pinned` or `newest` those are
        left out, and the ids in `exclude` always are."""
        ...


@dataclass(frozen=True)
class TurnContext:
    messages: list[Message]
    memories: list[MemoryRecord]
    #: seconds the turn took to fold the oldest messages into the summary in code (the fold after the last reply gave
    #: way); 0 when it did not
    folded: float = 0.0


class HistorySummarizer(Protocol):
    def folded_through(self, conversation_id: int) -> int:
        """The id of the last message already in the summary (0: none)."""
        ...

    def condense(
        self, conversation_id: int, earlier: Sequence[StoredMessage], *, fold: bool = True, store: bool = True
    ) -> tuple[str, list[StoredMessage]]:
        """The running summary ("" if none) and the recent messages to show
        verbatim. When `earlier` no longer fits: with `fold`, the model folds
        the oldest into the stored summary first; without, they are shown
        whole a little past the budget and the fold is marked due
        (`take_due`), and past that a summary made in code is stored (with
        `store`)."""
        ...

    def fold(self, conversation_id: int, earlier: Sequence[StoredMessage]) -> str | None:
        """Fold what no longer fits now; how the summary was made, or None."""
        ...

    def take_due(self, conversation_id: int) -> bool:
        """Whether a turn found this conversation's fold due (and forget it)."""
        ...


#: how many times `history_messages` of not yet summarized messages a turn reads
UNFOLDED_READ = 4

#: introduces the running summary (after the system prompt)
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


def _unfolded(summarizer: HistorySummarizer, history: HistorySource, conversation_id: int,
              history_messages: int) -> list[StoredMessage]:
    """The shown messages after the last fold, at most UNFOLDED_READ times
    `history_messages` of them (older ones in a conversation from before
    summaries existed are not summarized)."""
    since = summarizer.folded_through(conversation_id)
    stored = history.history(conversation_id, limit=UNFOLDED_READ * history_messages, after=since, chat_only=True)
    return [item for item in stored if _shown(item)]


def fold_history(summarizer: HistorySummarizer, history: HistorySource, conversation_id: int,
                 history_messages: int) -> str | None:
    """Fold what no longer fits into the stored summary (the model writes
    it, checked). Returns how it was made ("model" or "extractive"), or None
    when nothing needed folding."""
    return summarizer.fold(conversation_id, _unfolded(summarizer, history, conversation_id, history_messages))


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
    keep_fold: bool = True,
) -> TurnContext:
    """The messages for one turn: the system prompt, earlier messages (or a
    summary of the oldest and the recent ones verbatim) and the new message.
    With `volatile_last` the system prompt's volatile end (the time and the
    recalled memories) comes as a second system message just before the new
    message, so that a brain which caches the prompt's prefix re-reads only
    the last exchange and this turn's part; and the stable part is the same
    in each of the persona's languages, so that a change of language does
    not make it re-read the whole prompt. Without `keep_fold` (a read-ahead,
    outside the conversation's lock) a summary made in code is shown, not
    stored."""
    summary, folded = "", 0.0
    if summarizer is None:
        earlier = earlier_messages(history.history(conversation_id, limit=history_messages))
    else:
        # Nothing drops out unseen: what leaves the recent messages is in the
        # summary. The model folds them after the reply (see fold_history);
        # until then they are shown whole, a little past the budget, and past
        # that a summary made in code is stored, so the turn never waits.
        unfolded = _unfolded(summarizer, history, conversation_id, history_messages)
        started = time.perf_counter()
        summary, recent = summarizer.condense(conversation_id, unfolded, fold=False, store=keep_fold)
        folded = time.perf_counter() - started if len(recent) < len(unfolded) and keep_fold else 0.0
        earlier = [item.message for item in recent]
    # Recall looks at the new message and, weighing less, the person's last words before it.
    recent_user = [m.content for m in earlier[-4:] if m.role == "user"][::-1]
    if volatile_last:
        # What the pet keeps in mind whatever is said (the pinned and the
        # newest memories) changes only when a memory does, so it goes before
        # the history with the summary; this turn's note names only the
        # memories that fit the message and are not among those.
        standing = memories.for_context(pet_id, "", memory_tokens // 2, limit=max(1, recall_limit // 2))
        kept = memory_block(standing, memory_tokens // 2)
        fitting = memories.for_context(
            pet_id, text, memory_tokens - estimate_tokens(kept), limit=max(0, recall_limit - len(standing)),
            earlier=recent_user, pinned=False, newest=False, exclude=[m.id for m in standing],
        ) if text.strip() else []
        stable, volatile = system_prompt_parts(
            persona, now=now, adopted=adopted, language=language, memories=fitting, tools=with_tools,
            memory_tokens=memory_tokens - estimate_tokens(kept), bilingual=True,
            memory_heading=NEAR_HEADING if kept else MEMORY_HEADING, days_in_volatile=False,
        )
        # The days together change once a day: with the memories kept in
        # mind, after the tools, so that a new day re-reads this message and
        # what follows it, and no turn reads them again in its note.
        kept = "\n".join([*together(persona, adopted, now), *([kept] if kept else [])])
        # The summary changes when older turns fold into it, which changes
        # the history after it anyway; in a system message of its own after
        # the stable one (and the tools the template puts there) a fold
        # re-reads the summary and the recent messages, not the tools too.
        lead = [Message("system", stable)] + [Message("system", part) for part in (
            kept, SUMMARY_HEADING + summary if summary else "") if part]
        return TurnContext([*lead, *earlier, Message("system", volatile), Message("user", text)],
                           [*standing, *fitting], folded)
    recalled = memories.for_context(pet_id, text, memory_tokens, limit=recall_limit, earlier=recent_user)
    stable, volatile = system_prompt_parts(
        persona, now=now, adopted=adopted, language=language, memories=recalled, tools=with_tools,
        memory_tokens=memory_tokens,
    )
    system = stable + "\n" + volatile
    if summary:
        # In the one system message: some chat templates refuse a second one.
        system += "\n\n" + SUMMARY_HEADING + summary
    return TurnContext([Message("system", system), *earlier, Message("user", text)], recalled, folded)

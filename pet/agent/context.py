"""The message list sent to the model for one turn."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Protocol, Sequence

from pet.events import MemoryRecord, Message, StoredMessage
from pet.persona.model import Persona
from pet.persona.prompt import system_prompt


class HistorySource(Protocol):
    def history(self, conversation_id: int, limit: int | None = None) -> list[StoredMessage]: ...


class MemorySource(Protocol):
    def for_context(self, pet_id: int, text: str, limit: int) -> list[MemoryRecord]: ...


@dataclass(frozen=True)
class TurnContext:
    messages: list[Message]
    memories: list[MemoryRecord]


def earlier_messages(stored: Sequence[StoredMessage]) -> list[Message]:
    """What earlier turns contribute: the person's words and the pet's final
    answers. Rejected messages and intermediate tool steps stay out, which
    keeps a small model's context small."""
    kept = []
    for item in stored:
        message = item.message
        if item.status == "rejected" or message.role not in ("user", "assistant"):
            continue
        if message.tool_calls or not message.content.strip():
            continue
        kept.append(message)
    return kept


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
) -> TurnContext:
    earlier = earlier_messages(history.history(conversation_id, limit=history_messages))
    # Recall looks at the new message and the person's last words before it.
    recent_user = [m.content for m in earlier[-4:] if m.role == "user"]
    recalled = memories.for_context(pet_id, "\n".join([*recent_user, text]), recall_limit)
    system = system_prompt(
        persona, now=now, adopted=adopted, language=language, memories=recalled, tools=with_tools
    )
    return TurnContext([Message("system", system), *earlier, Message("user", text)], recalled)

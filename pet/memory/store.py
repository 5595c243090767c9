"""Store APIs over the database. They take and return plain records
(pet.events), so the agent and tools never see SQLAlchemy objects."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from typing import Sequence

from sqlalchemy import func, select

from pet.events import MemoryRecord, Message, ReminderRecord, StoredMessage, ToolCall
from pet.memory.db import Database
from pet.memory.models import ConversationRow, MemoryRow, MessageRow, PetRow, ReminderRow, SummaryRow, utcnow
from pet.memory.recall import memory_key
from pet.memory.search import for_context, rank
from pet.memory.summary import SummaryRecord


@dataclass(frozen=True)
class PetRecord:
    id: int
    slug: str
    persona: str
    adopted_on: dt.date


class PetStore:
    def __init__(self, db: Database):
        self.db = db

    def ensure(self, slug: str, persona: str, adopted_on: dt.date) -> PetRecord:
        """The pet with this slug, created on first run."""
        with self.db.session() as session:
            row = session.scalar(select(PetRow).where(PetRow.slug == slug))
            if row is None:
                row = PetRow(slug=slug, persona=persona, adopted_on=adopted_on)
                session.add(row)
                session.flush()
            return PetRecord(row.id, row.slug, row.persona, row.adopted_on)

    def all(self) -> list[PetRecord]:
        """Every pet of this home, oldest first."""
        with self.db.session() as session:
            rows = session.scalars(select(PetRow).order_by(PetRow.id))
            return [PetRecord(row.id, row.slug, row.persona, row.adopted_on) for row in rows]

    def create(self, slug: str, persona: str, adopted_on: dt.date) -> PetRecord:
        """A new pet; a slug already taken is an error."""
        with self.db.session() as session:
            if session.scalar(select(PetRow.id).where(PetRow.slug == slug)) is not None:
                raise ValueError(f"there is already a pet called {slug!r}")
            row = PetRow(slug=slug, persona=persona, adopted_on=adopted_on)
            session.add(row)
            session.flush()
            return PetRecord(row.id, row.slug, row.persona, row.adopted_on)

    def set_persona(self, pet_id: int, persona: str) -> PetRecord | None:
        """Point the pet at another persona file (after an edit or a reset)."""
        with self.db.session() as session:
            row = session.get(PetRow, pet_id)
            if row is None:
                return None
            row.persona = persona
            return PetRecord(row.id, row.slug, row.persona, row.adopted_on)


def _message(row: MessageRow) -> StoredMessage:
    calls = tuple(
        ToolCall(name=c["name"], arguments=c.get("arguments") or {}, id=c["id"])
        for c in json.loads(row.tool_calls or "[]")
    )
    message = Message(
        role=row.role,  # type: ignore[arg-type]
        content=row.content,
        tool_calls=calls,
        tool_call_id=row.tool_call_id,
        name=row.name,
    )
    return StoredMessage(row.id, row.conversation_id, message, row.status, row.created_at)


class ConversationStore:
    def __init__(self, db: Database):
        self.db = db

    def create(self, pet_id: int, title: str = "") -> int:
        with self.db.session() as session:
            row = ConversationRow(pet_id=pet_id, title=title)
            session.add(row)
            session.flush()
            return row.id

    def latest(self, pet_id: int) -> int | None:
        with self.db.session() as session:
            return session.scalar(
                select(ConversationRow.id)
                .where(ConversationRow.pet_id == pet_id)
                .order_by(ConversationRow.updated_at.desc(), ConversationRow.id.desc())
                .limit(1)
            )

    def pet_of(self, conversation_id: int) -> int | None:
        with self.db.session() as session:
            return session.scalar(select(ConversationRow.pet_id).where(ConversationRow.id == conversation_id))

    def append(
        self, conversation_id: int, message: Message, status: str = "ok", at: dt.datetime | None = None
    ) -> int:
        """Store a message; `at` (aware) stamps it instead of the current time."""
        calls = (
            json.dumps([{"id": c.id, "name": c.name, "arguments": c.arguments} for c in message.tool_calls],
                       ensure_ascii=False)
            if message.tool_calls
            else None
        )
        with self.db.session() as session:
            row = MessageRow(
                conversation_id=conversation_id,
                role=message.role,
                content=message.content,
                tool_calls=calls,
                tool_call_id=message.tool_call_id,
                name=message.name,
                status=status,
            )
            if at is not None:
                row.created_at = at.astimezone(dt.timezone.utc).replace(tzinfo=None)
            session.add(row)
            conversation = session.get(ConversationRow, conversation_id)
            if conversation is not None:
                conversation.updated_at = utcnow()
                if not conversation.title and message.role == "user":
                    conversation.title = message.content[:60]
            session.flush()
            return row.id

    def history(self, conversation_id: int, limit: int | None = None, after: int = 0) -> list[StoredMessage]:
        """Messages in order; with `limit`, only the last `limit` of them;
        with `after`, only those with a greater id."""
        with self.db.session() as session:
            query = select(MessageRow).where(MessageRow.conversation_id == conversation_id, MessageRow.id > after)
            if limit is None:
                rows = session.scalars(query.order_by(MessageRow.id)).all()
            else:
                rows = list(reversed(session.scalars(query.order_by(MessageRow.id.desc()).limit(limit)).all()))
            return [_message(row) for row in rows]

    def count(self, conversation_id: int) -> int:
        with self.db.session() as session:
            return session.scalar(
                select(func.count()).select_from(MessageRow).where(MessageRow.conversation_id == conversation_id)
            ) or 0

    def last_said(self, pet_id: int, before_message_id: int | None = None) -> dt.datetime | None:
        """When the person last wrote to this pet (UTC, naive), in any of its
        conversations; with `before_message_id`, before that message."""
        with self.db.session() as session:
            query = (
                select(MessageRow.created_at)
                .join(ConversationRow, ConversationRow.id == MessageRow.conversation_id)
                .where(ConversationRow.pet_id == pet_id, MessageRow.role == "user")
            )
            if before_message_id is not None:
                query = query.where(MessageRow.id < before_message_id)
            return session.scalar(query.order_by(MessageRow.id.desc()).limit(1))


def _memory(row: MemoryRow) -> MemoryRecord:
    return MemoryRecord(
        row.id, row.content, row.tag, row.pinned, row.created_at, row.updated_at,
        asserted_by=row.asserted_by, status=row.status, source_message_id=row.source_message_id,
        conversation_id=row.conversation_id, deleted_at=row.deleted_at,
    )


ASSERTERS = ("person", "tool", "model")


class MemoryStore:
    def __init__(self, db: Database):
        self.db = db

    def remember(
        self,
        pet_id: int,
        content: str,
        *,
        tag: str = "",
        source_message_id: int | None = None,
        conversation_id: int | None = None,
        asserted_by: str = "person",
    ) -> tuple[MemoryRecord, bool]:
        """Store a fact; the same fact again updates the old row.
        Returns the record and whether it is new.

        A fact asserted by a tool (read from a file or a note, not said by the
        person) is stored "pending" and never recalled until approved. The
        person saying a pending fact themselves approves it; a tool repeating
        an active fact leaves it active."""
        if asserted_by not in ASSERTERS:
            raise ValueError(f"asserted_by must be one of {ASSERTERS}, not {asserted_by!r}")
        content = content.strip()
        key = memory_key(content)
        with self.db.session() as session:
            row = session.scalar(
                select(MemoryRow).where(MemoryRow.pet_id == pet_id, MemoryRow.key == key,
                                        MemoryRow.deleted_at.is_(None))
            )
            created = row is None
            if row is None:
                row = MemoryRow(pet_id=pet_id, content=content, key=key, tag=tag,
                                source_message_id=source_message_id, conversation_id=conversation_id,
                                asserted_by=asserted_by, status="pending" if asserted_by == "tool" else "active")
                session.add(row)
            else:
                row.content = content
                row.tag = tag or row.tag
                row.updated_at = utcnow()
                if row.status == "pending" and asserted_by != "tool":
                    row.status, row.asserted_by = "active", asserted_by
                    row.source_message_id = source_message_id or row.source_message_id
            session.flush()
            return _memory(row), created

    def _row(self, session, pet_id: int, memory_id: int, *, deleted: bool = False) -> MemoryRow | None:
        row = session.get(MemoryRow, memory_id)
        if row is None or row.pet_id != pet_id or (row.deleted_at is not None) != deleted:
            return None
        return row

    def get(self, pet_id: int, memory_id: int) -> MemoryRecord | None:
        with self.db.session() as session:
            row = self._row(session, pet_id, memory_id)
            return _memory(row) if row else None

    def forget(self, pet_id: int, memory_id: int) -> MemoryRecord | None:
        """Soft delete: the row stays, marked deleted. None if there was no such memory."""
        with self.db.session() as session:
            row = self._row(session, pet_id, memory_id)
            if row is None:
                return None
            row.deleted_at = utcnow()
            return _memory(row)

    def restore(self, pet_id: int, memory_id: int | None = None) -> MemoryRecord | None:
        """Undo a forget: the given memory, or the one forgotten last. None
        when there is nothing to restore. If the same fact was remembered
        again since, that memory is returned and the old row stays forgotten."""
        with self.db.session() as session:
            if memory_id is None:
                row = session.scalar(
                    select(MemoryRow).where(MemoryRow.pet_id == pet_id, MemoryRow.deleted_at.is_not(None))
                    .order_by(MemoryRow.deleted_at.desc(), MemoryRow.id.desc()).limit(1)
                )
            else:
                row = self._row(session, pet_id, memory_id, deleted=True)
            if row is None:
                return None
            twin = session.scalar(self._live(pet_id).where(MemoryRow.key == row.key))
            if twin is not None:  # the old row stays forgotten; the live twin is the memory
                return _memory(twin)
            row.deleted_at = None
            row.updated_at = utcnow()
            return _memory(row)

    def approve(self, pet_id: int, memory_id: int) -> MemoryRecord | None:
        """The person accepts a pending memory: from now on it is recalled."""
        with self.db.session() as session:
            row = self._row(session, pet_id, memory_id)
            if row is None:
                return None
            row.status = "active"
            row.updated_at = utcnow()
            return _memory(row)

    def set_pinned(self, pet_id: int, memory_id: int, pinned: bool) -> MemoryRecord | None:
        """A pinned memory is in every prompt."""
        with self.db.session() as session:
            row = self._row(session, pet_id, memory_id)
            if row is None:
                return None
            row.pinned = pinned
            row.updated_at = utcnow()
            return _memory(row)

    def edit(self, pet_id: int, memory_id: int, content: str) -> MemoryRecord | None:
        """The person rewrites a memory (so it counts as their words). If the
        new text is a fact already stored, the two merge: the other row is
        updated and this one forgotten. None if there is no such memory."""
        content = content.strip()
        if not content:
            raise ValueError("a memory cannot be empty; forget it instead")
        key = memory_key(content)
        with self.db.session() as session:
            row = self._row(session, pet_id, memory_id)
            if row is None:
                return None
            twin = session.scalar(self._live(pet_id).where(MemoryRow.key == key, MemoryRow.id != memory_id))
            target = twin or row
            target.content, target.key = content, key
            target.asserted_by, target.status = "person", "active"
            target.pinned = target.pinned or row.pinned
            target.updated_at = utcnow()
            if twin is not None:
                row.deleted_at = utcnow()
            session.flush()
            return _memory(target)

    def listing(
        self, pet_id: int, *, status: str | None = None, forgotten: bool = False, limit: int = 500
    ) -> list[MemoryRecord]:
        """Memories for the person to look through, newest first: live ones
        (optionally only "active" or "pending"), or the forgotten ones."""
        with self.db.session() as session:
            query = select(MemoryRow).where(MemoryRow.pet_id == pet_id)
            query = query.where(MemoryRow.deleted_at.is_not(None) if forgotten else MemoryRow.deleted_at.is_(None))
            if status is not None:
                query = query.where(MemoryRow.status == status)
            order = MemoryRow.deleted_at.desc() if forgotten else MemoryRow.updated_at.desc()
            rows = session.scalars(query.order_by(order, MemoryRow.id.desc()).limit(limit))
            return [_memory(row) for row in rows]

    def _live(self, pet_id: int):
        return select(MemoryRow).where(MemoryRow.pet_id == pet_id, MemoryRow.deleted_at.is_(None))

    def _recallable(self, pet_id: int):
        """Live and approved: what may reach a prompt."""
        return self._live(pet_id).where(MemoryRow.status == "active")

    def search(
        self, pet_id: int, text: str, limit: int = 10, *, earlier: Sequence[str] = ()
    ) -> list[MemoryRecord]:
        """The recallable memories that best fit `text` (and, weighing less,
        the `earlier` turns), best first: see pet.memory.search for the ranking."""
        with self.db.session() as session:
            ids = rank(session.connection(), pet_id, text, limit, fts=self.db.fts, earlier=earlier)
            rows = {row.id: row for row in session.scalars(select(MemoryRow).where(MemoryRow.id.in_(ids)))}
            return [_memory(rows[i]) for i in ids if i in rows]

    def pinned(self, pet_id: int) -> list[MemoryRecord]:
        with self.db.session() as session:
            rows = session.scalars(self._recallable(pet_id).where(MemoryRow.pinned.is_(True)).order_by(MemoryRow.id))
            return [_memory(row) for row in rows]

    def recent(self, pet_id: int, limit: int = 10) -> list[MemoryRecord]:
        with self.db.session() as session:
            rows = session.scalars(
                self._recallable(pet_id).order_by(MemoryRow.updated_at.desc(), MemoryRow.id.desc()).limit(limit)
            )
            return [_memory(row) for row in rows]

    def for_context(
        self, pet_id: int, text: str, tokens: int = 600, *, limit: int = 12, earlier: Sequence[str] = ()
    ) -> list[MemoryRecord]:
        """What goes into the system prompt: every pinned memory, then those
        that best fit `text` (and, weighing less, the `earlier` turns), then
        the newest; at most `limit` besides the pinned, all within `tokens`
        (estimated). See pet.memory.search.for_context."""
        with self.db.session() as session:
            ids = for_context(session.connection(), pet_id, text, tokens, limit=limit, fts=self.db.fts,
                              earlier=earlier)
            rows = {row.id: row for row in session.scalars(select(MemoryRow).where(MemoryRow.id.in_(ids)))}
            return [_memory(rows[i]) for i in ids if i in rows]

    def count(self, pet_id: int) -> int:
        with self.db.session() as session:
            return session.scalar(
                select(func.count()).select_from(MemoryRow)
                .where(MemoryRow.pet_id == pet_id, MemoryRow.deleted_at.is_(None))
            ) or 0


def _aware(moment: dt.datetime) -> dt.datetime:
    return moment.replace(tzinfo=dt.timezone.utc) if moment.tzinfo is None else moment


def _reminder(row: ReminderRow) -> ReminderRecord:
    return ReminderRecord(row.id, row.text, _aware(row.due_at), row.repeat, row.status)


class ReminderStore:
    """Reminder rows. The reminders issue adds firing on top of these."""

    def __init__(self, db: Database):
        self.db = db

    def add(
        self,
        pet_id: int,
        text: str,
        due_at: dt.datetime,
        *,
        repeat: str = "none",
        source_message_id: int | None = None,
        conversation_id: int | None = None,
    ) -> ReminderRecord:
        if due_at.tzinfo is None:
            raise ValueError("due_at must be timezone-aware")
        with self.db.session() as session:
            row = ReminderRow(
                pet_id=pet_id,
                text=text,
                due_at=due_at.astimezone(dt.timezone.utc).replace(tzinfo=None),
                repeat=repeat,
                source_message_id=source_message_id,
                conversation_id=conversation_id,
            )
            session.add(row)
            session.flush()
            return _reminder(row)

    def pending(self, pet_id: int) -> list[ReminderRecord]:
        with self.db.session() as session:
            rows = session.scalars(
                select(ReminderRow)
                .where(ReminderRow.pet_id == pet_id, ReminderRow.status == "pending")
                .order_by(ReminderRow.due_at, ReminderRow.id)
            )
            return [_reminder(row) for row in rows]

    def cancel(self, pet_id: int, reminder_id: int) -> ReminderRecord | None:
        with self.db.session() as session:
            row = session.get(ReminderRow, reminder_id)
            if row is None or row.pet_id != pet_id or row.status != "pending":
                return None
            row.status = "cancelled"
            return _reminder(row)


def _summary(row: SummaryRow) -> SummaryRecord:
    return SummaryRecord(row.id, row.conversation_id, row.through_message_id, row.content, row.method, row.created_at)


class SummaryStore:
    """Running summaries of conversations. Each fold adds a row; the newest
    row of a conversation is its summary, so earlier ones stay for audit."""

    def __init__(self, db: Database):
        self.db = db

    def latest(self, conversation_id: int) -> SummaryRecord | None:
        with self.db.session() as session:
            row = session.scalar(
                select(SummaryRow)
                .where(SummaryRow.conversation_id == conversation_id)
                .order_by(SummaryRow.through_message_id.desc(), SummaryRow.id.desc())
                .limit(1)
            )
            return _summary(row) if row is not None else None

    def save(self, conversation_id: int, through_message_id: int, content: str, method: str) -> SummaryRecord:
        with self.db.session() as session:
            row = SummaryRow(
                conversation_id=conversation_id, through_message_id=through_message_id, content=content, method=method
            )
            session.add(row)
            session.flush()
            return _summary(row)

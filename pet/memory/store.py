"""Store APIs over the database. They take and return plain records
(pet.events), so the agent and tools never see SQLAlchemy objects."""

from __future__ import annotations

import datetime as dt
import json
import logging
import threading
from dataclasses import dataclass
from typing import Any, Callable, Collection, Iterable, Sequence, cast

from sqlalchemy import CursorResult, and_, bindparam, delete, func, or_, select, update

from pet.events import MemoryRecord, Message, ReminderRecord, StoredMessage, ToolCall
from pet.memory import meaning
from pet.memory.db import Database
from pet.memory.models import (
    ConversationRow,
    InboxRow,
    MemoryRow,
    MessageRow,
    PetRow,
    ReminderRow,
    SummaryRow,
    TraceRow,
    utcnow,
)
from pet.memory.recall import memory_key
from pet.memory.search import for_context, overview, rank
from pet.memory.summary import SummaryRecord

log = logging.getLogger(__name__)

#: SQLite keeps integers in 64 bits. An id past that (a person typed
#: "/approve 99999999999999999999") names no row, and binding it would raise
#: OverflowError, so the by-id look-ups answer "no such row" without asking.
MAX_ROW_ID = 2**63 - 1


def _storable(row_id: int) -> bool:
    return -MAX_ROW_ID - 1 <= row_id <= MAX_ROW_ID


def _rowcount(result: Any) -> int:
    """Rows an UPDATE changed (Session.execute is typed as returning a plain Result)."""
    return cast(CursorResult[Any], result).rowcount


@dataclass(frozen=True)
class PetRecord:
    id: int
    slug: str
    persona: str
    adopted_on: dt.date
    #: the persona file's text, for a persona kept in the home
    persona_text: str | None = None


def _pet(row: PetRow) -> PetRecord:
    return PetRecord(row.id, row.slug, row.persona, row.adopted_on, row.persona_text)


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
            return _pet(row)

    def all(self) -> list[PetRecord]:
        """Every pet of this home, oldest first."""
        with self.db.session() as session:
            rows = session.scalars(select(PetRow).order_by(PetRow.id))
            return [_pet(row) for row in rows]

    def create(self, slug: str, persona: str, adopted_on: dt.date, persona_text: str | None = None) -> PetRecord:
        """A new pet; a slug already taken is an error."""
        with self.db.session() as session:
            if session.scalar(select(PetRow.id).where(PetRow.slug == slug)) is not None:
                raise ValueError(f"there is already a pet called {slug!r}")
            row = PetRow(slug=slug, persona=persona, adopted_on=adopted_on, persona_text=persona_text)
            session.add(row)
            session.flush()
            return _pet(row)

    def set_persona(self, pet_id: int, persona: str, persona_text: str | None = None) -> PetRecord | None:
        """Point the pet at another persona file (after an edit or a reset)."""
        with self.db.session() as session:
            row = session.get(PetRow, pet_id)
            if row is None:
                return None
            row.persona, row.persona_text = persona, persona_text
            return _pet(row)


@dataclass(frozen=True)
class ConversationRecord:
    """A conversation as the list shows it (times in UTC, naive)."""

    id: int
    pet_id: int
    #: the first words the person said in it, or the name they gave it; "" before either
    title: str
    created_at: dt.datetime
    updated_at: dt.datetime
    deleted_at: dt.datetime | None = None


def _conversation(row: ConversationRow) -> ConversationRecord:
    return ConversationRecord(row.id, row.pet_id, row.title, row.created_at, row.updated_at, row.deleted_at)


#: a conversation's title is its first words; a name given by hand is cut to this
TITLE_CHARS = 60


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


#: makes "the latest conversation, or a new one" one step (see latest_or_create)
_FIRST_CONVERSATION = threading.Lock()


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
        """The pet's conversation with the most recent message (not a deleted one)."""
        with self.db.session() as session:
            return session.scalar(
                select(ConversationRow.id)
                .where(ConversationRow.pet_id == pet_id, ConversationRow.deleted_at.is_(None))
                .order_by(ConversationRow.updated_at.desc(), ConversationRow.id.desc())
                .limit(1)
            )

    def latest_or_create(self, pet_id: int) -> int:
        """The pet's latest conversation, made if it has none. One at a time:
        a page's first load asks from several handlers at once, and each would
        otherwise make a conversation of its own."""
        with _FIRST_CONVERSATION:
            return self.latest(pet_id) or self.create(pet_id)

    def listing(self, pet_id: int, limit: int = 50) -> list[ConversationRecord]:
        """The pet's conversations, the most recently active first; deleted ones left out."""
        with self.db.session() as session:
            rows = session.scalars(
                select(ConversationRow)
                .where(ConversationRow.pet_id == pet_id, ConversationRow.deleted_at.is_(None))
                .order_by(ConversationRow.updated_at.desc(), ConversationRow.id.desc())
                .limit(limit)
            )
            return [_conversation(row) for row in rows]

    def get(self, conversation_id: int) -> ConversationRecord | None:
        if not _storable(conversation_id):
            return None
        with self.db.session() as session:
            row = session.get(ConversationRow, conversation_id)
            return _conversation(row) if row is not None else None

    def rename(self, conversation_id: int, title: str) -> ConversationRecord | None:
        """Give it a name of the person's own (blank space folded, cut to
        TITLE_CHARS). Its place in the list stays: a name is not activity."""
        title = " ".join(title.split())[:TITLE_CHARS]
        if not title:
            raise ValueError("a conversation's name cannot be empty")
        with self.db.session() as session:
            row = session.get(ConversationRow, conversation_id) if _storable(conversation_id) else None
            if row is None:
                return None
            row.title = title
            return _conversation(row)

    def touch(self, conversation_id: int) -> None:
        """Make it the pet's latest (a conversation just started by /new,
        whose announcement was written in the old one)."""
        with self.db.session() as session:
            row = session.get(ConversationRow, conversation_id) if _storable(conversation_id) else None
            if row is not None:
                row.updated_at = utcnow()

    def delete(self, conversation_id: int) -> bool:
        """Take it off the list; its messages stay, and `restore` brings it back."""
        return self._set_deleted(conversation_id, utcnow())

    def restore(self, conversation_id: int) -> bool:
        return self._set_deleted(conversation_id, None)

    def _set_deleted(self, conversation_id: int, when: dt.datetime | None) -> bool:
        if not _storable(conversation_id):
            return False
        with self.db.session() as session:
            row = session.get(ConversationRow, conversation_id)
            if row is None:
                return False
            row.deleted_at = when
            return True

    def pet_of(self, conversation_id: int) -> int | None:
        if not _storable(conversation_id):
            return None
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
                    conversation.title = " ".join(message.content.split())[:TITLE_CHARS]
            session.flush()
            return row.id

    def set_status(self, message_id: int, status: str) -> bool:
        """Change a stored message's status (an answer the person talked over
        becomes "partial"); False when there is no such message."""
        with self.db.session() as session:
            row = session.get(MessageRow, message_id) if _storable(message_id) else None
            if row is None:
                return False
            row.status = status
            return True

    def history(
        self, conversation_id: int, limit: int | None = None, after: int = 0, chat_only: bool = False
    ) -> list[StoredMessage]:
        """Messages in order; with `limit`, only the last `limit` of them;
        with `after`, only those with a greater id; with `chat_only`, only the
        person's words and the pet's answers (no tool steps, nothing rejected),
        so that `limit` counts those."""
        with self.db.session() as session:
            query = select(MessageRow).where(MessageRow.conversation_id == conversation_id, MessageRow.id > after)
            if chat_only:
                query = query.where(MessageRow.role.in_(("user", "assistant")), MessageRow.tool_calls.is_(None),
                                    MessageRow.status != "rejected")
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


#: the memories of some ids: built once, as every search reads a few
_BY_IDS = select(MemoryRow.__table__).where(MemoryRow.id.in_(bindparam("ids", expanding=True)))


def _records(session, ids: list[int]) -> list[MemoryRecord]:
    """The memories of `ids`, in that order (table rows, not ORM objects: a search's last step)."""
    found = {row.id: _memory(row) for row in session.execute(_BY_IDS, {"ids": ids})}
    return [found[i] for i in ids if i in found]


def _memory(row: MemoryRow) -> MemoryRecord:
    return MemoryRecord(
        row.id, row.content, row.tag, row.pinned, row.created_at, row.updated_at,
        asserted_by=row.asserted_by, status=row.status, source_message_id=row.source_message_id,
        conversation_id=row.conversation_id, deleted_at=row.deleted_at,
    )


ASSERTERS = ("person", "tool", "model")
#: the tag of a memory's earlier text kept by `MemoryStore.revise` (a forgotten row): "history:<id>"
HISTORY_TAG = "history:"
#: the least cosine for a memory a recall offers as a guess (MemoryStore.guesses). On the spent
#: memory sets' 309 questions (assets/evals/untouched), guesses filling recall@5 up took it from 234
#: to 269 found at 0.2 (271 at 0.15, 256 at 0.25); 16 of their 20 questions about something never
#: said got a guess at 0.2, as a guess
GUESS_FLOOR = 0.2


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
        pending: bool | None = None,
    ) -> tuple[MemoryRecord, bool]:
        """Store a fact; the same fact again updates the old row.
        Returns the record and whether it is new.

        A new fact is stored "pending", never recalled until approved, when
        `pending` says so; by default when a tool asserted it (read from a
        file or a note, not said by the person). Only the person saying a
        pending fact themselves approves it; anyone repeating an active fact
        leaves it active."""
        if pending is None:
            pending = asserted_by == "tool"
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
                                asserted_by=asserted_by, status="pending" if pending else "active")
                session.add(row)
            else:
                row.content = content
                row.tag = tag or row.tag
                row.updated_at = utcnow()
                if row.status == "pending" and asserted_by == "person":
                    row.status, row.asserted_by = "active", asserted_by
                    row.source_message_id = source_message_id or row.source_message_id
            session.flush()
            if self.db.meaning:
                meaning.store(session.connection(), [(row.id, row.content)])
            return _memory(row), created

    def _row(self, session, pet_id: int, memory_id: int, *, deleted: bool = False) -> MemoryRow | None:
        if not _storable(memory_id):
            return None
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
                    select(MemoryRow).where(MemoryRow.pet_id == pet_id, MemoryRow.deleted_at.is_not(None),
                                            ~MemoryRow.tag.startswith(HISTORY_TAG))
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

    def revise(self, pet_id: int, memory_id: int, content: str, *, source_message_id: int | None = None,
               conversation_id: int | None = None) -> MemoryRecord | None:
        """A newer fact replaces a memory's text ("I live in Beijing" → "I moved
        to Hangzhou"); the old text stays in its `history`. None if there is
        no such memory."""
        content = content.strip()
        if not content:
            raise ValueError("a memory cannot be empty; forget it instead")
        with self.db.session() as session:
            row = self._row(session, pet_id, memory_id)
            if row is None:
                return None
            now = utcnow()
            session.add(MemoryRow(pet_id=pet_id, content=row.content, key=row.key, tag=f"{HISTORY_TAG}{row.id}",
                                  source_message_id=row.source_message_id, conversation_id=row.conversation_id,
                                  asserted_by=row.asserted_by, status=row.status, created_at=row.created_at,
                                  updated_at=now, deleted_at=now))
            row.content, row.key = content, memory_key(content)
            row.asserted_by, row.status, row.updated_at = "person", "active", now
            row.source_message_id = source_message_id or row.source_message_id
            row.conversation_id = conversation_id or row.conversation_id
            session.flush()
            if self.db.meaning:
                meaning.store(session.connection(), [(row.id, row.content)])
            return _memory(row)

    def history(self, pet_id: int, memory_id: int) -> list[MemoryRecord]:
        """The texts a memory had before `revise` replaced them, newest first."""
        with self.db.session() as session:
            rows = session.scalars(
                select(MemoryRow).where(MemoryRow.pet_id == pet_id, MemoryRow.tag == f"{HISTORY_TAG}{memory_id}")
                .order_by(MemoryRow.id.desc())
            )
            return [_memory(row) for row in rows]

    def unnote(self, pet_id: int, memory_id: int) -> MemoryRecord | None:
        """Take back what noting a fact did: a revised memory gets its last
        text back (that history entry is used up), a new one is forgotten.
        Returns the memory as it is now; None if there is no such memory."""
        with self.db.session() as session:
            row = self._row(session, pet_id, memory_id)
            if row is None:
                return None
            last = session.scalar(
                select(MemoryRow).where(MemoryRow.pet_id == pet_id, MemoryRow.tag == f"{HISTORY_TAG}{memory_id}")
                .order_by(MemoryRow.id.desc()).limit(1)
            )
            if last is None:
                row.deleted_at = utcnow()
                return _memory(row)
            row.content, row.key, row.updated_at = last.content, last.key, utcnow()
            session.delete(last)
            session.flush()
            if self.db.meaning:
                meaning.store(session.connection(), [(row.id, row.content)])
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
            if self.db.meaning:
                meaning.store(session.connection(), [(target.id, target.content)])
            return _memory(target)

    def listing(
        self, pet_id: int, *, status: str | None = None, forgotten: bool = False, limit: int = 500,
        contains: str = "",
    ) -> list[MemoryRecord]:
        """Memories for the person to look through, newest first: live ones
        (optionally only "active" or "pending"), or the forgotten ones; with
        `contains`, only those whose text holds it (any case)."""
        with self.db.session() as session:
            query = select(MemoryRow).where(MemoryRow.pet_id == pet_id)
            if contains:
                escaped = contains.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
                query = query.where(MemoryRow.content.ilike(f"%{escaped}%", escape="\\"))
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
            ids = rank(session.connection(), pet_id, text, limit, fts=self.db.fts, earlier=earlier,
                       meaning=self.db.meaning)
            return _records(session, ids)

    def overview(self, pet_id: int, limit: int = 10) -> list[MemoryRecord]:
        """What the pet knows about the person, for "what do you know about
        me?": pinned memories first, then the most useful (lasting facts in
        their own words, newer first), one of each fact, at most `limit`.
        See pet.memory.search.overview."""
        with self.db.session() as session:
            ids = overview(session.connection(), pet_id, limit, meaning=self.db.meaning)
            return _records(session, ids)

    def nearest(self, pet_id: int, text: str, count: int = 20) -> list[MemoryRecord]:
        """The recallable memories closest in meaning to `text`, closest first,
        with no floor (none without the sentence encoder): the candidates a
        newer fact may update."""
        return [record for record, _, _ in self._nearest(pet_id, text, count)]

    def alike(self, pet_id: int, text: str, count: int = 2) -> list[tuple[MemoryRecord, float, float]]:
        """The recallable memories closest in meaning to `text`, closest first, no floor, each with
        its cosine and how well its kind of fact fits the one `text` is about (0 to 1; 0 without
        the kinds' classifier). Empty without the sentence encoder."""
        return self._nearest(pet_id, text, count)

    def fits(self, pet_id: int, text: str, memory_ids: Sequence[int]) -> dict[int, float]:
        """How well each memory's kind of fact fits the one `text` is about, 0 to 1 (kinds.py);
        empty without the sentence encoder or the kinds' classifier."""
        if not self.db.meaning or not memory_ids:
            return {}
        with self.db.session() as session:
            asked = meaning.ask(session.connection(), pet_id, text)
            return asked.fits(memory_ids) if asked is not None else {}

    def guesses(self, pet_id: int, text: str, count: int = 3, *, floor: float = GUESS_FLOOR,
                leave_out: Sequence[int] = ()) -> list[MemoryRecord]:
        """The recallable memories closest in meaning to `text` and at least
        `floor` alike, closest first, but those in `leave_out`: what a recall
        offers as "closest I have" beside (or instead of) what search found,
        when a question shares no word with its answer ("hair?" and "Shaved
        my head for charity"). None without the sentence encoder."""
        if count <= 0:
            return []
        skip = set(leave_out)
        found = self._nearest(pet_id, text, count + len(skip))
        return [record for record, cosine, _ in found if cosine >= floor and record.id not in skip][:count]

    def _nearest(self, pet_id: int, text: str, count: int) -> list[tuple[MemoryRecord, float, float]]:
        """(memory, cosine, kind fit) of the `count` recallable memories closest to `text`."""
        if not self.db.meaning or count <= 0:
            return []
        with self.db.session() as session:
            asked = meaning.ask(session.connection(), pet_id, text)
            if asked is None:
                return []
            alike = asked.likeness((), count * 2)  # forgotten ones are among them
            ids = sorted(alike.cosines, key=alike.cosines.__getitem__, reverse=True)
            found = [r for r in _records(session, ids) if r.deleted_at is None and r.status == "active"]
            return [(r, alike.cosines[r.id], alike.kinds.get(r.id, 0.0)) for r in found[:count]]

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
        self, pet_id: int, text: str, tokens: int = 600, *, limit: int = 12, earlier: Sequence[str] = (),
        pinned: bool = True, newest: bool = True, exclude: Collection[int] = (),
    ) -> list[MemoryRecord]:
        """What goes into the system prompt: every pinned memory, then those
        that best fit `text` (and, weighing less, the `earlier` turns), then
        the newest; at most `limit` besides the pinned, all within `tokens`
        (estimated). Without `pinned` or `newest` those are left out, and
        `exclude` always is. See pet.memory.search.for_context."""
        with self.db.session() as session:
            ids = for_context(session.connection(), pet_id, text, tokens, limit=limit, fts=self.db.fts,
                              earlier=earlier, meaning=self.db.meaning, pinned=pinned, newest=newest,
                              exclude=exclude)
            return _records(session, ids)

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
    """Reminder rows, the truth the scheduler's jobs are derived from.
    Listeners hear of each reminder added or cancelled, after it is stored."""

    def __init__(self, db: Database):
        self.db = db
        self._listeners: list[Callable[[ReminderRecord], None]] = []

    def listen(self, callback: Callable[[ReminderRecord], None]) -> None:
        """Call `callback(record)` after each add and cancel (the scheduler
        adds or removes the reminder's job this way)."""
        self._listeners.append(callback)

    def _changed(self, record: ReminderRecord) -> None:
        for callback in self._listeners:
            callback(record)

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
            record = _reminder(row)
        self._changed(record)
        return record

    def get(self, reminder_id: int) -> tuple[int, ReminderRecord] | None:
        """The reminder and the id of its pet, whatever its status."""
        if not _storable(reminder_id):
            return None
        with self.db.session() as session:
            row = session.get(ReminderRow, reminder_id)
            return (row.pet_id, _reminder(row)) if row is not None else None

    def all_pending(self) -> list[tuple[int, ReminderRecord]]:
        """Every pet's pending reminders as (pet id, reminder), soonest first."""
        with self.db.session() as session:
            rows = session.scalars(
                select(ReminderRow).where(ReminderRow.status == "pending").order_by(ReminderRow.due_at, ReminderRow.id)
            )
            return [(row.pet_id, _reminder(row)) for row in rows]

    def pending(self, pet_id: int) -> list[ReminderRecord]:
        with self.db.session() as session:
            rows = session.scalars(
                select(ReminderRow)
                .where(ReminderRow.pet_id == pet_id, ReminderRow.status == "pending")
                .order_by(ReminderRow.due_at, ReminderRow.id)
            )
            return [_reminder(row) for row in rows]

    def cancel(self, pet_id: int, reminder_id: int) -> ReminderRecord | None:
        if not _storable(reminder_id):
            return None
        with self.db.session() as session:
            row = session.get(ReminderRow, reminder_id)
            if row is None or row.pet_id != pet_id or row.status != "pending":
                return None
            row.status = "cancelled"
            record = _reminder(row)
        self._changed(record)
        return record


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


def _utc_naive(moment: dt.datetime) -> dt.datetime:
    if moment.tzinfo is None:
        raise ValueError("times given to the inbox must be timezone-aware")
    return moment.astimezone(dt.timezone.utc).replace(tzinfo=None)


@dataclass(frozen=True)
class InboxRecord:
    """An inbox message. Times are aware, UTC."""

    id: int
    pet_id: int
    kind: str
    text: str
    created_at: dt.datetime
    #: when it shows; later than created_at when quiet hours held it
    deliver_at: dt.datetime
    reminder_id: int | None = None
    #: the due time it answers for (a reminder's, a brief's)
    due_at: dt.datetime | None = None
    late: bool = False
    read_at: dt.datetime | None = None
    #: the pet's message that said it in a conversation, once it showed (pet.scheduler.speak)
    message_id: int | None = None


@dataclass(frozen=True)
class Posted:
    """An inbox message as said in a conversation."""

    message: InboxRecord
    conversation_id: int
    message_id: int


@dataclass(frozen=True)
class InboxEntry:
    """A message to write when a reminder's due time is settled."""

    kind: str
    text: str
    due_at: dt.datetime
    late: bool = False
    #: None: at once
    deliver_at: dt.datetime | None = None


def _inbox(row: InboxRow) -> InboxRecord:
    return InboxRecord(
        row.id, row.pet_id, row.kind, row.text, _aware(row.created_at), _aware(row.deliver_at),
        row.reminder_id, _aware(row.due_at) if row.due_at else None, row.late,
        _aware(row.read_at) if row.read_at else None, row.message_id,
    )


#: kinds that are never held by quiet hours: the person asked for that moment
URGENT_KINDS = frozenset({"reminder"})


class InboxStore:
    """What the pet says unasked. A message shows from its `deliver_at` on:
    at once, or, for one that can wait, when quiet hours end (`hold`, wired
    by the app, says when that is). Reading methods list only messages that
    show by `now` (default: the current time)."""

    def __init__(self, db: Database, hold: Callable[[int, dt.datetime], dt.datetime | None] | None = None):
        self.db = db
        #: (pet id, now) -> the end of the pet's quiet hours, None outside them
        self.hold = hold

    def deliver_at(self, pet_id: int, kind: str, now: dt.datetime, *, urgent: bool = False) -> dt.datetime:
        """When a message of `kind` written at `now` should show."""
        if urgent or kind in URGENT_KINDS or self.hold is None:
            return now
        return self.hold(pet_id, now) or now

    def add(
        self,
        pet_id: int,
        text: str,
        *,
        kind: str,
        reminder_id: int | None = None,
        due_at: dt.datetime | None = None,
        late: bool = False,
        urgent: bool = False,
        once: bool = False,
        now: dt.datetime | None = None,
    ) -> InboxRecord | None:
        """Write a message; quiet hours hold it unless it is `urgent` (or a
        reminder). With `once`, None when the pet already has a message of
        this kind for this `due_at` (a brief sent twice for one morning)."""
        now = now or dt.datetime.now(dt.timezone.utc)
        with self.db.session() as session:
            due = _utc_naive(due_at) if due_at is not None else None
            if once and self._has(session, pet_id, kind, due):
                return None
            row = InboxRow(
                pet_id=pet_id, kind=kind, text=text, reminder_id=reminder_id, due_at=due, late=late,
                created_at=_utc_naive(now),
                deliver_at=_utc_naive(self.deliver_at(pet_id, kind, now, urgent=urgent)),
            )
            session.add(row)
            session.flush()
            return _inbox(row)

    def settle_reminder(
        self,
        reminder_id: int,
        due_at: dt.datetime,
        entries: Sequence[InboxEntry],
        next_due: dt.datetime | None,
        *,
        now: dt.datetime | None = None,
    ) -> list[InboxRecord] | None:
        """Deliver a reminder's due time and move the reminder on, in one
        transaction: write `entries` (any already written for their due time
        are skipped), then set the next due time, or mark it done when
        `next_due` is None. None, and nothing written, when the reminder is no
        longer pending at `due_at`: fired, cancelled or moved on already."""
        now = now or dt.datetime.now(dt.timezone.utc)
        values: dict[str, object] = {"due_at": _utc_naive(next_due)} if next_due else {"status": "done"}
        with self.db.session() as session:
            # The guarded update comes first: it takes SQLite's write lock, so
            # a second scheduler firing the same due time waits, then finds
            # nothing to update.
            moved = session.execute(
                update(ReminderRow)
                .where(ReminderRow.id == reminder_id, ReminderRow.status == "pending",
                       ReminderRow.due_at == _utc_naive(due_at))
                .values(**values)
            )
            if _rowcount(moved) != 1:
                return None
            pet_id = session.scalar(select(ReminderRow.pet_id).where(ReminderRow.id == reminder_id))
            dues = [_utc_naive(entry.due_at) for entry in entries]
            done = set(session.scalars(
                select(InboxRow.due_at).where(InboxRow.reminder_id == reminder_id, InboxRow.due_at.in_(dues))
            ))
            rows = [
                InboxRow(pet_id=pet_id, kind=entry.kind, text=entry.text, reminder_id=reminder_id, due_at=due,
                         late=entry.late, created_at=_utc_naive(now),
                         deliver_at=_utc_naive(entry.deliver_at or now))
                for entry, due in zip(entries, dues) if due not in done
            ]
            session.add_all(rows)
            session.flush()
            return [_inbox(row) for row in rows]

    def _shown(self, pet_id: int, now: dt.datetime | None):
        at = _utc_naive(now) if now else utcnow()
        return select(InboxRow).where(InboxRow.pet_id == pet_id, InboxRow.deliver_at <= at)

    @staticmethod
    def _has(session, pet_id: int, kind: str, due: dt.datetime | None) -> bool:
        return session.scalar(
            select(InboxRow.id).where(InboxRow.pet_id == pet_id, InboxRow.kind == kind, InboxRow.due_at == due)
        ) is not None

    def has(self, pet_id: int, kind: str, due_at: dt.datetime) -> bool:
        """Whether the pet already has a message of `kind` for `due_at`."""
        with self.db.session() as session:
            return self._has(session, pet_id, kind, _utc_naive(due_at))

    def get(self, message_id: int) -> InboxRecord | None:
        if not _storable(message_id):
            return None
        with self.db.session() as session:
            row = session.get(InboxRow, message_id)
            return _inbox(row) if row is not None else None

    def unread(self, pet_id: int, *, limit: int = 100, now: dt.datetime | None = None) -> list[InboxRecord]:
        """Unread messages that show by now, oldest first."""
        with self.db.session() as session:
            rows = session.scalars(
                self._shown(pet_id, now).where(InboxRow.read_at.is_(None))
                .order_by(InboxRow.deliver_at, InboxRow.id).limit(limit)
            )
            return [_inbox(row) for row in rows]

    def unread_count(self, pet_id: int, *, now: dt.datetime | None = None) -> int:
        with self.db.session() as session:
            query = self._shown(pet_id, now).where(InboxRow.read_at.is_(None))
            return session.scalar(select(func.count()).select_from(query.subquery())) or 0

    def recent(self, pet_id: int, limit: int = 20, *, now: dt.datetime | None = None) -> list[InboxRecord]:
        """Messages that show by now, read or not, newest first (the Inbox panel)."""
        with self.db.session() as session:
            rows = session.scalars(
                self._shown(pet_id, now).order_by(InboxRow.deliver_at.desc(), InboxRow.id.desc()).limit(limit)
            )
            return [_inbox(row) for row in rows]

    def since(
        self, pet_id: int, after_id: int = 0, *, limit: int = 100, now: dt.datetime | None = None
    ) -> list[InboxRecord]:
        """The cheap poll: messages that came to show after message `after_id`
        (0: all), in the order they showed. Pass the last id you got; a message
        held by quiet hours comes when it shows, though its id is older."""
        after_id = max(min(after_id, MAX_ROW_ID), 0)
        with self.db.session() as session:
            query = self._shown(pet_id, now)
            if after_id:
                shown = session.scalar(select(InboxRow.deliver_at).where(InboxRow.id == after_id))
                if shown is None:
                    query = query.where(InboxRow.id > after_id)
                else:
                    query = query.where(or_(InboxRow.deliver_at > shown,
                                            and_(InboxRow.deliver_at == shown, InboxRow.id > after_id)))
            rows = session.scalars(query.order_by(InboxRow.deliver_at, InboxRow.id).limit(limit))
            return [_inbox(row) for row in rows]

    def held(self, pet_id: int, *, now: dt.datetime | None = None) -> list[InboxRecord]:
        """Messages waiting for quiet hours to end, soonest first."""
        at = _utc_naive(now) if now else utcnow()
        with self.db.session() as session:
            rows = session.scalars(
                select(InboxRow).where(InboxRow.pet_id == pet_id, InboxRow.deliver_at > at)
                .order_by(InboxRow.deliver_at, InboxRow.id)
            )
            return [_inbox(row) for row in rows]

    def for_reminder(self, reminder_id: int) -> list[InboxRecord]:
        """Every message a reminder has written, oldest first."""
        if not _storable(reminder_id):
            return []
        with self.db.session() as session:
            rows = session.scalars(select(InboxRow).where(InboxRow.reminder_id == reminder_id).order_by(InboxRow.id))
            return [_inbox(row) for row in rows]

    # -- said in a conversation (pet.scheduler.speak) ---------------------------------

    def unposted(self, pet_id: int, *, since: dt.datetime, now: dt.datetime | None = None) -> list[InboxRecord]:
        """Unread messages that show by now, came to show after `since`, and
        are in no conversation yet, oldest first."""
        with self.db.session() as session:
            rows = session.scalars(
                self._shown(pet_id, now)
                .where(InboxRow.read_at.is_(None), InboxRow.message_id.is_(None),
                       InboxRow.deliver_at >= _utc_naive(since))
                .order_by(InboxRow.deliver_at, InboxRow.id)
            )
            return [_inbox(row) for row in rows]

    def post(self, message_id: int, conversation_id: int, content: str) -> int | None:
        """Say inbox message `message_id` in the conversation as the pet's
        words (`content`): the conversation's message id, or None when it was
        said already (another poster came first; nothing is written)."""
        with self.db.session() as session:
            said = MessageRow(conversation_id=conversation_id, role="assistant", content=content)
            session.add(said)
            session.flush()  # takes SQLite's write lock: a second poster waits here
            linked = session.execute(
                update(InboxRow).where(InboxRow.id == message_id, InboxRow.message_id.is_(None))
                .values(message_id=said.id)
            )
            if _rowcount(linked) != 1:
                session.delete(said)
                return None
            conversation = session.get(ConversationRow, conversation_id)
            if conversation is not None:
                conversation.updated_at = utcnow()
            return said.id

    def posted_since(self, after: int = 0, *, limit: int = 100) -> list[Posted]:
        """Messages of every pet said in a conversation after conversation
        message `after`, in the order they were said (the page's poll)."""
        after = max(min(after, MAX_ROW_ID), 0)
        with self.db.session() as session:
            rows = session.execute(
                select(InboxRow, MessageRow.conversation_id)
                .join(MessageRow, MessageRow.id == InboxRow.message_id)
                .where(InboxRow.message_id > after)
                .order_by(InboxRow.message_id).limit(limit)
            )
            return [Posted(_inbox(row), conversation, row.message_id or 0) for row, conversation in rows]

    def last_posted(self) -> int:
        """The newest conversation message that said an inbox message (0: none)."""
        with self.db.session() as session:
            return session.scalar(select(func.max(InboxRow.message_id))) or 0

    def unread_in(self, conversation_id: int) -> list[int]:
        """Unread inbox messages said in this conversation."""
        if not _storable(conversation_id):
            return []
        with self.db.session() as session:
            return list(session.scalars(
                select(InboxRow.id).join(MessageRow, MessageRow.id == InboxRow.message_id)
                .where(MessageRow.conversation_id == conversation_id, InboxRow.read_at.is_(None))
            ))

    def mark_read(self, ids: Iterable[int], *, at: dt.datetime | None = None) -> int:
        """Mark messages read (those already read keep their time); how many changed."""
        ids = [i for i in ids if _storable(i)]
        if not ids:
            return 0
        with self.db.session() as session:
            result = session.execute(
                update(InboxRow).where(InboxRow.id.in_(ids), InboxRow.read_at.is_(None))
                .values(read_at=_utc_naive(at) if at else utcnow())
            )
            return _rowcount(result)


class TraceStore:
    """Keeps each turn's trace (pet.agent.trace) as JSON, one insert per
    turn, about the newest `keep` per pet (older ones are pruned every
    `PRUNE_EVERY` turns, so a pet may briefly hold a few more). `listeners`
    are called with every saved trace (metrics)."""

    PRUNE_EVERY = 50

    def __init__(self, db: Database, keep: int = 500):
        self.db = db
        self.keep = keep
        self.listeners: list[Callable[[dict], None]] = []
        #: traces saved per pet since start: each pet is pruned on its own count, since the ids
        #: are shared by all pets (two pets taking turns would leave one never pruned)
        self._saved: dict[int, int] = {}

    def save(self, trace: dict) -> int:
        started = dt.datetime.fromisoformat(trace["started_at"]) if trace.get("started_at") else None
        with self.db.session() as session:
            row = TraceRow(pet_id=trace["pet_id"], conversation_id=trace["conversation_id"],
                           started_at=_utc_naive(started) if started else utcnow(), seconds=trace.get("seconds"))
            session.add(row)
            session.flush()
            trace = {"id": row.id, **trace}
            row.data = json.dumps(trace, ensure_ascii=False, default=str)
            saved = self._saved.get(row.pet_id, 0)
            self._saved[row.pet_id] = saved + 1
            if saved % self.PRUNE_EVERY == 0 or self.keep < self.PRUNE_EVERY:
                self._prune(session, row.pet_id)
        for listener in self.listeners:
            try:
                listener(trace)
            except Exception:  # metrics must never break a turn
                log.exception("a trace listener failed")
        return trace["id"]

    def _prune(self, session, pet_id: int) -> None:
        cutoff = session.scalar(
            select(TraceRow.id).where(TraceRow.pet_id == pet_id)
            .order_by(TraceRow.id.desc()).offset(self.keep).limit(1)
        )
        if cutoff is not None:
            session.execute(delete(TraceRow).where(TraceRow.pet_id == pet_id, TraceRow.id <= cutoff))

    def get(self, trace_id: int) -> dict | None:
        if not _storable(trace_id):
            return None
        with self.db.session() as session:
            row = session.get(TraceRow, trace_id)
            return _trace(row) if row is not None else None

    def recent(self, conversation_id: int, limit: int = 10) -> list[dict]:
        """The conversation's last `limit` traces, oldest first."""
        if not _storable(conversation_id):
            return []
        with self.db.session() as session:
            rows = session.scalars(
                select(TraceRow).where(TraceRow.conversation_id == conversation_id)
                .order_by(TraceRow.id.desc()).limit(limit)
            ).all()
            return [_trace(row) for row in reversed(rows)]

    def add_stages(self, trace_id: int, stages: dict[str, float]) -> None:
        """Add timings measured outside the agent (a voice turn's
        transcription, first audio) to a finished trace."""
        with self.db.session() as session:
            row = session.get(TraceRow, trace_id)
            if row is None:
                return
            trace = _trace(row)
            trace.setdefault("stages", {}).update(stages)
            row.data = json.dumps(trace, ensure_ascii=False, default=str)


def _trace(row: TraceRow) -> dict:
    try:
        trace = json.loads(row.data or "{}")
    except ValueError:
        trace = {}
    # each row is written whole when its turn ends; one whose JSON cannot be read still says where it belongs
    trace.setdefault("id", row.id)
    trace.setdefault("pet_id", row.pet_id)
    trace.setdefault("conversation_id", row.conversation_id)
    trace.setdefault("started_at", row.started_at.replace(tzinfo=dt.timezone.utc).isoformat())
    trace.setdefault("steps", [])
    trace.setdefault("stages", {})
    return trace

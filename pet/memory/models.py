"""Typed ORM tables. Times are stored in UTC."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import (
    Boolean,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)


class Base(DeclarativeBase):
    pass


class SchemaVersion(Base):
    __tablename__ = "schema_version"

    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    applied_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class PetRow(Base):
    __tablename__ = "pets"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    slug: Mapped[str] = mapped_column(String(64), unique=True)
    persona: Mapped[str] = mapped_column(String(500))
    #: the persona file's text when it lives in the home (an edited or adopted
    #: pet), so that an export carries the pet whole
    persona_text: Mapped[str | None] = mapped_column(Text, nullable=True)
    adopted_on: Mapped[dt.date] = mapped_column(Date)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class ConversationRow(Base):
    __tablename__ = "conversations"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    pet_id: Mapped[int] = mapped_column(ForeignKey("pets.id", ondelete="CASCADE"), index=True)
    title: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    #: set when the person deletes it from the list (undone by clearing it); its messages stay
    deleted_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)


class MessageRow(Base):
    __tablename__ = "messages"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    conversation_id: Mapped[int] = mapped_column(ForeignKey("conversations.id", ondelete="CASCADE"))
    role: Mapped[str] = mapped_column(String(16))
    content: Mapped[str] = mapped_column(Text, default="")
    #: JSON list of {"id", "name", "arguments"} for assistant messages that called tools
    tool_calls: Mapped[str | None] = mapped_column(Text, nullable=True)
    tool_call_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    name: Mapped[str | None] = mapped_column(String(64), nullable=True)
    #: "ok"; "partial" (cut short by a failure); "cut" (stopped by the person); "rejected" (never
    #: sent to the model); "error" (a failed tool)
    status: Mapped[str] = mapped_column(String(16), default="ok")
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)

    __table_args__ = (Index("ix_messages_conversation", "conversation_id", "id"),)


class MemoryRow(Base):
    __tablename__ = "memories"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    pet_id: Mapped[int] = mapped_column(ForeignKey("pets.id", ondelete="CASCADE"))
    content: Mapped[str] = mapped_column(Text)
    #: normalised content, so that remembering the same fact again updates it
    key: Mapped[str] = mapped_column(String(500))
    tag: Mapped[str] = mapped_column(String(64), default="")
    pinned: Mapped[bool] = mapped_column(Boolean, default=False)
    source_message_id: Mapped[int | None] = mapped_column(
        ForeignKey("messages.id", ondelete="SET NULL"), nullable=True
    )
    conversation_id: Mapped[int | None] = mapped_column(
        ForeignKey("conversations.id", ondelete="SET NULL"), nullable=True
    )
    #: who said it: "person" (their own words), "tool" (read from a tool's
    #: output, e.g. a file) or "model" (the pet inferred it)
    asserted_by: Mapped[str] = mapped_column(String(16), default="person", server_default="person")
    #: "active", or "pending" until the person approves a memory that came from tool output
    status: Mapped[str] = mapped_column(String(16), default="active", server_default="active")
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    deleted_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)

    __table_args__ = (
        Index("ix_memories_pet_key", "pet_id", "key"),
        Index("ix_memories_pet_pinned", "pet_id", "pinned"),
        Index("ix_memories_pet_updated", "pet_id", "updated_at"),
    )


class SummaryRow(Base):
    """Older turns of a conversation compressed into points. It only shapes
    the context; the messages themselves stay."""

    __tablename__ = "summaries"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    conversation_id: Mapped[int] = mapped_column(ForeignKey("conversations.id", ondelete="CASCADE"), index=True)
    #: the last message folded into this summary
    through_message_id: Mapped[int] = mapped_column(Integer)
    content: Mapped[str] = mapped_column(Text)
    #: "model" (checked against the turns) or "extractive" (built in code)
    method: Mapped[str] = mapped_column(String(16), default="model")
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class ReminderRow(Base):
    """A reminder is a row first; the scheduler's job is derived from it."""

    __tablename__ = "reminders"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    pet_id: Mapped[int] = mapped_column(ForeignKey("pets.id", ondelete="CASCADE"), index=True)
    text: Mapped[str] = mapped_column(Text)
    #: the next time it is due, UTC
    due_at: Mapped[dt.datetime] = mapped_column(DateTime)
    #: "none", "daily" or "weekly"
    repeat: Mapped[str] = mapped_column(String(16), default="none")
    #: "pending", "done" or "cancelled"
    status: Mapped[str] = mapped_column(String(16), default="pending")
    source_message_id: Mapped[int | None] = mapped_column(
        ForeignKey("messages.id", ondelete="SET NULL"), nullable=True
    )
    conversation_id: Mapped[int | None] = mapped_column(
        ForeignKey("conversations.id", ondelete="SET NULL"), nullable=True
    )
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class InboxRow(Base):
    """What the pet says unasked: a reminder firing, a report of missed
    reminders, the morning brief. A row shows from `deliver_at` on."""

    __tablename__ = "inbox"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    pet_id: Mapped[int] = mapped_column(ForeignKey("pets.id", ondelete="CASCADE"))
    #: "reminder", "missed", "brief", ...
    kind: Mapped[str] = mapped_column(String(16))
    text: Mapped[str] = mapped_column(Text)
    reminder_id: Mapped[int | None] = mapped_column(
        ForeignKey("reminders.id", ondelete="SET NULL"), nullable=True
    )
    #: the due time this row answers for, UTC
    due_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    #: when it shows, UTC: later than created_at when quiet hours held it
    deliver_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    #: delivered after its due time (the program was down or busy)
    late: Mapped[bool] = mapped_column(Boolean, default=False)
    read_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    #: the pet's message in a conversation that said it (pet.scheduler.speak), once it showed
    message_id: Mapped[int | None] = mapped_column(
        ForeignKey("messages.id", ondelete="SET NULL"), nullable=True
    )

    __table_args__ = (
        # each reminder fires at most once per due time, whoever fires it
        UniqueConstraint("reminder_id", "due_at", name="uq_inbox_reminder_due"),
        Index("ix_inbox_pet_deliver", "pet_id", "deliver_at", "id"),
        Index("ix_inbox_pet_read", "pet_id", "read_at"),
    )


class TraceRow(Base):
    """What one turn did (pet.agent.trace): the exact messages sent to the
    model, tool calls and results, timings, token counts, as JSON. Debugging
    data: the newest `trace_keep` per pet are kept, and export leaves them out."""

    __tablename__ = "traces"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    pet_id: Mapped[int] = mapped_column(ForeignKey("pets.id", ondelete="CASCADE"), index=True)
    conversation_id: Mapped[int] = mapped_column(ForeignKey("conversations.id", ondelete="CASCADE"), index=True)
    started_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    seconds: Mapped[float | None] = mapped_column(Float, nullable=True)
    data: Mapped[str] = mapped_column(Text, default="{}")


class MemoryVectorRow(Base):
    """A memory's sentence vector (pet.memory.meaning): derived data, rebuilt
    when missing, left out of exports. Ids only grow (AUTOINCREMENT), so a
    search process tops up its copy with the rows above the last it read."""

    __tablename__ = "memory_vectors"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    memory_id: Mapped[int] = mapped_column(ForeignKey("memories.id", ondelete="CASCADE"), unique=True)
    #: the encoder that made it: another encoder's vectors are not comparable
    model: Mapped[str] = mapped_column(String(64))
    #: fingerprint of the text it was computed from (an edit makes it stale)
    digest: Mapped[str] = mapped_column(String(32))
    #: int8 components times `scale` give the unit vector
    scale: Mapped[float] = mapped_column(Float)
    vector: Mapped[bytes] = mapped_column(LargeBinary)

    __table_args__ = {"sqlite_autoincrement": True}

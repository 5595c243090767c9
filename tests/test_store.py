"""The SQLite store: schema, durability across restarts, and the store APIs."""

from __future__ import annotations

import datetime as dt
import sqlite3
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest

from pet.errors import StorageError
from pet.events import Message, ToolCall
from pet.memory.db import SCHEMA_VERSION, open_database
from pet.memory.recall import read_id
from pet.memory.store import ConversationStore, InboxStore, MemoryStore, PetStore, ReminderStore, TraceStore

ADOPTED = dt.date(2026, 1, 1)


@pytest.fixture
def db_path(tmp_path) -> Path:
    return tmp_path / "data" / "pet.db"


@pytest.fixture
def db(db_path):
    database = open_database(f"sqlite:///{db_path}")
    yield database
    database.close()


@pytest.fixture
def pet_id(db) -> int:
    return PetStore(db).ensure("xiaoqian", "xiaoqian", ADOPTED).id


@contextmanager
def raw(path: Path) -> Iterator[sqlite3.Connection]:
    """A plain sqlite3 connection, behind the store's back; commits on exit."""
    conn = sqlite3.connect(path)
    try:
        with conn:
            yield conn
    finally:
        conn.close()


def set_pinned(path: Path, memory_id: int) -> None:
    with raw(path) as conn:
        conn.execute("UPDATE memories SET pinned = 1 WHERE id = ?", (memory_id,))


# --- the database file -------------------------------------------------------


def test_open_creates_the_folder_and_file(db, db_path):
    assert db_path.is_file()


def test_journal_is_wal(db, db_path):
    with raw(db_path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    with db.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"


def test_foreign_keys_are_enforced(db):
    with db.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    with pytest.raises(StorageError, match="database error"):
        ConversationStore(db).append(999, Message("user", "hello"))  # no such conversation


def test_schema_version_is_stamped(db, db_path):
    assert db.schema_version() == SCHEMA_VERSION == 7
    with raw(db_path) as conn:
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [(7,)]


def test_reopening_does_not_stamp_again(db_path):
    open_database(f"sqlite:///{db_path}").close()
    open_database(f"sqlite:///{db_path}").close()
    with raw(db_path) as conn:
        assert conn.execute("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]


def test_a_database_from_a_newer_program_is_refused(db, db_path):
    db.close()
    with raw(db_path) as conn:
        conn.execute("INSERT INTO schema_version (version, applied_at) VALUES (99, '2027-01-01 00:00:00')")
    with pytest.raises(StorageError, match="schema version 99, newer than this program"):
        open_database(f"sqlite:///{db_path}")


def test_tables_without_a_version_row_do_not_crash_with_key_error(db, db_path):
    db.close()
    with raw(db_path) as conn:
        conn.execute("DELETE FROM schema_version")
    try:
        reopened = open_database(f"sqlite:///{db_path}")
    except StorageError:
        return  # refusing with a clear message is acceptable
    assert reopened.schema_version() == SCHEMA_VERSION
    reopened.close()


def test_a_file_that_is_not_sqlite_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "pet.db"
    garbage = b"these are my holiday photos, not a database\x00\xff\xfe" * 64
    path.write_bytes(garbage)

    with pytest.raises(StorageError) as info:
        open_database(f"sqlite:///{path}")

    assert str(path) in str(info.value)
    assert "not a database" in str(info.value)
    assert path.read_bytes() == garbage
    assert not (tmp_path / "pet.db-wal").exists()


# --- restarts ----------------------------------------------------------------


def test_everything_survives_a_restart(db_path):
    db = open_database(f"sqlite:///{db_path}")
    pet = PetStore(db).ensure("xiaoqian", "xiaoqian", ADOPTED)
    conversation_id = ConversationStore(db).create(pet.id)
    ConversationStore(db).append(conversation_id, Message("user", "记住我喜欢喝咖啡"))
    ConversationStore(db).append(conversation_id, Message("assistant", "本钳记住啦～"))
    memory, _ = MemoryStore(db).remember(pet.id, "喜欢喝咖啡")
    db.close()

    db = open_database(f"sqlite:///{db_path}")
    again = PetStore(db).ensure("xiaoqian", "other-persona", dt.date(2030, 1, 1))
    assert again == pet  # the first run's pet, adoption date and all
    conversations = ConversationStore(db)
    assert conversations.latest(pet.id) == conversation_id
    contents = [m.message.content for m in conversations.history(conversation_id)]
    assert contents == ["记住我喜欢喝咖啡", "本钳记住啦～"]
    assert conversations.count(conversation_id) == 2
    assert MemoryStore(db).search(pet.id, "咖啡") == [memory]
    db.close()


def test_pets_are_kept_apart_by_slug(db):
    pets = PetStore(db)
    first = pets.ensure("xiaoqian", "xiaoqian", ADOPTED)
    second = pets.ensure("doudou", "doudou", ADOPTED)
    assert first.id != second.id
    assert pets.ensure("xiaoqian", "xiaoqian", ADOPTED).id == first.id


# --- conversations -----------------------------------------------------------


def test_messages_with_tool_calls_round_trip(db, pet_id):
    store = ConversationStore(db)
    conversation_id = store.create(pet_id)
    sent = [
        Message("user", "记住：我的生日是五月二十日"),
        Message(
            "assistant",
            "好的！",
            tool_calls=(
                ToolCall("remember", {"content": "生日是五月二十日"}, id="call_a1"),
                ToolCall("get_current_time", {}, id="call_b2"),
            ),
        ),
        Message("tool", "Saved memory #1: 生日是五月二十日", tool_call_id="call_a1", name="remember"),
        Message("tool", "Error: clock broke", tool_call_id="call_b2", name="get_current_time"),
        Message("assistant", "本钳记住啦～"),
    ]
    statuses = ["ok", "ok", "ok", "error", "partial"]
    ids = [store.append(conversation_id, m, status=s) for m, s in zip(sent, statuses)]

    history = store.history(conversation_id)

    assert [h.message for h in history] == sent
    assert [h.status for h in history] == statuses
    assert [h.id for h in history] == ids
    assert all(h.conversation_id == conversation_id for h in history)
    calls = history[1].message.tool_calls
    assert [(c.name, c.id, c.arguments) for c in calls] == [
        ("remember", "call_a1", {"content": "生日是五月二十日"}),
        ("get_current_time", "call_b2", {}),
    ]
    assert isinstance(history[0].created_at, dt.datetime)


def test_history_limit_returns_the_last_messages_in_order(db, pet_id):
    store = ConversationStore(db)
    conversation_id = store.create(pet_id)
    other = store.create(pet_id)
    for i in range(10):
        store.append(conversation_id, Message("user", f"message {i}"))
        store.append(other, Message("user", f"elsewhere {i}"))

    last = store.history(conversation_id, limit=3)

    assert [m.message.content for m in last] == ["message 7", "message 8", "message 9"]
    assert len(store.history(conversation_id)) == 10
    assert len(store.history(conversation_id, limit=50)) == 10


def test_the_first_user_message_titles_the_conversation(db, pet_id, db_path):
    store = ConversationStore(db)
    conversation_id = store.create(pet_id)
    store.append(conversation_id, Message("assistant", "你好！"))
    store.append(conversation_id, Message("user", "x" * 100))
    store.append(conversation_id, Message("user", "second"))
    with raw(db_path) as conn:
        (title,) = conn.execute("SELECT title FROM conversations WHERE id = ?", (conversation_id,)).fetchone()
    assert title == "x" * 60


def test_latest_is_the_most_recently_updated_conversation(db, pet_id):
    store = ConversationStore(db)
    assert store.latest(pet_id) is None
    older = store.create(pet_id)
    newer = store.create(pet_id)
    assert store.latest(pet_id) == newer

    store.append(older, Message("user", "back to the first one"))

    assert store.latest(pet_id) == older
    assert store.pet_of(older) == pet_id


def test_latest_belongs_to_the_pet(db, pet_id):
    other_pet = PetStore(db).ensure("doudou", "doudou", ADOPTED)
    store = ConversationStore(db)
    mine = store.create(pet_id)
    store.create(other_pet.id)
    assert store.latest(pet_id) == mine


# --- memories ----------------------------------------------------------------


def test_remember_returns_whether_the_fact_is_new(db, pet_id):
    store = MemoryStore(db)
    first, created = store.remember(pet_id, "Likes green tea.", tag="food")
    again, created_again = store.remember(pet_id, "likes  GREEN tea")
    assert created and not created_again
    assert again.id == first.id
    assert again.content == "likes  GREEN tea"
    assert again.tag == "food"  # an update without a tag keeps the old one
    assert store.count(pet_id) == 1
    assert store.get(pet_id, first.id) == again


def test_search_ranks_by_matching_terms_in_english(db, pet_id):
    store = MemoryStore(db)
    one, _ = store.remember(pet_id, "drinks tea")
    three, _ = store.remember(pet_id, "drinks green tea every morning")
    two, _ = store.remember(pet_id, "likes green tea")
    store.remember(pet_id, "has a cat named Mochi")

    found = store.search(pet_id, "Green tea in the MORNING")

    assert [m.id for m in found] == [three.id, two.id, one.id]
    assert [m.id for m in store.search(pet_id, "green tea morning", limit=2)] == [three.id, two.id]


def test_search_ranks_by_matching_terms_in_chinese(db, pet_id):
    store = MemoryStore(db)
    one, _ = store.remember(pet_id, "喜欢喝咖啡")
    three, _ = store.remember(pet_id, "早上喝咖啡加奶")
    two, _ = store.remember(pet_id, "咖啡要加奶")
    store.remember(pet_id, "养了一只猫")

    found = store.search(pet_id, "咖啡加奶")

    assert [m.id for m in found] == [three.id, two.id, one.id]


def test_search_without_terms_finds_nothing(db, pet_id):
    store = MemoryStore(db)
    store.remember(pet_id, "likes the sea")
    assert store.search(pet_id, "") == []
    assert store.search(pet_id, "the and for") == []  # stop words only


def test_search_skips_forgotten_memories_and_other_pets(db, pet_id):
    store = MemoryStore(db)
    kept, _ = store.remember(pet_id, "likes green tea")
    gone, _ = store.remember(pet_id, "likes black tea")
    other = PetStore(db).ensure("doudou", "doudou", ADOPTED)
    store.remember(other.id, "likes white tea")

    forgotten = store.forget(pet_id, gone.id)
    assert (forgotten.id, forgotten.content) == (gone.id, gone.content) and forgotten.deleted_at is not None
    assert store.forget(pet_id, gone.id) is None
    assert store.forget(other.id, kept.id) is None  # not that pet's memory

    assert store.search(pet_id, "tea") == [kept]
    assert store.get(pet_id, gone.id) is None
    assert store.count(pet_id) == 1


def test_for_context_always_includes_pinned_memories(db, pet_id, db_path):
    store = MemoryStore(db)
    ids = [store.remember(pet_id, f"fact number {word}")[0].id for word in
           ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot")]
    set_pinned(db_path, ids[0])  # the oldest, and matching nothing

    chosen = store.for_context(pet_id, "nothing relevant here", limit=3)

    assert chosen[0].id == ids[0] and chosen[0].pinned
    # ...then the newest ones fill up to the limit.
    assert [m.id for m in chosen[1:]] == [ids[5], ids[4], ids[3]]


def test_for_context_prefers_matching_memories_over_newer_ones(db, pet_id, db_path):
    store = MemoryStore(db)
    birthday, _ = store.remember(pet_id, "birthday is May 20")
    newer = [store.remember(pet_id, f"fact number {i}")[0].id for i in range(5)]
    pinned, _ = store.remember(pet_id, "name is Lin")
    set_pinned(db_path, pinned.id)

    chosen = store.for_context(pet_id, "when is my birthday?", limit=2)

    assert [m.id for m in chosen] == [pinned.id, birthday.id, newer[-1]]


def test_for_context_without_memories_is_empty(db, pet_id):
    assert MemoryStore(db).for_context(pet_id, "hello", limit=5) == []


def test_for_context_skips_forgotten_pinned_memories(db, pet_id, db_path):
    store = MemoryStore(db)
    memory, _ = store.remember(pet_id, "name is Lin")
    set_pinned(db_path, memory.id)
    store.forget(pet_id, memory.id)
    assert store.for_context(pet_id, "name", limit=5) == []


@pytest.mark.parametrize("row_id", [2**63, -(2**63) - 1, 10**20, 10**400])
def test_an_id_past_sqlites_64_bits_is_a_missing_row_not_an_overflow(db, pet_id, row_id):
    memories, reminders = MemoryStore(db), ReminderStore(db)
    inbox, traces, conversations = InboxStore(db), TraceStore(db), ConversationStore(db)
    memories.remember(pet_id, "likes oolong tea")
    assert memories.get(pet_id, row_id) is None
    assert memories.forget(pet_id, row_id) is None
    assert memories.approve(pet_id, row_id) is None
    assert memories.set_pinned(pet_id, row_id, True) is None
    assert memories.edit(pet_id, row_id, "likes green tea") is None
    assert memories.restore(pet_id, row_id) is None
    assert reminders.get(row_id) is None and reminders.cancel(pet_id, row_id) is None
    assert inbox.get(row_id) is None and inbox.for_reminder(row_id) == []
    assert inbox.mark_read([row_id]) == 0 and inbox.since(pet_id, row_id) == []
    assert traces.get(row_id) is None and traces.recent(row_id) == []
    assert conversations.pet_of(row_id) is None
    assert [m.content for m in memories.recent(pet_id)] == ["likes oolong tea"]


@pytest.mark.parametrize(("text", "number"), [
    ("#3", 3), ("#３", 3), ("#٣", 3), ("第३条", 3), ("99999999999999999999", 10**20 - 1),
    ("9" * 100, 10**100 - 1), ("9" * 101, None), ("9" * 5000, None), ("#-1", None), ("1.5", None),
])
def test_ids_are_read_in_any_scripts_digits_and_a_run_too_long_is_no_id(text, number):
    assert read_id(text) == number


def test_a_first_conversation_asked_for_from_many_threads_at_once_is_made_once(db, pet_id):
    # a page's first load asks from several handlers at once (the chat, the arrivals' look)
    conversations = ConversationStore(db)
    start = threading.Barrier(8)
    made: list[int] = []

    def ask() -> None:
        start.wait()
        made.append(conversations.latest_or_create(pet_id))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(made)) == 1
    assert [c.id for c in conversations.listing(pet_id)] == made[:1]

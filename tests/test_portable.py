"""Export and import: a lossless JSON round trip, and merging without duplicates."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import Column, ForeignKey, Integer, String, Table, select, text, update

from pet.cli import main
from pet.errors import ExportFileError, StorageError
from pet.events import Message, ToolCall
from pet.memory.db import SCHEMA_VERSION, Database, open_database
from pet.memory.models import Base, MemoryRow, MessageRow, ReminderRow, SummaryRow
from pet.memory.portable import dumps, export_home, export_to, import_from, owned_tables
from pet.memory.store import ConversationStore, MemoryStore, PetStore, ReminderStore

ADOPTED = dt.date(2026, 1, 1)
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def new_db(tmp_path):
    """Open fresh databases; all are closed after the test."""
    opened: list[Database] = []

    def make(name: str = "pet") -> Database:
        db = open_database(f"sqlite:///{tmp_path / name}.db")
        opened.append(db)
        return db

    yield make
    for db in opened:
        db.close()


def set_columns(db: Database, row_type, row_id: int, **values) -> None:
    """Change a row behind the store APIs (pin, pending, times)."""
    with db.session() as session:
        session.execute(update(row_type).where(row_type.id == row_id).values(**values))


def fill(db: Database) -> dict:
    """A home with everything an export must carry; returns some of its ids."""
    pet = PetStore(db).ensure("xiaoqian", "xiaoqian", ADOPTED)
    PetStore(db).ensure("doudou", "doudou", dt.date(2026, 2, 2))
    conversations = ConversationStore(db)
    conversation = conversations.create(pet.id)
    said = conversations.append(conversation, Message("user", "记住我喜欢喝乌龙茶，and remind me at 9pm"))
    conversations.append(conversation, Message("assistant", "", tool_calls=(
        ToolCall("remember", {"content": "喜欢喝乌龙茶"}, id="call_1"),
        ToolCall("set_reminder", {"text": "call mom", "when": "9pm"}, id="call_2"),
    )))
    conversations.append(conversation, Message("tool", "已记住 #1：喜欢喝乌龙茶", tool_call_id="call_1",
                                               name="remember"))
    conversations.append(conversation, Message("tool", "Error: no time", tool_call_id="call_2",
                                               name="set_reminder"), status="error")
    last = conversations.append(conversation, Message("assistant", "本钳记住啦～ Got it!"), status="partial")
    memories = MemoryStore(db)
    tea, _ = memories.remember(pet.id, "喜欢喝乌龙茶", source_message_id=said, conversation_id=conversation)
    code, _ = memories.remember(pet.id, "codes after 11pm")
    gone, _ = memories.remember(pet.id, "likes black coffee")
    memories.forget(pet.id, gone.id)
    pending, _ = memories.remember(pet.id, "the file says: 生日是五月二十日")
    set_columns(db, MemoryRow, pending.id, status="pending", asserted_by="tool")
    set_columns(db, MemoryRow, code.id, pinned=True)
    reminders = ReminderStore(db)
    reminders.add(pet.id, "给妈妈打电话", dt.datetime(2026, 5, 1, 13, tzinfo=dt.timezone.utc),
                  source_message_id=said, conversation_id=conversation)
    done = reminders.add(pet.id, "water the plants", dt.datetime(2026, 4, 1, 8, tzinfo=dt.timezone.utc),
                         repeat="daily")
    set_columns(db, ReminderRow, done.id, status="done")
    with db.session() as session:
        session.add(SummaryRow(conversation_id=conversation, through_message_id=last,
                               content="- 喜欢喝乌龙茶\n- asked for a reminder at 9pm", method="extractive"))
    return {"pet": pet.id, "conversation": conversation, "said": said, "last": last, "tea": tea.id,
            "code": code.id, "gone": gone.id, "pending": pending.id}


def exported(db: Database) -> str:
    return dumps(export_home(db))


def table_rows(db: Database, row_type) -> list:
    with db.session() as session:
        return list(session.scalars(select(row_type).order_by(row_type.id)))


# --- export ------------------------------------------------------------------


def test_every_table_but_schema_version_and_traces_is_exported_with_the_version_in_the_header(new_db):
    db = new_db()
    fill(db)
    data = export_home(db)
    assert (data["format"], data["version"], data["schema_version"]) == ("pet-export", 1, SCHEMA_VERSION)
    # traces are debugging data, rebuilt by every turn, memory vectors derived data, rebuilt
    # (pet.memory.meaning); everything else the person owns goes
    assert set(data["tables"]) == set(Base.metadata.tables) - {"schema_version", "traces", "memory_vectors"}
    counts = {name: len(rows) for name, rows in data["tables"].items()}
    assert counts == {"pets": 2, "conversations": 1, "messages": 5, "memories": 4, "reminders": 2,
                      "summaries": 1, "inbox": 0}


def test_the_export_is_sorted_readable_utf8(new_db, tmp_path):
    db = new_db()
    fill(db)
    path = tmp_path / "home.json"
    export_to(db, path)
    raw = path.read_text(encoding="utf-8")
    assert "喜欢喝乌龙茶" in raw and "\\u" not in raw  # Chinese as is, not escaped
    data = json.loads(raw)
    for rows in data["tables"].values():
        assert [row["id"] for row in rows] == sorted(row["id"] for row in rows)
        assert all(list(row) == sorted(row) for row in rows)
    memory = data["tables"]["memories"][0]
    assert dt.datetime.fromisoformat(memory["created_at"])  # times are ISO strings
    assert data["tables"]["pets"][0]["adopted_on"] == "2026-01-01"


def test_a_table_added_to_the_schema_is_exported_and_imported(new_db):
    inbox = Table("inbox_for_test", Base.metadata,
                  Column("id", Integer, primary_key=True),
                  Column("pet_id", ForeignKey("pets.id"), nullable=False),
                  Column("text", String(200), nullable=False))
    try:
        source, target = new_db("source"), new_db("target")  # new databases get the table too
        ids = fill(source)
        with source.engine.begin() as conn:
            conn.execute(inbox.insert(), [{"pet_id": ids["pet"], "text": "新消息"},
                                          {"pet_id": ids["pet"], "text": "hi"}])
        PetStore(target).ensure("someone-else", "x", ADOPTED)  # so the import merges

        data = export_home(source)
        order = [t.name for t in owned_tables()]
        assert order.index("inbox_for_test") > order.index("pets")  # after the table it points at
        assert [r["text"] for r in data["tables"]["inbox_for_test"]] == ["新消息", "hi"]

        path = Path(str(target.engine.url.database)).with_suffix(".json")
        export_to(source, path)
        first, second = import_from(target, path), import_from(target, path)
        assert first.tables["inbox_for_test"].added == 2
        assert second.tables["inbox_for_test"].added == 0 and second.tables["inbox_for_test"].skipped == 2
        with target.engine.connect() as conn:
            rows = conn.execute(select(inbox.c.pet_id, inbox.c.text).order_by(inbox.c.id)).all()
        xiaoqian = PetStore(target).ensure("xiaoqian", "xiaoqian", ADOPTED).id
        assert rows == [(xiaoqian, "新消息"), (xiaoqian, "hi")]
    finally:
        Base.metadata.remove(inbox)


def test_a_file_without_a_table_imports_it_as_empty(new_db, tmp_path):
    source = new_db("source")
    fill(source)
    data = export_home(source)
    del data["tables"]["summaries"]  # as if exported before summaries existed
    path = tmp_path / "older.json"
    path.write_text(dumps(data), encoding="utf-8")
    report = import_from(new_db("target"), path)
    assert report.tables["summaries"].added == 0 and report.tables["memories"].added == 4


# --- round trip --------------------------------------------------------------


def test_export_import_export_is_byte_identical(new_db, tmp_path):
    source, target = new_db("source"), new_db("target")
    fill(source)
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    export_to(source, first)

    report = import_from(target, first)
    export_to(target, second)

    assert report.kept_ids and report.skipped == 0
    assert second.read_bytes() == first.read_bytes()


def test_import_into_an_empty_database_keeps_ids_and_state(new_db, tmp_path):
    source, target = new_db("source"), new_db("target")
    ids = fill(source)
    export_to(source, tmp_path / "home.json")
    import_from(target, tmp_path / "home.json")

    memories = MemoryStore(target)
    assert memories.get(ids["pet"], ids["gone"]) is None  # still forgotten
    assert [m.id for m in memories.pinned(ids["pet"])] == [ids["code"]]
    pending = next(r for r in table_rows(target, MemoryRow) if r.id == ids["pending"])
    assert (pending.status, pending.asserted_by) == ("pending", "tool")
    history = ConversationStore(target).history(ids["conversation"])
    assert history == ConversationStore(source).history(ids["conversation"])
    assert [c.id for c in history[1].message.tool_calls] == ["call_1", "call_2"]
    assert [(r.text, r.status) for r in ReminderStore(target).pending(ids["pet"])] == [("给妈妈打电话", "pending")]


def test_importing_the_same_file_twice_adds_nothing(new_db, tmp_path):
    source, target = new_db("source"), new_db("target")
    fill(source)
    export_to(source, tmp_path / "home.json")
    import_from(target, tmp_path / "home.json")
    before = exported(target)

    again = import_from(target, tmp_path / "home.json")

    assert not again.kept_ids
    assert again.added == 0 and again.skipped == 15
    assert all(c.updated == 0 for c in again.tables.values())
    assert exported(target) == before


# --- merging -----------------------------------------------------------------


def test_a_merge_remaps_ids_and_every_reference_follows(new_db, tmp_path):
    source, target = new_db("source"), new_db("target")
    ids = fill(source)
    export_to(source, tmp_path / "home.json")
    # the target already has its own pet and rows, so every id of the file is taken
    mine = PetStore(target).ensure("mochi", "mochi", ADOPTED)
    conversation = ConversationStore(target).create(mine.id)
    for i in range(7):
        ConversationStore(target).append(conversation, Message("user", f"mochi message {i}"))
    MemoryStore(target).remember(mine.id, "mochi likes fish")

    report = import_from(target, tmp_path / "home.json")

    assert not report.kept_ids and report.skipped == 0 and report.added == 15
    xiaoqian = PetStore(target).ensure("xiaoqian", "xiaoqian", ADOPTED).id
    assert xiaoqian != ids["pet"]
    messages = {m.id: m for m in table_rows(target, MessageRow)}
    tea = next(m for m in table_rows(target, MemoryRow) if m.content == "喜欢喝乌龙茶")
    assert tea.pet_id == xiaoqian
    assert tea.source_message_id != ids["said"]
    assert messages[tea.source_message_id].content.startswith("记住我喜欢喝乌龙茶")
    assert messages[tea.source_message_id].conversation_id == tea.conversation_id
    assert ConversationStore(target).pet_of(tea.conversation_id) == xiaoqian
    reminder = next(r for r in table_rows(target, ReminderRow) if r.text == "给妈妈打电话")
    assert (reminder.pet_id, reminder.source_message_id) == (xiaoqian, tea.source_message_id)
    (summary,) = table_rows(target, SummaryRow)
    assert summary.conversation_id == tea.conversation_id
    assert messages[summary.through_message_id].content == "本钳记住啦～ Got it!"
    # the target's own rows are untouched
    assert [m.content for m in MemoryStore(target).recent(mine.id)] == ["mochi likes fish"]
    assert ConversationStore(target).count(conversation) == 7


def test_a_merge_keeps_one_live_memory_per_key_and_takes_the_newer_copy(new_db, tmp_path):
    source, target = new_db("source"), new_db("target")
    fill(source)
    export_to(source, tmp_path / "home.json")
    pet = PetStore(target).ensure("xiaoqian", "xiaoqian", ADOPTED).id
    older, _ = MemoryStore(target).remember(pet, "喜欢喝乌龙茶！")  # same key, told here before
    set_columns(target, MemoryRow, older.id, updated_at=dt.datetime(2020, 1, 1))
    newer, _ = MemoryStore(target).remember(pet, "Codes after 11pm.")  # same key, told here after
    set_columns(target, MemoryRow, newer.id, updated_at=dt.datetime(2099, 1, 1))

    report = import_from(target, tmp_path / "home.json")

    counts = report.tables["memories"]
    assert (counts.added, counts.updated, counts.skipped) == (2, 1, 1)  # added: the pending and the forgotten
    live = {m.id: m for m in table_rows(target, MemoryRow) if m.deleted_at is None}
    assert sorted(m.content for m in live.values()) == [
        "Codes after 11pm.", "the file says: 生日是五月二十日", "喜欢喝乌龙茶"]
    assert live[older.id].content == "喜欢喝乌龙茶"  # the file's copy was newer
    assert live[newer.id].pinned is False  # the database's copy was newer, and wins whole
    forgotten = [m.content for m in table_rows(target, MemoryRow) if m.deleted_at is not None]
    assert forgotten == ["likes black coffee"]


def test_a_merge_does_not_bring_back_a_memory_forgotten_here(new_db, tmp_path):
    home, other = new_db("home"), new_db("other")
    ids = fill(home)
    export_to(home, tmp_path / "before.json")
    import_from(other, tmp_path / "before.json")
    MemoryStore(other).forget(ids["pet"], ids["tea"])  # forgotten after the export

    report = import_from(other, tmp_path / "before.json")

    assert report.added == 0
    assert MemoryStore(other).search(ids["pet"], "乌龙茶") == []


# --- full-text index ---------------------------------------------------------


def test_imported_memories_are_found_by_search_and_the_full_text_index(new_db, tmp_path):
    source, empty, busy = new_db("source"), new_db("empty"), new_db("busy")
    fill(source)
    export_to(source, tmp_path / "home.json")
    MemoryStore(busy).remember(PetStore(busy).ensure("mochi", "mochi", ADOPTED).id, "likes oolong tea too")

    for target in (empty, busy):
        import_from(target, tmp_path / "home.json")
        pet = PetStore(target).ensure("xiaoqian", "xiaoqian", ADOPTED).id
        assert [m.content for m in MemoryStore(target).search(pet, "乌龙茶")] == ["喜欢喝乌龙茶"]
        assert [m.content for m in MemoryStore(target).search(pet, "when do I code")] == ["codes after 11pm"]
        assert target.fts
        with target.engine.connect() as conn:
            found = conn.execute(text(
                "SELECT m.content FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid "
                "WHERE memories_fts MATCH :q"), {"q": '"乌龙茶"'}).scalars().all()
            assert "喜欢喝乌龙茶" in found
            # the index agrees with the table, row for row
            conn.execute(text("INSERT INTO memories_fts(memories_fts, rank) VALUES ('integrity-check', 1)"))


# --- bad files ---------------------------------------------------------------


def _valid(tmp_path, new_db) -> dict:
    source = new_db("source")
    fill(source)
    return export_home(source)


def _without(data: dict, *path: str) -> dict:
    copy = json.loads(json.dumps(data))
    target = copy
    for key in path[:-1]:
        target = target[key] if not key.isdigit() else target[int(key)]
    del target[path[-1]]
    return copy


def _with(data: dict, change) -> dict:
    copy = json.loads(json.dumps(data))
    change(copy)
    return copy


BAD_FILES = {
    "not json": (lambda d: "this is not json {", "not JSON"),
    "not utf-8": (lambda d: b"\xff\xfe\x00bad", "not UTF-8"),
    "another format": (lambda d: dumps({**d, "format": "something-else"}), "not a pet export"),
    "a list": (lambda d: "[1, 2, 3]", "not a pet export"),
    "no tables": (lambda d: dumps(_without(d, "tables")), "no 'tables'"),
    "no schema version": (lambda d: dumps(_without(d, "schema_version")), "no 'schema_version'"),
    "newer format": (lambda d: dumps({**d, "version": 2}), "newer pet"),
    "newer schema": (lambda d: dumps({**d, "schema_version": SCHEMA_VERSION + 1}), "newer pet"),
    "unknown table": (lambda d: dumps(_with(d, lambda c: c["tables"].update(gadgets=[]))), "unknown table"),
    "row without a required column": (
        lambda d: dumps(_with(d, lambda c: c["tables"]["messages"][2].pop("role"))), "missing 'role'"),
    "row with an unknown column": (
        lambda d: dumps(_with(d, lambda c: c["tables"]["memories"][0].update(mood="happy"))),
        "unknown column"),
    "bad time": (
        lambda d: dumps(_with(d, lambda c: c["tables"]["memories"][0].update(created_at="yesterday"))),
        "ISO"),
    "wrong type": (
        lambda d: dumps(_with(d, lambda c: c["tables"]["memories"][0].update(pinned="yes"))),
        "should be bool"),
    "dangling reference": (
        lambda d: dumps(_with(d, lambda c: c["tables"]["memories"][0].update(source_message_id=999))),
        "not in the file"),
    "id twice": (
        lambda d: dumps(_with(d, lambda c: c["tables"]["pets"][1].update(id=1))), "appears twice"),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
@pytest.mark.parametrize("into", ["empty", "busy"])
def test_a_bad_file_is_refused_with_a_clear_error_and_changes_nothing(case, into, new_db, tmp_path):
    make, message = BAD_FILES[case]
    content = make(_valid(tmp_path, new_db))
    path = tmp_path / "bad.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    target = new_db("target")
    if into == "busy":
        MemoryStore(target).remember(PetStore(target).ensure("mochi", "mochi", ADOPTED).id, "likes fish")
    before = exported(target)

    with pytest.raises(ExportFileError, match=message) as info:
        import_from(target, path)

    assert str(path) in str(info.value)
    assert isinstance(info.value, StorageError)
    assert exported(target) == before


def test_a_missing_file_is_a_clear_error(new_db, tmp_path):
    with pytest.raises(ExportFileError, match="no such file"):
        import_from(new_db(), tmp_path / "nowhere.json")


def test_a_failure_half_way_rolls_the_whole_import_back(new_db, tmp_path):
    source = new_db("source")
    fill(source)
    data = export_home(source)
    data["tables"]["pets"][1]["slug"] = "xiaoqian"  # two pets with one slug: the second insert fails
    path = tmp_path / "clash.json"
    path.write_text(dumps(data), encoding="utf-8")
    target = new_db("target")

    with pytest.raises(StorageError):
        import_from(target, path)

    assert json.loads(exported(target))["tables"]["pets"] == []


# --- command line ------------------------------------------------------------


def test_pet_export_and_import_on_the_configured_home(pet_home, tmp_path, capsys):
    db = open_database(f"sqlite:///{pet_home / 'pet.db'}")
    fill(db)
    db.close()
    out = tmp_path / "out.json"

    assert main(["export", str(out)]) == 0
    printed = capsys.readouterr().out
    assert str(out) in printed and "4 memories" in printed

    other = tmp_path / "other-home"
    assert main(["import", str(out), "--home", str(other)]) == 0
    printed = capsys.readouterr().out
    assert "memories" in printed and "4 added" in printed
    assert main(["--home", str(other), "import", str(out)]) == 0
    assert "0 added, 4 already there" in capsys.readouterr().out

    again = tmp_path / "again.json"
    assert main(["export", str(again), "--home", str(other)]) == 0
    assert again.read_bytes() == out.read_bytes()


def test_pet_import_of_a_bad_file_exits_2_and_creates_no_home(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{}", encoding="utf-8")
    home = tmp_path / "fresh"
    assert main(["import", str(bad), "--home", str(home)]) == 2
    assert "not a pet export" in capsys.readouterr().err
    assert not home.exists()


def test_pet_export_without_a_database_says_so(tmp_path, capsys):
    assert main(["export", str(tmp_path / "out.json"), "--home", str(tmp_path / "nobody")]) == 2
    assert "no database" in capsys.readouterr().err
    assert not (tmp_path / "out.json").exists()


def test_python_m_pet_export_runs_in_a_subprocess(pet_home, tmp_path):
    db = open_database(f"sqlite:///{pet_home / 'pet.db'}")
    fill(db)
    db.close()
    out = tmp_path / "out.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-m", "pet", "export", str(out)], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert json.loads(out.read_text(encoding="utf-8"))["tables"]["memories"][0]["content"] == "喜欢喝乌龙茶"

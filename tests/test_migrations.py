"""A database written by the previous release opens and upgrades."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from pet.memory.db import _FTS_DDL, FTS_TABLE, SCHEMA_VERSION, open_database
from pet.memory.store import MemoryStore

FIXTURES = Path(__file__).parent / "fixtures"


def v1_database(path: Path) -> Path:
    conn = sqlite3.connect(path)
    conn.executescript((FIXTURES / "schema_v1.sql").read_text(encoding="utf-8"))
    conn.close()
    return path


def test_the_fixture_is_a_version_1_database(tmp_path):
    path = v1_database(tmp_path / "old.db")
    with closing(sqlite3.connect(path)) as conn, conn:
        assert conn.execute("SELECT max(version) FROM schema_version").fetchone() == (1,)
        columns = {row[1] for row in conn.execute("PRAGMA table_info(memories)")}
    assert "asserted_by" not in columns and "status" not in columns


def test_a_version_1_database_upgrades_and_keeps_everything(tmp_path):
    path = v1_database(tmp_path / "old.db")
    with closing(sqlite3.connect(path)) as conn, conn:
        before = {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                  for t in ("pets", "conversations", "messages", "memories", "reminders")}
    db = open_database(f"sqlite:///{path}")
    try:
        assert db.schema_version() == SCHEMA_VERSION
        assert db.fts
        with closing(sqlite3.connect(path)) as conn, conn:
            after = {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in before}
            assert after == before
            versions = [v for (v,) in conn.execute("SELECT version FROM schema_version ORDER BY version")]
            assert versions == list(range(1, SCHEMA_VERSION + 1))
            # old memories count as the person's own words, active
            assert set(conn.execute("SELECT asserted_by, status FROM memories")) == {("person", "active")}
            assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            indexes = {row[1] for row in conn.execute("PRAGMA index_list(memories)")}
            assert {"ix_memories_pet_pinned", "ix_memories_pet_updated"} <= indexes
        store = MemoryStore(db)
        # the full-text index was filled from the old rows (Chinese and English)
        assert [m.content for m in store.search(1, "小雨的生日")] == ["我妹妹叫小雨，生日是3月5日"]
        assert [m.content for m in store.search(1, "when do I code?")] == ["codes after 11pm"]
        # a forgotten memory stays forgotten
        assert store.search(1, "oolong tea") == []
        # and new writes work on the upgraded schema
        record, created = store.remember(1, "喜欢晚上散步")
        assert created and store.search(1, "散步")[0].id == record.id
    finally:
        db.close()
    # opening again does not migrate twice
    again = open_database(f"sqlite:///{path}")
    assert again.schema_version() == SCHEMA_VERSION
    again.close()


def test_a_version_2_database_gains_traces_and_keeps_everything(tmp_path):
    # schema_v2.sql: the memory.db.example of release 2, dumped without its
    # full-text index (a dump cannot rebuild FTS5 tables), which is remade here
    path = tmp_path / "v2.db"
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.executescript((FIXTURES / "schema_v2.sql").read_text(encoding="utf-8"))
        for statement in _FTS_DDL:
            conn.execute(statement)
        conn.execute(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('rebuild')")
        assert conn.execute("SELECT max(version) FROM schema_version").fetchone() == (2,)
        assert "traces" not in {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}
        before = {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                  for t in ("pets", "conversations", "messages", "memories", "inbox")}
    db = open_database(f"sqlite:///{path}")
    try:
        assert db.schema_version() == SCHEMA_VERSION
        with closing(sqlite3.connect(path)) as conn, conn:
            assert {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in before} == before
            assert conn.execute("SELECT count(*) FROM traces").fetchone() == (0,)
            assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert MemoryStore(db).search(1, "乌龙茶")  # the full-text index came through the dump
    finally:
        db.close()

"""Engine, sessions and schema versions. Nothing connects until `open_database`."""

from __future__ import annotations

import logging
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, Sequence, cast

from sqlalchemy import Engine, Table, create_engine, event, inspect, select, text
from sqlalchemy.engine import Connection
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from pet.errors import StorageError
from pet.memory import replica
from pet.memory.models import Base, InboxRow, MemoryRow, MemoryVectorRow, SchemaVersion, SummaryRow, TraceRow
from pet.memory.opening import check_database_file
from pet.private import private_file

log = logging.getLogger(__name__)

SCHEMA_VERSION = 7

#: the full-text index of memories (SQLite only): trigram tokens, so Chinese
#: and English substrings of three characters or more match; kept in sync
#: with the memories table by triggers
FTS_TABLE = "memories_fts"
_FTS_DDL = (
    f"CREATE VIRTUAL TABLE IF NOT EXISTS {FTS_TABLE} USING fts5("
    "content, tokenize='trigram', content='memories', content_rowid='id')",
    f"CREATE TRIGGER IF NOT EXISTS memories_fts_insert AFTER INSERT ON memories BEGIN "
    f"INSERT INTO {FTS_TABLE}(rowid, content) VALUES (new.id, new.content); END",
    f"CREATE TRIGGER IF NOT EXISTS memories_fts_delete AFTER DELETE ON memories BEGIN "
    f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, content) VALUES ('delete', old.id, old.content); END",
    f"CREATE TRIGGER IF NOT EXISTS memories_fts_update AFTER UPDATE OF content ON memories BEGIN "
    f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, content) VALUES ('delete', old.id, old.content); "
    f"INSERT INTO {FTS_TABLE}(rowid, content) VALUES (new.id, new.content); END",
)


def _table(model: type) -> Table:
    """A mapped class's Table (typed: `__table__` is only a FromClause to mypy)."""
    return cast(Table, model.__table__)  # type: ignore[attr-defined]


def sqlite_rows(conn: Connection, sql: str, params: Sequence = ()) -> list[tuple]:
    """The rows of a small query through the plain sqlite3 cursor under a
    SQLAlchemy connection (SQLite only): a tenth of the time of
    `conn.execute`, for queries a search makes every time."""
    dbapi = conn.connection.dbapi_connection
    assert dbapi is not None, "a checked-out connection has its DB-API connection"
    cursor = dbapi.cursor()
    try:
        return cursor.execute(sql, params).fetchall()
    finally:
        cursor.close()


def install_fts(conn: Connection) -> bool:
    """Create the memories' full-text index and fill it from the table.
    False (and recall uses LIKE) on other databases or a SQLite without FTS5."""
    if conn.dialect.name != "sqlite":
        return False
    try:
        for statement in _FTS_DDL:
            conn.execute(text(statement))
        conn.execute(text(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('rebuild')"))
    except SQLAlchemyError as exc:  # pragma: no cover - SQLite built without FTS5/trigram
        log.warning("no full-text index (recall uses LIKE): %s", exc)
        return False
    return True


#: FTS5 merges its segments (one per write) when this many of one size have piled up:
#: fewer than its default, 16, so that a search opens fewer of them (each opened per term)
CRISIS_MERGE = 4
#: an index in more segments than this is merged into one when the database opens
#: (a bulk insert or import leaves many; a search then costs up to half as much again)
MOST_SEGMENTS = 8


def tidy_fts(conn: Connection) -> None:
    """Keep the full-text index in few segments: set its merge threshold,
    and merge it into one when it is in more than MOST_SEGMENTS (about
    0.2 s for 100,000 memories)."""
    config = f"{FTS_TABLE}_config"
    found = conn.execute(text(f"SELECT v FROM {config} WHERE k = 'crisismerge'")).scalar()
    if found != CRISIS_MERGE:
        conn.execute(text(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}, rank) VALUES ('crisismerge', :n)"),
                     {"n": CRISIS_MERGE})
    # each segment's leaves are listed in the _idx table, a few rows per thousand memories
    segments = conn.execute(text(f"SELECT count(DISTINCT segid) FROM {FTS_TABLE}_idx")).scalar() or 0
    if segments > MOST_SEGMENTS:
        conn.execute(text(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('optimize')"))


def has_fts(conn: Connection) -> bool:
    if conn.dialect.name != "sqlite":
        return False
    return conn.execute(
        text("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = :name"), {"name": FTS_TABLE}
    ).first() is not None


def _to_v2(conn: Connection) -> None:
    """Release 2: who asserted a memory, pending approval, summaries, full-text
    index, indexes for pinned and newest memories, and the inbox."""
    conn.execute(text("ALTER TABLE memories ADD COLUMN asserted_by VARCHAR(16) NOT NULL DEFAULT 'person'"))
    conn.execute(text("ALTER TABLE memories ADD COLUMN status VARCHAR(16) NOT NULL DEFAULT 'active'"))
    conn.execute(text("ALTER TABLE pets ADD COLUMN persona_text TEXT"))
    _table(SummaryRow).create(conn, checkfirst=True)
    _table(InboxRow).create(conn, checkfirst=True)
    for index in _table(MemoryRow).indexes:
        if index.name in ("ix_memories_pet_pinned", "ix_memories_pet_updated"):
            index.create(conn, checkfirst=True)
    install_fts(conn)


def _to_v3(conn: Connection) -> None:
    """Release 3: a trace of each turn. (Early builds of release 2 lacked the
    inbox; it is made here if missing.)"""
    _table(InboxRow).create(conn, checkfirst=True)
    _table(TraceRow).create(conn, checkfirst=True)


def _to_v4(conn: Connection) -> None:
    """Release 4: memories' sentence vectors for recall by meaning (filled in
    later by pet.memory.meaning.backfill, not here: the encoder is optional)."""
    _table(MemoryVectorRow).create(conn, checkfirst=True)


def _to_v5(conn: Connection) -> None:
    """Release 5: a log of the ids of memories written, which search's copy
    of them follows (pet.memory.replica; SQLite only)."""
    if has_fts(conn):  # search by words uses it on the FTS5 path only
        replica.install(conn)


def _to_v6(conn: Connection) -> None:
    """Release 6: conversations deleted from the list (soft: undone by clearing the time)."""
    conn.execute(text("ALTER TABLE conversations ADD COLUMN deleted_at DATETIME"))


def _to_v7(conn: Connection) -> None:
    """Release 7: an inbox message names the conversation message that said it."""
    columns = {column["name"] for column in inspect(conn).get_columns(InboxRow.__tablename__)}
    if "message_id" not in columns:
        conn.execute(text("ALTER TABLE inbox ADD COLUMN message_id INTEGER REFERENCES messages(id) ON DELETE SET NULL"))


#: upgrade steps: MIGRATIONS[n] turns a version n-1 database into version n
MIGRATIONS: dict[int, Callable[[Connection], None]] = {2: _to_v2, 3: _to_v3, 4: _to_v4, 5: _to_v5, 6: _to_v6, 7: _to_v7}


#: how much of the database file SQLite reads through a memory map
MMAP_BYTES = 256 * 1024 * 1024


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=10000")
    # Reads through a memory map instead of a read() per page: recall's FTS5 lists walk many
    # pages of a large index (about 0.5 ms of a search's 10 at p95 with 100,000 memories).
    # Writes still go through the journal as before.
    cursor.execute(f"PRAGMA mmap_size={MMAP_BYTES}")
    cursor.close()


def _reason(exc: SQLAlchemyError) -> str:
    """What went wrong, in the database's own words: never the SQL statement
    or its parameters (the person's text), which SQLAlchemy's message carries
    and which must reach neither a page nor the log."""
    orig = getattr(exc, "orig", None)
    return str(orig) if orig is not None else type(exc).__name__


class Database:
    def __init__(self, engine: Engine, fts: bool = False):
        self.engine = engine
        #: whether the memories' full-text index exists (SQLite with FTS5)
        self.fts = fts
        #: whether recall may also rank by meaning (pet.memory.meaning), when its encoder is installed
        self.meaning = True
        self._sessions = sessionmaker(engine, expire_on_commit=False)

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A transaction: committed when the block ends, rolled back on error."""
        with self._sessions() as session:
            try:
                yield session
                session.commit()
            except SQLAlchemyError as exc:
                session.rollback()
                raise StorageError(f"database error: {_reason(exc)}") from exc
            except BaseException:
                session.rollback()
                raise

    def schema_version(self) -> int:
        with self.session() as session:
            return session.scalar(select(SchemaVersion.version).order_by(SchemaVersion.version.desc())) or 0

    def close(self) -> None:
        self.engine.dispose()


def _migrate(engine: Engine) -> None:
    with engine.begin() as conn:
        has_tables = engine.dialect.has_table(conn, SchemaVersion.__tablename__)
        current = 0
        if has_tables:
            current = conn.execute(select(SchemaVersion.version).order_by(SchemaVersion.version.desc())).scalar() or 0
        if current == 0:
            # A new database (or a first start that died before stamping the
            # version) gets the current schema at once, stamped current.
            Base.metadata.create_all(conn)
            if install_fts(conn):
                replica.install(conn)
            conn.execute(_table(SchemaVersion).insert().values(version=SCHEMA_VERSION))
            return
        if current > SCHEMA_VERSION:
            raise StorageError(
                f"the database is at schema version {current}, newer than this program ({SCHEMA_VERSION}); "
                "upgrade pet or use another --home"
            )
        for version in range(current + 1, SCHEMA_VERSION + 1):
            log.info("migrating database to schema version %d", version)
            MIGRATIONS[version](conn)
            conn.execute(_table(SchemaVersion).insert().values(version=version))


def open_database(url: str) -> Database:
    """Connect, create or upgrade the schema, and return the Database."""
    if url.startswith("sqlite:///"):
        path = Path(url.removeprefix("sqlite:///"))
        if str(path) != ":memory:":
            # SQLite gives its -wal, -shm and -journal files the database file's mode
            try:
                private_file(path)
            except OSError as exc:
                raise StorageError(
                    f"cannot create the database {path} ({exc.strerror or exc}) — check that folder's "
                    "permissions, or start with another --home"
                ) from exc
            check_database_file(path)  # damaged or read-only: refused before anything writes
        # hide_parameters: an error's text (and so a logged traceback) never carries the person's words
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30}, hide_parameters=True)
        event.listen(engine, "connect", _sqlite_pragmas)
    else:
        engine = create_engine(url, pool_pre_ping=True, hide_parameters=True)
    try:
        _migrate(engine)
        with engine.connect() as conn:
            fts = has_fts(conn)
    except SQLAlchemyError as exc:
        engine.dispose()
        raise StorageError(
            f"cannot open the database {url}: {getattr(exc, 'orig', None) or exc} — "
            "if this file is not the pet's database, move it away or start with another --home"
        ) from exc
    except BaseException:  # a refused schema version: its connection is closed too
        engine.dispose()
        raise
    if fts:  # upkeep; on a read-only file or a busy database, search works all the same
        for upkeep, left in ((tidy_fts, "the full-text index was left as it is"),
                             (replica.tidy, "the log of memories changed was left as it is")):
            try:
                with engine.begin() as conn:
                    upkeep(conn)
            except SQLAlchemyError as exc:
                log.warning("%s: %s", left, _reason(exc))
    return Database(engine, fts)

"""Engine, sessions and schema versions. Nothing connects until `open_database`."""

from __future__ import annotations

import logging
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from sqlalchemy import Engine, create_engine, event, select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from pet.errors import StorageError
from pet.memory.models import Base, SchemaVersion

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1
#: upgrade steps: MIGRATIONS[n] turns a version n-1 database into version n
MIGRATIONS: dict[int, Callable[[Connection], None]] = {}


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


class Database:
    def __init__(self, engine: Engine):
        self.engine = engine
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
                raise StorageError(f"database error: {exc}") from exc
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
        if not has_tables:
            # A new database gets the current schema at once, stamped current.
            Base.metadata.create_all(conn)
            conn.execute(SchemaVersion.__table__.insert().values(version=SCHEMA_VERSION))
            return
        current = conn.execute(select(SchemaVersion.version).order_by(SchemaVersion.version.desc())).scalar() or 0
        if current == 0:
            # A first start that died before stamping the version: finish it.
            Base.metadata.create_all(conn)
            conn.execute(SchemaVersion.__table__.insert().values(version=SCHEMA_VERSION))
            return
        if current > SCHEMA_VERSION:
            raise StorageError(
                f"the database is at schema version {current}, newer than this program ({SCHEMA_VERSION}); "
                "upgrade pet or use another --home"
            )
        for version in range(current + 1, SCHEMA_VERSION + 1):
            log.info("migrating database to schema version %d", version)
            MIGRATIONS[version](conn)
            conn.execute(SchemaVersion.__table__.insert().values(version=version))


def open_database(url: str) -> Database:
    """Connect, create or upgrade the schema, and return the Database."""
    if url.startswith("sqlite:///"):
        path = Path(url.removeprefix("sqlite:///"))
        if str(path) != ":memory:":
            path.parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})
        event.listen(engine, "connect", _sqlite_pragmas)
    else:
        engine = create_engine(url, pool_pre_ping=True)
    try:
        _migrate(engine)
    except SQLAlchemyError as exc:
        engine.dispose()
        raise StorageError(
            f"cannot open the database {url}: {exc.orig if getattr(exc, 'orig', None) else exc} — "
            "if this file is not the pet's database, move it away or start with another --home"
        ) from exc
    return Database(engine)

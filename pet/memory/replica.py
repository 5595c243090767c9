"""Each pet's recallable memories, copied in memory for search (SQLite).

A search reads a few hundred memories by id for every message, and checks
many more for being the pet's and recallable (approved, not forgotten): in
SQLite a B-tree lookup each, about half a millisecond of a search at
100,000 memories. Here they are dict lookups.

The copy follows the table through a log of changes: triggers on memories
write the id of every row inserted, updated or deleted to CHANGES (schema
version 5), so writes of any connection or process count, SQL run by hand
too. Each search first reads the changes since the copy last looked (one
read of the log's last row when there are none) and reads those rows
again. The log keeps the last KEEP changes (`tidy`, when the database
opens); a copy that has missed more is read again in full, as is a pet's
first (0.2 s and 26 MB for 95,000 memories).
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass, field

from sqlalchemy import Connection, Engine, text

CHANGES = "memory_changes"
_DDL = (
    f"CREATE TABLE IF NOT EXISTS {CHANGES} (seq INTEGER PRIMARY KEY AUTOINCREMENT, memory_id INTEGER NOT NULL)",
    *(
        f"CREATE TRIGGER IF NOT EXISTS {CHANGES}_{event.lower()} AFTER {event} ON memories BEGIN "
        f"INSERT INTO {CHANGES}(memory_id) VALUES ({row}.id); END"
        for event, row in (("INSERT", "new"), ("UPDATE", "new"), ("DELETE", "old"))
    ),
)
#: changes the log keeps; a copy that missed more is read again in full
KEEP = 20_000
#: ids read again at a time
_CHUNK = 500


#: a recallable memory as search needs it: (text, pinned, SQLite's julianday() of updated_at).
#: A plain tuple of plain values, which Python's garbage collector stops tracking: with
#: 100,000 of them tracked (a NamedTuple), each full collection took 18 ms more.
Held = tuple[str, bool, float]


def install(conn: Connection) -> None:
    """Create the log of changes and its triggers (SQLite)."""
    for statement in _DDL:
        conn.execute(text(statement))


def tidy(conn: Connection) -> None:
    """Drop all but the last KEEP changes (writing only when there are more)."""
    oldest, newest = conn.execute(text(f"SELECT min(seq), max(seq) FROM {CHANGES}")).one()
    if newest is not None and newest - oldest >= KEEP:
        conn.execute(text(f"DELETE FROM {CHANGES} WHERE seq <= :last"), {"last": newest - KEEP})


@dataclass
class _Copy:
    seq: int = -1  # the last change read; -1: never read
    rows: dict[int, Held] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


_COPIES: weakref.WeakKeyDictionary[Engine, dict[int, _Copy]] = weakref.WeakKeyDictionary()
_COPIES_LOCK = threading.Lock()
#: the pet's recallable rows. "+pet_id" keeps SQLite off the pet's index: walking it
#: costs ten times a read of the table in id order when one pet owns most rows
LIVE = "+pet_id = ? AND status = 'active' AND deleted_at IS NULL"
_COLUMNS = "id, content, pinned, julianday(updated_at)"


def rows(conn: Connection, pet_id: int) -> dict[int, Held]:
    """The pet's recallable memories by id, as of now. The dict may be
    shared: read it, never change it."""
    with _COPIES_LOCK:
        copy = _COPIES.setdefault(conn.engine, {}).setdefault(pet_id, _Copy())
    dbapi = conn.connection.dbapi_connection
    assert dbapi is not None, "a checked-out connection has its DB-API connection"
    cursor = dbapi.cursor()
    try:
        newest = cursor.execute(f"SELECT coalesce(max(seq), 0) FROM {CHANGES}").fetchone()[0]
        if dbapi.in_transaction:
            # This connection may have written rows it has not committed; after a rollback
            # their numbers in the log are given out again. Catch up a private copy.
            with copy.lock:
                copy = _Copy(copy.seq, dict(copy.rows))
            _catch_up(cursor, pet_id, copy, newest)
            return copy.rows
        if newest == copy.seq:
            return copy.rows
        with copy.lock:
            if newest != copy.seq:
                _catch_up(cursor, pet_id, copy, newest)
        return copy.rows
    finally:
        cursor.close()


def _catch_up(cursor, pet_id: int, copy: _Copy, newest: int) -> None:
    # Changes after `newest` (committed meanwhile) are read again next time: reading a row twice is harmless.
    changed: list[int] = []
    missed = copy.seq < 0 or newest < copy.seq or _pruned(cursor, copy.seq)
    if not missed:
        changed = [i for (i,) in cursor.execute(
            f"SELECT DISTINCT memory_id FROM {CHANGES} WHERE seq > ? AND seq <= ?", (copy.seq, newest))]
        missed = len(changed) > KEEP or _pruned(cursor, copy.seq)  # again: another process may have pruned meanwhile
    if missed:
        found = cursor.execute(f"SELECT {_COLUMNS} FROM memories WHERE {LIVE}", (pet_id,))
        copy.rows = {row_id: (content, bool(pinned), julian) for row_id, content, pinned, julian in found}
    else:
        for start in range(0, len(changed), _CHUNK):
            part = changed[start: start + _CHUNK]
            marks = ",".join("?" * len(part))
            found = {row_id: (content, bool(pinned), julian) for row_id, content, pinned, julian in cursor.execute(
                f"SELECT {_COLUMNS} FROM memories WHERE id IN ({marks}) AND {LIVE}", (*part, pet_id))}
            for row_id in part:  # in place, so that a search reading the dict meanwhile misses nothing live
                if row_id in found:
                    copy.rows[row_id] = found[row_id]
                else:
                    copy.rows.pop(row_id, None)
    copy.seq = newest


def _pruned(cursor, seq: int) -> bool:
    """Whether changes after `seq` have been dropped from the log."""
    oldest = cursor.execute(f"SELECT min(seq) FROM {CHANGES}").fetchone()[0]
    return oldest is not None and oldest > seq + 1

"""Checks of a SQLite database file before the pet opens it for writing.

Opening writes at once (the journal mode, migrations, index upkeep), so a
damaged or read-only file must be refused before that, with a message that
names the file and says what to do. The integrity check reads through a
read-only connection: it writes nothing and, unlike a writing connection,
does not fold a left-over write-ahead log into the file when it closes.
It reads the whole file: 0.8-1.0 s for 100,000 memories (60 MB) on a busy
2-core machine.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from pet.errors import StorageError

#: SQLite's companion files of a database in WAL mode
COMPANIONS = ("-wal", "-shm")
#: how many of quick_check's findings a refusal quotes
QUOTED_PROBLEMS = 2


def check_database_file(path: Path) -> None:
    """Refuse `path` (a SQLite file, maybe new and empty) unless its folder
    and files can be written and an existing database is sound."""
    _check_writable(path)
    if path.stat().st_size > 0 or any(_companion(path, end).exists() for end in COMPANIONS):
        _check_sound(path)


def _companion(path: Path, end: str) -> Path:
    return path.with_name(path.name + end)


def _writable(path: Path) -> bool:
    # effective ids where the platform can: a program run setuid is judged as what it acts as
    if os.access in os.supports_effective_ids:
        return os.access(path, os.W_OK, effective_ids=True)
    return os.access(path, os.W_OK)


def _check_writable(path: Path) -> None:
    folder = path.parent
    if not _writable(folder):
        raise StorageError(
            f"cannot write in {folder}, the folder of the database {path}: SQLite keeps its journal "
            "files beside the database. Nothing was written. Give your user write permission on that "
            "folder (chmod u+w), or start with another --home"
        )
    for file in (path, *(_companion(path, end) for end in COMPANIONS)):
        if file.exists() and not _writable(file):
            raise StorageError(
                f"the database file {file} is read-only. Nothing was written. Give your user write "
                f"permission on it (chmod u+w {file}), or start with another --home"
            )


def _check_sound(path: Path) -> None:
    # Without a write-ahead log nobody is writing (a writer in WAL mode keeps
    # one) and the file is read as it stands: SQLite then makes no -shm or
    # -wal file beside it, as even a read-only connection otherwise does.
    options = "mode=ro" if _companion(path, "-wal").exists() else "mode=ro&immutable=1"
    try:
        # as_uri() escapes "#", "?" and "%": raw, they would cut the path short
        connection = sqlite3.connect(f"{path.absolute().as_uri()}?{options}", uri=True, timeout=30)
    except sqlite3.Error as exc:
        raise StorageError(f"cannot open the database {path} ({exc}). Nothing was written.") from exc
    try:
        problems = [str(row[0]) for row in connection.execute("PRAGMA quick_check").fetchall()]
    except sqlite3.DatabaseError as exc:
        problems = [str(exc)]
    finally:
        connection.close()
    if problems == ["ok"]:
        return
    if any("not a database" in problem for problem in problems):
        raise StorageError(
            f"{path} is not a database ({problems[0]}). Nothing was written to it. If it is not the "
            "pet's database, move it away or start with another --home"
        )
    raise StorageError(
        f"the database {path} is damaged ({'; '.join(problems[:QUOTED_PROBLEMS])}). Nothing was written "
        "to it. Move it away and put back a backup (`python run.py import FILE` reads an export), or "
        "start afresh with another --home; `python run.py doctor` shows what is wrong"
    )

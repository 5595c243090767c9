"""Build `memory.db.example`, the demo home, from `assets/example/home.json`
(an export file, readable and editable) through the importer:

    python -m pet.memory.example [TARGET]

Rebuilding gives the same rows; only the SQLite file's bookkeeping (the
time the schema was stamped) differs.
"""

from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path

from pet.memory.db import open_database
from pet.memory.portable import ImportReport, import_from

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "assets" / "example" / "home.json"
TARGET = ROOT / "memory.db.example"


def build_example(target: Path = TARGET, fixture: Path = FIXTURE) -> ImportReport:
    """Write a fresh demo database to `target`, replacing it whole."""
    target = Path(target)
    building = target.with_name(target.name + ".building")
    for leftover in (building, Path(f"{building}-wal"), Path(f"{building}-shm")):
        leftover.unlink(missing_ok=True)
    db = open_database(f"sqlite:///{building}")
    try:
        report = import_from(db, fixture)
    finally:
        db.close()
    # One self-contained file to commit and copy: fold the write-ahead log in
    # and leave WAL mode (the pet turns it back on when it opens the file).
    conn = sqlite3.connect(building)
    try:
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.execute("VACUUM")
    finally:
        conn.close()
    os.replace(building, target)
    return report


def main(argv: list[str]) -> int:
    target = Path(argv[0]) if argv else TARGET
    report = build_example(target)
    print(f"built {target} from {FIXTURE}")
    for line in report.lines():
        print(f"  {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

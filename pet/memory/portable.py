"""Export and import: every table the person owns, as one JSON file.

    {"format": "pet-export", "version": 1, "schema_version": N,
     "tables": {"pets": [...], "conversations": [...], ...}}

The tables are those of the ORM metadata except `schema_version`, so a table
added later is carried without changes here. Rows are sorted by id, keys
sorted, times are ISO strings: export → import into an empty database →
export gives the same bytes.

Into an empty database an import keeps every id. Into one that has rows it
merges: a row of the file that is already there (see MATCHES) is not added
again, new rows get new ids and every reference to them follows. An import
is one transaction; a file that cannot be read changes nothing.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Column, Table, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.schema import sort_tables

from pet.config import is_safe_id
from pet.errors import ExportFileError
from pet.memory.db import SCHEMA_VERSION, Database
from pet.memory.models import Base, MemoryVectorRow, SchemaVersion, TraceRow

FORMAT = "pet-export"
FORMAT_VERSION = 1
#: tables that describe the database, or debugging data, rather than the person's things;
#: memory vectors are derived from the memories and rebuilt (pet.memory.meaning.backfill)
EXCLUDED = frozenset({SchemaVersion.__tablename__, TraceRow.__tablename__, MemoryVectorRow.__tablename__})


@dataclass(frozen=True)
class Match:
    """Two rows with equal `columns` (after ids are remapped) are the same
    thing. `live_only`: only when neither row is soft-deleted."""

    columns: tuple[str, ...]
    live_only: bool = False


#: How a row of the file is recognised in a database that already has rows;
#: the first match that finds a row wins. Other tables: all columns but the id.
MATCHES: dict[str, tuple[Match, ...]] = {
    "pets": (Match(("slug",)),),
    "conversations": (Match(("pet_id", "created_at")),),
    "messages": (Match(("conversation_id", "created_at", "role", "content")),),
    # the same memory (perhaps forgotten since), else the live memory with that key
    "memories": (Match(("pet_id", "key", "created_at")), Match(("pet_id", "key"), live_only=True)),
    # a repeating reminder's due time moves on, so its creation time also identifies it
    "reminders": (Match(("pet_id", "text", "created_at")), Match(("pet_id", "text", "due_at"))),
    "summaries": (Match(("conversation_id", "through_message_id")),),
    # a message read since it was exported is still the same message
    "inbox": (Match(("pet_id", "kind", "created_at")),),
}

#: Columns taken from the file's copy of a matched row when that copy was
#: updated later (and neither copy is forgotten).
REFRESHED: dict[str, tuple[str, ...]] = {
    "conversations": ("title", "updated_at"),
    "memories": ("content", "tag", "pinned", "status", "updated_at"),
}

#: id columns that point at another table without a foreign key in the schema
LOOSE_REFERENCES: dict[tuple[str, str], str] = {("summaries", "through_message_id"): "messages"}


@dataclass
class TableCounts:
    added: int = 0
    #: already in the database, left as it was
    skipped: int = 0
    #: already in the database, refreshed from the file's newer copy
    updated: int = 0


@dataclass
class ImportReport:
    #: whether the database was empty, so every row kept its id
    kept_ids: bool
    tables: dict[str, TableCounts] = field(default_factory=dict)

    @property
    def added(self) -> int:
        return sum(c.added for c in self.tables.values())

    @property
    def skipped(self) -> int:
        return sum(c.skipped for c in self.tables.values())

    def lines(self) -> list[str]:
        width = max((len(name) for name in self.tables), default=0)
        lines = []
        for name, counts in self.tables.items():
            line = f"{name:<{width}}  {counts.added} added, {counts.skipped} already there"
            if counts.updated:
                line += f", {counts.updated} updated"
            lines.append(line)
        return lines


def owned_tables() -> list[Table]:
    """The tables an export carries, each after the tables it points at."""
    tables = [t for t in Base.metadata.tables.values() if t.name not in EXCLUDED]
    by_name = {t.name: t for t in tables}
    extra = [(by_name[target], by_name[name]) for (name, _), target in LOOSE_REFERENCES.items()
             if name in by_name and target in by_name]
    return sort_tables(tables, extra_dependencies=extra)


def _pk(table: Table) -> Column:
    (column,) = table.primary_key.columns
    return column


def _references(table: Table) -> list[tuple[str, str]]:
    """(column, table it points at) for every id column that refers to a row."""
    refs = [(c.name, fk.column.table.name) for c in table.columns for fk in c.foreign_keys]
    refs += [(column, target) for (name, column), target in LOOSE_REFERENCES.items() if name == table.name]
    return refs


# --- export ------------------------------------------------------------------


def _encode(value: Any) -> Any:
    return value.isoformat() if isinstance(value, (dt.date, dt.datetime)) else value


def export_home(db: Database) -> dict:
    """Everything the person owns, as JSON-ready data."""
    with db.session() as session:
        conn = session.connection()  # one read transaction: a consistent snapshot
        schema = conn.execute(select(SchemaVersion.version).order_by(SchemaVersion.version.desc())).scalar()
        tables = {}
        for table in owned_tables():
            rows = conn.execute(select(table).order_by(_pk(table))).mappings()
            tables[table.name] = [{key: _encode(value) for key, value in row.items()} for row in rows]
    return {"format": FORMAT, "version": FORMAT_VERSION, "schema_version": schema or SCHEMA_VERSION,
            "tables": tables}


def dumps(data: dict) -> str:
    """The export file's text: keys sorted, UTF-8 as is, one trailing newline."""
    return json.dumps(data, ensure_ascii=False, sort_keys=True, indent=2) + "\n"


def export_to(db: Database, path: Path) -> dict:
    """Write the export to `path` (replaced whole, never half-written); returns the data."""
    data = export_home(db)
    path = Path(path)
    partial = path.with_name(path.name + ".partial")
    try:
        partial.write_bytes(dumps(data).encode("utf-8"))
        os.replace(partial, path)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise ExportFileError(f"cannot write the export to {path}: {exc.strerror or exc}") from exc
    return data


# --- reading a file ----------------------------------------------------------


def _python_type(column: Column) -> type | None:
    try:
        return column.type.python_type
    except NotImplementedError:  # pragma: no cover - no such column today
        return None


def _decode(column: Column, value: Any, where: str) -> Any:
    if value is None:
        if column.nullable:
            return None
        raise ExportFileError(f"{where}: '{column.name}' may not be null")
    kind = _python_type(column)
    try:
        if kind is dt.datetime:
            moment = dt.datetime.fromisoformat(value)
            if moment.tzinfo is not None:  # stored as UTC without a zone
                moment = moment.astimezone(dt.timezone.utc).replace(tzinfo=None)
            return moment
        if kind is dt.date:
            return dt.date.fromisoformat(value)
    except (TypeError, ValueError):
        raise ExportFileError(f"{where}: '{column.name}' should be an ISO date/time, got {value!r}") from None
    if kind in (bool, int, str):
        # JSON's true is an int to Python, but not a whole number here
        if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
            raise ExportFileError(f"{where}: '{column.name}' should be {kind.__name__}, got {value!r}")
    return value


def _decode_rows(table: Table, rows: Any) -> list[dict]:
    if not isinstance(rows, list):
        raise ExportFileError(f"table '{table.name}' should be a list of rows")
    pk = _pk(table).name
    decoded = []
    for number, raw in enumerate(rows, 1):
        where = f"{table.name} row {number}"
        if not isinstance(raw, dict):
            raise ExportFileError(f"{where} is not an object")
        unknown = sorted(set(raw) - set(table.columns.keys()))
        if unknown:
            raise ExportFileError(f"{where}: unknown column(s) {', '.join(unknown)}")
        row = {}
        for column in table.columns:
            if column.name in raw:
                row[column.name] = _decode(column, raw[column.name], where)
            elif column.primary_key or not (column.nullable or column.default or column.server_default):
                raise ExportFileError(f"{where}: missing '{column.name}'")
        decoded.append(row)
    decoded.sort(key=lambda r: r[pk])
    for a, b in itertools.pairwise(decoded):
        if a[pk] == b[pk]:
            raise ExportFileError(f"table '{table.name}': id {a[pk]} appears twice")
    return decoded


def parse_export(data: Any) -> dict[str, list[dict]]:
    """Check a loaded export and turn its values into Python ones, per table."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ExportFileError(f"not a pet export (no \"format\": \"{FORMAT}\")")
    for key in ("version", "schema_version", "tables"):
        if key not in data:
            raise ExportFileError(f"the export has no '{key}'")
    version, schema = data["version"], data["schema_version"]
    if not isinstance(version, int) or not isinstance(schema, int):
        raise ExportFileError("'version' and 'schema_version' should be whole numbers")
    if version > FORMAT_VERSION or schema > SCHEMA_VERSION:
        raise ExportFileError(
            f"the export was made by a newer pet (format {version}, schema {schema}; this pet reads up to "
            f"format {FORMAT_VERSION}, schema {SCHEMA_VERSION}) — upgrade pet to import it"
        )
    if not isinstance(data["tables"], dict):
        raise ExportFileError("'tables' should be an object of table name → rows")
    known = {t.name: t for t in owned_tables()}
    unknown = sorted(set(data["tables"]) - set(known))
    if unknown:
        raise ExportFileError(f"unknown table(s) {', '.join(unknown)}")
    # A table missing from the file (an export older than the table) is empty.
    tables = {name: _decode_rows(table, data["tables"].get(name, [])) for name, table in known.items()}
    for row in tables.get("pets", []):
        # a slug names files in the home (personas/<slug>.toml): never a path
        slug = row.get("slug")
        if not isinstance(slug, str) or not is_safe_id(slug):
            raise ExportFileError(f"pets row id {row.get('id')}: slug {slug!r} may hold only letters, digits, - and _")
    for name, table in known.items():
        for column, target in _references(table):
            ids = {row[_pk(known[target]).name] for row in tables[target]}
            for row in tables[name]:
                if row.get(column) is not None and row[column] not in ids:
                    raise ExportFileError(
                        f"{name} row id {row[_pk(table).name]}: '{column}' points at {target} id "
                        f"{row[column]}, which is not in the file"
                    )
    return tables


#: an export file larger than this is not read (it would be parsed in memory whole)
MAX_EXPORT_BYTES = 1024**3
#: an export nests four deep (the file, its tables, a table's rows, a row);
#: Python's parser stops with a RecursionError far deeper, said here in words
TOO_DEEP = (
    "is not a pet export (its JSON nests far deeper than an export does: objects inside "
    "lists inside objects hundreds of times). Choose a file made by `python run.py export`"
)


def read_export(path: Path) -> dict[str, list[dict]]:
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_EXPORT_BYTES:
            raise ExportFileError(
                f"{path} is {size:,} bytes, larger than the {MAX_EXPORT_BYTES:,} bytes an export may be; "
                "nothing was imported"
            )
        data = json.loads(path.read_bytes().decode("utf-8"))
    except RecursionError:
        raise ExportFileError(f"{path} {TOO_DEEP}") from None
    except FileNotFoundError:
        raise ExportFileError(f"no such file: {path}") from None
    except OSError as exc:
        raise ExportFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ExportFileError(f"{path} is not a pet export (not UTF-8 text)") from None
    except json.JSONDecodeError as exc:
        raise ExportFileError(f"{path} is not a pet export (not JSON: {exc})") from None
    try:
        return parse_export(data)
    except ExportFileError as exc:
        raise ExportFileError(f"{path}: {exc}") from None
    except RecursionError:  # a deep value quoted in a message about a column
        raise ExportFileError(f"{path} {TOO_DEEP}") from None


# --- import ------------------------------------------------------------------


class _Existing:
    """The database's rows of one table, found by each of the table's matches."""

    def __init__(self, conn: Connection, table: Table):
        self.matches = MATCHES.get(table.name) or (
            Match(tuple(c.name for c in table.columns if not c.primary_key)),
        )
        self.indexes: list[dict[tuple, dict]] = [{} for _ in self.matches]
        for row in conn.execute(select(table)).mappings():
            self.add(dict(row))

    def _keys(self, row: dict):
        for match, index in zip(self.matches, self.indexes):
            if not (match.live_only and row.get("deleted_at") is not None):
                yield tuple(row.get(c) for c in match.columns), index

    def add(self, row: dict) -> None:
        for key, index in self._keys(row):
            index.setdefault(key, row)

    def find(self, row: dict) -> dict | None:
        for key, index in self._keys(row):
            if key in index:
                return index[key]
        return None


def _refresh(conn: Connection, table: Table, ours: dict, theirs: dict) -> bool:
    columns = REFRESHED.get(table.name)
    if not columns or ours.get("deleted_at") is not None or theirs.get("deleted_at") is not None:
        return False
    if ours.get("updated_at") is None or theirs.get("updated_at") is None:
        return False
    if theirs["updated_at"] <= ours["updated_at"]:
        return False
    changes = {c: theirs[c] for c in columns if c in theirs}
    pk = _pk(table)
    conn.execute(update(table).where(pk == ours[pk.name]).values(changes))
    ours.update(changes)
    return True


def _insert_all(conn: Connection, table: Table, rows: list[dict]) -> None:
    # executemany wants rows with the same columns; an older file may omit some
    for _, group in itertools.groupby(rows, key=lambda r: tuple(r)):
        conn.execute(table.insert(), list(group))


def _merge(conn: Connection, tables: dict[str, list[dict]]) -> ImportReport:
    order = owned_tables()
    empty = all(conn.execute(select(_pk(t)).limit(1)).first() is None for t in order)
    report = ImportReport(kept_ids=empty)
    new_ids: dict[str, dict[int, int]] = {}
    for table in order:
        rows = tables.get(table.name, [])
        counts = report.tables[table.name] = TableCounts()
        pk = _pk(table).name
        if empty:
            _insert_all(conn, table, rows)
            new_ids[table.name] = {row[pk]: row[pk] for row in rows}
            counts.added = len(rows)
            continue
        ids = new_ids[table.name] = {}
        existing = _Existing(conn, table)
        for row in rows:
            values = dict(row)
            for column, target in _references(table):
                if values.get(column) is not None:
                    values[column] = new_ids[target][values[column]]
            values.pop(pk)
            found = existing.find(values)
            if found is None:
                inserted = conn.execute(table.insert().values(values)).inserted_primary_key
                assert inserted is not None
                ids[row[pk]] = inserted[0]
                existing.add({**values, pk: ids[row[pk]]})
                counts.added += 1
            else:
                ids[row[pk]] = found[pk]
                if _refresh(conn, table, found, values):
                    counts.updated += 1
                else:
                    counts.skipped += 1
    return report


def import_home(db: Database, tables: dict[str, list[dict]]) -> ImportReport:
    """Add parsed export data (see `parse_export`) in one transaction."""
    with db.session() as session:
        return _merge(session.connection(), tables)


def import_from(db: Database, path: Path) -> ImportReport:
    """Read an export file and merge it into the database; all or nothing."""
    return import_home(db, read_export(path))

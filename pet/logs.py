"""Structured logs: one JSON line per event in `<home>/logs/pet.log` (rotated),
and a readable line on the console.

Who a line is about (pet, conversation, turn, step) travels in context
variables, so code deep in a turn logs with its context without passing it
along. A turn runs as a generator that UI and API threads advance one step
at a time; `in_context` gives it one Context of its own that every step runs
in, whichever thread calls it.
"""

from __future__ import annotations

import contextvars
import datetime as dt
import json
import logging
import logging.handlers
from contextlib import contextmanager
from io import TextIOWrapper
from pathlib import Path
from typing import Any, Iterator, TypeVar

from pet.private import private_dir, private_opener

#: the fields every JSON line carries (null when unknown)
CONTEXT_FIELDS = ("pet", "conversation", "turn", "step")
LOG_FILE = Path("logs") / "pet.log"
#: 5 MB a file, the current one and three older ones
MAX_BYTES = 5_000_000
BACKUPS = 3
#: libraries that log every request at INFO
NOISY = ("httpx", "httpx2", "uvicorn.access", "urllib3")

_vars: dict[str, contextvars.ContextVar[Any]] = {
    name: contextvars.ContextVar(f"pet_log_{name}", default=None) for name in CONTEXT_FIELDS
}
# Attributes every LogRecord has; anything else was passed with extra=.
# ("where" is the console's rendering of the context, set on the shared record.)
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {
    "message", "asctime", "taskName", "where"}

T = TypeVar("T")


def set_fields(**fields: Any) -> None:
    """Set context fields for the rest of the current Context (say, the
    turn's id once it is known)."""
    for name, value in fields.items():
        _vars[name].set(value)


def current_fields() -> dict[str, Any]:
    return {name: var.get() for name, var in _vars.items()}


@contextmanager
def fields(**values: Any) -> Iterator[None]:
    """Log with these context fields inside the block (not in generators:
    see `in_context`)."""
    tokens = [(_vars[name], _vars[name].set(value)) for name, value in values.items()]
    try:
        yield
    finally:
        for var, token in reversed(tokens):
            var.reset(token)


def in_context(steps: Iterator[T], **values: Any) -> Iterator[T]:
    """Run each step of a generator inside one Context of its own that
    holds these fields; what the generator sets there stays for its later
    steps and never leaks to the caller."""
    context = contextvars.copy_context()
    context.run(set_fields, **values)
    try:
        while True:
            try:
                item = context.run(next, steps)
            except StopIteration:
                return
            yield item
    finally:
        close = getattr(steps, "close", None)
        if close is not None:  # the caller stopped early: let the generator clean up now, in its context
            context.run(close)


class ContextFilter(logging.Filter):
    """Copies the context fields onto each record (an explicit extra= wins)."""

    def filter(self, record: logging.LogRecord) -> bool:
        for name, var in _vars.items():
            if getattr(record, name, None) is None:
                setattr(record, name, var.get())
        if not hasattr(record, "duration"):
            record.duration = None
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, the context
    fields, duration (seconds), and any other extra= fields."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": dt.datetime.fromtimestamp(record.created, dt.timezone.utc).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in CONTEXT_FIELDS:
            line[name] = getattr(record, name, None)
        duration = getattr(record, "duration", None)
        line["duration"] = round(duration, 6) if isinstance(duration, (int, float)) else None
        for key, value in vars(record).items():
            if key not in _STANDARD and key not in line:
                line[key] = value
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


class ConsoleFormatter(logging.Formatter):
    """`12:00:01 INFO pet.agent.loop [pet 1 · conversation 3 · turn 12 · step 0 · 0.120 s]: …`"""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s%(where)s: %(message)s", datefmt="%H:%M:%S")

    def format(self, record: logging.LogRecord) -> str:
        parts = [
            f"{name} {getattr(record, name)}"
            for name in CONTEXT_FIELDS
            if getattr(record, name, None) is not None
        ]
        duration = getattr(record, "duration", None)
        if isinstance(duration, (int, float)):
            parts.append(f"{duration:.3f} s")
        record.where = f" [{' · '.join(parts)}]" if parts else ""
        return super().format(record)


class PrivateFileHandler(logging.handlers.RotatingFileHandler):
    """The rotating log, owner-only: the first file and each one made after a
    rotation (the lines quote what the person said)."""

    def _open(self) -> TextIOWrapper:
        # the handler keeps the stream and closes it itself
        stream = open(  # noqa: SIM115
            self.baseFilename, self.mode, encoding=self.encoding, errors=self.errors, opener=private_opener
        )
        assert isinstance(stream, TextIOWrapper)  # a text mode ("a"), so a text stream
        return stream


def log_path(home: Path) -> Path:
    return home / LOG_FILE


def setup_logging(
    home: Path,
    level: str = "INFO",
    *,
    console: bool = True,
    console_level: str | None = None,
    to_file: bool = True,
) -> Path | None:
    """Send the pet's logs at `level` to the rotating JSON file in `home`
    (when `to_file`) and, readable, to the console (when `console`; only
    `console_level` and above when given). Replaces handlers an earlier call
    installed. Returns the log file's path, or None when the file cannot be
    written (the console still gets every line)."""
    root = logging.getLogger()
    for handler in [h for h in root.handlers if getattr(h, "_pet_handler", False)]:
        root.removeHandler(handler)
        handler.close()
    root.setLevel(level.upper())
    context = ContextFilter()
    handlers: list[logging.Handler] = []
    if console:
        stream = logging.StreamHandler()
        stream.setFormatter(ConsoleFormatter())
        if console_level:
            stream.setLevel(console_level.upper())
        handlers.append(stream)
    path: Path | None = None
    problem = ""
    if to_file:
        path = log_path(home)
        try:
            private_dir(path.parent)  # the home too, when this is its first start
            file = PrivateFileHandler(
                path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8"
            )
        except OSError as exc:
            problem, path = f"cannot write the log file {path} ({exc})", None
        else:
            file.setFormatter(JsonFormatter())
            handlers.append(file)
    for handler in handlers:
        handler.addFilter(context)
        handler._pet_handler = True  # type: ignore[attr-defined]
        root.addHandler(handler)
    for noisy in NOISY:
        logging.getLogger(noisy).setLevel(logging.WARNING)
    if problem:
        logging.getLogger(__name__).warning(
            "%s; logging to the console only — check the data folder's permissions (`python run.py doctor`)", problem
        )
    return path

"""Reading the workspace files the morning brief draws on (todo lists and
calendars): a missing file is simply absent, an unreadable one becomes a
`FileProblem` the brief names instead of crashing."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

#: longer reasons (a library's message quoting half the file) are cut here
MAX_REASON_CHARS = 160


@dataclass(frozen=True)
class FileProblem:
    """A workspace file that exists but could not be used, and why."""

    name: str
    reason: str


class UnreadableFile(Exception):
    def __init__(self, problem: FileProblem):
        super().__init__(f"{problem.name}: {problem.reason}")
        self.problem = problem


def shorten(reason: str) -> str:
    reason = " ".join(reason.split())
    return reason if len(reason) <= MAX_REASON_CHARS else reason[: MAX_REASON_CHARS - 1] + "…"


def read_text(path: Path) -> str | None:
    """The file's text, None when there is no such file. Raises UnreadableFile
    when it cannot be opened or is not UTF-8 (a byte-order mark is allowed)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UnreadableFile(FileProblem(path.name, shorten(exc.strerror or str(exc)))) from exc
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        byte = data[exc.start]
        raise UnreadableFile(FileProblem(
            path.name, f"it is not UTF-8 text (byte 0x{byte:02x} at offset {exc.start}); save it as UTF-8"
        )) from exc

"""The todo files' formats, read one way by the chat's todo tools and the
morning brief alike. Pure: text in, open items out.

- Markdown checklists (`todo.md`): `- [ ] item`, `* [ ]`, `+ [ ]`, `1. [ ]`;
  `[x]` or `[X]` is done, and so are the open sub-items of a done item.
  Indented items are sub-items. Lines inside fenced code blocks are examples,
  not tasks. A `due:2026-03-05` or `📅 2026-03-05` in an item is its due date.
- todo.txt (`todo.txt`): a leading `x ` is done, `(A)` a priority, a date
  after it the creation date, `due:YYYY-MM-DD` the due date; `+project` and
  `@context` stay in the text.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

MARKDOWN_FILE = "todo.md"  # the file the add_todo tool writes
TODOTXT_FILE = "todo.txt"
#: spaces a tab counts for when working out how deep a sub-item is
TAB_WIDTH = 4

_CHECKBOX = re.compile(r"^(?P<indent>[ \t]*)(?:[-*+]|\d{1,3}[.)])[ \t]+\[(?P<mark>[ xX])\][ \t]+(?P<text>.*?)\s*$")
_FENCE = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_DUE = re.compile(r"(?:(?<!\S)due:|📅\s*)(\d{4}-\d{2}-\d{2})(?!\S)")
_PRIORITY = re.compile(r"^\(([A-Z])\)\s+")
_DATE_PREFIX = re.compile(r"^\d{4}-\d{2}-\d{2}\s+")


@dataclass(frozen=True)
class Todo:
    text: str
    source: str
    priority: str | None = None  # "A".."Z"
    due: dt.date | None = None
    depth: int = 0  # 0 for a top-level item, 1 for its sub-items, …

    def overdue(self, today: dt.date) -> bool:
        return self.due is not None and self.due < today

    def due_today(self, today: dt.date) -> bool:
        return self.due == today


def _take_due(text: str) -> tuple[str, dt.date | None]:
    """The text without its due date, and the date (None when absent or not a real date)."""
    for match in _DUE.finditer(text):
        try:
            due = dt.date.fromisoformat(match.group(1))
        except ValueError:
            continue  # "due:2026-02-31" stays in the text for the person to see
        return " ".join((text[: match.start()] + text[match.end() :]).split()), due
    return text, None


def _indent(line: str) -> int:
    expanded = line.expandtabs(TAB_WIDTH)
    return len(expanded) - len(expanded.lstrip(" "))


def parse_markdown(text: str, source: str = MARKDOWN_FILE) -> list[Todo]:
    """The open checklist items, in file order. An open item under a done
    one is left out: finishing the parent finished its steps."""
    items: list[Todo] = []
    done_at: int | None = None  # indent of the done item whose sub-items are skipped
    fence = ""  # the fence of the code block we are in, "" outside one
    for line in text.splitlines():
        found = _FENCE.match(line)
        if fence:
            if found and _closes(fence, found):
                fence = ""
            continue
        if found and not (found["fence"][0] == "`" and "`" in found["info"]):  # "```code```" is inline
            fence = found["fence"]
            continue
        if not line.strip():
            continue
        indent = _indent(line)
        if done_at is not None and indent > done_at:
            continue
        done_at = None  # a line as shallow as the done item ends its sub-items
        match = _CHECKBOX.match(line)
        if match is None:
            continue
        if match["mark"] != " ":
            done_at = indent
            continue
        body, due = _take_due(match["text"])
        if body:
            items.append(Todo(body, source, due=due, depth=indent))
    return _depths(items)


def _closes(fence: str, found: re.Match[str]) -> bool:
    """A code block ends at a fence of its own kind, at least as long, with nothing after it."""
    return found["fence"][0] == fence[0] and len(found["fence"]) >= len(fence) and not found["info"].strip()


def _depths(items: list[Todo]) -> list[Todo]:
    """Turn indents (in spaces) into nesting levels 0, 1, 2…"""
    stack: list[int] = []
    out: list[Todo] = []
    for item in items:
        while stack and stack[-1] >= item.depth:
            stack.pop()
        level = len(stack)
        stack.append(item.depth)
        out.append(Todo(item.text, item.source, item.priority, item.due, level))
    return out


def parse_todotxt(text: str, source: str = TODOTXT_FILE) -> list[Todo]:
    """The open todo.txt tasks, in file order."""
    items: list[Todo] = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("x "):
            continue
        priority = None
        match = _PRIORITY.match(line)
        if match:
            priority, line = match.group(1), line[match.end() :]
        line = _DATE_PREFIX.sub("", line, count=1)
        body, due = _take_due(line)
        if body:
            items.append(Todo(body, source, priority=priority, due=due))
    return items

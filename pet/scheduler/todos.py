"""The open items of the todo files in the workspace, most urgent first.

Two formats are read:

- Markdown checklists (`todo.md`): `- [ ] item`, `* [ ]`, `+ [ ]`, `1. [ ]`;
  `[x]` is done; indented items are sub-items and move with their parent.
  A `due:2026-03-05` or `📅 2026-03-05` in an item is its due date.
- todo.txt (`todo.txt`): a leading `x ` is done, `(A)` a priority, a date
  after it the creation date, `due:YYYY-MM-DD` the due date; `+project` and
  `@context` stay in the text.

Overdue items come first, then those due today, then by priority (A first),
each group in file order.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path

from pet.scheduler.files import FileProblem, UnreadableFile, read_text
from pet.tools.notes import TODO_FILE

MARKDOWN_FILE = TODO_FILE  # the file the add_todo tool writes
TODOTXT_FILE = "todo.txt"
#: spaces a tab counts for when working out how deep a sub-item is
TAB_WIDTH = 4

_CHECKBOX = re.compile(r"^(?P<indent>[ \t]*)(?:[-*+]|\d{1,3}[.)])[ \t]+\[(?P<mark>[ xX])\][ \t]+(?P<text>.*?)\s*$")
_FENCE = re.compile(r"^[ \t]*(```|~~~)")
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


@dataclass(frozen=True)
class TodoList:
    items: tuple[Todo, ...]
    problems: tuple[FileProblem, ...] = ()


def _take_due(text: str) -> tuple[str, dt.date | None]:
    """The text without its due date, and the date (None when absent or not a real date)."""
    for match in _DUE.finditer(text):
        try:
            due = dt.date.fromisoformat(match.group(1))
        except ValueError:
            continue  # "due:2026-02-31" stays in the text for the person to see
        return " ".join((text[: match.start()] + text[match.end() :]).split()), due
    return text, None


def parse_markdown(text: str, source: str = MARKDOWN_FILE) -> list[Todo]:
    """The open checklist items, in file order. An open item under a done
    one is left out: finishing the parent finished its steps."""
    items: list[Todo] = []
    done_below: int | None = None  # indent of the done item whose sub-items are skipped
    in_fence = False
    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        match = None if in_fence else _CHECKBOX.match(line)
        if match is None:
            continue
        indent = len(match.group("indent").expandtabs(TAB_WIDTH))
        if done_below is not None and indent > done_below:
            continue
        done_below = None
        if match.group("mark") != " ":
            done_below = indent
            continue
        body, due = _take_due(match.group("text"))
        if body:
            items.append(Todo(body, source, due=due, depth=indent))
    return _depths(items)


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


def order(items: list[Todo], today: dt.date) -> list[Todo]:
    """Most urgent first; a sub-item keeps its place under its parent, and
    a parent is as urgent as its most urgent sub-item."""
    blocks: list[list[Todo]] = []
    for item in items:
        if item.depth == 0 or not blocks:
            blocks.append([item])
        else:
            blocks[-1].append(item)

    def rank(item: Todo) -> tuple[int, dt.date, str]:
        group = 0 if item.overdue(today) else 1 if item.due_today(today) else 2
        return group, item.due if group == 0 and item.due else dt.date.max, item.priority or "~"

    blocks.sort(key=lambda block: min(rank(item) for item in block))
    return [item for block in blocks for item in block]


def read_todos(workspace: Path, today: dt.date) -> TodoList:
    """The open items of todo.md and todo.txt in `workspace`; missing files
    add nothing, unreadable ones add a problem."""
    items: list[Todo] = []
    problems: list[FileProblem] = []
    for name, parse in ((MARKDOWN_FILE, parse_markdown), (TODOTXT_FILE, parse_todotxt)):
        try:
            text = read_text(workspace / name)
        except UnreadableFile as exc:
            problems.append(exc.problem)
            continue
        if text is not None:
            items += parse(text, name)
    return TodoList(tuple(order(items, today)), tuple(problems))

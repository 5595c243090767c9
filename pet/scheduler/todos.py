"""The open items of the todo files in the workspace, most urgent first.

The files' formats are read in `pet.todos`. Overdue items come first, then
those due today, then by priority (A first), each group in file order.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from pet.scheduler.files import FileProblem, UnreadableFile, read_text
from pet.todos import MARKDOWN_FILE, TODOTXT_FILE, Todo, parse_markdown, parse_todotxt


@dataclass(frozen=True)
class TodoList:
    items: tuple[Todo, ...]
    problems: tuple[FileProblem, ...] = ()


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

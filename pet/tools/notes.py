"""add_todo / list_todos on the Markdown checklist `todo.md` in the workspace
folder (the file the morning brief reads)."""

from __future__ import annotations

import re
import threading
from pathlib import Path

from pet.errors import ToolArgumentError
from pet.tools.registry import Label, Tool, ToolContext

TODO_FILE = "todo.md"
MAX_TODO_CHARS = 300
_OPEN_ITEM = re.compile(r"^\s*[-*]\s+\[ \]\s+(.+?)\s*$")


def open_todos(path: Path) -> list[str]:
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    return [m.group(1) for m in map(_OPEN_ITEM.match, lines) if m]


def todo_tools(workspace: Path) -> list[Tool]:
    path = workspace / TODO_FILE
    lock = threading.Lock()

    def add_todo(text: str, ctx: ToolContext) -> str:
        """Add an item to the person's todo list.

        Args:
            text: the task, e.g. "buy milk"
        """
        text = " ".join(text.split())
        if not text:
            raise ToolArgumentError("say what to add to the todo list")
        if len(text) > MAX_TODO_CHARS:
            raise ToolArgumentError(f"keep a todo under {MAX_TODO_CHARS} characters")
        with lock:
            workspace.mkdir(parents=True, exist_ok=True)
            existing = path.read_text(encoding="utf-8", errors="replace") if path.exists() else "# Todo\n\n"
            if text in open_todos(path):
                count = len(open_todos(path))
                return f"“{text}”已经在待办里了（共 {count} 项）" if ctx.language == "zh" else (
                    f'"{text}" is already on the todo list ({count} open items)'
                )
            separator = "" if existing.endswith("\n") else "\n"
            path.write_text(f"{existing}{separator}- [ ] {text}\n", encoding="utf-8")
            count = len(open_todos(path))
        if ctx.language == "zh":
            return f"已加入待办：{text}（共 {count} 项未完成）"
        return f'Added to the todo list: {text} ({count} open items)'

    def list_todos(ctx: ToolContext) -> str:
        """List the open items on the person's todo list."""
        items = open_todos(path)
        if not items:
            return "待办清单是空的。" if ctx.language == "zh" else "The todo list is empty."
        return "\n".join(f"{i}. {item}" for i, item in enumerate(items, 1))

    return [Tool.from_function(add_todo, side_effect=True, reads_outside=False,
                               label=Label(en=("adding a todo", "added a todo"), zh=("正在加待办", "加好了待办"))),
            Tool.from_function(list_todos, label=Label(en=("reading the todo list", "read the todo list"),
                                                       zh=("正在看待办清单", "看过了待办清单")))]

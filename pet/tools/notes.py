"""add_todo / list_todos on the Markdown checklist `todo.md` in the workspace
folder, read as the morning brief reads it (`pet.todos`)."""

from __future__ import annotations

import re
import threading
from pathlib import Path

from pet.errors import ToolArgumentError
from pet.todos import MARKDOWN_FILE, Todo, parse_markdown
from pet.tools.registry import Label, Tool, ToolContext

MAX_TODO_CHARS = 300
#: what a new todo.md starts with
HEADING = "# Todo"

#: "一个 ", "一条：" before a task: how many, not what (not "一个人去看海": no space or colon after it)
_COUNTED = re.compile(r"^一[个条项件](?:\s*[:：]\s*|\s+)(?=\S)")


def _open(count: int) -> str:
    return "1 open item" if count == 1 else f"{count} open items"


def _read(path: Path) -> bytes:
    return path.read_bytes() if path.exists() else b""


def _open_items(data: bytes) -> list[Todo]:
    return parse_markdown(data.decode("utf-8-sig", errors="replace"))


def _line(number: int, item: Todo, language: str) -> str:
    due = "" if item.due is None else f"（{item.due} 到期）" if language == "zh" else f" (due {item.due})"
    return f"{'   ' * item.depth}{number}. {item.text}{due}"


def todo_tools(workspace: Path) -> list[Tool]:
    path = workspace / MARKDOWN_FILE
    lock = threading.Lock()

    def add_todo(text: str, ctx: ToolContext) -> str:
        """Add an item to the person's todo list.

        Args:
            text: the task, e.g. "buy milk"
        """
        # "加一个 交房租" comes as "一个 交房租" now and then: the count is no part of the task
        text = _COUNTED.sub("", " ".join(text.split()))
        if not text:
            raise ToolArgumentError("say what to add to the todo list", zh="要往待办里加什么呢？")
        if len(text) > MAX_TODO_CHARS:
            raise ToolArgumentError(f"keep a todo under {MAX_TODO_CHARS} characters",
                                    zh=f"一条待办请少于{MAX_TODO_CHARS}个字符。")
        with lock:
            workspace.mkdir(parents=True, exist_ok=True)
            existing = _read(path)
            items = _open_items(existing)
            count = len(items)
            if text in [item.text for item in items]:
                return f"“{text}”已经在待办里了（共 {count} 项）" if ctx.language == "zh" else (
                    f'"{text}" is already on the todo list ({_open(count)})'
                )
            # Append rather than rewrite: the rest of the file stays as the person
            # wrote it, line endings included.
            newline = "\r\n" if b"\r\n" in existing else "\n"
            start = f"{HEADING}{newline}{newline}" if not existing.strip() else (
                "" if existing.endswith((b"\n", b"\r")) else newline
            )
            with path.open("ab") as file:
                file.write(f"{start}- [ ] {text}{newline}".encode())
            count += 1
        if ctx.language == "zh":
            return f"已加入待办：{text}（共 {count} 项未完成）"
        return f'Added to the todo list: {text} ({_open(count)})'

    def list_todos(ctx: ToolContext) -> str:
        """List the open items on the person's todo list."""
        items = _open_items(_read(path))
        if not items:
            return "待办清单是空的。" if ctx.language == "zh" else "The todo list is empty."
        return "\n".join(_line(number, item, ctx.language) for number, item in enumerate(items, 1))

    return [Tool.from_function(add_todo, side_effect=True, reads_outside=False, claim="add_todo",
                               label=Label(en=("adding a todo", "added a todo"), zh=("正在加待办", "加好了待办"))),
            Tool.from_function(list_todos, label=Label(en=("reading the todo list", "read the todo list"),
                                                       zh=("正在看待办清单", "看过了待办清单")))]

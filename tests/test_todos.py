"""todo.md is read one way: by the chat's todo tools and by the morning brief."""

from __future__ import annotations

import datetime as dt

import pytest

from pet.scheduler.todos import read_todos
from pet.todos import parse_markdown
from pet.tools.notes import todo_tools
from pet.tools.registry import ToolContext

TODAY = dt.date(2026, 3, 3)
EN = ToolContext(pet_id=1, conversation_id=1)
ZH = ToolContext(pet_id=1, conversation_id=1, language="zh")


@pytest.mark.parametrize(
    "text, open_items",
    [
        ("- [ ] dash", [("dash", 0)]),
        ("* [ ] star", [("star", 0)]),
        ("+ [ ] plus", [("plus", 0)]),
        ("1. [ ] numbered", [("numbered", 0)]),
        ("12) [ ] numbered with a bracket", [("numbered with a bracket", 0)]),
        ("-\t[ ]\ttabs", [("tabs", 0)]),
        ("- [x] done\n- [X] done too", []),
        ("- [ ]", []),  # an empty box is no task
        ("- [ ]    ", []),
        ("-[ ] no space after the dash", []),
        ("- [] no space in the box", []),
        ("- plain bullet\nplain line\n\n   \n", []),
        ("# Today\n- [ ] a\n## Later\n- [ ] b", [("a", 0), ("b", 0)]),
        ("- [ ] parent\n  - [ ] child\n    - [ ] grandchild", [("parent", 0), ("child", 1), ("grandchild", 2)]),
        ("- [ ] parent\n\t- [ ] tab-indented child", [("parent", 0), ("tab-indented child", 1)]),
        # finishing a task finishes its steps
        ("- [x] trip\n  - [ ] pack\n    - [ ] socks\n- [ ] report", [("report", 0)]),
        ("- [ ] report\n  - [x] numbers\n    - [ ] check them\n  - [ ] summary",
         [("report", 0), ("summary", 1)]),
        # a shallower line of any kind ends the done task's steps
        ("- [x] trip\n  - [ ] pack\n## Home\n  - [ ] water plants", [("water plants", 0)]),
        ("- [x] trip\n\n  - [ ] pack", []),  # a blank line does not
        # code blocks show examples, not tasks
        ("```\n- [ ] example\n```\n- [ ] real", [("real", 0)]),
        ("~~~markdown\n- [ ] example\n~~~\n- [ ] real", [("real", 0)]),
        ("  ```md\n  - [ ] indented example\n  ```\n- [ ] real", [("real", 0)]),
        ("````\n```\n- [ ] still inside\n````\n- [ ] real", [("real", 0)]),  # ``` does not close ````
        ("~~~\n```\n- [ ] still inside\n~~~\n- [ ] real", [("real", 0)]),
        ("```\n- [ ] never closed", []),
        ("```inline code```\n- [ ] real", [("real", 0)]),  # backticks after a fence's backticks: not a fence
        ("- [ ] pay rent due:2026-03-01", [("pay rent", 0)]),
        # Windows line endings
        ("# Todo\r\n\r\n- [ ] one\r\n- [x] two\r\n  - [ ] step of two\r\n```\r\n- [ ] ex\r\n```\r\n* [ ] three\r\n",
         [("one", 0), ("three", 0)]),
    ],
)
def test_the_open_items_of_a_markdown_checklist(text, open_items):
    assert [(t.text, t.depth) for t in parse_markdown(text)] == open_items


def test_due_dates_are_read_and_taken_out_of_the_text():
    [rent, form] = parse_markdown("- [ ] pay rent 📅 2026-03-01\n- [ ] fix form due:2026-02-31\n")
    assert (rent.text, rent.due) == ("pay rent", dt.date(2026, 3, 1))
    assert (form.text, form.due) == ("fix form due:2026-02-31", None)  # no such day: left for the person


MESSY = (
    "\ufeff# Todo\r\n"
    "- [ ] buy milk\r\n"
    "- [x] book trip\r\n"
    "  - [ ] pack\r\n"
    "+ [ ] water plants\r\n"
    "1. [ ] call mum due:2026-03-05\r\n"
    "```\r\n"
    "- [ ] an example in a code block\r\n"
    "```\r\n"
)


def tools(workspace):
    return {tool.name: tool.function for tool in todo_tools(workspace)}


def test_the_chat_and_the_brief_see_the_same_items(tmp_path):
    (tmp_path / "todo.md").write_bytes(MESSY.encode("utf-8"))
    brief = [t.text for t in read_todos(tmp_path, TODAY).items]
    assert brief == ["buy milk", "water plants", "call mum"]
    assert tools(tmp_path)["list_todos"](ctx=EN) == "1. buy milk\n2. water plants\n3. call mum (due 2026-03-05)"
    assert tools(tmp_path)["list_todos"](ctx=ZH) == "1. buy milk\n2. water plants\n3. call mum（2026-03-05 到期）"


def test_sub_items_are_listed_under_their_parent(tmp_path):
    (tmp_path / "todo.md").write_text("- [ ] report\n  - [ ] summary\n- [ ] rent\n", encoding="utf-8")
    assert tools(tmp_path)["list_todos"](ctx=EN) == "1. report\n   2. summary\n3. rent"


def test_adding_appends_and_keeps_the_files_line_endings(tmp_path):
    path = tmp_path / "todo.md"
    path.write_bytes(MESSY.encode("utf-8"))
    add = tools(tmp_path)["add_todo"]
    assert add(text="buy  bread", ctx=EN) == "Added to the todo list: buy bread (4 open items)"
    assert path.read_bytes() == (MESSY + "- [ ] buy bread\r\n").encode("utf-8")
    assert add(text="buy milk", ctx=ZH) == "“buy milk”已经在待办里了（共 4 项）"
    assert add(text="pack", ctx=EN).startswith("Added")  # a step of a done task is not open


def test_adding_to_a_file_that_does_not_end_in_a_newline(tmp_path):
    path = tmp_path / "todo.md"
    path.write_text("- [ ] one", encoding="utf-8")
    tools(tmp_path)["add_todo"](text="two", ctx=EN)
    assert path.read_text(encoding="utf-8") == "- [ ] one\n- [ ] two\n"


def test_the_first_todo_starts_the_file(tmp_path):
    assert tools(tmp_path)["list_todos"](ctx=EN) == "The todo list is empty."
    assert tools(tmp_path)["add_todo"](text="买牛奶", ctx=ZH) == "已加入待办：买牛奶（共 1 项未完成）"
    assert (tmp_path / "todo.md").read_text(encoding="utf-8") == "# Todo\n\n- [ ] 买牛奶\n"


def test_a_count_before_a_task_is_no_part_of_it(tmp_path):
    # seen on the page: "帮我在待办里加一个 交房租" was kept as "一个 交房租"
    add = tools(tmp_path)["add_todo"]
    assert add(text="一个 交房租", ctx=ZH).startswith("已加入待办：交房租")
    assert add(text="一条：续签护照", ctx=ZH).startswith("已加入待办：续签护照")
    assert add(text="一个人去看海", ctx=ZH).startswith("已加入待办：一个人去看海")

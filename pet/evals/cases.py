"""Evaluation cases: one JSON object a line, loaded into checked dataclasses.

A case says what a person types and what the pet must do about it:

    {"id": "remind-en-02", "lang": "en", "category": "remind",
     "text": "remind me tomorrow at 9am to call mom",
     "setup": {"memories": ["likes green tea"],
               "reminders": [{"text": "call mom", "when": "tomorrow at 9am"}],
               "todos": ["buy milk"]},
     "expect": {"tools": ["set_reminder"],
                "args": {"set_reminder": {"text": {"contains_any": ["mom"]}, "at": "2026-11-30T09:00"}}}}

`expect.args` maps a tool to one check, or to a list of checks that distinct
calls must meet. A check maps argument names to text checks (`contains`: all
of these, `contains_any`: one of these; case-insensitive) plus two computed
keys: `value` (the number `calculate` gives for the `expression` argument,
within `tolerance`) and `at` (the local time `parse_when` gives for the `when`
argument). `"tools": []` means no tool at all; `"asks": true` adds that the
reply must be a question.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pet.errors import ConfigError

LANGUAGES = ("zh", "en")
CATEGORIES = (
    "time", "calc", "remember", "forget", "recall", "remind", "list_reminders", "todo",
    "restraint", "multi_step",
)
DEFAULT_CASES = Path(__file__).resolve().parents[2] / "assets" / "evals" / "tools.jsonl"
DEFAULT_TOLERANCE = 1e-6

_CASE_KEYS = {"id", "lang", "category", "text", "setup", "expect", "note"}
_EXPECT_KEYS = {"tools", "args", "asks"}
_SETUP_KEYS = {"memories", "reminders", "todos"}
_TEXT_KEYS = {"contains", "contains_any"}
_COMPUTED_KEYS = {"value", "tolerance", "at"}


class CaseFileError(ConfigError):
    """A case file that cannot be read; the message names the file and line."""


@dataclass(frozen=True)
class TextCheck:
    contains: tuple[str, ...] = ()
    contains_any: tuple[str, ...] = ()


@dataclass(frozen=True)
class CallCheck:
    """What one successful call of a tool must look like."""

    text: dict[str, TextCheck] = field(default_factory=dict)  # argument name -> check
    value: float | None = None  # calculate: the number its expression gives
    tolerance: float = DEFAULT_TOLERANCE
    at: dt.datetime | None = None  # set_reminder: the local time its `when` means (naive)


@dataclass(frozen=True)
class ReminderSetup:
    text: str
    when: str


@dataclass(frozen=True)
class Setup:
    memories: tuple[str, ...] = ()
    reminders: tuple[ReminderSetup, ...] = ()
    todos: tuple[str, ...] = ()


@dataclass(frozen=True)
class Case:
    id: str
    lang: str
    category: str
    text: str
    tools: tuple[str, ...]
    checks: dict[str, tuple[CallCheck, ...]] = field(default_factory=dict)  # tool name -> checks
    asks: bool = False
    setup: Setup = Setup()
    line: int = 0

    @property
    def restraint(self) -> bool:
        """True when the pet must not call any tool."""
        return not self.tools


def load_cases(path: Path | str = DEFAULT_CASES) -> list[Case]:
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise CaseFileError(f"{path}: no such case file (the shipped one is {DEFAULT_CASES})") from None
    except UnicodeDecodeError as exc:
        raise CaseFileError(f"{path}: not UTF-8 text ({exc})") from None
    cases: list[Case] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        try:
            case = parse_case(json.loads(line), number)
        except json.JSONDecodeError as exc:
            problem = f"not valid JSON ({exc.msg} at column {exc.colno})"
            raise CaseFileError(f"{path} line {number}: {problem}") from None
        except ValueError as exc:
            raise CaseFileError(f"{path} line {number}: {exc}") from None
        if case.id in seen:
            problem = f"id {case.id!r} is already used on line {seen[case.id]}"
            raise CaseFileError(f"{path} line {number}: {problem}")
        seen[case.id] = number
        cases.append(case)
    if not cases:
        raise CaseFileError(f"{path}: no cases in the file")
    return cases


def spread(cases: list[Case], limit: int | None) -> list[Case]:
    """The first `limit` cases taken in turns from each category and language,
    so that a short run still tries several kinds of request."""
    if limit is None:
        return list(cases)
    rank: dict[int, int] = {}
    seen: dict[tuple[str, str], int] = {}
    for index, case in enumerate(cases):
        group = (case.category, case.lang)
        rank[index] = seen.get(group, 0)
        seen[group] = rank[index] + 1
    order = sorted(range(len(cases)), key=lambda i: (rank[i], CATEGORIES.index(cases[i].category), i))
    return [cases[i] for i in order[:limit]]


def parse_case(data: Any, line: int = 0) -> Case:
    """One case from its JSON object; ValueError says what is wrong."""
    if not isinstance(data, dict):
        raise ValueError("each line must be a JSON object")
    _no_unknown(data, _CASE_KEYS, "case")
    case_id = _text(data, "id")
    where = f"case {case_id!r}: "
    try:
        lang = _text(data, "lang")
        if lang not in LANGUAGES:
            raise ValueError(f"'lang' must be one of {', '.join(LANGUAGES)}, got {lang!r}")
        category = _text(data, "category")
        if category not in CATEGORIES:
            raise ValueError(f"'category' must be one of {', '.join(CATEGORIES)}, got {category!r}")
        expect = data.get("expect")
        if not isinstance(expect, dict):
            raise ValueError("'expect' must be an object with 'tools'")
        _no_unknown(expect, _EXPECT_KEYS, "expect")
        tools = expect.get("tools")
        if not isinstance(tools, list) or not all(isinstance(t, str) and t for t in tools):
            raise ValueError("'expect.tools' must be a list of tool names ([] means: no tool)")
        asks = expect.get("asks", False)
        if not isinstance(asks, bool) or (asks and tools):
            raise ValueError("'expect.asks' must be true or false, and true only with \"tools\": []")
        checks = _checks(expect.get("args", {}), tools)
        return Case(case_id, lang, category, _text(data, "text"), tuple(tools), checks, asks,
                    _setup(data.get("setup", {})), line)
    except ValueError as exc:
        raise ValueError(where + str(exc)) from None


def _no_unknown(data: dict[str, Any], known: set[str], what: str) -> None:
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"unknown key(s) in {what}: {', '.join(unknown)}; known: {', '.join(sorted(known))}")


def _text(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"'{key}' must be a non-empty string")
    return value


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValueError(f"'{where}' must be a list of non-empty strings")
    return tuple(value)


def _checks(args: Any, tools: list[str]) -> dict[str, tuple[CallCheck, ...]]:
    if not isinstance(args, dict):
        raise ValueError("'expect.args' must map tool names to checks")
    checks: dict[str, tuple[CallCheck, ...]] = {}
    for tool, spec in args.items():
        specs = spec if isinstance(spec, list) else [spec]
        if tool not in tools or len(specs) > tools.count(tool):
            raise ValueError(f"'expect.args' checks {tool!r} more often than 'expect.tools' lists it")
        checks[tool] = tuple(_call_check(s, f"expect.args.{tool}") for s in specs)
    return checks


def _call_check(spec: Any, where: str) -> CallCheck:
    if not isinstance(spec, dict) or not spec:
        raise ValueError(f"'{where}' must be an object of argument checks")
    text: dict[str, TextCheck] = {}
    for name, check in spec.items():
        if name in _COMPUTED_KEYS:
            continue
        if not isinstance(check, dict) or not check:
            raise ValueError(
                f"'{where}.{name}' must be {{\"contains\": [...]}} or {{\"contains_any\": [...]}}"
            )
        _no_unknown(check, _TEXT_KEYS, f"{where}.{name}")
        text[name] = TextCheck(
            _strings(check.get("contains", []), f"{where}.{name}.contains"),
            _strings(check.get("contains_any", []), f"{where}.{name}.contains_any"),
        )
    value = spec.get("value")
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
        raise ValueError(f"'{where}.value' must be a number")
    tolerance = spec.get("tolerance", DEFAULT_TOLERANCE)
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not math.isfinite(tolerance):
        raise ValueError(f"'{where}.tolerance' must be a number")
    at = spec.get("at")
    if at is not None:
        try:
            at = dt.datetime.fromisoformat(at) if isinstance(at, str) else None
        except ValueError:
            at = None
        if at is None or at.tzinfo is not None:
            raise ValueError(f"'{where}.at' must be a local time like \"2026-11-30T09:00\" (no offset)")
    return CallCheck(text, None if value is None else float(value), float(tolerance), at)


def _setup(data: Any) -> Setup:
    if not isinstance(data, dict):
        raise ValueError("'setup' must be an object")
    _no_unknown(data, _SETUP_KEYS, "setup")
    reminders = data.get("reminders", [])
    if not isinstance(reminders, list) or not all(
        isinstance(r, dict) and set(r) == {"text", "when"}
        and all(isinstance(v, str) and v for v in r.values())
        for r in reminders
    ):
        raise ValueError("'setup.reminders' must be a list of {\"text\": ..., \"when\": ...}")
    return Setup(
        _strings(data.get("memories", []), "setup.memories"),
        tuple(ReminderSetup(r["text"], r["when"]) for r in reminders),
        _strings(data.get("todos", []), "setup.todos"),
    )

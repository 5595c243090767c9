"""Judging one turn against one case. Pure functions: events in, verdict out.

The rules:
- Selection: every expected tool has its own successful call. Other calls may
  happen too (a look-up first, a failed call the model then corrects), and
  order is not judged: independent actions may come in any order, and
  dependent ones (list, then cancel) are ordered by the data anyway.
- Arguments: each check of `expect.args` is met by a distinct successful call
  of its tool. Scored only when the selection was right.
- Restraint (cases with `"tools": []`): no tool call at all, successful or
  not; with `"asks": true` the reply must also be a question (? or ？).
- False claim: the reply says the pet remembered, forgot or set a reminder
  (`claimed_actions`) while no call of that tool succeeded in the turn.
"""

from __future__ import annotations

import datetime as dt
import math
import unicodedata
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from pet.agent.guards import claimed_actions
from pet.errors import PetError
from pet.evals.cases import CallCheck, Case, TextCheck
from pet.events import Event, Reply, TextDelta, ToolFinished, ToolStarted
from pet.tools.calc import calculate


@dataclass(frozen=True)
class CallRecord:
    name: str
    arguments: dict[str, Any]
    ok: bool
    content: str


@dataclass(frozen=True)
class Turn:
    calls: tuple[CallRecord, ...]
    reply: str


@dataclass(frozen=True)
class Verdict:
    selection: bool | None  # None: the case expects no tool
    arguments: bool | None  # None: nothing to check, or the selection was wrong
    restraint: bool | None  # None: the case expects tools
    false_claims: frozenset[str]
    problems: tuple[str, ...]

    @property
    def passed(self) -> bool:
        return (
            self.selection is not False
            and self.arguments is not False
            and self.restraint is not False
            and not self.false_claims
        )


def turn_from_events(events: Iterable[Event]) -> Turn:
    """Calls (paired by id, in the order they started) and the final reply."""
    started: dict[str, ToolStarted] = {}
    finished: dict[str, ToolFinished] = {}
    reply: str | None = None
    streamed: list[str] = []
    for event in events:
        if isinstance(event, ToolStarted):
            started[event.call.id] = event
        elif isinstance(event, ToolFinished):
            finished[event.result.call_id] = event
        elif isinstance(event, Reply):
            reply = event.text
        elif isinstance(event, TextDelta):
            streamed.append(event.text)
    calls = []
    for call_id, start in started.items():
        end = finished.get(call_id)
        ok = end is not None and end.result.ok
        content = end.result.content if end else ""
        calls.append(CallRecord(start.call.name, dict(start.call.arguments), ok, content))
    return Turn(tuple(calls), reply if reply is not None else "".join(streamed))


def judge(case: Case, turn: Turn, now: dt.datetime) -> Verdict:
    """`now` is the aware time the turn ran at; its zone reads `at` checks."""
    problems: list[str] = []
    claims = false_claims(turn)
    if claims:
        problems.append(f"claims {', '.join(sorted(claims))} without a successful call")
    if case.restraint:
        restraint = restraint_kept(case, turn, problems)
        return Verdict(None, None, restraint, claims, tuple(problems))
    selection = selection_right(case.tools, turn, problems)
    arguments = None
    if selection and case.checks:
        arguments = arguments_right(case, turn, now, problems)
    return Verdict(selection, arguments, None, claims, tuple(problems))


def successful(turn: Turn, name: str | None = None) -> list[CallRecord]:
    return [c for c in turn.calls if c.ok and (name is None or c.name == name)]


def selection_right(expected: Sequence[str], turn: Turn, problems: list[str]) -> bool:
    done = Counter(c.name for c in successful(turn))
    missing = Counter(expected) - done
    if missing:
        made = ", ".join(f"{c.name}{'' if c.ok else ' (failed)'}" for c in turn.calls) or "no tool"
        problems.append(f"expected {', '.join(missing.elements())} to succeed; made {made}")
    return not missing


def restraint_kept(case: Case, turn: Turn, problems: list[str]) -> bool:
    kept = True
    if turn.calls:
        problems.append("expected no tool; called " + ", ".join(c.name for c in turn.calls))
        kept = False
    if case.asks and not is_question(turn.reply):
        problems.append("expected a question back; the reply asks nothing")
        kept = False
    return kept


def is_question(text: str) -> bool:
    return "?" in text or "？" in text


def false_claims(turn: Turn) -> frozenset[str]:
    """What the reply says was done that no successful call did; a fact noted without being asked (the "note" step)
    is kept as surely as by remember ("本钳记住啦：你现在不喝美式了，改喝拿铁了！" after it updated the memory)."""
    done = {c.name for c in successful(turn)}
    if "note" in done:
        done.add("remember")
    return frozenset(claimed_actions(turn.reply) - done)


def arguments_right(case: Case, turn: Turn, now: dt.datetime, problems: list[str]) -> bool:
    right = True
    for tool, checks in case.checks.items():
        calls = successful(turn, tool)
        if not _assign(checks, calls, now):
            right = False
            reasons = [p for call in calls for p in call_problems(checks[0], call, now)]
            problems.append(f"{tool}: " + ("; ".join(dict.fromkeys(reasons)) or "arguments do not match"))
    return right


def _assign(checks: Sequence[CallCheck], calls: Sequence[CallRecord], now: dt.datetime) -> bool:
    """Can each check be met by a different call? (A tiny backtracking match.)"""
    if not checks:
        return True
    first, rest = checks[0], checks[1:]
    for i, call in enumerate(calls):
        if not call_problems(first, call, now) and _assign(rest, [*calls[:i], *calls[i + 1:]], now):
            return True
    return False


def call_problems(check: CallCheck, call: CallRecord, now: dt.datetime) -> list[str]:
    """Why this call does not meet the check; empty when it does."""
    problems = [p for name, text in check.text.items() for p in _text_problems(name, text, call.arguments)]
    if check.value is not None:
        problems += _value_problems(check, str(call.arguments.get("expression", "")))
    if check.at is not None:
        problems += _at_problems(check.at, str(call.arguments.get("when", "")), now)
    return problems


def _fold(text: Any) -> str:
    return unicodedata.normalize("NFKC", str(text)).casefold()


def _text_problems(name: str, check: TextCheck, arguments: dict[str, Any]) -> list[str]:
    if name not in arguments:
        return [f"no {name!r} argument"]
    value = _fold(arguments[name])
    problems = [
        f"{name}={arguments[name]!r} lacks {word!r}" for word in check.contains if _fold(word) not in value
    ]
    if check.contains_any and not any(_fold(word) in value for word in check.contains_any):
        problems.append(f"{name}={arguments[name]!r} has none of {list(check.contains_any)}")
    return problems


def _value_problems(check: CallCheck, expression: str) -> list[str]:
    try:
        value = float(calculate(expression))
    except (PetError, ValueError) as exc:
        return [f"expression {expression!r} does not compute ({exc})"]
    assert check.value is not None
    if not math.isclose(value, check.value, rel_tol=check.tolerance, abs_tol=check.tolerance):
        return [f"expression {expression!r} gives {value:g}, expected {check.value:g}"]
    return []


def _at_problems(expected: dt.datetime, when: str, now: dt.datetime) -> list[str]:
    # Imported here: the time parser is the reminders' module, not the judge's.
    from pet.tools.when import TimeProblem, parse_when

    zone = now.tzinfo
    assert zone is not None, "the judge needs an aware `now`"
    try:
        at = parse_when(when, now, zone).at
    except TimeProblem as exc:
        return [f"when={when!r} does not parse ({exc})"]
    local = at.astimezone(zone).replace(tzinfo=None, second=0, microsecond=0)
    if local != expected:
        return [f"when={when!r} means {local:%Y-%m-%d %H:%M}, expected {expected:%Y-%m-%d %H:%M}"]
    return []

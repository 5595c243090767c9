"""Run cases against a brain: a fresh home and app for each case (so memories,
reminders and todos never leak between cases), one shared model (so it loads
once), and a fixed clock (so "tomorrow at 9am" has one right answer)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence
from zoneinfo import ZoneInfo

from pet.app import App, build
from pet.brain.base import ChatModel
from pet.config import Settings
from pet.evals.cases import Case
from pet.evals.judge import Turn, Verdict, judge, turn_from_events
from pet.events import ToolCall
from pet.persona.model import load_persona
from pet.tools.registry import ToolContext

log = logging.getLogger(__name__)

#: Sunday 2026-11-29 10:15 in Shanghai: the moment every case happens at.
FIXED_NOW = dt.datetime(2026, 11, 29, 10, 15, tzinfo=ZoneInfo("Asia/Shanghai"))


def world_now(today: dt.date | None = None) -> dt.datetime:
    """The benchmark's clock: FIXED_NOW, or its time of day on `today`, the
    day a case set was written for (its reminders' `at` count from it)."""
    if today is None:
        return FIXED_NOW
    return FIXED_NOW.replace(year=today.year, month=today.month, day=today.day)


@dataclass(frozen=True)
class CaseResult:
    case: Case
    turn: Turn
    verdict: Verdict
    seconds: float  # the turn only, not the setup
    error: str | None = None  # the case could not be run; it counts as failed


Progress = Callable[[int, int, CaseResult], None]


def run_cases(
    cases: Sequence[Case],
    brain: ChatModel,
    *,
    reflexes: bool = True,
    settings: Settings | None = None,
    now: dt.datetime = FIXED_NOW,
    progress: Progress | None = None,
    tier: str | None = None,
) -> list[CaseResult]:
    """Run every case; `settings` supplies everything but the home, database,
    workspace and persona time zone, which the run replaces. `tier`
    ("embedded", "server") gives `brain` that tier's ways in the app."""
    results = []
    # one language after another: a prompt-prefix cache carries from case to case
    cases = sorted(cases, key=lambda case: case.lang)
    for index, case in enumerate(cases, start=1):
        result = run_case(case, brain, reflexes=reflexes, settings=settings or Settings(), now=now, tier=tier)
        results.append(result)
        if progress is not None:
            progress(index, len(cases), result)
    return results


def run_case(
    case: Case, brain: ChatModel, *, reflexes: bool, settings: Settings, now: dt.datetime,
    tier: str | None = None,
) -> CaseResult:
    with tempfile.TemporaryDirectory(prefix="pet-eval-") as tmp:
        home = Path(tmp)
        case_settings = dataclasses.replace(
            settings,
            home=home,
            database_url="",
            workspace="",
            persona=str(persona_in_zone(settings.persona, now, home)),
            reflexes=reflexes,
        )
        app = build(case_settings, brain=brain, behaves_as=tier, clock=lambda: now)
        try:
            conversation = app.current_conversation()
            try:
                apply_setup(app, case, conversation)
            except SetupFailed as exc:
                return _failed(case, f"setup: {exc}", now)
            app.agent.warm(conversation)  # as the app does before the person writes
            started = time.perf_counter()
            try:
                events = list(app.agent.run(conversation, case.text))
            except Exception as exc:  # a broken case must not end the whole run
                log.exception("case %s raised", case.id)
                return _failed(case, f"{type(exc).__name__}: {exc}", now)
            seconds = time.perf_counter() - started
        finally:
            app.close()
    turn = turn_from_events(events)
    return CaseResult(case, turn, judge(case, turn, now), seconds)


class SetupFailed(Exception):
    pass


def apply_setup(app: App, case: Case, conversation: int) -> None:
    """Put the case's memories, reminders and todos in place through the app's
    own tools, so they look exactly as if the person had made them."""
    context = ToolContext(app.pet.id, conversation, None)
    calls = [ToolCall("remember", {"content": text}) for text in case.setup.memories]
    calls += [ToolCall("set_reminder", {"text": r.text, "when": r.when}) for r in case.setup.reminders]
    calls += [ToolCall("add_todo", {"text": text}) for text in case.setup.todos]
    for call in calls:
        result = app.tools.execute(call, context)
        if not result.ok:
            raise SetupFailed(f"{call.name}({call.arguments}) failed: {result.content}")


def persona_in_zone(persona: str, now: dt.datetime, folder: Path) -> Path:
    """A copy of the persona file whose time zone is the zone of `now`."""
    zone = getattr(now.tzinfo, "key", None)
    if zone is None:
        raise ValueError("`now` needs a named zone (a ZoneInfo), e.g. Asia/Shanghai")
    source = load_persona(persona).source  # a clear PersonaError when the file is missing or broken
    assert source is not None
    text = source.read_text(encoding="utf-8")
    # Only the top level (before the first [table]) holds the timezone key.
    split = re.search(r"^\[", text, re.MULTILINE)
    head, tail = (text[: split.start()], text[split.start():]) if split else (text, "")
    line = f'timezone = "{zone}"'
    head, count = re.subn(r"^timezone\s*=.*$", line, head, flags=re.MULTILINE)
    if not count:
        head = f"{line}\n{head}"
    path = folder / "persona.toml"
    path.write_text(head + tail, encoding="utf-8")
    return path


def _failed(case: Case, error: str, now: dt.datetime) -> CaseResult:
    turn = Turn((), "")
    verdict = judge(case, turn, now)
    verdict = dataclasses.replace(
        verdict,
        restraint=False if case.restraint else None,
        problems=(error, *verdict.problems),
    )
    return CaseResult(case, turn, verdict, 0.0, error)

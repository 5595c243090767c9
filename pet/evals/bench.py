"""`python run.py bench tools`: run the tool-use cases on one or more brains, in one or
both reflex modes, and print a table for each and a recommendation."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from pet.brain.base import ChatModel
from pet.brain.probe import server_models
from pet.brain.select import choose_brain, server_brain
from pet.config import Settings
from pet.errors import BrainUnavailable, ModelNotFound
from pet.evals.cases import DEFAULT_CASES, load_cases, spread
from pet.evals.report import Run, format_table, recommend
from pet.evals.run import FIXED_NOW, CaseResult, Progress, run_cases, world_now

REFLEX_MODES = {"on": (True,), "off": (False,), "both": (True, False)}


@dataclass(frozen=True)
class Brain:
    name: str
    tier: str
    model: ChatModel


def brains_for(settings: Settings, models: list[str]) -> list[Brain]:
    """Each named model on the server tier, or else the brain --brain chooses.
    Checked before the run, so a missing server fails once, not per case."""
    if models:
        _check_server(settings, models)
        return [Brain(name, "server", server_brain(dataclasses.replace(settings, model=name)))
                for name in models]
    choice = choose_brain(settings)
    if choice.tier == "server":
        _check_server(settings, [settings.model])
    elif not getattr(choice.model, "available", lambda: True)():
        raise BrainUnavailable(f"The {settings.embedded_model} embedded model is not installed: "
                               "`python run.py doctor` says what to install; or benchmark a server model "
                               "with --model NAME.")
    return [Brain(choice.model.label, choice.tier, choice.model)]


def _check_server(settings: Settings, names: list[str]) -> None:
    available = server_models(settings.base_url, timeout=settings.probe_timeout)
    missing = [n for n in names if available and n not in available and f"{n}:latest" not in available]
    if missing:
        raise ModelNotFound(
            f"The server at {settings.base_url} has no model {', '.join(missing)}: "
            f"run `ollama pull {missing[0]}` or pick one of: {', '.join(available[:8])}"
        )


def bench_tools(
    settings: Settings,
    *,
    models: list[str] | None = None,
    reflexes: str = "both",
    cases_path: Path | None = None,
    limit: int | None = None,
    json_path: Path | None = None,
    today: dt.date | None = None,
    out: TextIO = sys.stdout,
    log: TextIO = sys.stderr,
) -> int:
    """`today`: the day the cases are written for (see world_now)."""
    now = world_now(today)
    cases_path = cases_path or DEFAULT_CASES
    cases = spread(load_cases(cases_path), limit)
    brains = brains_for(settings, models or [])
    print(f"Tool-use benchmark: {len(cases)} cases from {cases_path}, clock fixed at "
          f"{now:%Y-%m-%d %H:%M} {now.tzinfo}.\n", file=out)
    runs = []
    for brain in brains:
        for mode in REFLEX_MODES[reflexes]:
            print(f"{brain.name}, reflexes {'on' if mode else 'off'}: running {len(cases)} cases…", file=log)
            results = run_cases(cases, brain.model, reflexes=mode, settings=settings, progress=_progress(log),
                                now=now, tier=brain.tier)
            run = Run(brain.name, brain.tier, mode, results)
            runs.append(run)
            print(format_table(run) + "\n", file=out, flush=True)
    for line in recommend(runs):
        print("Recommendation: " + line, file=out)
    if json_path is not None:
        text = json.dumps(as_json(runs, now), ensure_ascii=False, indent=1, default=str)
        json_path.write_text(text + "\n", encoding="utf-8")
        print(f"Per-case results: {json_path}", file=log)
    return 0


def _progress(log: TextIO) -> Progress:
    def show(index: int, total: int, result: CaseResult) -> None:
        mark = "ok" if result.verdict.passed else "WRONG"
        why = f"  {result.verdict.problems[0]}" if result.verdict.problems else ""
        line = f"  [{index}/{total}] {result.case.id:<20} {mark:<5} {result.seconds:5.1f} s{why}"
        print(line, file=log, flush=True)

    return show


def as_json(runs: list[Run], now: dt.datetime = FIXED_NOW) -> dict:
    """Every case of every run, raw: what was typed, called, replied and judged."""
    return {
        "now": now.isoformat(),
        "runs": [
            {
                "model": run.model,
                "tier": run.tier,
                "reflexes": run.reflexes,
                "results": [
                    {
                        "id": r.case.id,
                        "lang": r.case.lang,
                        "category": r.case.category,
                        "text": r.case.text,
                        "expected_tools": list(r.case.tools),
                        "calls": [dataclasses.asdict(c) for c in r.turn.calls],
                        "reply": r.turn.reply,
                        "seconds": round(r.seconds, 3),
                        "selection": r.verdict.selection,
                        "arguments": r.verdict.arguments,
                        "restraint": r.verdict.restraint,
                        "false_claims": sorted(r.verdict.false_claims),
                        "passed": r.verdict.passed,
                        "problems": list(r.verdict.problems),
                        "error": r.error,
                    }
                    for r in run.results
                ],
            }
            for run in runs
        ],
    }

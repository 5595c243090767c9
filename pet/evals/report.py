"""The benchmark's table and the recommendation drawn from its numbers."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Callable, Sequence

from pet.evals.cases import CATEGORIES, LANGUAGES
from pet.evals.run import CaseResult

#: below this share of right tool choices without reflexes, a model is not
#: trusted with free-form requests
SELECTION_FLOOR = 0.7


@dataclass(frozen=True)
class Ratio:
    right: int
    total: int

    @property
    def share(self) -> float | None:
        return self.right / self.total if self.total else None

    def __str__(self) -> str:
        share = self.share
        return "—" if share is None else f"{share:.0%} {self.right}/{self.total}"


@dataclass(frozen=True)
class Row:
    label: str
    cases: int
    selection: Ratio  # cases that expect tools
    arguments: Ratio  # of those, rightly selected and with argument checks
    restraint: Ratio  # cases that expect no tool
    passed: Ratio  # every check of the case right
    false_claims: int
    median_seconds: float | None
    errors: int


@dataclass(frozen=True)
class Run:
    """All results of one brain in one reflex mode."""

    model: str
    tier: str  # "server", "embedded" or "custom"
    reflexes: bool
    results: list[CaseResult]

    @property
    def title(self) -> str:
        return f"{self.model}, reflexes {'on' if self.reflexes else 'off'}"


def _ratio(results: Sequence[CaseResult], score: Callable[[CaseResult], bool | None]) -> Ratio:
    scores = [s for s in map(score, results) if s is not None]
    return Ratio(sum(scores), len(scores))


def summarize(label: str, results: Sequence[CaseResult]) -> Row:
    seconds = [r.seconds for r in results if r.error is None]
    return Row(
        label=label,
        cases=len(results),
        selection=_ratio(results, lambda r: r.verdict.selection),
        arguments=_ratio(results, lambda r: r.verdict.arguments),
        restraint=_ratio(results, lambda r: r.verdict.restraint),
        passed=_ratio(results, lambda r: r.verdict.passed),
        false_claims=sum(bool(r.verdict.false_claims) for r in results),
        median_seconds=statistics.median(seconds) if seconds else None,
        errors=sum(r.error is not None for r in results),
    )


def rows(results: Sequence[CaseResult]) -> list[Row]:
    """Overall, then by language, then by category (empty groups left out)."""
    groups = [("overall", list(results))]
    groups += [(lang, [r for r in results if r.case.lang == lang]) for lang in LANGUAGES]
    groups += [(cat, [r for r in results if r.case.category == cat]) for cat in CATEGORIES]
    return [summarize(label, group) for label, group in groups if group]


_HEADERS = ("", "cases", "selection", "arguments", "restraint", "all right", "false claims", "median s")


def format_table(run: Run) -> str:
    table = [_HEADERS]
    for row in rows(run.results):
        median = "—" if row.median_seconds is None else f"{row.median_seconds:.2f}"
        table.append((row.label, str(row.cases), str(row.selection), str(row.arguments), str(row.restraint),
                      str(row.passed), str(row.false_claims), median))
    widths = [max(len(line[i]) for line in table) for i in range(len(_HEADERS))]
    lines = [run.title]
    for n, line in enumerate(table):
        cells = [line[0].ljust(widths[0])] + [cell.rjust(width) for cell, width in zip(line[1:], widths[1:])]
        lines.append("  ".join(cells).rstrip())
        if n == 0:
            lines.append("-" * len(lines[-1]))
    errors = summarize("overall", run.results).errors
    if errors:
        first = next(r for r in run.results if r.error)
        lines.append(f"{errors} case(s) could not run and count as wrong; "
                     f"first: {first.case.id}: {first.error}")
    return "\n".join(lines)


def _pct(share: float | None) -> str:
    return "—" if share is None else f"{share:.0%}"


def recommend(runs: Sequence[Run]) -> list[str]:
    """What to do, computed from the numbers: best model, reflexes on or off,
    whether the model can be trusted with free-form requests, false claims."""
    overall = {id(run): summarize("overall", run.results) for run in runs}
    passed = {id(run): overall[id(run)].passed.share or 0.0 for run in runs}
    models = list(dict.fromkeys(run.model for run in runs))
    lines: list[str] = []

    if len(models) > 1:
        best_of = {m: max((r for r in runs if r.model == m), key=lambda r: passed[id(r)]) for m in models}
        ranked = sorted(models, key=lambda m: passed[id(best_of[m])], reverse=True)
        others = ", ".join(f"{m} {_pct(passed[id(best_of[m])])}" for m in ranked[1:])
        lines.append(f"Best model: {ranked[0]} ({_pct(passed[id(best_of[ranked[0]])])} of cases all right; "
                     f"{others}).")

    for model in models:
        mine = [r for r in runs if r.model == model]
        on = next((r for r in mine if r.reflexes), None)
        off = next((r for r in mine if not r.reflexes), None)
        if on is not None and off is not None:
            shares = f"{_pct(passed[id(off)])} off, {_pct(passed[id(on)])} on"
            if passed[id(on)] > passed[id(off)]:
                lines.append(f"Turn reflexes on for {model}: cases all right go up ({shares}).")
            elif passed[id(on)] < passed[id(off)]:
                lines.append(f"Reflexes make {model} worse ({shares}): check the reflex patterns "
                             "against the failing cases.")
        # The model on its own is the reflexes-off run, when there is one.
        judged = off or mine[0]
        selection = overall[id(judged)].selection.share
        if selection is not None and selection < SELECTION_FLOOR:
            how = "on its own" if judged is off else "even with reflexes"
            if judged.tier == "embedded":
                lines.append(f"Use a server model for free-form requests: the embedded model picks the right "
                             f"tool in only {_pct(selection)} of cases {how} (e.g. `ollama pull qwen2.5:3b` "
                             "and --brain server).")
            else:
                lines.append(f"{model} picks the right tool in only {_pct(selection)} of cases {how}; "
                             "try a larger model for free-form requests.")
        for run in mine:
            claims = overall[id(run)].false_claims
            if claims:
                lines.append(f"{run.title}: {claims} repl{'y' if claims == 1 else 'ies'} claimed an action "
                             "that did not happen; see the false-claim cases in --json.")

    if not lines:
        best = max(runs, key=lambda r: passed[id(r)])
        lines.append(f"{best.title}: {_pct(passed[id(best)])} of cases all right; nothing to change.")
    return lines

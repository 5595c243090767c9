"""How a pet grows: its stage, traits and behaviours on a day, the next
milestone, and the anniversaries of a date. Pure functions of their inputs."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from pet.persona.model import Anniversary, Persona, Stage

#: the stage of a persona that lists none: no name, no changes
BASE_STAGE = Stage(days=0)


def days_together(adopted: dt.date, now: dt.datetime | dt.date) -> int:
    """Whole local days since adoption: 0 on adoption day, never negative.
    `now` must already be in the pet's zone (its date is the local date)."""
    today = now.date() if isinstance(now, dt.datetime) else now
    return max(0, (today - adopted).days)


def stage_for(persona: Persona, days: int) -> Stage:
    """The stage the pet is in after `days` days together."""
    current = persona.stages[0] if persona.stages else BASE_STAGE
    for stage in persona.stages:
        if stage.days > days:
            break
        current = stage
    return current


@dataclass(frozen=True)
class Milestone:
    """The next stage the pet grows into."""

    stage: Stage
    days: int  # days together when it begins
    days_left: int


def next_milestone(persona: Persona, days: int) -> Milestone | None:
    """The next stage after `days` days together; None after the last stage."""
    for stage in persona.stages:
        if stage.days > days:
            return Milestone(stage, stage.days, stage.days - max(0, days))
    return None


def _language(table: dict, language: str) -> str | None:
    if language in table:
        return language
    return next(iter(table), None)


def traits_at(persona: Persona, days: int, language: str) -> tuple[str, ...]:
    """The base traits with every stage up to `days` applied in order."""
    lang = _language(persona.traits, language)
    traits = list(persona.traits.get(lang, ())) if lang else []
    for stage in persona.stages:
        if stage.days > days:
            break
        traits = [t for t in traits if t not in stage.drop_traits.get(lang or "", ())]
        traits += [t for t in stage.add_traits.get(lang or "", ()) if t not in traits]
    return tuple(traits)


def behaviours_at(persona: Persona, days: int, language: str) -> tuple[str, ...]:
    """The behaviours of the current stage (they do not carry over)."""
    stage = stage_for(persona, days)
    lang = _language(stage.behaviours, language)
    return stage.behaviours.get(lang, ()) if lang else ()


def anniversaries_on(persona: Persona, adopted: dt.date, day: dt.date) -> tuple[Anniversary, ...]:
    """The anniversaries that fall on local date `day` (none before adoption)."""
    if day < adopted:
        return ()
    together = (day - adopted).days
    month_day = day.strftime("%m-%d")
    return tuple(a for a in persona.anniversaries if a.days == together or a.date == month_day)


@dataclass(frozen=True)
class GrowthCard:
    """What a small growth card shows."""

    days: int
    stage: str
    next_stage: str | None
    next_days: int | None
    days_left: int | None


def growth_card(persona: Persona, adopted: dt.date, now: dt.datetime, language: str) -> GrowthCard:
    """Days together, stage name and the next milestone; `now` in the pet's zone."""
    days = days_together(adopted, now)
    milestone = next_milestone(persona, days)
    return GrowthCard(
        days=days,
        stage=stage_for(persona, days).display_name(language),
        next_stage=milestone.stage.display_name(language) if milestone else None,
        next_days=milestone.days if milestone else None,
        days_left=milestone.days_left if milestone else None,
    )

"""Growth: the stage, traits and behaviours on a day, the next milestone,
anniversaries and the growth card. All pure functions of their inputs."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest
from test_persona import base_persona, grown_persona

from pet.persona.growth import (
    BASE_STAGE,
    anniversaries_on,
    behaviours_at,
    days_together,
    growth_card,
    next_milestone,
    stage_for,
    traits_at,
)
from pet.persona.model import load_persona, parse_persona

SHANGHAI = ZoneInfo("Asia/Shanghai")
XIAOQIAN = load_persona("xiaoqian")


@pytest.mark.parametrize(
    ("days", "stage_days", "name"),
    [
        (0, 0, "shy newcomer"), (6, 0, "shy newcomer"), (7, 7, "curious explorer"), (29, 7, "curious explorer"),
        (30, 30, "settled-in sidekick"), (99, 30, "settled-in sidekick"), (100, 100, "hard-shelled partner"),
        (364, 100, "hard-shelled partner"), (365, 365, "old pal"), (5000, 365, "old pal"),
    ],
)
def test_stage_for_picks_the_last_stage_begun(days, stage_days, name):
    stage = stage_for(XIAOQIAN, days)
    assert stage.days == stage_days
    assert stage.display_name("en") == name


def test_stage_names_per_language():
    assert stage_for(XIAOQIAN, 0).display_name("zh") == "刚到家的小虾米"
    assert stage_for(XIAOQIAN, 365).display_name("zh") == "老伙计"


def test_a_persona_without_stages_stays_in_the_base_stage():
    persona = parse_persona(base_persona())
    assert stage_for(persona, 0) is BASE_STAGE
    assert stage_for(persona, 400) is BASE_STAGE
    assert next_milestone(persona, 0) is None
    assert traits_at(persona, 400, "en") == ("greedy", "shy")
    assert behaviours_at(persona, 400, "en") == ()


@pytest.mark.parametrize(
    ("days", "next_days", "left", "name"),
    [(0, 7, 7, "curious explorer"), (6, 7, 1, "curious explorer"), (7, 30, 23, "settled-in sidekick"),
     (99, 100, 1, "hard-shelled partner"), (300, 365, 65, "old pal")],
)
def test_next_milestone(days, next_days, left, name):
    milestone = next_milestone(XIAOQIAN, days)
    assert milestone is not None
    assert (milestone.days, milestone.days_left, milestone.stage.display_name("en")) == (next_days, left, name)


def test_no_milestone_after_the_last_stage():
    assert next_milestone(XIAOQIAN, 365) is None
    assert next_milestone(XIAOQIAN, 10_000) is None


def test_traits_accumulate_across_stages():
    persona = parse_persona(grown_persona())
    assert traits_at(persona, 0, "en") == ("greedy", "shy", "timid")
    assert traits_at(persona, 6, "zh") == ("贪吃", "胆小", "怕生")
    assert traits_at(persona, 7, "en") == ("greedy", "shy")  # stage 7 drops "timid"
    assert traits_at(persona, 365, "en") == ("greedy", "shy")


def test_xiaoqian_loses_its_shyness_after_a_week():
    assert "a little shy" in traits_at(XIAOQIAN, 3, "en")
    assert "a little shy" not in traits_at(XIAOQIAN, 7, "en")
    assert {"chattier", "thoughtful", "dependable", "steady"} <= set(traits_at(XIAOQIAN, 365, "en"))
    assert "cheeky" in traits_at(XIAOQIAN, 365, "en")  # the base character stays


def test_behaviours_belong_to_their_stage_only():
    persona = parse_persona(grown_persona())
    assert behaviours_at(persona, 3, "en") == ("hides in the wood shavings",)
    assert behaviours_at(persona, 7, "en") == ()
    assert behaviours_at(XIAOQIAN, 100, "zh")[0].startswith("主人累了会提醒休息")


def test_anniversaries_by_days_together_and_by_date():
    persona = parse_persona(grown_persona())
    adopted = dt.date(2026, 1, 1)
    assert [a.days for a in anniversaries_on(persona, adopted, adopted + dt.timedelta(days=100))] == [100]
    assert anniversaries_on(persona, adopted, adopted + dt.timedelta(days=99)) == ()
    assert [a.date for a in anniversaries_on(persona, adopted, dt.date(2026, 5, 20))] == ["05-20"]
    assert [a.date for a in anniversaries_on(persona, adopted, dt.date(2031, 5, 20))] == ["05-20"]  # every year
    assert anniversaries_on(persona, dt.date(2026, 6, 1), dt.date(2026, 5, 20)) == ()  # not before adoption


def test_days_together_counts_local_dates():
    adopted = dt.date(2026, 12, 1)
    assert days_together(adopted, dt.datetime(2026, 12, 1, 23, 59, tzinfo=SHANGHAI)) == 0
    assert days_together(adopted, dt.datetime(2026, 12, 2, 0, 0, tzinfo=SHANGHAI)) == 1
    assert days_together(adopted, dt.date(2026, 11, 30)) == 0  # never negative


def test_growth_card():
    adopted = dt.date(2026, 1, 1)
    now = dt.datetime(2026, 1, 26, 20, 0, tzinfo=SHANGHAI)
    card = growth_card(XIAOQIAN, adopted, now, "zh")
    assert (card.days, card.stage, card.next_stage, card.next_days, card.days_left) == (
        25, "探头探脑的小钳", "熟门熟路的小跟班", 30, 5,
    )
    last = growth_card(XIAOQIAN, adopted, now + dt.timedelta(days=400), "en")
    assert (last.stage, last.next_stage, last.next_days, last.days_left) == ("old pal", None, None, None)

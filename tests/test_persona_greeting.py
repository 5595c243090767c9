"""The greeting on the first message of a local day, with injected times."""

from __future__ import annotations

import dataclasses
import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from pet.events import MemoryRecord
from pet.persona.greeting import first_meeting, greeting, memory_of_the_day
from pet.persona.model import load_persona

SHANGHAI = ZoneInfo("Asia/Shanghai")
UTC = dt.timezone.utc
# The shipped pet, living in Shanghai (its file says "local").
PET = dataclasses.replace(load_persona("xiaoqian"), timezone="Asia/Shanghai")
ADOPTED = dt.date(2027, 1, 1)


def at(day: int, hour: int = 9, minute: int = 0, second: int = 0) -> dt.datetime:
    """A Shanghai time `day` days after adoption."""
    date = ADOPTED + dt.timedelta(days=day)
    return dt.datetime(date.year, date.month, date.day, hour, minute, second, tzinfo=SHANGHAI)


def memory(memory_id: int, content: str, said_on_day: int, **changes) -> MemoryRecord:
    # The database keeps naive UTC times.
    created = at(said_on_day, 20).astimezone(UTC).replace(tzinfo=None)
    return MemoryRecord(memory_id, content, created_at=created, updated_at=created, **changes)


def test_the_first_message_ever_meets_the_person():
    assert greeting(PET, at(0, 10), ADOPTED, "zh", None, []) == (
        "你好呀，我是小钳，一只小龙虾！今天是我们认识的第一天，请多关照～"
    )
    assert greeting(PET, at(0, 10), ADOPTED, "en", None, []) == first_meeting(PET, "en")
    assert first_meeting(PET, "en").startswith("Hello! I'm Xiaoqian, a crayfish.")


def test_a_first_message_days_after_a_dated_adoption_introduces_the_pet():
    text = greeting(PET, at(3, 10), ADOPTED, "en", None, [])
    assert text.startswith("Hello! I'm Xiaoqian. ")
    assert "3 days" in text


def test_no_greeting_later_the_same_local_day():
    assert greeting(PET, at(3, 23, 59, 59), ADOPTED, "zh", at(3, 0, 0, 0), []) is None
    assert greeting(PET, at(0, 12), ADOPTED, "en", at(0, 10), []) is None


def test_the_first_message_after_local_midnight_is_greeted():
    text = greeting(PET, at(4, 0, 0, 0), ADOPTED, "zh", at(3, 23, 59, 59), [])
    assert text is not None and text.startswith("这么晚还没睡呀？")
    assert "4天" in text


def test_days_follow_the_pets_zone_not_utc():
    # 00:30 in Shanghai on day 5 is still day 4 in UTC: a new local day.
    last = at(4, 23, 0).astimezone(UTC)
    now = at(5, 0, 30).astimezone(UTC)
    assert last.date() == now.date()
    assert greeting(PET, now, ADOPTED, "en", last, []) is not None

    # 07:00 and 01:00 on day 6 in Shanghai are different UTC dates but one local day.
    last = at(6, 1, 0).astimezone(UTC)
    now = at(6, 9, 0).astimezone(UTC)
    assert last.date() != now.date()
    assert greeting(PET, now, ADOPTED, "en", last, []) is None


def test_naive_times_are_utc():
    last = at(6, 1, 0).astimezone(UTC).replace(tzinfo=None)  # as read from the database
    assert greeting(PET, at(6, 9), ADOPTED, "en", last, []) is None


def test_the_greeting_knows_how_long_they_have_lived_together():
    text = greeting(PET, at(12, 8), ADOPTED, "en", at(11, 22), [])
    assert text.startswith("Good morning! ")
    assert "12 days" in text
    assert "12天" in greeting(PET, at(12, 8), ADOPTED, "zh", at(11, 22), [])


@pytest.mark.parametrize(
    ("hour", "zh", "en"),
    [(6, "早上好！", "Good morning!"), (12, "中午好！", "Hi there!"), (15, "下午好！", "Good afternoon!"),
     (20, "晚上好！", "Good evening!"), (23, "这么晚还没睡呀？", "Still up this late?"),
     (2, "这么晚还没睡呀？", "Still up this late?")],
)
def test_the_salutation_follows_the_local_hour(hour, zh, en):
    assert greeting(PET, at(9, hour), ADOPTED, "zh", at(2), []).startswith(zh)
    assert greeting(PET, at(9, hour), ADOPTED, "en", at(2), []).startswith(en)


def test_a_new_stage_and_an_anniversary_are_announced():
    text = greeting(PET, at(7, 9), ADOPTED, "en", at(6, 9), [])
    assert "I've grown into a new stage: curious explorer!" in text
    assert "One week together!" in text
    zh = greeting(PET, at(100, 9), ADOPTED, "zh", at(99, 9), [])
    assert "小钳长大啦，现在是「硬壳搭档」！" in zh
    assert "今天是我们在一起的第一百天！" in zh
    assert "长大" not in greeting(PET, at(101, 9), ADOPTED, "zh", at(100, 9), [])


def test_an_older_memory_is_brought_up():
    memories = [memory(1, "我最喜欢喝乌龙茶。", said_on_day=2)]
    zh = greeting(PET, at(10), ADOPTED, "zh", at(9), memories)
    assert zh.endswith("还记得你8天前跟我说过「我最喜欢喝乌龙茶」吗？")
    en = greeting(PET, at(10), ADOPTED, "en", at(9), [memory(1, "my cat is called Mochi", 2)])
    assert en.endswith('Remember when you told me "my cat is called Mochi" 8 days ago?')


def test_only_memories_at_least_three_days_old_in_the_persons_words():
    young = memory(1, "likes jazz", said_on_day=8)  # two days before day 10
    pending = memory(2, "lives in Hangzhou", 1, status="pending")
    forgotten = memory(3, "hates rain", 1, deleted_at=dt.datetime(2027, 1, 5))
    from_a_tool = memory(4, "meeting at 3pm", 1, asserted_by="tool")
    undated = MemoryRecord(5, "plays go")
    text = greeting(PET, at(10), ADOPTED, "en", at(9), [young, pending, forgotten, from_a_tool, undated])
    assert "Remember" not in text
    three_days = memory(6, "likes jazz", said_on_day=7)
    assert "Remember when" in greeting(PET, at(10), ADOPTED, "en", at(9), [three_days])


def test_the_memory_choice_is_fixed_for_a_day_and_changes_between_days():
    memories = [memory(i, f"fact number {i}", said_on_day=1) for i in (4, 9, 17)]
    day = [greeting(PET, at(20, hour), ADOPTED, "en", at(19), memories) for hour in (0, 8, 23)]
    shuffled = greeting(PET, at(20, 8), ADOPTED, "en", at(19), list(reversed(memories)))
    assert {text.split("Remember")[1] for text in day} == {shuffled.split("Remember")[1]}

    picked = [memory_of_the_day(memories, (ADOPTED + dt.timedelta(days=d)), SHANGHAI)[0].id for d in (20, 21, 22)]
    assert sorted(picked) == [4, 9, 17]  # three days, three different memories


def test_a_long_memory_is_cut_when_quoted():
    text = greeting(PET, at(10), ADOPTED, "en", at(9), [memory(1, "word " * 100, 1)])
    quoted = text.split('"')[1]
    assert len(quoted) <= 90 and quoted.endswith("…")


def test_same_inputs_same_greeting():
    memories = [memory(1, "likes tea", 1), memory(2, "has a cat", 2)]
    first = greeting(PET, at(30, 7), ADOPTED, "zh", at(29, 22), memories)
    assert first == greeting(PET, at(30, 7), ADOPTED, "zh", at(29, 22), memories)


def test_an_unknown_language_uses_the_pets_first_language():
    assert greeting(PET, at(0), ADOPTED, "fr", None, []).startswith("你好呀")

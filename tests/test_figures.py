"""The figure guard: numbers, dates and times in a reply come from this
turn's tools, or the program computes them itself (issue 23, item 4)."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from pet.agent import capture, figures
from pet.app import build
from pet.brain.scripted import ScriptedModel, call
from pet.config import load_settings
from pet.events import Completion, Notice, TextDelta, ToolStarted

ZONE = ZoneInfo("Asia/Shanghai")
NOW = dt.datetime(2026, 11, 29, 10, 15, tzinfo=ZONE)  # a Sunday morning


pytestmark = pytest.mark.usefixtures("shanghai_persona")  # the default pet in NOW's zone (conftest)


def turn(model, text):
    """A turn on the model's path (reflexes off, as when no reflex understands the phrasing)."""
    app = build(load_settings({"reflexes": False, "greeting": False}), brain=model, clock=lambda: NOW)
    events = list(app.agent.run(app.current_conversation(), text))
    shown = "".join(e.text for e in events if isinstance(e, TextDelta))
    ran = [e.call.name for e in events if isinstance(e, ToolStarted)]
    return events[-1].text, shown, ran


def test_a_wrong_product_never_reaches_the_person():
    model = ScriptedModel(["Easy! 128 * 7 = 964."])
    reply, shown, ran = turn(model, "what is 128 * 7?")
    assert "964" not in shown and "964" not in reply
    assert ran == ["calculate"] and reply.endswith("128 * 7 = 896")
    model.assert_complete()


def test_a_right_figure_without_a_tool_stands_once_the_code_agrees():
    reply, shown, ran = turn(ScriptedModel(["Easy! 128 * 7 = 896."]), "hey, 128 times 7 is what")
    assert reply == "Easy! 128 * 7 = 896." == shown
    assert ran == ["calculate"]  # computed in code this turn: the figure now has a tool result


def test_a_figure_the_tool_gave_passes_without_another_call():
    model = ScriptedModel([Completion("", (call("calculate", expression="128*7"),)), "That makes 896!"])
    reply, _, ran = turn(model, "so what's 128*7 then, buddy?")
    assert reply == "That makes 896!" and ran == ["calculate"]


def test_a_tool_result_for_part_of_the_sum_is_not_the_answer():
    model = ScriptedModel([Completion("", (call("calculate", expression="1250/5"),)), "It's 250."])
    reply, shown, ran = turn(model, "1250 divided by 5, plus 12")
    assert "250." not in shown and reply.endswith("(1250 / 5) + 12 = 262")
    assert ran == ["calculate", "calculate"]


def test_chinese_arithmetic_with_a_wrong_answer():
    reply, shown, _ = turn(ScriptedModel(["三百六十五乘以二等于七百二十！"]), "三百六十五乘以二等于多少？")
    assert "七百二十" not in shown and reply.endswith("365*2 = 730")


def test_a_wrong_date_is_replaced_by_the_clock():
    model = ScriptedModel(["Today is Monday, November 30, 2026."])
    reply, shown, ran = turn(model, "what's the date today?")
    assert "Monday" not in shown and "30" not in shown
    assert ran == ["get_current_time"]
    assert "2026-11-29" in reply and "10:15" in reply


def test_a_wrong_time_in_chinese_is_replaced_by_the_clock():
    reply, shown, ran = turn(ScriptedModel(["现在是下午三点二十分哦～"]), "现在几点了？")
    assert "三点" not in shown and ran == ["get_current_time"]
    assert reply == "2026年11月29日 星期日 10:15（北京时间）"


def test_the_right_time_said_by_the_model_stands():
    reply, _, ran = turn(ScriptedModel(["It's 10:15 on Sunday, November 29."]), "what time is it?")
    assert reply == "It's 10:15 on Sunday, November 29." and ran == ["get_current_time"]


@pytest.mark.parametrize("text", ["tell me a joke", "I have 3 cats and 2 dogs", "we won 10-3 today!",
                                  "what time do you usually sleep?", "remind me what 3 things to buy"])
def test_messages_that_ask_no_figure_are_not_checked(text):
    assert figures.asked(text) is None


def test_small_talk_with_numbers_passes_untouched():
    reply, _, ran = turn(ScriptedModel(["Three cats and 2 dogs, 5 pets! Lucky you."]), "I have 3 cats and 2 dogs")
    # a fact about the person may be noted; no figure is checked or looked up
    assert reply == "Three cats and 2 dogs, 5 pets! Lucky you." and set(ran) <= {"note"}


def test_a_rounded_result_matches():
    check = figures.check(figures.asked("what is 1/3?"), "what is 1/3?", ["0.333333333333"])
    assert check.unsupported("About 0.33!") == []
    assert check.unsupported("About 0.4!") == ["0.4"]


def routed_turn(model, text, notices=False):
    """A turn with the reflexes and the intent router on, the real sentence encoder."""
    app = build(load_settings({"reflexes": True, "greeting": False}), brain=model, clock=lambda: NOW,
                scheduler="off")
    events = list(app.agent.run(app.new_conversation(), text))
    shown = "".join(e.text for e in events if isinstance(e, TextDelta))
    ran = [e.call.name for e in events if isinstance(e, ToolStarted)]
    if notices:
        return events[-1].text, shown, ran, [e.text for e in events if isinstance(e, Notice)]
    return events[-1].text, shown, ran


@pytest.mark.parametrize("text, guess, figure, language", [
    # seen: the model's figures for sums in words the calculator's reader does not know
    ("a tip of 15% on an 80 dollar bill?", "That's $6, since 10% of $8 = $6.", "6", "en"),
    ("if I read 23 pages every night, how many pages is that after three weeks?", "That's 69 pages!", "69", "en"),
    # one number in digits, a day implied against minutes (round 23's spent set: "0升" reached the person)
    ("每分钟漏0.35升水，一天漏多少升", "一天漏了360升哦！", "360", "zh"),
])
@pytest.mark.real_encoder
@pytest.mark.skipif(capture.reader() is None, reason="the sentence encoder is not installed")
def test_a_figure_guessed_for_a_sum_in_words_is_held(text, guess, figure, language):
    reply, shown, ran, notices = routed_turn(ScriptedModel([guess], repeat_last=True), text, notices=True)
    assert figure not in shown and figure not in reply
    assert reply == figures.unread_line(language) and ran == []
    assert notices == []  # the pet's line says why; no technical warning under it


@pytest.mark.real_encoder
@pytest.mark.skipif(capture.reader() is None, reason="the sentence encoder is not installed")
def test_a_sum_in_words_the_model_computed_with_the_tool_stands():
    model = ScriptedModel([Completion("", (call("calculate", expression="80 * 15 / 100"),)), "A $12 tip, easy!"])
    reply, _, ran = routed_turn(model, "a tip of 15% on an 80 dollar bill?")
    assert reply == "A $12 tip, easy!" and ran == ["calculate"]


@pytest.mark.real_encoder
@pytest.mark.skipif(capture.reader() is None, reason="the sentence encoder is not installed")
def test_words_about_a_sum_in_words_without_a_new_figure_stand():
    # (asked first to write the sum for the calculator, this model gives none: the same words come as its answer)
    reply, _, ran = routed_turn(ScriptedModel(["Hmm, 15% of 80? Grab a calculator, friend!"] * 2),
                                "a tip of 15% on an 80 dollar bill?")
    assert reply == "Hmm, 15% of 80? Grab a calculator, friend!" and ran == []


@pytest.mark.real_encoder
@pytest.mark.skipif(capture.reader() is None, reason="the sentence encoder is not installed")
def test_a_question_of_fact_with_one_number_or_none_is_not_held():
    # review: "how many ounces in a cup?" is near the sums, but no word problem: its answer stands
    reply, _, ran = routed_turn(ScriptedModel(["There are 8 fluid ounces in a cup."]), "how many ounces in a cup?")
    assert reply == "There are 8 fluid ounces in a cup." and ran == []

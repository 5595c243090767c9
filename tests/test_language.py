"""Code-written results speak the person's language: a Chinese message gets
no English sentence back, from any tool or reflex (issue 23, item 8)."""

from __future__ import annotations

import datetime as dt
import re
from zoneinfo import ZoneInfo

import pytest

from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings
from pet.errors import BrainUnavailable
from pet.events import Reply, ToolFinished

ZONE = ZoneInfo("Asia/Shanghai")
NOW = dt.datetime(2026, 11, 29, 10, 15, tzinfo=ZONE)

# Three English words in a row: a sentence, not a name or a command.
ENGLISH_RUN = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?(?:[\s,;:.]+[A-Za-z]+(?:'[A-Za-z]+)?){2,}")
QUOTED = re.compile(r"“[^”]*”|\"[^\"]*\"|'[^']*'")


def english_sentences(text: str) -> list[str]:
    return ENGLISH_RUN.findall(QUOTED.sub("", text))


pytestmark = pytest.mark.usefixtures("shanghai_persona")  # the default pet in NOW's zone (conftest)


@pytest.fixture
def app():
    # The model never words a result: what the person reads is what the code wrote.
    model = ScriptedModel([BrainUnavailable("no wording")], repeat_last=True)
    return build(load_settings({"greeting": False}), brain=model, clock=lambda: NOW)


def say(app, text):
    events = list(app.agent.run(app.current_conversation(), text))
    results = [e.result for e in events if isinstance(e, ToolFinished)]
    return results, next(e for e in events if isinstance(e, Reply)).text


# Each Chinese message, run in order on one pet, with the tool it must reach (None: the reflex answers itself).
CONVERSATION = [
    ("现在几点了？", "get_current_time"),
    ("今天星期几", "get_current_time"),
    ("三百六十五乘以二等于多少", "calculate"),
    ("算一下 1/0", "calculate"),
    ("算一下 10^5000", "calculate"),
    ("算一下 10^999 * 10", "calculate"),
    ("我有20块钱，每本书5块，还剩多少？", None),
    ("记住我对花生过敏", "remember"),
    ("记住我对花生过敏", "remember"),
    ("记住我喜欢绿茶", "remember"),
    ("记住我喜欢红茶", "remember"),
    ("关于花生你记得什么？", "recall"),
    ("关于咖啡你记得什么？", "recall"),
    ("忘掉茶这件事", "forget"),
    ("忘掉咖啡这件事", "forget"),
    ("删掉#42", "forget"),
    ("删掉#1", "forget"),
    ("明天早上8点提醒我开会", "set_reminder"),
    ("我有哪些提醒", "list_reminders"),
    ("取消提醒#9", "cancel_reminder"),
    ("取消给妈妈打电话的那个提醒", "cancel_reminder"),
    ("取消第1个提醒", "cancel_reminder"),
    ("我有哪些提醒", "list_reminders"),
    ("8点提醒我伸懒腰", None),
    ("添加待办：买牛奶", "add_todo"),
    ("我的待办有哪些？", "list_todos"),
    ("/帮助", None),
    ("/undo", None),
]


def test_every_result_of_a_chinese_conversation_is_chinese(app):
    for text, tool in CONVERSATION:
        results, reply = say(app, text)
        assert [r.name for r in results] == ([tool] if tool else []), text
        for shown in [reply, *(r.content.removeprefix("Error: ") for r in results)]:
            assert not english_sentences(shown), f"{text!r} got {shown!r}"


def test_the_clock_reads_in_chinese(app):
    (result,), _ = say(app, "现在几点了？")
    assert result.content == "2026年11月29日 星期日 10:15（北京时间）"


@pytest.mark.parametrize("text", ["Forgot memory #1: I like tea", "Reminder #2 set for tomorrow 08:00: 开会",
                                  "No memory matches 'x'; /recall WORD finds one first"])
def test_the_check_finds_english_sentences(text):
    assert english_sentences(text)


@pytest.mark.parametrize("text", ["已忘掉 #1：I like tea", "已记住 #3：“I code after 11pm”", "/forget #1 或 /recall 关键词"])
def test_the_check_leaves_quotes_names_and_commands_alone(text):
    assert not english_sentences(text.replace("I like tea", "“I like tea”"))


@pytest.mark.parametrize("text, language", [
    # a few English words in a Chinese sentence: a Chinese character says about a word (used as a person would:
    # "现在what time啊" was answered in English)
    ("现在what time啊", "zh"), ("帮我calculate一下", "zh"), ("我最喜欢Python", "zh"),
    ("ping me at 5pm to buy 豆腐", "en"), ("my favourite dish is 麻婆豆腐", "en"),
    # a Chinese word or two in English (the review of 2026-12-07)
    ("I love 火锅", "en"), ("what is 饺子?", "en"), ("thanks 钳钳", "en"), ("I miss 妈妈", "en"),
])
def test_a_message_mixing_languages_is_read_by_its_words(text, language):
    from pet.text import detect_language
    assert detect_language(text) == language

"""The shared text rules: Chinese characters, a message's language, Chinese
numerals and token estimates."""

from __future__ import annotations

import pytest

from pet.text import cjk_count, clip, detect_language, estimate_tokens, is_cjk, zh_int


@pytest.mark.parametrize(
    "text, language",
    [
        ("你好，今天天气怎么样？", "zh"),
        ("Hello, how are you today?", "en"),
        ("我最喜欢的编程语言是Python", "zh"),  # Chinese with an English word
        ("My pet is called 小钳", "en"),  # English with a Chinese name
        ("ping me at 5pm to buy 豆腐", "en"),
        ("提醒我明天买milk", "zh"),
        ("明天 9am", "zh"),  # half as many Chinese characters as letters is Chinese
        ("tomorrow 9点", "en"),
        ("這個週末見", "zh"),  # traditional characters
        ("兀", "zh"),  # a compatibility ideograph
        ("㐀", "zh"),  # Extension A
        ("こんにちは", "en"),  # kana are not Chinese: no Chinese, no letters, the default
    ],
)
def test_the_language_of_mixed_text(text, language):
    assert detect_language(text) == language


@pytest.mark.parametrize("text", ["", "   ", "12345 + 678", "🦞!!", "，。！"])
def test_text_without_letters_or_chinese_has_the_default_language(text):
    assert detect_language(text) == "en"
    assert detect_language(text, default="zh") == "zh"


@pytest.mark.parametrize(
    "char, chinese",
    [("豆", True), ("兀", True), ("㐀", True), ("a", False), ("。", False), ("あ", False), ("１", False)],
)
def test_which_characters_are_chinese(char, chinese):
    assert is_cjk(char) is chinese
    assert cjk_count(char * 3) == (3 if chinese else 0)


@pytest.mark.parametrize(
    "text, number",
    [
        ("0", 0),
        ("12", 12),
        ("１２", 12),  # full-width digits
        ("零", 0),
        ("〇", 0),
        ("两", 2),
        ("兩", 2),
        ("十", 10),
        ("十二", 12),
        ("二十", 20),
        ("二十一", 21),
        ("一百零五", 105),
        ("三百六十五", 365),
        ("一千零五十", 1050),
        ("两千", 2000),
        ("一百五", 150),  # as said: one hundred and fifty
        ("两万五", 25000),
        ("一万零五", 10005),
        ("十万", 100000),
        ("十二万三千四百五十六", 123456),
        ("三亿五千万", 350_000_000),
        ("一亿零五百万", 105_000_000),
        ("二〇二六", 2026),  # a year, digit by digit
        ("零五", 5),
    ],
)
def test_chinese_numerals(text, number):
    assert zh_int(text) == number


@pytest.mark.parametrize("text", ["", "百", "万", "十十", "三五百", "一万万", "三亿万", "二 十", "abc", "3万", "²"])
def test_what_is_not_a_numeral_raises_like_int(text):
    with pytest.raises(ValueError):
        zh_int(text)


@pytest.mark.parametrize(
    "text, tokens",
    [
        ("", 0),
        ("咖啡", 2),  # a Chinese character is about a token
        ("hello world!", 3),  # other text about four characters a token
        ("我喜欢 coffee", 3 + 2),
        ("ping me at 5pm to buy 豆腐", 2 + 6),
    ],
)
def test_token_estimates(text, tokens):
    assert estimate_tokens(text) == tokens


def test_clipping_to_a_token_budget_ends_at_a_sentence_when_it_can():
    text = "First sentence here. Second sentence that runs on and on and on."
    assert clip(text, 100) == text
    assert clip(text, 8) == "First sentence here."
    assert clip(text, 12) == "First sentence here. Second sentence that ru…"  # the end is too far back
    assert clip("一二三四五六七八九十", 5) == "一二三四…"
    assert estimate_tokens(clip("我喜欢喝咖啡。" * 20, 30)) <= 30

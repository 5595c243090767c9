"""A streaming reply is cut into sentences as soon as each is complete, in
Chinese and English, and each is cleaned for the voice."""

from __future__ import annotations

import pytest

from pet.speech.sentences import LONG_SENTENCE, SentenceSplitter, speakable


def split(text: str, step: int) -> list[str]:
    """Stream `text` in pieces of `step` characters; collect what comes out."""
    splitter = SentenceSplitter()
    out: list[str] = []
    for start in range(0, len(text), step):
        out += splitter.feed(text[start : start + step])
    return out + splitter.flush()


@pytest.mark.parametrize("step", [1, 3, 7, 1000])
def test_sentences_come_out_the_same_however_the_reply_streams(step):
    text = "Hi! I am Mr. Pinch, version 3.14 of a crayfish... Do you like it? 你好！我是小钳。今天天气不错，去散步吧"
    assert split(text, step) == [
        "Hi!",
        "I am Mr. Pinch, version 3.14 of a crayfish...",
        "Do you like it?",
        "你好！",
        "我是小钳。",
        "今天天气不错，去散步吧",
    ]


def test_a_sentence_comes_out_as_soon_as_it_is_complete():
    splitter = SentenceSplitter()
    assert splitter.feed("The first sentence is done") == []
    assert splitter.feed(".") == []  # the dot may still be 3.14
    assert splitter.feed(" And the second") == ["The first sentence is done."]
    assert splitter.feed("！") == []  # a closing quote may follow
    assert splitter.feed("第三句") == ["And the second！"]
    assert splitter.flush() == ["第三句"]
    assert splitter.flush() == []


def test_chinese_ends_need_no_space():
    assert split("好的。明天见！你呢？", 1) == ["好的。", "明天见！", "你呢？"]


def test_closing_quotes_stay_with_their_sentence():
    assert split('He said "hello." Then he left. 她说：“好。”然后走了。', 1) == [
        'He said "hello."', "Then he left.", "她说：“好。”", "然后走了。"]


def test_list_lines_are_sentences_and_their_numbers_are_not_ends():
    assert split("Todo:\n1. Buy milk\n2. Call mum at 5. Then rest", 2) == [
        "Todo:", "1. Buy milk", "2. Call mum at 5.", "Then rest"]


def test_the_first_sentence_may_end_at_a_pause_to_be_heard_sooner():
    text = "Today was a sunny day, and I had the pleasure of meeting a frog, a fish and a duck. Then 3,000 frogs came."
    assert split(text, 1) == [
        "Today was a sunny day,",  # the first sound need not wait for the whole sentence
        "and I had the pleasure of meeting a frog, a fish and a duck.",  # later ones end at their end
        "Then 3,000 frogs came.",
    ]
    assert split("Well, hi! Hm, yes.", 1) == ["Well, hi!", "Hm, yes."]  # too short to stop at the comma
    assert split("今天天气很好，我们一起去公园散步吧，然后回家。", 1) == ["今天天气很好，我们一起去公园散步吧，", "然后回家。"]


def test_a_long_run_on_is_cut_at_a_pause():
    clause = "and then the crayfish walked a little further along the river bank, "
    pieces = split(clause * 6, 5)
    assert len(pieces) > 2
    assert all(len(piece) <= LONG_SENTENCE for piece in pieces)
    assert " ".join(pieces) == (clause * 6).strip()


def test_a_chinese_run_on_without_pauses_is_cut_too():
    text = "我是一只小龙虾我喜欢在水里游泳" * 6
    pieces = split(text, 3)
    assert len(pieces) >= 2 and "".join(pieces) == text
    assert all(len(piece) <= LONG_SENTENCE // 2 for piece in pieces)  # a character is said as two letters


def test_speakable_drops_markup_links_and_emoji():
    assert speakable("**Sure!** 🦞 See [the docs](http://127.0.0.1/x) or https://example.org now ✨") == (
        "Sure! See the docs or now")
    assert speakable("# 好的 👍") == "好的"
    assert speakable("🦞🦞 ✨") == ""
    assert speakable("...") == ""

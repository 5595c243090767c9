"""Words shared across English and Chinese, by CC-CEDICT (pet.memory.lexicon)."""

from __future__ import annotations

import threading
import time

import pytest

from pet.memory import lexicon


@pytest.mark.parametrize(("first", "second", "shared"), [
    ("Sold the Lego. All of it.", "我家的空房间基本是个乐高博物馆", {"lego"}),
    ("面包车卖了。", "I drive a beat-up silver Wuling van", {"van"}),
    ("Quit the betel nut.", "我每天下午都要嚼槟榔。", {"betel", "nut"}),
    ("牙套终于摘了", "My braces come off in May", {"brac"}),  # a plural and its singular meet
    ("I like oolong tea", "我喜欢喝乌龙茶", {"tea", "oolong"}),
])
def test_a_chinese_word_meets_the_english_word_it_means(first, second, shared):
    assert lexicon.shared(first, second) == shared
    assert lexicon.shared(second, first) == shared


@pytest.mark.parametrize(("first", "second"), [
    ("I keep an axolotl called Pickle", "我在一家彩灯作坊当扎灯师傅"),  # nothing in common
    ("I sold the van", "I drive a van"),  # one language: the encoder reads these
    ("面包车卖了", "我开面包车"),
    ("I really like it, it's good", "我喜欢"),  # too general to say what a fact is about
])
def test_nothing_is_shared_without_a_word_in_common_across_languages(first, second):
    assert lexicon.shared(first, second) == frozenset()


def test_without_the_dictionary_nothing_is_shared(monkeypatch):
    monkeypatch.setattr(lexicon, "_dictionary_file", lambda: None)
    monkeypatch.setattr(lexicon, "_senses", None)
    assert lexicon.shared("Sold the Lego", "我家全是乐高") == frozenset()
    monkeypatch.setattr(lexicon, "_senses", None)  # read again after the test, with the dictionary


def test_a_damaged_dictionary_shares_nothing_and_stops_nothing(monkeypatch, tmp_path):
    broken = tmp_path / "cedict.txt.gz"
    broken.write_bytes(b"\x1f\x8b this is no gzip stream")
    monkeypatch.setattr(lexicon, "_dictionary_file", lambda: broken)
    monkeypatch.setattr(lexicon, "_senses", None)
    assert lexicon.shared("Sold the Lego", "我家全是乐高") == frozenset()
    monkeypatch.setattr(lexicon, "_senses", None)


@pytest.mark.parametrize(("term", "expected"), [
    ("退休", {"retir"}), ("香菜", {"coriander"}),
    ("friend", {"朋友"}), ("coriander", {"香菜"}), ("bike", {"自行车"}),  # the most used Chinese words first
    ("lego", {"乐高"}),  # a name no word count knows
])
def test_a_search_term_has_its_words_in_the_other_language(term, expected):
    lexicon.read()
    assert expected <= set(lexicon.translations(term))
    assert len(lexicon.translations(term)) <= max(lexicon.PER_TERM, lexicon.SPECIFIC)


@pytest.mark.parametrize("term", ["爸退", "运动", "thing"])  # no word; a word of many senses; too general
def test_a_term_of_no_clear_sense_has_no_words_in_the_other_language(term):
    lexicon.read()
    assert lexicon.translations(term) == ()


def test_a_search_never_waits_for_the_dictionary(monkeypatch):
    lexicon.read()
    for thread in threading.enumerate():
        if thread.name == "chinese-english-words":
            thread.join()  # (another test's reading)
    real = lexicon._load
    go = threading.Event()

    def slow() -> dict[str, frozenset[str]]:
        go.wait(10)
        return real()

    monkeypatch.setattr(lexicon, "_load", slow)
    monkeypatch.setattr(lexicon, "_senses", None)
    monkeypatch.setattr(lexicon, "_chinese_of", None)
    started = time.monotonic()
    assert lexicon.translations("退休") == () and lexicon.translations("retired") == ()  # not read yet: nothing
    assert time.monotonic() - started < 1.0  # ...at once, not after the reading
    go.set()
    lexicon._reading.join(10)
    assert "retir" in lexicon.translations("退休") and "退休" in lexicon.translations("retired")

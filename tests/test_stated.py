"""Facts told the way chat tells them (through an event, in passing) are noted
by the learned reading (pet.memory.stated) beside the word lists; what it may
not take stays out, and without its weights capture goes by the word lists."""

from __future__ import annotations

import numpy as np
import pytest

from pet.agent import capture
from pet.memory import kinds, meaning, stated

pytestmark = [pytest.mark.real_encoder,
              pytest.mark.skipif(capture.reader() is None, reason="the sentence encoder is not installed")]



def test_the_shipped_weights_were_trained_on_the_shipped_data_for_this_encoder():
    data = stated.DATA.read_text(encoding="utf-8")
    with np.load(stated.WEIGHTS, allow_pickle=False) as saved:
        assert str(saved["digest"]) == kinds.digest(data), "rebuild: python -m pet.memory.stated"
        assert str(saved["model"]) == meaning.MODEL
        assert sorted(saved["kinds"]) == ["fact", "not"]
    assert stated.classifier(meaning.MODEL, meaning.DIM) is not None


# None of these is in assets/kinds/stated.txt (a test below checks): wording it never saw. The word lists
# miss the first and the fourth ("today" marks a passing event for them; the next test checks).
TOLD = [
    "nurse life: 12 hour shift today and my feet are done",
    "finally got my motorbike licence last week, the instructor looked relieved",
    "新工作在滨江那边的一家医院，护士站忙得脚不沾地",
    # an event as a whole, a fact in a clause ("我的猫叫豆腐" read 0.548 once round 29 joined the training data,
    # just under CLAUSE_FLOOR; lowering the floor to 0.5 took 1 more fact and 3 more non-facts on rounds 5-29)
    "我的狗叫可乐，今天又把拖鞋叼走了",
    # (beside a word of today, a clause that does not name the person is no longer noted: "养的那只柯基叫土豆，
    # 今天又拆家了" was, before the rule for the day's news; on the spent memory sets that rule dropped 6 facts
    # and 13 non-facts)
    "养的那只柯基叫土豆，天天在家拆东西",
]


@pytest.mark.parametrize("text", TOLD)
def test_a_fact_told_through_an_event_is_noted(book, text):
    store, pet = book
    assert capture.reader().told is not None
    assert [n.record.content for n in capture.note(store, pet, text)] == [text]


def test_the_examples_here_are_not_in_the_training_data():
    data = stated.DATA.read_text(encoding="utf-8")
    assert not [text for text in TOLD + NOT_TOLD if text in data]


NOT_TOLD = [
    "if I won the lottery I'd buy a farm in Yunnan",  # a hypothetical
    "要是明天不下雨我就去爬山",
    "my coworker reckons cats are smarter than dogs",  # somebody else's words
    "the new café downstairs seems nice",  # an impression
    "帮我记一下明天交电费",  # a request
    "set an alarm for 6 tomorrow",
    "nighty night, tiny crayfish",  # small talk
    "this morning's bus was late again and it's freezing",  # a passing event
    "bike keys",  # too few words to tell
    "好累，不想动了",  # a passing mood, whole or in a clause
    "我的猫叫豆腐，给我定个明早7点的闹钟",  # a request rides along
    "I'd love to live in Lisbon one day",  # a wish
]


@pytest.mark.parametrize("text", NOT_TOLD)
def test_what_the_learned_reading_may_not_take_is_not_noted(book, text):
    store, pet = book
    assert capture.note(store, pet, text) == []


def test_without_its_weights_capture_goes_by_the_word_lists(book, tmp_path, monkeypatch):
    damaged = tmp_path / "stated.npz"
    damaged.write_bytes(stated.WEIGHTS.read_bytes()[:1_000])  # cut off
    monkeypatch.setattr(kinds, "_loaded", {})
    assert stated.classifier(meaning.MODEL, meaning.DIM, weights=damaged) is None
    monkeypatch.setattr(capture.reader(), "told", None)
    store, pet = book
    assert [n.record.content for n in capture.note(store, pet, "I'm allergic to peanuts")] == [
        "I'm allergic to peanuts"]
    assert capture.note(store, pet, TOLD[0]) == []  # the word lists miss these; nothing breaks
    assert capture.note(store, pet, TOLD[3]) == []


def test_stale_weights_are_not_used(tmp_path, monkeypatch):
    data = tmp_path / "stated.txt"
    data.write_text("## fact\nI am a nurse\n## not\nhello there\n", encoding="utf-8")
    found = kinds.Classifier(("fact", "not"), np.zeros((meaning.DIM, 2), np.float32), np.zeros(2, np.float32))
    kinds.save(found, meaning.MODEL, data.read_text(encoding="utf-8"), tmp_path / "stated.npz")
    monkeypatch.setattr(kinds, "_loaded", {})
    assert stated.classifier(meaning.MODEL, meaning.DIM, data, tmp_path / "stated.npz") is not None
    monkeypatch.setattr(kinds, "_loaded", {})
    data.write_text("## fact\nI am a nurse\n## not\nhello there, crayfish\n", encoding="utf-8")
    assert stated.classifier(meaning.MODEL, meaning.DIM, data, tmp_path / "stated.npz") is None

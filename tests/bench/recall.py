"""Recall quality and latency of MemoryStore.search on a synthetic bilingual corpus.

    python tests/bench/recall.py [--size 100000] [--queries 1000] [--cache DIR] [--seed 7]

Builds (once, then cached in DIR, default a folder in the temp dir) a SQLite
home with `size` memories and `queries` known answers (tests/bench/recall_corpus.py
says how they are made), then asks each question through MemoryStore.search
with the FTS5 index and again with plain LIKE (the same database, `db.fts`
off), each by words and meaning together and by words alone (`db.meaning`
off) when the sentence encoder is installed (pet.memory.meaning; the
memories' vectors are computed once and kept in the cached file; by
meaning includes the fact-kind classifier of pet.memory.kinds unless
--no-kinds). Reports recall@5 (the answer among the first five results) and the
latency of each search, and checks that no row of another pet, no pending and
no forgotten memory is ever returned.

Beside the corpus's questions (which name a person), two sets are added to
the pet's memories (once, through MemoryStore, so with their vectors) and
reported in their own columns: "zh-own", facts the person told about
themselves in Chinese and questions about them in Chinese alone, without a
name (这周末有什么安排？); and "across", the bilingual tuning set
(assets/evals/recall_crosslang.jsonl), each fact asked in the other
language. Latency is reported for each language too (p95 en, zh, zh-own).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from recall_corpus import generate  # noqa: E402

from pet.memory import kinds, meaning  # noqa: E402
from pet.memory.db import Database, open_database  # noqa: E402
from pet.memory.recall import memory_key  # noqa: E402
from pet.memory.store import MemoryStore, PetStore  # noqa: E402

#: bump when the generator changes, so that an old cached corpus is not reused
CORPUS_VERSION = 2
TOP = 5
#: the languages of the generated corpus's questions; "zh-own" and "across" are added (add_own_facts)
CORPUS_LANGUAGES = ("en", "zh")
CROSSLANG = Path(__file__).resolve().parents[2] / "assets" / "evals" / "recall_crosslang.jsonl"
#: facts the person tells about themselves in Chinese, and questions in Chinese alone about them
ZH_OWN = [
    ("这周末要去杭州爬山", ["这周末有什么安排？", "周末我打算干嘛来着"]),
    ("我喜欢乌龙茶", ["我爱喝什么茶？", "我喜欢喝什么"]),
    ("我对花生过敏", ["我对什么过敏？", "有什么我不能吃的"]),
    ("我叫小明，是个程序员", ["我叫什么名字？", "我是做什么工作的"]),
    ("我的生日是三月十四号", ["我生日是哪天？", "我几月几号出生的"]),
    ("我养了一只橘猫叫胖虎", ["我的猫叫什么？", "我养了什么宠物"]),
    ("我下个月要搬去深圳", ["我要搬到哪里？", "我下个月有什么变动"]),
    ("我每天早上七点起床跑步", ["我几点起床？", "我早上有什么习惯"]),
    ("我最近在学吉他", ["我在学什么乐器？", "我最近在学什么"]),
    ("我怕坐飞机", ["我害怕什么？", "我敢不敢坐飞机"]),
    ("我的车是一辆白色的特斯拉", ["我开什么车？", "我的车是什么颜色"]),
    ("我女朋友叫小雨", ["我女朋友叫啥？", "我对象的名字"]),
]


@dataclass(frozen=True)
class Question:
    text: str
    answer: int  # memory id
    language: str
    #: the question shares a word with its answer besides the person's name
    shared: bool


@dataclass(frozen=True)
class Corpus:
    path: Path
    pet_id: int
    questions: list[Question]
    #: ids of rows that must never be recalled for the pet (other pet, pending, forgotten)
    hidden: frozenset[int]
    size: int
    build_seconds: float


@dataclass(frozen=True)
class Figures:
    recall: float
    p50_ms: float
    p95_ms: float
    max_ms: float
    leaks: int
    by_language: dict[str, float]
    #: recall@5 on the questions that share a word with their answer besides the name
    shared: float
    unshared: float
    p95_by_language: dict[str, float] = field(default_factory=dict)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def build_corpus(folder: Path, size: int, queries: int, seed: int = 7) -> Corpus:
    """The corpus database in `folder`, built unless a matching one is cached there."""
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"recall-v{CORPUS_VERSION}-{size}-{queries}-{seed}"
    path, meta_path = folder / f"{stem}.db", folder / f"{stem}.json"
    if path.exists() and meta_path.exists():
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        return Corpus(path, meta["pet_id"], [Question(**q) for q in meta["questions"]],
                      frozenset(meta["hidden"]), size, meta["build_seconds"])
    for stale in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        stale.unlink(missing_ok=True)

    started = time.perf_counter()
    rows, known = generate(size, queries, seed)
    db = open_database(f"sqlite:///{path}")
    pets = PetStore(db)
    pet_id = pets.ensure("xiaoqian", "xiaoqian", dt.date(2024, 1, 1)).id
    other_id = pets.ensure("doudou", "doudou", dt.date(2024, 1, 1)).id
    db.close()

    now = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    conn = sqlite3.connect(path)
    with conn:
        start_id = (conn.execute("SELECT coalesce(max(id), 0) FROM memories").fetchone()[0]) + 1
        values = []
        for row in rows:
            written = now - dt.timedelta(days=row.age_days)
            deleted = written + dt.timedelta(hours=1) if row.kind == "deleted" else None
            values.append((
                other_id if row.kind == "other" else pet_id, row.content, memory_key(row.content), "",
                row.pinned, "tool" if row.kind == "pending" else "person",
                "pending" if row.kind == "pending" else "active", written, written, deleted,
            ))
        conn.executemany(
            "INSERT INTO memories (pet_id, content, key, tag, pinned, asserted_by, status, created_at, "
            "updated_at, deleted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [tuple(v.isoformat(sep=" ") if isinstance(v, dt.datetime) else v for v in row) for row in values],
        )
    conn.execute("PRAGMA optimize")
    conn.close()
    seconds = time.perf_counter() - started

    questions = [Question(k.question, start_id + k.row, k.language, k.shared) for k in known]
    hidden = sorted(start_id + i for i, row in enumerate(rows) if row.kind != "mine")
    meta_path.write_text(json.dumps({
        "pet_id": pet_id, "build_seconds": round(seconds, 2), "hidden": hidden,
        "questions": [q.__dict__ for q in questions],
    }, ensure_ascii=False), encoding="utf-8")
    return Corpus(path, pet_id, questions, frozenset(hidden), size, seconds)


def add_own_facts(corpus: Corpus) -> Corpus:
    """The "zh-own" and "across" facts written into the pet's memories (again:
    the same rows, as the store keeps one of each fact), and their questions
    added to the corpus's."""
    cases = [(fact, questions, "zh-own") for fact, questions in ZH_OWN]
    for line in CROSSLANG.read_text(encoding="utf-8").splitlines():
        if line.strip():
            case = json.loads(line)
            cases.append((case["fact"], case["questions"], "across"))
    db = open_database(f"sqlite:///{corpus.path}")
    try:
        store = MemoryStore(db)
        added = [Question(question, store.remember(corpus.pet_id, fact)[0].id, language, True)
                 for fact, questions, language in cases for question in questions]
    finally:
        db.close()
    return Corpus(corpus.path, corpus.pet_id, [*corpus.questions, *added], corpus.hidden, corpus.size,
                  corpus.build_seconds)


def measure(search: Callable[[str], list[int]], corpus: Corpus, warmup: int = 20) -> Figures:
    for q in corpus.questions[:warmup]:
        search(q.text)
    times: list[float] = []
    by_language: dict[str, list[float]] = {}
    hits: dict[str, list[bool]] = {}
    by_overlap: dict[bool, list[bool]] = {True: [], False: []}
    leaks = 0
    for q in corpus.questions:
        started = time.perf_counter()
        found = search(q.text)
        times.append(time.perf_counter() - started)
        by_language.setdefault(q.language, []).append(times[-1])
        hit = q.answer in found[:TOP]
        hits.setdefault(q.language, []).append(hit)
        if q.language in CORPUS_LANGUAGES:
            by_overlap[q.shared].append(hit)
        leaks += sum(1 for i in found if i in corpus.hidden)
    # The overall figures are the corpus's (comparable across versions); the added sets have their columns.
    every = [h for lang, values in hits.items() if lang in CORPUS_LANGUAGES for h in values]
    times = [t for lang, values in by_language.items() if lang in CORPUS_LANGUAGES for t in values]

    def share(values: list[bool]) -> float:
        return sum(values) / len(values) if values else float("nan")

    return Figures(
        recall=share(every),
        p50_ms=statistics.median(times) * 1000,
        p95_ms=percentile(times, 0.95) * 1000,
        max_ms=max(times) * 1000,
        leaks=leaks,
        by_language={lang: share(v) for lang, v in sorted(hits.items())},
        shared=share(by_overlap[True]),
        unshared=share(by_overlap[False]),
        p95_by_language={lang: percentile(v, 0.95) * 1000 for lang, v in sorted(by_language.items())},
    )


def searcher(db: Database, pet_id: int) -> Callable[[str], list[int]]:
    store = MemoryStore(db)
    return lambda text: [m.id for m in store.search(pet_id, text, limit=TOP)]


def embed(corpus: Corpus) -> tuple[int, float]:
    """Compute the vectors the cached file lacks: (how many, seconds)."""
    db = open_database(f"sqlite:///{corpus.path}")
    try:
        started = time.perf_counter()
        done = meaning.backfill(db.engine)
        return done, time.perf_counter() - started
    finally:
        db.close()


def run(corpus: Corpus, like: bool = True, by_meaning: bool = True) -> dict[str, Figures]:
    """Figures for FTS5 and (when `like`) for plain LIKE on the same file,
    each with meaning (when `by_meaning` and the encoder is installed) and by words alone."""
    modes = [True, False] if by_meaning and meaning.available() else [False]
    db = open_database(f"sqlite:///{corpus.path}")
    try:
        results = {}
        for fts in [True, False] if like else [True]:
            if fts and not db.fts:
                continue
            db.fts = fts
            for db.meaning in modes:
                name = ("FTS5 trigram" if fts else "LIKE") + (" +meaning" if db.meaning else " words")
                results[name] = measure(searcher(db, corpus.pet_id), corpus)
        return results
    finally:
        db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=100_000, help="memories in the corpus")
    parser.add_argument("--queries", type=int, default=1000, help="known-answer questions")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "pet-bench-recall",
                        help="folder for the corpus database (reused when it matches)")
    parser.add_argument("--no-like", action="store_true", help="skip the (slow) LIKE run")
    parser.add_argument("--no-meaning", action="store_true", help="words only: skip the runs by meaning")
    parser.add_argument("--every", type=int, default=1,
                        help="ask only every N-th question of the corpus in each language")
    parser.add_argument("--no-own", action="store_true",
                        help="only the corpus's questions: no zh-own and across facts added to the file")
    parser.add_argument("--no-kinds", action="store_true",
                        help="meaning without the fact-kind classifier (pet/memory/kinds.py)")
    args = parser.parse_args()
    if args.no_kinds:
        kinds.classifier = lambda model, dim, *more: None

    corpus = build_corpus(args.cache, args.size, args.queries, args.seed)
    shared = sum(q.shared for q in corpus.questions)
    print(f"corpus: {corpus.size:,} memories ({len(corpus.hidden):,} of another pet, pending or forgotten), "
          f"{len(corpus.questions):,} known answers ({shared:,} share a word with the answer besides the "
          f"name); built in {corpus.build_seconds:.1f} s: {corpus.path}")
    if not args.no_meaning and meaning.available():
        done, seconds = embed(corpus)
        if done:
            print(f"sentence vectors: {done:,} memories embedded in {seconds:.1f} s (kept in the file)")
    if args.every > 1:  # a sample of the corpus's questions, for a loaded machine
        sample = [q for lang in CORPUS_LANGUAGES for q in [q for q in corpus.questions if q.language == lang][::args.every]]
        corpus = Corpus(corpus.path, corpus.pet_id, sample, corpus.hidden, corpus.size, corpus.build_seconds)
    if not args.no_own:
        corpus = add_own_facts(corpus)
    languages = sorted({q.language for q in corpus.questions}, key=["en", "zh", "zh-own", "across"].index)
    print(f"{'':22s} recall@{TOP}   p50 ms   p95 ms   max ms   " + "".join(f"{lang:8s}" for lang in languages)
          + "shared  name-only   p95 ms: " + " ".join(f"{lang:>7s}" for lang in languages))
    for name, f in run(corpus, like=not args.no_like, by_meaning=not args.no_meaning).items():
        print(f"{name:22s} {f.recall:8.3f} {f.p50_ms:8.2f} {f.p95_ms:8.2f} {f.max_ms:8.2f}   "
              + "".join(f"{f.by_language.get(lang, 0):.3f}   " for lang in languages)
              + f"{f.shared:.3f}   {f.unshared:.3f}       "
              + " ".join(f"{f.p95_by_language.get(lang, 0):7.2f}" for lang in languages)
              + (f"   LEAKED {f.leaks} hidden rows" if f.leaks else ""))


if __name__ == "__main__":
    main()

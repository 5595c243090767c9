"""`python run.py bench memory`: facts learned without "remember", and found again.

Cases (JSONL, in order, one pet): `text`, `lang`, `fact` (whether it states
a fact about the person), `contradicts` (the id of an earlier case it
updates, or true), `key_terms` (words the kept memory must hold) and
`borderline` (left out of precision and recall, counted apart). Each case
goes through pet.agent.capture as a message would; then

- capture precision and recall over the cases not borderline,
- contradiction updates right: the memory of the case contradicted now
  holds the new fact, the old text in its history (when the case contradicted
  was never noted, the memory of the fact that one replaced, and so on back),
- other facts replacing nothing: noted facts that say no change must not
  replace a memory,
- key terms kept: captured facts whose memory holds every key term.

A message capture keeps as several facts ("I quit the court. I'm a freelance
subtitle translator now") keeps several memories; "the memory of the case" is
its first. The rows "... any memory of the case" count an update, or a
question's answer among the first five, right with any of them.

Questions (JSONL): `question`, `lang`, `answers` (ids of cases whose fact
answers it, or words a right memory holds). recall@5 is measured twice with
`MemoryStore.search`: on the memories capture kept, and on a home where every
fact case was stored as said (contradictions applied), which measures search
alone; and twice more with the guesses the recall tool adds below what search
found (`MemoryStore.guesses`: closest in meaning, shown as guesses), which
measures what a person asking the recall tool sees in its first five lines.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, TextIO, TypeVar

T = TypeVar("T")

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_CASES = ROOT / "assets" / "evals" / "memory.jsonl"
DEFAULT_QUESTIONS = ROOT / "assets" / "evals" / "memory_questions.jsonl"
TOP = 5


@dataclass(frozen=True)
class Case:
    id: str
    lang: str
    text: str
    fact: bool
    contradicts: str | bool | None = None
    key_terms: tuple[str, ...] = ()
    borderline: bool = False


@dataclass(frozen=True)
class Question:
    id: str
    lang: str
    question: str
    answers: tuple[str, ...]


def _lines(path: Path) -> list[tuple[int, dict]]:
    if not path.exists():
        raise SystemExit(f"no such file: {path}")
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise SystemExit(f"{path}:{number}: not JSON: {exc}") from exc
        if not isinstance(row, dict):
            raise SystemExit(f"{path}:{number}: a case is a JSON object")
        rows.append((number, row))
    return rows


def load_cases(path: Path) -> list[Case]:
    cases = []
    for number, row in _lines(path):
        if not isinstance(row.get("text"), str) or "fact" not in row:
            raise SystemExit(f"{path}:{number}: a case needs \"text\" and \"fact\"")
        contradicts = row.get("contradicts")
        cases.append(Case(str(row.get("id", number)), str(row.get("lang", "")), row["text"], bool(row["fact"]),
                          contradicts if isinstance(contradicts, (str, bool)) else None,
                          tuple(str(t) for t in row.get("key_terms") or ()), bool(row.get("borderline"))))
    return cases


#: ids of questions with an empty `answers` list, left out of recall@5 by the last load
skipped_questions: list[str] = []


def load_questions(path: Path) -> list[Question]:
    questions = []
    skipped_questions.clear()
    for number, row in _lines(path):
        answers = row.get("answers")
        if not isinstance(row.get("question"), str) or answers is None:
            raise SystemExit(f"{path}:{number}: a question needs \"question\" and \"answers\"")
        if not answers:  # about something never told: nothing to find, so no recall@5 to score
            skipped_questions.append(str(row.get("id", number)))
            continue
        if isinstance(answers, str):
            answers = [answers]
        questions.append(Question(str(row.get("id", number)), str(row.get("lang", "")), row["question"],
                                  tuple(str(a) for a in answers)))
    return questions


@dataclass
class Tally:
    right: int = 0
    total: int = 0
    misses: list[str] = field(default_factory=list)

    def add(self, ok: bool, label: str) -> None:
        self.total += 1
        self.right += ok
        if not ok:
            self.misses.append(label)

    def share(self) -> str:
        return f"{self.right}/{self.total} = {self.right / self.total:.2f}" if self.total else "-"


def _open_home(folder: Path, name: str):
    from pet.memory.db import open_database
    from pet.memory.store import MemoryStore, PetStore

    db = open_database(f"sqlite:///{folder / name}")
    pet = PetStore(db).ensure("bench", "bench", __import__("datetime").date(2026, 1, 1))
    return db, MemoryStore(db), pet.id


def bench_memory(cases_path: Path | None = None, questions_path: Path | None = None,
                 out: TextIO = sys.stdout, verbose: bool = False) -> int:
    from pet.agent import capture

    cases = load_cases(cases_path or DEFAULT_CASES)
    questions = load_questions(questions_path or DEFAULT_QUESTIONS)
    if capture.reader() is None:
        print("The sentence encoder is not installed, so nothing is noted; install the requirements.", file=out)
        return 1
    by_id = {case.id: case for case in cases}
    with tempfile.TemporaryDirectory() as folder:
        db, store, pet_id = _open_home(Path(folder), "captured.db")
        memory_of: dict[str, int] = {}  # case id -> the memory its fact went to (its first, when it gave several)
        every_of: dict[str, list[int]] = {}  # case id -> every memory its facts went to
        precision, recall, borderline, updates, kept = Tally(), Tally(), Tally(), Tally(), Tally()
        updates_any = Tally()
        stayed = Tally()  # noted facts that say no change: they must replace nothing
        took: list[float] = []
        cpu_took: list[float] = []  # CPU time: less at the mercy of other work on the machine
        for case in cases:
            started, cpu = time.perf_counter(), time.process_time()
            noted = capture.note(store, pet_id, case.text)
            took.append(time.perf_counter() - started)
            cpu_took.append(time.process_time() - cpu)
            if noted:
                memory_of[case.id] = noted[0].record.id
                every_of[case.id] = [n.record.id for n in noted]
            label = f"{case.id}: {case.text}" + (f" → {[n.record.content for n in noted]}" if noted else "") + "".join(
                f" (replacing {n.replaced!r})" for n in noted if n.replaced is not None)
            if case.borderline:
                borderline.add(bool(noted) == case.fact, label)
                continue
            if noted:
                precision.add(case.fact, label)
            if case.fact:
                recall.add(bool(noted), label)
                if noted and case.key_terms:
                    stored = " ".join(n.record.content for n in noted).casefold()
                    kept.add(all(t.casefold() in stored for t in case.key_terms), label)
            if noted and not case.contradicts:
                stayed.add(not any(n.replaced is not None for n in noted), label)
            if case.contradicts:
                earlier = _holding(case.contradicts, memory_of, by_id)
                if isinstance(case.contradicts, str) and case.contradicts in by_id:
                    ok = any(n.replaced is not None and n.record.id == earlier for n in noted)
                    # a message told as several facts keeps several memories ("I quit the court. I'm a freelance
                    # subtitle translator now"): the news that changes the job may replace either
                    held = _holding(case.contradicts, every_of, by_id) or []
                    any_ok = any(n.replaced is not None and n.record.id in held for n in noted)
                else:
                    ok = any_ok = any(n.replaced is not None for n in noted)
                updates.add(ok, label)
                updates_any.add(any_ok, label)
        captured_hits = _recall_at(store, pet_id, questions, memory_of, set(by_id))
        captured_any = _recall_at(store, pet_id, questions, every_of, set(by_id))
        captured_shown = _recall_at(store, pet_id, questions, memory_of, set(by_id), guesses=True)
        db.close()
        oracle_db, oracle, oracle_pet = _open_home(Path(folder), "oracle.db")
        oracle_of = _store_as_said(oracle, oracle_pet, cases)
        oracle_hits = _recall_at(oracle, oracle_pet, questions, oracle_of, set(by_id))
        oracle_shown = _recall_at(oracle, oracle_pet, questions, oracle_of, set(by_id), guesses=True)
        oracle_db.close()

    took.sort()
    cpu_took.sort()
    rows = [
        ("capture precision", precision), ("capture recall", recall),
        ("contradictions updated right", updates), ("... any memory of the case", updates_any),
        ("other facts replacing nothing", stayed), ("key terms kept", kept),
        ("borderline cases as labelled", borderline),
        (f"recall@{TOP}, memories capture kept", captured_hits), ("... any memory of the case", captured_any),
        (f"recall@{TOP}, every fact stored", oracle_hits),
        (f"recall@{TOP} + guesses, capture kept", captured_shown), (f"recall@{TOP} + guesses, all stored", oracle_shown),
    ]
    print(f"memory bench: {len(cases)} cases, {len(questions)} questions"
          + (f" ({len(skipped_questions)} more with no answer told, not scored)" if skipped_questions else ""),
          file=out)
    for name, tally in rows:
        print(f"  {name:36} {tally.share()}", file=out)
    if took:
        print(f"  capture time per message: median {took[len(took) // 2] * 1000:.1f} ms, "
              f"p95 {took[int(len(took) * 0.95)] * 1000:.1f} ms; CPU time median "
              f"{cpu_took[len(cpu_took) // 2] * 1000:.1f} ms, p95 {cpu_took[int(len(cpu_took) * 0.95)] * 1000:.1f} ms",
              file=out)
    if verbose:
        for name, tally in rows:
            for miss in tally.misses:
                print(f"  miss [{name}] {miss}", file=out)
    return 0


def _holding(contradicts: str | bool | None, memory_of: dict[str, T], by_id: dict[str, Case]) -> T | None:
    """The memory a contradiction should replace: that of the fact it contradicts or, when that fact
    was never noted, of the fact that one replaced, and so on back (climbing on Tuesdays, then on
    Wednesdays (not noted), then swimming instead: the memory of Tuesdays is the one to update)."""
    seen = set()
    while isinstance(contradicts, str) and contradicts not in seen:
        seen.add(contradicts)
        if contradicts in memory_of:
            return memory_of[contradicts]
        earlier = by_id.get(contradicts)
        contradicts = earlier.contradicts if earlier is not None else None
    return None


def _ids(memories: int | list[int] | None) -> set[int]:
    """The memory ids of a case: none, one, or every one its facts went to."""
    return set() if memories is None else {memories} if isinstance(memories, int) else set(memories)


def _store_as_said(store, pet_id: int, cases: list[Case]) -> dict[str, int]:
    """Every fact case kept as said; a contradiction replaces the memory it contradicts."""
    from pet.tools.facts import memory_fact

    memory_of: dict[str, int] = {}
    for case in cases:
        if not case.fact:
            continue
        content = memory_fact(case.text)
        earlier = memory_of.get(case.contradicts) if isinstance(case.contradicts, str) else None
        record = store.revise(pet_id, earlier, content) if earlier is not None else None
        if record is None:
            record, _ = store.remember(pet_id, content)
        memory_of[case.id] = record.id
    return memory_of


def _recall_at(store, pet_id: int, questions: list[Question], memory_of: Mapping[str, int | list[int]],
               case_ids: set[str], guesses: bool = False) -> Tally:
    """Questions whose top TOP memories hold an answer: those search finds or, with `guesses`, those
    the recall tool shows, search's then its guesses (pet.tools.memory), or its overview of the person for a
    question about them in general."""
    from pet.memory.recall import about_the_person
    from pet.tools.memory import GUESSES

    tally = Tally()
    for question in questions:
        if guesses and about_the_person(question.question):
            # the tool lists what it knows of the person for "what do you know about me?" (its first TOP)
            found = store.overview(pet_id, limit=TOP)
        else:
            found = store.search(pet_id, question.question, limit=TOP)
        if guesses and not about_the_person(question.question):
            found += store.guesses(pet_id, question.question, min(GUESSES, TOP - len(found)),
                                   leave_out=[m.id for m in found])
        ids = {m.id for m in found}
        text = " ".join(m.content for m in found).casefold()
        hit = any(bool(ids & _ids(memory_of.get(answer))) if answer in case_ids else answer.casefold() in text
                  for answer in question.answers)
        tally.add(hit, f"{question.id}: {question.question} → {[m.content for m in found]}")
    return tally

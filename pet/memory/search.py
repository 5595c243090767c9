"""Find the memories that fit a message: FTS5 on SQLite, LIKE elsewhere.

Ranking, the same on both paths. For a memory d and the terms t of the
message (recall.search_terms), with N rows in the index and df(t) the rows
holding t:

    relevance(d) = sum_t  w_t * idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(d) / avglen))
    idf(t)       = ln(1 + (N - df + 0.5) / (df + 0.5))
    score(d)     = relevance(d) * (1 + RECENCY * 0.5 ** (age_days / HALF_LIFE_DAYS) + PIN * pinned)

that is BM25 (k1 = 1.2, b = 0.3: memories are short, a longer one is not
wordier; tf counts the term as a substring, one of letters only where a word
starts and up to a common ending, so that "drink" is in "drinks" but "anna"
is not in "Hannah" nor "mila" in "Milan"; len is the token estimate, w_t
is 1 for the new message's terms and less for earlier turns'), lifted by up
to 15 % for a memory written or confirmed today (half of that after
HALF_LIFE_DAYS) and 15 % for a pinned one: enough to decide between equal
matches, not to beat a better one. A lone Chinese character counts as in at
least 1 % of the rows. Only live (not forgotten), approved memories of the
pet are ever returned.

When the message's words find fewer than `limit` memories, their
translations (concepts.across: tea -> 茶, 乌龙; 名字 -> name) are looked
for as terms of their own, weighing ACROSS_WEIGHT, and the memories only
they find join the words' (an English question, a fact told in Chinese).

Related words (concepts.py: "born" for "birthday", 工作 for 上班) stand in
for a term in a memory that lacks it: any of them adds RELATED_WEIGHT of
the term's own weight, once, as one occurrence would. So a memory in the
person's own words beats one that only says the same in other words.

FTS5 path, built to stay fast at 100,000 rows. BM25 inside FTS5 scores every
row an OR query matches, which is slow when a term is common, so FTS5 only
finds candidates and the scoring happens here, on a bounded pool. Which
rows are the pet's and recallable, and their text, come from a copy in
memory (replica.py), not from a lookup in the table each:

1. Each term of three characters or more is an FTS5 phrase (the trigram
   tokenizer matches it as a substring); its newest CAP matches among the
   pet's recallable rows are read (another pet's many newer matches must
   not crowd them out).
   Fewer than CAP means the list is complete and its length is df; a full
   list means a common term, whose df is estimated from how densely the
   matches fill the newest rowids. A full list of a short word of letters
   ("eli", "mila"; not a word of a kind of fact, below) is read again as
   the rows where a word starts with it (FTS5's ^ and a leading space; of
   the rows found before, also those where it follows other non-letters:
   "(Eli)", 和Eli吃饭), as _score counts it: "eli" is inside "believe" and
   "delivery", and a person's name must not be cut off by them.
2. A two-character term (张伟, 咖啡) is below the trigram: the index's
   vocabulary (fts5vocab) lists the trigrams that start with it ("张伟是",
   "张伟的"), and the rows holding them are its rows, all but those where
   the term ends the text. When they are few (INSTANCE_ROWS), all of them
   come from the vocabulary's instances in one pass over the index, and
   whether each is the pet's and recallable is checked after, newest first;
   else the OR of the trigrams finds the newest CAP, as for a phrase (that
   opens each trigram's list: a name's 35 trigrams cost ten times the
   instances). A one-character term, or one with too many trigrams, only
   takes part in scoring.
3. AND: the strongest terms whose lists were cut off are intersected with
   the other strong terms, so rows holding both are not lost (AND_PAIRS:
   the two strongest with the two strongest others; with the kinds'
   classifier, one with one): in Python when both terms' rows are known in
   full (a two-character term's from its instances, or a list not cut
   off), else in FTS5.
4. Rows get a partial score from the lists they are on; the best POOL rows
   (ties: newest first) are read and scored in full. With the kinds'
   classifier (below), of the best 3 * POOL those whose partial score times
   one plus their kind's fit is highest: of the many rows that hold just
   the person's name, those of the kind asked about.
5. When that finds fewer than `limit` memories (a small home, or a query
   whose only terms are short), LIKE looks for the short terms too, in the
   newest LIKE_RECENT rows (a range of rowids, never the whole table: a
   one-character word, or a two-character one at the very end of an older
   memory, is left to meaning there).

A term's related words are one more list: the newest RELATED_CAP rows
matching the OR of their phrases (concepts.phrases; a two-character word's
trigrams as in 2., for the first RELATED_LOOKUPS such words), at most
RELATED_PHRASES of them. Its rows weigh RELATED_WEIGHT of the term's, unless
on the term's own list. In 3. a cut one is intersected with the strongest
other term only, when that list was cut too (the person's name, in a home
that mentions them a lot). With the kinds' classifier, when the terms' own
lists already hold more rows than the pool, the related words are looked
for only in that intersection: the kind's fit (4.) finds the rows of the
kind asked about among the many, and the lists of related words, costly
to read, would only add rows that lack every word of the message.

Chinese terms are cut into words first (recall.split_segment), by the rows
of their two- and three-character pieces that the vocabulary gives.

By meaning (meaning.py), when its encoder is installed and `meaning` is on:
the message's sentence vector is compared with the vectors of the words'
candidates; when the words found fewer than MEANING_WIDEN memories, also
with every memory, and the MEANING_COUNT nearest join the candidates: only
recallable ones, and one that no word found only when it is at least
MEANING_FLOOR alike and as alike as the best that words found (so
"coffee" does not bring in "likes tea" beside "likes coffee"), or, with the
fact-kind classifier (below), when its kind of lasting fact fits the kind
asked about (KIND_ADMIT) and it is a little alike: "pets?" and "got a
retired greyhound" share no word, and the words may have found "pet shop
prices" (so "coffee" may bring in "likes tea" after all, below it); when words
found nothing, MEANING_ALONE_FLOOR alike, or MEANING_ACROSS_FLOOR for a
memory in the other script than the message (translations lie further
apart in the encoder's space). The scores are fused as
relative scores over the candidates, each divided by its best (words: 0
for a memory no word found, recency and pins stay out of it; meaning: the
cosine, below 0 as 0), then mixed: MEANING_SHARE for meaning, the rest
for words. With the fact-kind classifier (kinds.py) a third score joins:
how well the memory's kind of fact (food, birthday, employer...) fits the
kind the message asks about, KIND_SHARE of the mix; and the mix is
multiplied by WORDS_FLOOR plus the rest times the words' relative score,
so that the kind and the meaning, which do not see names, rank the
memories the words found rather than lift others over them. With the
classifier, too, a word of a kind of fact (one with related words:
"drink", 生日) weighs only KIND_WORDS of its weight in the words' score,
as the kind's fit speaks for it, and so, in part, does any term whose
rows are mostly of the kind asked about (`_kind_scales`: "usual" when
many memories say "X's usual drink is..."): the words are left to tell
whom the message is about, as a name's rows are of many kinds. Recency
and pins lift the result as above. So among the many memories that name
the person, the one about what was asked rises; a memory in the person's
own words still leads when its meaning is close too.

Of memories that say the same (one `key`: a fact stored twice outside the
store), only the first is returned, on every path.
"""

from __future__ import annotations

import datetime as dt
import heapq
import math
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Collection, Iterable, NamedTuple, Sequence

from sqlalchemy import Connection, case, func, literal, or_, select
from sqlalchemy.engine.interfaces import DBAPICursor

from pet.memory import lexicon, replica
from pet.memory import meaning as meanings
from pet.memory.concepts import MAX_RELATED, across, expand, matcher, phrases, translations
from pet.memory.concepts import related as related_words
from pet.memory.db import FTS_TABLE, sqlite_rows
from pet.memory.models import MemoryRow, utcnow
from pet.memory.recall import Term, dictionary_words, resolve, search_terms, segment_pieces
from pet.text import cjk_count, estimate_tokens

K1, B = 1.2, 0.3
_LETTER = re.compile(r"[a-z]")
#: a term of letters this short is often inside other words: its FTS5 list may be of word starts (step 1.)
_SHORT_WORD = re.compile(r"[a-z][a-z0-9]{2,3}")
#: what may follow a word of letters in a memory for it to count: a common ending (what
#: recall.stem cuts off, and more), maybe a plural or possessive after it, then no letter
#: where a word of letters starts in a memory: not after a letter or digit
_WORD_START = r"(?<![a-z0-9])"
_ENDINGS = r"(?:ies|ied|ing|ic|ist|ed|er|est|en|ly|y|e|d)?(?:s|es|'s)?(?![a-z])"
#: a related word counts for this share of the term it stands in for
RELATED_WEIGHT = 0.4
#: phrases in the one query that finds a term's related words, and the newest matches it reads
RELATED_PHRASES, RELATED_CAP = 48, 64
#: two-character related words whose trigrams are looked up, per message
RELATED_LOOKUPS = 8
#: lists of related words that are intersected with a cut term (step 3.)
RELATED_ANDS = 1
#: the least share of rows a single Chinese character is assumed to be in
SINGLE_SHARE = 0.01
RECENCY, PIN, HALF_LIFE_DAYS = 0.15, 0.15, 30.0
#: newest matches read per term
CAP = 256
#: rows read and scored in full
POOL = 300
#: trigrams a two-character term may stand for before it counts as common
EXPANSIONS = 48
#: tokens of a memory's prompt line besides its text
LINE_TOKENS = 4
#: a two-character term in at most this many rows (by its trigrams' counts) is read from the
#: index's instances, not by the OR of its trigrams (step 2.)
INSTANCE_ROWS = 2048
#: rows the LIKE fallback of the FTS5 path reads at most, of the newest LIKE_RECENT rowids
LIKE_POOL, LIKE_RECENT = 2000, 5000
#: rows the LIKE path reads at most, and scores in full
LIKE_ROWS = 20_000
_VOCAB = "temp.memories_fts_vocab"
_INSTANCES = "temp.memories_fts_instances"
#: the share of meaning in the fused score without the kinds' classifier; the rest is the words'
MEANING_SHARE = 0.5
#: with the classifier, the share of the kinds' fit; words and meaning share the rest
KIND_SHARE = 0.4
#: ...and the fused score is multiplied by this much plus the rest times the words' relative score
WORDS_FLOOR = 0.5
#: ...and a word of a kind of fact (one with related words) weighs this share of its weight;
#: another term, at least this share: less the more its rows are of the kind asked about
KIND_WORDS = 0.25
#: rows of the pet's typical fit counted with each term's own, in that measure
KIND_PRIOR = 2
#: cut lists intersected with the strongest other lists (step 3.): how many of each; with the
#: kinds' classifier, one of each (the kind's fit picks among the rows found)
AND_PAIRS, AND_PAIRS_WITH_KINDS = (2, 2), (1, 1)
#: memories nearest in meaning that join the candidates, looked for among all the pet's
#: memories only when the words found fewer than MEANING_WIDEN
MEANING_COUNT, MEANING_WIDEN = 50, 50
#: least cosine for a memory that no word of the message found
MEANING_FLOOR = 0.3
#: least cosine when no word found anything: then meaning alone answers, and
#: a loose likeness ("coffee" and "likes green tea", 0.46) is no answer
MEANING_ALONE_FLOOR = 0.5
#: the same for a memory in the other script than the question (Chinese and not): the
#: encoder puts translations less close. On assets/evals/recall_crosslang.jsonl (96
#: questions, each against 24 facts of the other language) 0.35 admits 89 % of the right
#: facts and 1.4 % of the wrong ones; 0.5 admitted 45 %, 0.3 admits 95 % and 3.8 %
MEANING_ACROSS_FLOOR = 0.35
#: ...but a memory whose kind of lasting fact fits the kind asked about this well (kinds.py,
#: 0 to 1; the kinds that pass, PASSING_KINDS, left out: small talk asks about no fact) joins
#: when at least KIND_ADMIT_COSINE alike, whatever the words found: "pets?" and "got a retired
#: greyhound", "where do I live now?" and "又搬家了，这次到杭州" share no word and lie far
#: apart, but are of one kind. On the spent memory sets of rounds 1 to 9 (398 questions, every
#: fact stored) recall@5 went from 75% to 86%, and the 24 questions whose answer was never
#: told found 60 memories in all, not 47 (0.5 instead of 0.4: 84%, 57). KIND_ADMIT_COSINE 0.15 -> 0.10
#: on rounds 5 to 26 (1,164 questions; "我在哪上班来着？" and "在宠物医院当前台", 0.07 apart): recall@5 with every fact
#: stored 1,002 -> 1,015 (0.05: 1,025), and the 76 questions about things never told got 226 memories in all,
#: not 188 (0.05: 247)
KIND_ADMIT, KIND_ADMIT_COSINE = 0.4, 0.10
#: translated words (concepts.across) weigh this share of the term they stand for
ACROSS_WEIGHT = 0.4


class _Row(NamedTuple):
    id: int
    content: str
    pinned: bool
    updated_at: dt.datetime | str | float  # a float: the age in days (of julian days from SQLite)


def rank(
    conn: Connection,
    pet_id: int,
    text: str,
    limit: int,
    *,
    fts: bool,
    earlier: Sequence[str] = (),
    now: dt.datetime | None = None,
    meaning: bool = False,
) -> list[int]:
    """Ids of the pet's recallable memories that best fit `text` (and, at a
    lower weight, the `earlier` turns), best first; with `meaning`, by words
    and by meaning together."""
    terms = search_terms(text, earlier)
    if limit <= 0 or not (terms or meaning):
        return []
    now = now or utcnow()
    asked = meanings.ask(conn, pet_id, text) if meaning else None
    scored: dict[int, float] = {}
    lifts: dict[int, float] = {}  # what recency and pins multiplied each score by
    use_fts = fts and conn.dialect.name == "sqlite"
    if terms:
        scored = (_fts if use_fts else _like)(conn, pet_id, terms, limit, now, lifts, asked)
    if terms and len(scored) < limit and (
            translated := (across(terms, ACROSS_WEIGHT) + _dictionary_across(terms))[:MAX_RELATED]):
        # Too little in the message's own language: the same concepts in the other one (tea -> 茶).
        for row_id, value in (_fts if use_fts else _like)(conn, pet_id, translated, limit, now, lifts).items():
            scored.setdefault(row_id, value)
    if asked is not None:
        scored = _with_meaning(conn, pet_id, asked, scored, lifts, now, cjk_count(text) > 0)
    order = lambda item: (item[1], item[0])  # noqa: E731 - ties: newest first
    best = heapq.nlargest(4 * limit, scored.items(), key=order)
    found = _distinct(conn, [row_id for row_id, _ in best], limit)
    if len(found) < limit < len(scored):  # many copies of one fact: look further
        every = sorted(scored.items(), key=order, reverse=True)
        found = _distinct(conn, [row_id for row_id, _ in every], limit)
    return found


def _dictionary_across(terms: Sequence[Term]) -> list[Term]:
    """The words of the other language the Chinese-English dictionary gives for the terms the concepts do not
    translate (外甥, 退休 → retir; coriander → 香菜), weighing ACROSS_WEIGHT of the term; a Chinese term only when it
    is a word of its run as jieba cuts it (外语 of 门外语, not 门外). None while the dictionary is being read."""
    found: dict[str, Term] = {}
    for term in terms:
        if translations(term.text):
            continue  # the concepts' own words stand for it
        if cjk_count(term.text):
            words = dictionary_words(term.segment) if term.segment else (term.text,)
            if len(term.text) < 2 or words is None or term.text not in words:
                continue
        for text in lexicon.translations(term.text):
            if len(found) < MAX_RELATED:
                found.setdefault(text, Term(text, ACROSS_WEIGHT * term.weight))
    return list(found.values())


def _distinct(conn: Connection, ranked: list[int], limit: int) -> list[int]:
    """The first `limit` of `ranked` that say different things: a fact stored
    twice (an import, rows written outside the store) takes one place."""
    chosen: list[int] = []
    seen: set[str] = set()
    for start in range(0, len(ranked), 4 * limit):
        for row_id, key in _keys(conn, ranked[start: start + 4 * limit]):
            if key not in seen:
                seen.add(key)
                chosen.append(row_id)
                if len(chosen) == limit:
                    return chosen
    return chosen


def _keys(conn: Connection, ranked: list[int]) -> list[tuple[int, str]]:
    """(id, key) of the memories `ranked`, in that order."""
    if conn.dialect.name == "sqlite":
        marks = ",".join("?" * len(ranked))
        keys = dict(sqlite_rows(conn, f"SELECT id, key FROM memories WHERE id IN ({marks})", ranked))
    else:
        keys = dict(conn.execute(select(MemoryRow.id, MemoryRow.key).where(MemoryRow.id.in_(ranked))).all())
    return [(row_id, keys.get(row_id) or f"#{row_id}") for row_id in ranked]


def for_context(
    conn: Connection,
    pet_id: int,
    text: str,
    tokens: int,
    *,
    limit: int,
    fts: bool,
    earlier: Sequence[str] = (),
    now: dt.datetime | None = None,
    meaning: bool = False,
    pinned: bool = True,
    newest: bool = True,
    exclude: Collection[int] = (),
) -> list[int]:
    """Ids of what goes into the system prompt, in order: every pinned
    memory; then those that best fit the message (`rank`; none for an empty
    one); then the newest. At most `limit` besides the pinned ones, and all
    of them together within `tokens` (estimated, per prompt line): pinned
    ones count but always stay, one too long is skipped so that shorter ones
    still fit. Without `pinned` or `newest` those are left out, and the ids
    in `exclude` always are."""
    live = _live(pet_id)
    # Through the (pet_id, pinned) index: pinned ones are few.
    kept = conn.execute(
        select(MemoryRow.id, MemoryRow.content, MemoryRow.key)
        .where(MemoryRow.pet_id == pet_id, MemoryRow.pinned.is_(True), *live[1:])
        .order_by(MemoryRow.id)
    ).all() if pinned else []
    kept = [row for row in kept if row[0] not in exclude]
    asked = text.strip() or any(line.strip() for line in earlier)
    ranked = rank(conn, pet_id, text, limit + len(exclude), fts=fts, earlier=earlier, now=now,
                  meaning=meaning) if asked else []
    latest: Iterable[int] = conn.scalars(
        select(MemoryRow.id).where(*live).order_by(MemoryRow.id.desc()).limit(limit + len(kept) + len(exclude))
    ) if newest else []
    chosen = [row_id for row_id, _, _ in kept]
    said = {key for _, _, key in kept}  # a fact stored twice goes in once
    if exclude:
        said |= set(conn.scalars(select(MemoryRow.key).where(MemoryRow.id.in_(list(exclude)))))
    left = tokens - sum(line_tokens(content) for _, content, _ in kept)
    skip = set(chosen) | set(exclude)
    others = [row_id for row_id in dict.fromkeys([*ranked, *latest]) if row_id not in skip]
    found = conn.execute(
        select(MemoryRow.id, MemoryRow.content, MemoryRow.key).where(MemoryRow.id.in_(others))
    )
    rows = {row_id: (content, key) for row_id, content, key in found}
    for row_id in others:
        if len(chosen) - len(kept) >= limit:
            break
        if row_id not in rows or rows[row_id][1] in said:
            continue
        cost = line_tokens(rows[row_id][0])
        if cost <= left:
            chosen.append(row_id)
            said.add(rows[row_id][1])
            left -= cost
    return chosen


#: kinds of fact (kinds.py) that pass: what happened once, small talk, a mood
PASSING_KINDS = ("event", "chat", "mood", "schedule")
#: the newest memories an overview chooses from, besides the pinned ones
OVERVIEW_POOL = 300
#: kinds of fact (kinds.py) that say who the person is, which an overview lists before the rest: who they are called,
#: what they do, where they live, whom they live with or love, their pets (round 32's spent set: "what do you know about
#: me?" showed the newest five, a liking for coriander among them, and none of these)
CORE_KINDS = ("name", "job", "workplace", "home", "hometown", "family", "relationship", "love", "pet")
#: what being of those kinds adds to a memory's use in an overview (1.5 at most without it)
CORE_WEIGHT = 0.5
#: what a memory not in the person's own words (the pet inferred it) counts for in an overview
INFERRED = 0.7


def overview(conn: Connection, pet_id: int, limit: int, *, meaning: bool = False,
             now: dt.datetime | None = None) -> list[int]:
    """Ids of what the pet knows about the person, for "what do you know
    about me?": every pinned memory first (oldest first), then of the newest
    OVERVIEW_POOL the most useful: lasting facts (by the kinds' classifier,
    when `meaning` and it are there: not an event, small talk or a mood) in
    the person's own words, who they are (CORE_KINDS) before the rest, newer first among equals; one of each fact,
    `limit` in all (pinned ones too, when there are more than `limit`).
    Through the indexes on (pet_id, pinned) and (pet_id, updated_at)."""
    now = now or utcnow()
    live = _live(pet_id)
    pinned = conn.execute(
        select(MemoryRow.id, MemoryRow.key)
        .where(MemoryRow.pet_id == pet_id, MemoryRow.pinned.is_(True), *live[1:])
        .order_by(MemoryRow.id)
    ).all()
    newest = conn.execute(
        select(MemoryRow.id, MemoryRow.key, MemoryRow.asserted_by, MemoryRow.updated_at)
        .where(MemoryRow.pet_id == pet_id, *live[1:])
        .order_by(MemoryRow.updated_at.desc(), MemoryRow.id.desc()).limit(OVERVIEW_POOL)
    ).all()
    passing = meanings.kind_shares(conn, pet_id, [row.id for row in newest], PASSING_KINDS) if meaning else {}
    core = meanings.kind_shares(conn, pet_id, [row.id for row in newest], CORE_KINDS) if meaning else {}
    useful = {
        row.id: (1.5 - passing.get(row.id, 0.0) + CORE_WEIGHT * core.get(row.id, 0.0))
        * (1.0 if row.asserted_by == "person" else INFERRED)
        * _lift(False, row.updated_at, now)
        for row in newest
    }
    ranked = sorted(newest, key=lambda row: (useful[row.id], row.id), reverse=True)
    chosen: list[int] = []
    said: set[str] = set()
    for row_id, key in [*((row.id, row.key) for row in pinned), *((row.id, row.key) for row in ranked)]:
        if len(chosen) >= limit:
            break
        if key not in said and row_id not in chosen:
            said.add(key)
            chosen.append(row_id)
    return chosen


def line_tokens(content: str) -> int:
    """Estimated tokens of a memory's line in the prompt: "- [#12] " and the text."""
    return estimate_tokens(content) + LINE_TOKENS


# --- by meaning -----------------------------------------------------------------


def _with_meaning(conn: Connection, pet_id: int, asked: meanings.Asked, scored: dict[int, float],
                  lifts: dict[int, float], now: dt.datetime, chinese: bool) -> dict[int, float]:
    """`scored` (by words; `lifts` what recency and pins multiplied each by)
    fused with likeness in meaning and the kinds' fit, over the candidates;
    recency and pins lift the fused score as they lifted the words'. With
    nothing found by words, a memory in the other script than the question
    (`chinese`: whether it holds Chinese) needs MEANING_ACROSS_FLOOR."""
    # Only when the words found few does meaning look through every memory for more.
    widen = MEANING_COUNT if len(scored) < MEANING_WIDEN else 0
    # The words' best POOL only, as many as the FTS5 path scores: LIKE may have scored
    # thousands, and fusing them all would cost more than the rest of the search.
    if len(scored) > POOL:
        scored = dict(heapq.nlargest(POOL, scored.items(), key=lambda item: (item[1], item[0])))
    found = asked.likeness(scored, widen)
    cosines = found.cosines
    # A memory no word found must be at least as alike as the best one the words found, or
    # of the kind of lasting fact asked about and a little alike (KIND_ADMIT).
    floor = MEANING_FLOOR if scored else min(MEANING_ALONE_FLOOR, MEANING_ACROSS_FLOOR)
    bar = max([floor, *(cosines[row_id] for row_id in scored if row_id in cosines)])
    kinds = found.kinds
    # of the kind of lasting fact asked about (small talk asks about none), and a little alike
    lasting = asked.fits(cosines, leave_out=PASSING_KINDS) if kinds else {}

    def of_kind(row_id: int) -> bool:
        return lasting.get(row_id, 0.0) >= KIND_ADMIT and cosines[row_id] >= KIND_ADMIT_COSINE

    new = [row_id for row_id, cosine in cosines.items() if row_id not in scored and (cosine >= bar or of_kind(row_id))]
    if new:  # the vectors know nothing of forgetting or approval, nor of a text changed in SQL
        for row_id, content, pinned, updated_at in conn.execute(
            select(MemoryRow.id, MemoryRow.content, MemoryRow.pinned, MemoryRow.updated_at)
            .where(MemoryRow.id.in_(new), *_live(pet_id))
        ):
            same_script = (cjk_count(content) > 0) == chinese
            if not scored and same_script and cosines[row_id] < MEANING_ALONE_FLOOR and not of_kind(row_id):
                continue
            if found.current(row_id, content):
                lifts[row_id] = _lift(bool(pinned), updated_at, now)
    candidates = [*scored, *(row_id for row_id in new if row_id in lifts)]
    if not candidates:
        return {}
    words = _relative({row_id: scored.get(row_id, 0.0) / lifts[row_id] for row_id in candidates})
    meant = _relative({row_id: max(0.0, cosines.get(row_id, 0.0)) for row_id in candidates})
    if not kinds:
        return {
            row_id: ((1 - MEANING_SHARE) * words[row_id] + MEANING_SHARE * meant[row_id]) * lifts[row_id]
            for row_id in candidates
        }
    share = (1 - KIND_SHARE) / 2
    return {
        row_id: (share * words[row_id] + share * meant[row_id] + KIND_SHARE * kinds.get(row_id, 0.0))
        * (WORDS_FLOOR + (1 - WORDS_FLOOR) * words[row_id]) * lifts[row_id]
        for row_id in candidates
    }


def _relative(scores: dict[int, float]) -> dict[int, float]:
    """Scores (none below 0) divided by the best: 1 for it, 0 for none at all."""
    best = max(scores.values())
    return {row_id: score / best if best > 0 else 0.0 for row_id, score in scores.items()}


# --- scoring --------------------------------------------------------------------


def idf(df: float, n: float) -> float:
    return math.log(1 + (max(n, df) - df + 0.5) / (df + 0.5))


def _age_days(updated_at: dt.datetime | str | float, now: dt.datetime) -> float:
    if isinstance(updated_at, float):
        return max(0.0, updated_at)
    if isinstance(updated_at, str):
        updated_at = dt.datetime.fromisoformat(updated_at)
    return max(0.0, (now - updated_at).total_seconds() / 86400)


def _lift(pinned: bool, updated_at: dt.datetime | str | float, now: dt.datetime) -> float:
    """What recency and a pin multiply a memory's relevance by."""
    return _lift_by_age(pinned, _age_days(updated_at, now))


def _lift_by_age(pinned: bool, age_days: float) -> float:
    return 1 + RECENCY * 0.5 ** (max(0.0, age_days) / HALF_LIFE_DAYS) + PIN * pinned


def _kind_word(text: str) -> bool:
    """A word of a kind of fact: one with related words ("drink", 生日, 礼物)."""
    return bool(related_words(text))


def _kind_scales(asked: meanings.Asked | None, terms: Sequence[Term], lists: dict[str, list[int]],
                 fits: dict[int, float] | None = None) -> dict[str, float]:
    """With the kinds' classifier, what share of its weight each term keeps:
    KIND_WORDS for a word of a kind of fact (`_kind_word`), as the kind's
    fit speaks for it; for another term, the less the more its rows (`lists`,
    the newest) fit the kind asked about better than the pet's memories do on
    average ("usual" of "X's usual drink is..."), never less than KIND_WORDS.
    A name's rows are mostly of many kinds: it keeps most of its weight, and
    tells whom the message is about (though a name with a few memories, all
    of the kind asked about, loses some; and the rows of letters are those
    that hold them, so "mila" is judged by "family" too)."""
    if asked is None or asked.kind is None:
        return {}
    if fits is None:
        fits = asked.fits({row_id for ids in lists.values() for row_id in ids})
    typical = asked.typical_fit()  # of all the pet's memories
    scales = {t.text: KIND_WORDS for t in terms if _kind_word(t.text)}
    for term in terms:
        found = [fits[row_id] for row_id in lists.get(term.text, ()) if row_id in fits]
        if term.text in scales or not found or typical >= 1:
            continue
        # KIND_PRIOR rows of the typical fit join a term's own: one row alone says little.
        mean = (sum(found) + KIND_PRIOR * typical) / (len(found) + KIND_PRIOR)
        scales[term.text] = max(KIND_WORDS, 1 - max(0.0, mean - typical) / (1 - typical))
    return scales


def _score(rows: Iterable[_Row], terms: Sequence[Term], df: dict[str, float], n: float,
           now: dt.datetime, lifts: dict[int, float], scales: dict[str, float] | None = None,
           ) -> dict[int, float]:
    rows = list(rows)
    if not rows:
        return {}
    scales = scales or {}  # what share of its weight each term keeps (_kind_scales)
    weights = {t.text: t.weight * idf(_rows(t.text, df, n), n) * scales.get(t.text, 1.0)
               for t in terms if not t.source}
    related: dict[str, list[tuple[str, re.Pattern[str] | None]]] = defaultdict(list)
    for t in terms:
        if t.source:
            related[t.source].append(matcher(t.text))
    stand_ins = [(source, RELATED_WEIGHT * weights.get(source, 0.0), matchers)
                 for source, matchers in related.items()]
    # A word of letters counts where a word starts and up to an ending ("drink" in "drinks",
    # "hobb" in "hobbies"): "anna" is not in "Hannah", "ian" not in "Brian", "mila" not in "Milan".
    texts = [row.content.casefold() for row in rows]
    lengths = [max(1, estimate_tokens(row.content)) for row in rows]
    per_token = K1 * B * len(lengths) / sum(lengths)
    norms = [K1 * (1 - B) + per_token * length for length in lengths]  # K1 * (1 - B + B * len / avglen)
    relevance = [0.0] * len(rows)
    for term, weight in weights.items():  # a term at a time, over the rows that hold it
        holding = [i for i, text in enumerate(texts) if term in text]
        if holding and _LETTER.match(term):  # the doubled last letter: shop, shopping
            start = re.compile(_WORD_START + re.escape(term) + f"(?:{re.escape(term[-1])})?" + _ENDINGS)
            counts = [(i, len(start.findall(texts[i]))) for i in holding]
        else:
            counts = [(i, texts[i].count(term)) for i in holding]
        for i, tf in counts:
            if tf:
                relevance[i] += weight * tf * (K1 + 1) / (tf + norms[i])
    for source, weight, matchers in stand_ins:  # counted once, where the term itself is missing
        left = [i for i, text in enumerate(texts) if source not in text]
        for part, pattern in matchers:
            held = [i for i in left if part in texts[i] and (pattern is None or pattern.search(texts[i]))]
            for i in held:
                relevance[i] += weight * (K1 + 1) / (1 + norms[i])
            if held:
                taken = set(held)
                left = [i for i in left if i not in taken]
    scored = {}
    for row, value in zip(rows, relevance):
        if value > 0:
            age = row.updated_at if type(row.updated_at) is float else _age_days(row.updated_at, now)
            lift = lifts[row.id] = _lift_by_age(bool(row.pinned), age)
            scored[row.id] = value * lift
    return scored


def _rows(text: str, df: dict[str, float], n: float) -> float:
    """A term's df; a lone Chinese character is assumed to be in at least
    SINGLE_SHARE of the rows, so that it never outweighs a word or a name."""
    rows = df.get(text, 0.0)
    return max(rows, n * SINGLE_SHARE) if len(text) == 1 else rows


def _seen_in(rows: Sequence[_Row], term: str) -> int:
    return sum(1 for row in rows if term in row.content.casefold())


# --- FTS5 -----------------------------------------------------------------------


def _phrase(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def _fts(conn: Connection, pet_id: int, terms: list[Term], limit: int, now: dt.datetime,
         lifts: dict[int, float], asked: meanings.Asked | None = None) -> dict[int, float]:
    """The FTS5 path: the steps of the module's docstring, in that order."""
    dbapi = conn.connection.dbapi_connection
    assert dbapi is not None, "a checked-out connection has its DB-API connection"
    cursor = dbapi.cursor()  # SQLite only: the plain sqlite3 cursor is fastest
    try:
        index = _Index(conn, cursor, pet_id)
        terms = _cut_chinese(index, terms)
        related = expand(terms)
        kinds_on = asked is not None and asked.kind is not None
        lists = _term_lists(index, terms)  # steps 1. and 2.
        listed = {row_id for ids in lists.rows.values() for row_id in ids}
        fits = asked.fits(listed) if asked is not None and kinds_on else {}
        scales = _kind_scales(asked, terms, lists.rows, fits)
        # With the kinds' classifier and more candidates than the pool holds, the kind's fit
        # picks among them: related words are looked for only with a cut term (step 3.).
        _related_lists(index, lists, related, lean=kinds_on and len(listed) > POOL)
        partial, by_related = _partial_scores(lists)
        if len(partial) > POOL:  # step 3.
            _intersect(index, lists, partial, by_related, AND_PAIRS_WITH_KINDS if kinds_on else AND_PAIRS)
        if asked is not None and kinds_on:
            fits.update(asked.fits(row_id for row_id in partial if row_id not in fits))
        rows = index.read(_pool(partial, fits), now)  # step 4.
        if len(rows) < limit:  # step 5.
            rows += _short_terms(index, pet_id, terms, related, rows, now)
        _df_from_rows(index, terms, lists, rows, by_related)
        return _score(rows, [*terms, *related], index.df, index.n, now, lifts, scales)
    finally:
        cursor.close()


class _Index:
    """The FTS5 index as one search for one pet reads it. Which rows are the
    pet's and recallable, and their text, come from the copy (replica.py);
    `df` holds each term's rows as far as they are known so far."""

    def __init__(self, conn: Connection, cursor: DBAPICursor, pet_id: int) -> None:
        if not conn.info.get(_VOCAB):  # per connection: temp tables, nothing in the file
            cursor.execute(
                f"CREATE VIRTUAL TABLE IF NOT EXISTS {_VOCAB} USING fts5vocab(main, {FTS_TABLE}, row)"
            )
            cursor.execute(
                f"CREATE VIRTUAL TABLE IF NOT EXISTS {_INSTANCES} USING fts5vocab(main, {FTS_TABLE}, instance)"
            )
            conn.info[_VOCAB] = True
        self.cursor = cursor
        self.n = float(cursor.execute("SELECT max(rowid) FROM memories").fetchone()[0] or 0)
        self.live = replica.rows(conn, pet_id)  # the pet's recallable rows
        self.df: dict[str, float] = {}
        #: a two-character term's trigrams in the vocabulary ("张伟是", "张伟的"; EXPANSIONS + 1 at most)
        self.expansions: dict[str, list[str]] = {}
        #: a two-character term's rows in full (any pet's, any state), newest first, from `instances`
        self.every: dict[str, list[int]] = {}

    def look_up(self, text: str) -> None:
        """A two-character term's trigrams, and so a lower bound of its rows."""
        found = self.cursor.execute(
            f"SELECT term, doc FROM {_VOCAB} WHERE term >= ? AND term < ? LIMIT ?",
            (text, text + "\U0010ffff", EXPANSIONS + 1),
        ).fetchall()
        self.df[text] = float(sum(doc for _, doc in found))
        self.expansions[text] = [trigram for trigram, _ in found]

    def count(self, trigrams: list[str]) -> None:
        """The rows of each of `trigrams`, into `df`."""
        if trigrams:
            marks = ",".join("?" * len(trigrams))
            sql = f"SELECT term, doc FROM {_VOCAB} WHERE term IN ({marks})"
            self.df.update(self.cursor.execute(sql, trigrams).fetchall())

    def recallable(self, ids: list[int], cap: int = CAP) -> list[int]:
        """The pet's recallable ones of `ids` (newest first), the newest `cap`: another
        pet's many newer matches must not crowd this pet's out."""
        live = self.live
        kept: list[int] = []
        for start in range(0, len(ids), cap):
            kept += [row_id for row_id in ids[start: start + cap] if row_id in live]
            if len(kept) >= cap:
                break
        return kept[:cap]

    def matches(self, query: str, cap: int = CAP) -> list[int]:
        """The newest `cap` of the pet's recallable rows that match the FTS5 `query`."""
        found = self.cursor.execute(
            f"SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ? ORDER BY rowid DESC", (query,)
        )
        live = self.live
        kept: list[int] = []
        while len(kept) < cap and (part := found.fetchmany(cap)):  # as many as the cap at a time
            kept += [row_id for (row_id,) in part if row_id in live]
        return kept[:cap]

    def instances(self, text: str) -> list[int]:
        """A two-character term's rows, all of them (kept in `every`), from the index's
        instances of the trigrams it starts: one read of the index, where the OR of
        those trigrams would open each of them."""
        found = self.cursor.execute(f"SELECT doc FROM {_INSTANCES} WHERE term >= ? AND term < ?",
                                    (text, text + "\U0010ffff"))
        self.every[text] = sorted({doc for (doc,) in found}, reverse=True)
        return self.every[text]

    def word_starts(self, text: str, query: str, ids: list[int]) -> tuple[str, list[int]]:
        """A full list (`query`, `ids`) of a short word of letters, read again as the
        rows where a word starts with it, when those are fewer than CAP: (query, rows)."""
        # Many rows hold these letters, most inside other words ("eli" in "believe",
        # "mila" in "family"): read those where a word starts with them, at the start
        # or after a space, and of the rows already found, those where it starts a
        # word after anything else (_score's rule: "(Eli)", 和Eli吃饭).
        starts = f"^{query} OR {_phrase(' ' + text)}"
        found = self.matches(starts)
        if len(found) >= CAP:
            return query, ids
        glued = _word_starts(self.live, text, set(ids) - set(found))
        return starts, sorted({*found, *glued}, reverse=True)

    def read(self, ids: list[int], now: dt.datetime) -> list[_Row]:
        """The rows of `ids` that are the pet's and recallable, from the copy."""
        # SQLite's julianday, as the copy's are: the same ages as SQLite would work out
        now_julian = self.cursor.execute("SELECT julianday(?)", (_julian(now),)).fetchone()[0]
        live = self.live
        return [_Row._make((row_id, row[0], row[1], now_julian - row[2]))
                for row_id in ids if (row := live.get(row_id)) is not None]


@dataclass
class _Lists:
    """The rows the index gave each term (steps 1. and 2.) and each term's
    related words (keyed "~" and the term), newest first."""

    rows: dict[str, list[int]] = field(default_factory=dict)
    #: the FTS5 query that finds a list's rows (for the AND of step 3.)
    queries: dict[str, str] = field(default_factory=dict)
    #: lists that stopped at their cap
    cut: set[str] = field(default_factory=set)
    weight: dict[str, float] = field(default_factory=dict)
    #: the key of a list of related words: its term
    sources: dict[str, str] = field(default_factory=dict)


def _cut_chinese(index: _Index, terms: list[Term]) -> list[Term]:
    """Chinese terms cut into words (recall.resolve) by the rows of their two-
    and three-character pieces; on the way, the trigrams of each two-character
    term (step 2.)."""
    for term in terms:
        if len(term.text) == 2 and term.text not in index.expansions:
            index.look_up(term.text)
    index.count([piece for piece in segment_pieces(terms) if len(piece) == 3])
    return resolve(terms, index.df)


def _term_lists(index: _Index, terms: list[Term]) -> _Lists:
    """Steps 1. and 2.: each term's list. One shorter than CAP is complete and
    its length is the term's df; a full one's df is estimated from how densely
    its matches fill the newest rowids. Then each term's weight."""
    lists = _Lists()
    for term in terms:
        found = _term_list(index, term.text)
        if found is None:
            continue  # one character, a piece with no trigram or with too many: scoring only
        lists.queries[term.text], ids = found
        lists.rows[term.text] = ids
        if len(ids) < CAP:
            index.df[term.text] = max(index.df.get(term.text, 0.0), float(len(ids)))
        else:
            lists.cut.add(term.text)
            index.df[term.text] = CAP * index.n / max(1.0, index.n - ids[-1] + 1)
    lists.weight = {t.text: t.weight * idf(_rows(t.text, index.df, index.n), index.n) for t in terms}
    return lists


def _term_list(index: _Index, text: str) -> tuple[str, list[int]] | None:
    """A term's FTS5 query and its newest CAP rows: a phrase (step 1.), a
    two-character term's instances or the OR of its trigrams (step 2.). None
    for a term that only takes part in scoring."""
    if len(text) >= 3:
        query = _phrase(text)
    elif 0 < len(index.expansions.get(text, ())) <= EXPANSIONS:
        query = " OR ".join(_phrase(trigram) for trigram in index.expansions[text])
    else:
        return None
    if len(text) == 2 and index.df.get(text, 0.0) <= INSTANCE_ROWS:
        ids = index.recallable(index.instances(text))
    else:
        ids = index.matches(query)
    if len(ids) == CAP and _SHORT_WORD.fullmatch(text) and not _kind_word(text):
        return index.word_starts(text, query, ids)
    return query, ids


def _related_lists(index: _Index, lists: _Lists, related: Sequence[Term], lean: bool) -> None:
    """A term's related words: one more list, the newest RELATED_CAP rows
    holding any of them, weighing RELATED_WEIGHT of the term. When `lean`,
    such a list is not read alone, only with a cut term (step 3.), and not
    at all when no term's list was cut."""
    if lean and not lists.cut:
        return
    two = [t for t in related if len(t.text) == 2 and t.text not in index.expansions]
    for term in two[:RELATED_LOOKUPS]:
        index.look_up(term.text)
    for source, found in _related_phrases(related, index.expansions).items():
        key = "~" + source  # never a term: those are letters, digits and Chinese
        lists.sources[key] = source
        lists.queries[key] = " OR ".join(_phrase(phrase) for phrase in found)
        lists.weight[key] = RELATED_WEIGHT * lists.weight[source]
        if lean:
            lists.rows[key] = []
            lists.cut.add(key)
        else:
            lists.rows[key] = index.matches(lists.queries[key], RELATED_CAP)
            if len(lists.rows[key]) == RELATED_CAP:
                lists.cut.add(key)


def _partial_scores(lists: _Lists) -> tuple[defaultdict[int, float], set[int]]:
    """Each row's partial score, from the lists it is on (a list of related
    words counts where the term's own does not, as in _score); and the rows
    that only related words brought in (they do not tell how common a term
    is: `_df_from_rows`)."""
    partial: defaultdict[int, float] = defaultdict(float)
    for text, ids in lists.rows.items():
        own = set(lists.rows.get(lists.sources[text], ())) if text in lists.sources else ()
        weight = lists.weight[text]
        for row_id in ids:
            if row_id not in own:
                partial[row_id] += weight
    by_related = {row_id for key in lists.sources for row_id in lists.rows[key]}
    by_related.difference_update(*(ids for text, ids in lists.rows.items() if text not in lists.sources))
    return partial, by_related


def _intersect(index: _Index, lists: _Lists, partial: defaultdict[int, float], by_related: set[int],
               pairs: tuple[int, int]) -> None:
    """Step 3.: when the pool cannot hold every candidate, rows holding a
    common term and a strong one may sit beyond the common term's cut: the
    strongest cut lists (`pairs`: how many) with the strongest others (how
    many), then lists of related words; the rows holding both score both."""
    # the strongest terms that some row holds
    strong = sorted((text for text, ids in lists.rows.items() if text not in lists.sources and ids),
                    key=lambda text: -lists.weight[text])
    commons, others = pairs
    for common in sorted(lists.cut - lists.sources.keys(), key=lambda text: -lists.weight[text])[:commons]:
        for other in [text for text in strong if text != common][:others]:
            bonus = lists.weight[common] + lists.weight[other]
            held = _both(index, lists, common, other)
            if held is None:
                held = index.matches(f"({lists.queries[common]}) AND ({lists.queries[other]})")
            for row_id in held:
                partial[row_id] = max(partial[row_id], bonus)
                by_related.discard(row_id)
    _intersect_related(index, lists, strong, partial, by_related)


def _intersect_related(index: _Index, lists: _Lists, strong: list[str], partial: defaultdict[int, float],
                       by_related: set[int]) -> None:
    """A cut list of related words, with the strongest term besides their own
    (a name, most often) when that list was cut too: else all of its rows
    are candidates already."""
    for key in sorted(lists.cut & lists.sources.keys(), key=lambda text: -lists.weight[text])[:RELATED_ANDS]:
        other = next((text for text in strong if text != lists.sources[key]), None)
        if other is None or other not in lists.cut:
            continue
        bonus = lists.weight[key] + lists.weight[other]
        for row_id in index.matches(f"({lists.queries[key]}) AND ({lists.queries[other]})"):
            if row_id not in partial:
                by_related.add(row_id)
            partial[row_id] = max(partial[row_id], bonus)


def _both(index: _Index, lists: _Lists, one: str, other: str) -> list[int] | None:
    """The newest CAP rows holding both terms, when their rows are known in
    full: a two-character term's (`_Index.every`), a term's whole list. Else
    None: FTS5 finds them."""
    sets = [index.every.get(text) or (lists.rows[text] if len(lists.rows[text]) < CAP else None)
            for text in (one, other)]
    if sets[0] is None or sets[1] is None:
        return None
    held = sorted(set(sets[0]).intersection(sets[1]), reverse=True)
    return held[:CAP] if one not in index.every or other not in index.every else index.recallable(held)


def _pool(partial: dict[int, float], fits: dict[int, float]) -> list[int]:
    """Step 4.: the rows read and scored in full, the best POOL by their
    partial score (ties: newest first); with the kinds' fits and more rows
    than that, `_by_kind`."""
    if fits and len(partial) > POOL:
        # Of the many holding the same words (the person's name), read those of the kind asked about.
        return _by_kind(partial, fits)
    best = heapq.nlargest(POOL, partial.items(), key=lambda item: (item[1], item[0]))
    return [row_id for row_id, _ in best]


def _short_terms(index: _Index, pet_id: int, terms: list[Term], related: list[Term], rows: list[_Row],
                 now: dt.datetime) -> list[_Row]:
    """Step 5.: the rows besides `rows` that LIKE finds for the two-character
    terms and two-character related words; for the one-character terms when
    there are none of those or they find nothing ("name" across is 名字, 叫我
    and 叫, and only 叫 finds "我叫阿雅")."""
    one = [t for t in terms if len(t.text) == 1]
    two = [t for t in terms if len(t.text) == 2]
    short = (two or one) + [t for t in related if len(t.text) == 2]
    if not short:
        return []
    seen = {row.id for row in rows}
    found = [row for row in _like_rows(index.cursor, pet_id, short, now, index.n - LIKE_RECENT) if row.id not in seen]
    if not found and one and two:
        found = [row for row in _like_rows(index.cursor, pet_id, one, now, index.n - LIKE_RECENT)
                 if row.id not in seen]
    return found


def _df_from_rows(index: _Index, terms: list[Term], lists: _Lists, rows: list[_Row],
                  by_related: set[int]) -> None:
    """A term with no list of its own: its share among the rows read stands
    in for its df (of the rows that not only related words brought in). A
    two-character term's list misses the rows it ends ("想要礼物"): its df is
    at least those read."""
    basis = [row for row in rows if row.id not in by_related] or rows
    for term in terms:
        if term.text not in lists.rows and basis:
            share = _seen_in(basis, term.text) / len(basis)
            index.df[term.text] = max(index.df.get(term.text, 0.0), share * index.n)
        elif len(term.text) == 2:
            index.df[term.text] = max(index.df.get(term.text, 0.0), float(_seen_in(rows, term.text)))


def _word_starts(live: dict[int, replica.Held], term: str, ids: set[int]) -> list[int]:
    """Those of `ids` whose text holds `term` where a word starts (_score's rule)."""
    start = re.compile(_WORD_START + re.escape(term))
    return [row_id for row_id in ids if (row := live.get(row_id)) and start.search(row[0].casefold())]


def _by_kind(partial: dict[int, float], fits: dict[int, float]) -> list[int]:
    """Of the best 3 * POOL rows by their partial score, the POOL whose
    partial score times one plus their kind's fit is highest (ties: newest)."""
    import numpy as np  # there is a classifier, so there is numpy

    ids = np.fromiter(partial, dtype=np.int64, count=len(partial))
    scores = np.fromiter(partial.values(), dtype=np.float64, count=len(partial))
    near = np.lexsort((ids, scores))[-3 * POOL:]  # the last sort key is the first
    ids, scores = ids[near], scores[near]
    fit = np.fromiter((fits.get(i, 0.0) for i in ids.tolist()), dtype=np.float64, count=len(ids))
    lifted = scores * (1 + fit)
    return ids[np.lexsort((ids, lifted))[::-1][:POOL]].tolist()


def _related_phrases(related: Sequence[Term], expansions: dict[str, list[str]]) -> dict[str, list[str]]:
    """For each term, the phrases that find its related words in the
    index (at most RELATED_PHRASES): of three characters or more, or a
    two-character word's trigrams when it has few enough."""
    found: dict[str, list[str]] = defaultdict(list)
    for term in related:
        if len(term.text) == 2:
            pieces = expansions.get(term.text, [])
            pieces = pieces if len(pieces) <= EXPANSIONS else []
        else:
            pieces = [phrase for phrase in phrases(term.text) if len(phrase) >= 3]
        have = found[term.source]
        if len(have) + len(pieces) <= RELATED_PHRASES:
            have += pieces
    # "colleg" finds whatever "college" would: one phrase less to look for
    return {
        source: [p for p in have if not any(q != p and q in p for q in have)]
        for source, have in found.items() if have
    }


#: a row's age in days, worked out by SQLite (faster than parsing each time in Python)
_AGE = "julianday(?) - julianday(updated_at)"


def _julian(now: dt.datetime) -> str:
    return now.isoformat(sep=" ")


def _like_rows(cursor, pet_id: int, terms: list[Term], now: dt.datetime, after: float) -> list[_Row]:
    """The newest LIKE_POOL recallable rows past rowid `after` that hold any of `terms`."""
    where = " OR ".join("content LIKE ?" for _ in terms)
    sql = (f"SELECT id, content, pinned, {_AGE} FROM memories WHERE id > ? AND {replica.LIVE} AND ({where}) "
           f"ORDER BY id DESC LIMIT {LIKE_POOL}")
    params = (_julian(now), int(after), pet_id, *(f"%{t.text}%" for t in terms))
    return [_Row(*r) for r in cursor.execute(sql, params)]


# --- LIKE (any database) --------------------------------------------------------


def _live(pet_id: int) -> tuple:
    """The pet's recallable rows ("pet_id + 0": see replica.LIVE)."""
    return (MemoryRow.pet_id + 0 == pet_id, MemoryRow.status == "active", MemoryRow.deleted_at.is_(None))


def _like(conn: Connection, pet_id: int, terms: list[Term], limit: int, now: dt.datetime,
          lifts: dict[int, float], asked: meanings.Asked | None = None) -> dict[int, float]:
    """Plain LIKE: one pass reads the rows holding any term (at most
    LIKE_ROWS: those holding the most terms, then the newest); each term's
    rows among them are its df. Only when that finds fewer than `limit`
    does a second pass look for related words (of the Chinese pieces, as
    they are not cut yet): on every row, they would cost a slow scan each."""
    def has(text: str):
        pattern = f"%{text}%"  # SQLite's LIKE ignores ASCII case already
        sqlite = conn.dialect.name == "sqlite"
        return MemoryRow.content.like(pattern) if sqlite else MemoryRow.content.ilike(pattern)

    def holds(term: Term):
        return or_(*(has(phrase) for phrase in phrases(term.text))) if term.source else has(term.text)

    def read(wanted: list[Term]) -> list[_Row]:
        held = sum((case((holds(t), 1), else_=0) for t in wanted), literal(0))
        return [_Row(*r) for r in conn.execute(
            select(MemoryRow.id, MemoryRow.content, MemoryRow.pinned, MemoryRow.updated_at)
            .where(*_live(pet_id), or_(*(holds(t) for t in wanted)))
            .order_by(held.desc(), MemoryRow.id.desc())  # past LIKE_ROWS, keep the rows holding most terms
            .limit(LIKE_ROWS)
        )]

    n = float(conn.execute(select(func.max(MemoryRow.id))).scalar() or 0)
    rows = read(terms)
    scale = max(1.0, n / len(rows)) if len(rows) == LIKE_ROWS else 1.0
    related = expand(terms) if len(rows) < limit else []
    if related:
        seen = {row.id for row in rows}
        rows += [row for row in read(related) if row.id not in seen]
    if not rows:
        return {}
    texts = [row.content.casefold() for row in rows]
    pieces = [*(t.text for t in terms), *segment_pieces(terms)]
    df = {piece: scale * sum(1 for text in texts if piece in text) for piece in dict.fromkeys(pieces)}
    terms = resolve(terms, df)
    for term in terms:
        if term.text not in df:
            df[term.text] = scale * sum(1 for text in texts if term.text in text)
    related = expand(terms)
    scales = {}
    if asked is not None and asked.kind is not None:  # each term's rows, as the FTS5 path's lists
        lists = {t.text: [row.id for row, text in zip(rows, texts) if t.text in text][:CAP] for t in terms}
        scales = _kind_scales(asked, terms, lists)
    return _score(rows, [*terms, *related], df, n, now, lifts, scales)

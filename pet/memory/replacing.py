"""Which memory a new fact replaces, learned from the spent memory sets.

"跑步把膝盖跑伤了，医生不让再跑，我现在改打羽毛球" should replace "Every Saturday morning
I run 10k along the Yong River", not "I have asthma, so there's always a blue
inhaler in my bag"; "Got the keys to a tiny old house in Dujiangyan" should
replace where the person lived before. The hand-set rules of
pet.agent.capture (`Reader.ruled`: how near in meaning, of one kind, a word of
change, a name, a shared concept) decide whether a memory may be replaced and
rank those that may; the encoder reads a pair in two languages as far apart,
so across languages they replaced the wrong memory or none about as often as
the right one.

This model weighs the same readings of a (fact, memory) pair together — the
likeness of the two sentences and of the whole message, their kinds, whether
the fact says something changed, whether it is of a single-valued kind, a
name or concept they share, the rules' own verdict and rank — and each beside
the best of the other memories compared with the fact (`Reader.pair_features`).
It is logistic regression (numpy), trained on the pairs capture meets when
every spent memory set of `assets/evals/untouched/` is told to it in order
(the memory a fact should replace is the one holding the fact its case says
it contradicts). It is asked only of the pairs the rules would look at: a
fact of a single-valued kind or one that says something changed, beside a
memory the rules allow or of the fact's kind, or any memory when the fact
says something changed (`capture.asked_of_model`): "I work in Beijing" never
replaces "I live in Beijing". A memory is replaced when the model gives it
at least `REPLACE_AT` (`REPLACE_ONLY_CHANGED_AT` when only the word of change
admits it, unless the memory is of a kind that changes with the fact's: a
job told as a workplace), and no other more; someone else's news ("小美订婚了！",
"Lily moved to Lisbon!") replaces only a memory that names them.

Measured on sets it was not trained on: trained on rounds 5–25 and run
through capture on rounds 26–31 (160 updates, 256 facts that say no change),
the rules updated 78 right and replaced a memory for 17 of the others; the
model 80 and 10 (recall@5 of what capture kept 264 -> 270 of 368; 85 and 10
before the higher bar and the checks above, which the tests ask for). Left out
one round at a time (rounds 5–31, pairs as the rules left the memories): the
right memory for 287 updates and a wrong one 138 times, against the rules'
282 and 176 (297 and 148 with no higher bar; 279 and 113 at `REPLACE_AT`
0.25, which missed "I moved to Lisbon last month" for "I live in Chengdu"). The held-out sets of the README
are the figures to believe.

The weights live in `replacing.npz` with the encoder's name, the version of
the features and a digest of the sets they were trained on; a file for
another encoder or other features is not used (capture then goes by the
rules alone), and a test checks it is built from the spent sets there are.
Rebuild (a minute) with

    python -m pet.memory.replacing
"""

from __future__ import annotations

import hashlib
import logging
import re
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pet.memory.kinds import ROOT

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)

SETS = ROOT / "assets" / "evals" / "untouched"
WEIGHTS = ROOT / "assets" / "kinds" / "replacing.npz"
#: the least probability for a memory to be replaced
REPLACE_AT = 0.2
#: ...when only the fact's word of change admits it (the rules do not allow the pair, and the memory is of
#: another kind): left out one round at a time, such pairs were as often wrong as right at REPLACE_AT
REPLACE_ONLY_CHANGED_AT = 0.5
#: the version of `Reader.pair_features`: weights of another are not used
FEATURES = 3
#: L2 penalty and gradient steps of the training
PENALTY, STEPS, RATE = 1e-3, 3000, 0.5


@dataclass(frozen=True)
class Model:
    weights: np.ndarray
    bias: float
    mean: np.ndarray
    scale: np.ndarray

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        import numpy as np

        return 1.0 / (1.0 + np.exp(-(((rows - self.mean) / self.scale) @ self.weights + self.bias)))


def spent_sets(folder: Path = SETS) -> list[Path]:
    """The memory sets whose round is spent (its note says so), oldest round first."""
    found = []
    for case_file in folder.glob("round*/memory_heldout.jsonl"):
        note = case_file.parent / "README.md"
        if note.is_file() and _says_spent(note.read_text(encoding="utf-8")[:600]):
            found.append(case_file)
    return sorted(found, key=lambda path: int(path.parent.name.removeprefix("round")))


def _says_spent(head: str) -> bool:
    """A note's status line says spent ("unspent" and "not spent" elsewhere in the note do not count)."""
    for line in head.lower().splitlines():
        if "status" in line:
            return bool(re.search(r"\bspent\b", line)) and not re.search(r"\bnot (yet )?spent\b", line)
    return False


def digest(paths: list[Path]) -> str:
    """What the weights were trained on: the sets' names and contents."""
    hashed = hashlib.sha256(str(FEATURES).encode())
    for path in paths:
        hashed.update(path.parent.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return hashed.hexdigest()


_loaded: dict[str, Model | None] = {}
_lock = threading.Lock()


def model(encoder: str, width: int) -> Model | None:
    """The trained model for the encoder called `encoder` and features `width` wide (read once); None when the
    weights are missing, damaged, or made for another encoder or other features."""
    key = f"{encoder}/{width}"
    if key not in _loaded:
        with _lock:
            if key not in _loaded:
                _loaded[key] = _load(encoder, width)
    return _loaded[key]


def _load(encoder: str, width: int) -> Model | None:
    import numpy as np

    try:
        with np.load(WEIGHTS, allow_pickle=False) as saved:
            if str(saved["model"]) != encoder or int(saved["features"]) != FEATURES:
                log.warning("the weights in %s are stale (python -m pet.memory.replacing rebuilds them); "
                            "replacing memories by the rules alone", WEIGHTS.name)
                return None
            found = Model(np.asarray(saved["weights"], dtype=np.float64), float(saved["bias"]),
                          np.asarray(saved["mean"], dtype=np.float64), np.asarray(saved["scale"], dtype=np.float64))
        if found.weights.shape != (width,) or found.mean.shape != (width,) or found.scale.shape != (width,):
            raise ValueError(f"weights of shape {found.weights.shape} for {width} features")
        numbers = np.concatenate([found.weights, found.mean, found.scale, [found.bias]])
        if not np.isfinite(numbers).all() or (found.scale <= 0).any():
            raise ValueError("weights that are not finite, or a scale that is not positive")
        return found
    except Exception as exc:  # a damaged or missing file must not stop capture: the rules decide
        log.warning("no replacing model from %s: %s", WEIGHTS.name, exc)
        return None


def fit(rows: np.ndarray, labels: np.ndarray) -> Model:
    """Logistic regression by gradient descent on standardised features."""
    import numpy as np

    mean, scale = rows.mean(axis=0), rows.std(axis=0) + 1e-6
    standard = (rows - mean) / scale
    weights, bias = np.zeros(standard.shape[1]), 0.0
    for _ in range(STEPS):
        predicted = 1.0 / (1.0 + np.exp(-(standard @ weights + bias)))
        error = predicted - labels
        weights -= RATE * (standard.T @ error / len(labels) + PENALTY * weights)
        bias -= RATE * float(error.mean())
    return Model(weights, bias, mean, scale)


def pairs(paths: list[Path]) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(features, label, "case id#fact") of every (fact, memory) pair capture compares when each set is told to
    it in order, by the rules (the memories are as the rules left them)."""
    import tempfile

    import numpy as np

    from pet.agent import capture
    from pet.evals.memory import _open_home, load_cases

    found = capture.reader()
    if found is None:
        raise RuntimeError("the sentence encoder is not installed: pip install -r requirements.txt")
    rows: list[list[float]] = []
    labels: list[int] = []
    facts: list[str] = []
    for path in paths:
        with tempfile.TemporaryDirectory() as folder:
            db, store, pet_id = _open_home(Path(folder), "pairs.db")
            memory_of: dict[str, int] = {}  # case id -> the memory its fact went to
            for case in load_cases(path):
                target = memory_of.get(case.contradicts) if isinstance(case.contradicts, str) else None
                if not case.borderline:
                    for place, (fact, vector, kind) in enumerate(found.facts(case.text)):
                        message = found.vector(case.text) if len(capture.sentences(case.text)) > 1 else None
                        compared = capture.candidates(store, pet_id, fact, case.text)
                        if not compared or not capture.may_replace(fact, kind):
                            continue
                        # only the pairs the model is asked of (Reader.replaced): a fact that says no change,
                        # beside a memory of another kind the rules do not allow, is no question for it
                        for record, row in zip(compared, found.pair_features(
                                fact, vector, kind, [r.content for r in compared], message)):
                            if capture.asked_of_model(row):
                                rows.append(row)
                                labels.append(int(record.id == target))
                                facts.append(f"{case.id}#{place}")
                noted = capture.note(store, pet_id, case.text, rules_only=True)
                if noted:
                    memory_of[case.id] = noted[0].record.id
            db.close()
    return np.array(rows, dtype=np.float64), np.array(labels, dtype=np.float64), facts


def main(argv: list[str]) -> int:
    import numpy as np

    from pet.memory import meaning

    paths = spent_sets()
    try:
        rows, labels, _ = pairs(paths)
    except RuntimeError as exc:
        print(exc, file=sys.stderr)
        return 1
    trained = fit(rows, labels)
    np.savez_compressed(WEIGHTS, weights=trained.weights, bias=np.array(trained.bias), mean=trained.mean,
                        scale=trained.scale, model=np.array(meaning.MODEL), features=np.array(FEATURES),
                        digest=np.array(digest(paths)))
    print(f"{len(paths)} spent memory sets, {len(labels)} pairs ({int(labels.sum())} to replace); "
          f"wrote {WEIGHTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

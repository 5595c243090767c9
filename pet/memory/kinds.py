"""What kind of personal fact a sentence states or asks about.

"What should I cook when Mira comes over?" and "Mira could eat dumplings
every day" share a name and nothing else; many memories name Mira, and a
sentence encoder's likeness (meaning.py) ranks them by how they are worded
as much as by what they are about. So a small classifier reads the same
sentence vectors and tells the kind of fact: food, birthday, where someone
works, a one-off event, small talk (`KINDS`, from the sections of the data
file). A memory whose kind is the kind asked about rises (search.py).

The classifier is softmax regression on the encoder's vectors, trained on
`assets/kinds/kinds.txt`: for each kind, statements and questions in
English and Chinese (about 6,800), written for this purpose; none follows a
template of the recall benchmark (tests/test_kinds.py checks), so the
benchmark measures wording it never saw. On a fifth held out it gets 0.87
of the kinds right. Its weights live beside it in `kinds.npz`,
with the encoder's name and a digest of the data they were trained on; a
stale file (another encoder, changed data) is not used. Rebuild with

    python -m pet.memory.kinds

which retrains (a few seconds; kinds_train.py, which needs the encoder),
prints the held-out accuracy and writes the weights. numpy only: this
module imports nothing of meaning.py, which imports it.
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

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "assets" / "kinds" / "kinds.txt"
WEIGHTS = ROOT / "assets" / "kinds" / "kinds.npz"
#: L2 penalty and gradient steps of the training
PENALTY, STEPS, RATE = 1e-5, 1000, 4.0
#: a sentence in every this many is held out when the accuracy is measured
HOLD_OUT = 5


def parse(text: str) -> list[tuple[str, str]]:
    """(kind, sentence) pairs: `## kind` starts a section, then a sentence a
    line; blank lines and other lines starting with # are skipped."""
    pairs: list[tuple[str, str]] = []
    kind = None
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if line.startswith("## "):
            kind = line[3:].strip()
            if not re.fullmatch(r"[a-z][a-z_ ]*", kind):
                raise ValueError(f"line {number}: a kind is lower-case letters: {kind!r}")
        elif line and not line.startswith("#"):
            if kind is None:
                raise ValueError(f"line {number}: a sentence before the first ## kind")
            pairs.append((kind, line))
    return pairs


def digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=8).hexdigest()


@dataclass(frozen=True)
class Classifier:
    kinds: tuple[str, ...]
    weights: np.ndarray  # (DIM, len(kinds)) float32
    bias: np.ndarray  # (len(kinds),) float32

    def probabilities(self, vectors: np.ndarray) -> np.ndarray:
        """(n, len(kinds)): how likely each vector's sentence is of each kind."""
        return _softmax(vectors @ self.weights + self.bias)


def _softmax(logits: np.ndarray) -> np.ndarray:
    import numpy as np

    logits = logits - logits.max(axis=-1, keepdims=True)
    exp = np.exp(logits)
    return exp / exp.sum(axis=-1, keepdims=True)


def train(vectors: np.ndarray, labels: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Softmax regression by full-batch gradient descent with momentum:
    (weights, bias). Deterministic: it starts from zeros."""
    import numpy as np

    n, dim = vectors.shape
    target = np.zeros((n, count), dtype=np.float32)
    target[np.arange(n), labels] = 1
    weights = np.zeros((dim, count), dtype=np.float32)
    bias = np.zeros(count, dtype=np.float32)
    moment_w, moment_b = np.zeros_like(weights), np.zeros_like(bias)
    for _ in range(STEPS):
        error = (_softmax(vectors @ weights + bias) - target) / n
        grad_w = vectors.T @ error + PENALTY * weights
        grad_b = error.sum(axis=0)
        moment_w = 0.9 * moment_w + grad_w
        moment_b = 0.9 * moment_b + grad_b
        weights -= RATE * moment_w
        bias -= RATE * moment_b
    return weights.astype(np.float32), bias.astype(np.float32)


_loaded: dict[tuple[str, int, str, str], Classifier | None] = {}
_lock = threading.Lock()


def classifier(model: str, dim: int, data: Path | None = None, weights: Path | None = None) -> Classifier | None:
    """The trained classifier for the encoder called `model`, whose vectors
    have `dim` numbers (read once); None when the weights are missing,
    damaged, or were trained for other data or another encoder. `data` and
    `weights`: another classifier of the same make (pet.memory.stated);
    by default the fact kinds'."""
    data, weights = data or DATA, weights or WEIGHTS
    key = (model, dim, str(data), str(weights))
    if key not in _loaded:
        with _lock:
            if key not in _loaded:
                _loaded[key] = _load(model, dim, data, weights)
    return _loaded[key]


def _load(model: str, dim: int, data_path: Path | None = None, weights_path: Path | None = None) -> Classifier | None:
    import numpy as np

    data_path, weights_path = data_path or DATA, weights_path or WEIGHTS
    try:
        data = data_path.read_text(encoding="utf-8")
        with np.load(weights_path, allow_pickle=False) as saved:
            if str(saved["model"]) != model or str(saved["digest"]) != digest(data):
                log.warning("the weights in %s are stale (python -m %s rebuilds them); going without them",
                            weights_path.name, "pet.memory.kinds" if weights_path == WEIGHTS else "pet.memory.stated")
                return None
            found = Classifier(tuple(str(k) for k in saved["kinds"]),
                               np.asarray(saved["weights"], dtype=np.float32),
                               np.asarray(saved["bias"], dtype=np.float32))
        if found.weights.shape != (dim, len(found.kinds)) or found.bias.shape != (len(found.kinds),):
            raise ValueError(f"weights of shape {found.weights.shape} for {len(found.kinds)} kinds")
        return found
    except Exception as exc:  # a damaged file (a cut-off zip...) must not break recall
        log.warning("no classifier from %s: %s", weights_path.name, exc)
        return None


def build(encode, data: str) -> tuple[Classifier, float]:
    """Train on `data` (the whole of it) with `encode` (texts -> unit
    vectors); also returns the accuracy on every HOLD_OUT-th sentence when
    trained without them."""
    import numpy as np

    pairs = parse(data)
    kinds = tuple(dict.fromkeys(kind for kind, _ in pairs))
    vectors = np.asarray(encode([sentence for _, sentence in pairs]), dtype=np.float32)
    labels = np.array([kinds.index(kind) for kind, _ in pairs])
    held = np.arange(len(pairs)) % HOLD_OUT == HOLD_OUT - 1
    weights, bias = train(vectors[~held], labels[~held], len(kinds))
    check = Classifier(kinds, weights, bias)
    accuracy = float((check.probabilities(vectors[held]).argmax(axis=1) == labels[held]).mean())
    weights, bias = train(vectors, labels, len(kinds))
    return Classifier(kinds, weights, bias), accuracy


def save(found: Classifier, model: str, data: str, path: Path = WEIGHTS) -> None:
    import numpy as np

    np.savez_compressed(path, kinds=np.array(found.kinds), weights=found.weights, bias=found.bias,
                        model=np.array(model), digest=np.array(digest(data)))


if __name__ == "__main__":  # the command above: the training run lives in kinds_train.py
    from pet.memory.kinds_train import main

    sys.exit(main(sys.argv[1:]))

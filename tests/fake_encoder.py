"""A stand-in sentence encoder for tests whose subject is not recall by
meaning: deterministic, instant, and with no model to load.

Each text lights dimensions picked by hashing its words and its character
trigrams (so Chinese, written without spaces, gets vectors too); texts that
share words or characters come out close, as they would with the real
encoder, only without its sense of meaning.
"""

from __future__ import annotations

import hashlib
import re
from typing import Sequence

import numpy as np

from pet.memory import meaning

_WORD = re.compile(r"\w+")


def _slot(piece: str) -> tuple[int, float]:
    digest = hashlib.blake2b(piece.encode(), digest_size=8).digest()
    number = int.from_bytes(digest, "little")
    return number % meaning.DIM, 1.0 if number & (1 << 63) else -1.0


class HashingEncoder:
    name = meaning.MODEL

    def __init__(self) -> None:
        self.calls = 0

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        out = np.zeros((len(texts), meaning.DIM), dtype=np.float32)
        for row, text in enumerate(texts):
            folded = text.casefold()
            pieces = _WORD.findall(folded) + [folded[i:i + 3] for i in range(max(len(folded) - 2, 0))]
            for piece in pieces or [""]:
                slot, sign = _slot(piece)
                out[row, slot] += sign
            out[row] /= max(float(np.linalg.norm(out[row])), 1e-9)
        return out

"""The chat benchmark's own list of assistant-speak: phrases of a generic
AI assistant (saying it is an AI, offering assistance, refusing harmless
small talk, denying feelings, asking for more context, disclaimers, stock
templates) in `assets/evals/judge/assistant_speak.toml`. (pet.evals.judge
judges the tool benchmark's turns.)

It was written without seeing the pet's reply guard (pet.agent.replycheck),
so a reply the guard lets through can still be judged: a benchmark that
judged by the guard's own patterns could not see what the guard misses.
Keep the two apart; tune the guard on what this list finds in spent sets,
never by copying its patterns."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

PHRASES = Path(__file__).resolve().parents[2] / "assets" / "evals" / "judge" / "assistant_speak.toml"


@dataclass(frozen=True)
class Phrase:
    lang: str
    kind: str
    pattern: re.Pattern[str]
    match: tuple[str, ...]
    spare: tuple[str, ...]


@lru_cache(maxsize=4)
def phrases(path: Path = PHRASES) -> tuple[Phrase, ...]:
    """The list, each pattern compiled; a bad entry is a ValueError naming it."""
    with open(path, "rb") as handle:
        data = tomllib.load(handle)
    found = []
    for number, entry in enumerate(data.get("phrase", []), 1):
        try:
            pattern = re.compile(entry["pattern"])
            found.append(Phrase(entry["lang"], entry["kind"], pattern, tuple(entry.get("match", ())),
                                tuple(entry.get("spare", ()))))
        except (KeyError, re.error) as exc:
            raise ValueError(f"{path}: phrase {number} is not usable: {exc}") from exc
    return tuple(found)


def assistant_phrase(text: str) -> tuple[Phrase, re.Match[str]] | None:
    """The first phrase of the list found in `text` (either language), with its match."""
    for phrase in phrases():
        match = phrase.pattern.search(text)
        if match:
            return phrase, match
    return None

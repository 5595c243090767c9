"""A misspelt request word read as the word it misses: "my remidners?", "pls remeber my locker is 214".

The reflexes match whole words and the sentence encoder hears "remidners" as
a stranger, so one slip of the finger in the word a request hinges on made the
pet answer as if nothing were asked. `mend` puts such words right before the
message is routed (the message kept in the conversation stays as written).
Only the words requests hinge on (`WORDS`) are mended, only from a word one
edit away (a letter missing, added, changed, or two swapped), only when the
word is five letters or more, and never from a real word one edit away
(`REAL`: "forgot", "remainder", "cancer").
"""

from __future__ import annotations

import re
from functools import lru_cache

#: the words requests hinge on
WORDS = ("remind", "reminder", "reminders", "remember", "forget", "memory", "memories", "calculate", "cancel",
         "delete", "schedule", "alarm", "recall", "tomorrow", "tonight")
#: real words one edit away from one of WORDS, and their forms, never mended
REAL = frozenset({"forgot", "forged", "forger", "remainder", "reminds", "remembers", "memorys", "cancer", "cancels",
                  "canceled", "deleted", "deletes", "alarms", "recalls", "recalled", "tonights", "scheduled",
                  "schedules", "rewind", "remained", "relate", "related", "calculated", "calculates"})
SHORTEST = 5
_WORD = re.compile(r"[A-Za-z]+")


def _one_edit(a: str, b: str) -> bool:
    """Whether `a` and `b` differ by exactly one insertion, deletion, substitution or swap of neighbours."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    short, long = (a, b) if len(a) < len(b) else (b, a)
    for i in range(len(long)):
        if long[:i] + long[i + 1:] == short:
            return True
    return False


@lru_cache(maxsize=4096)
def _mended(word: str) -> tuple[str, ...]:
    """The request words `word` may be a slip for, shortest first (none for a real word)."""
    lowered = word.lower()
    if len(lowered) < SHORTEST or lowered in WORDS or lowered in REAL:
        return ()
    return tuple(sorted((w for w in WORDS if _one_edit(lowered, w)), key=len))


#: a word after a verb: "remindr me" is remind, "a remindr for" reminder
_OBJECT = re.compile(r"\s+(?:me|us|him|her|them)\b", re.IGNORECASE)


def mend(text: str) -> str:
    """`text` with each misspelt request word put right (see the module's docstring)."""
    def fix(match: re.Match[str]) -> str:
        word = match.group()
        found = _mended(word)
        if not found:
            return word
        # two it could be ("remindr"): the verb before an object, else the longer word
        mended = found[0] if _OBJECT.match(text, match.end()) else found[-1]
        return mended.capitalize() if word[0].isupper() else mended

    return _WORD.sub(fix, text)

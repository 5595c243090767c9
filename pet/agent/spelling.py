"""A misspelt request word read as the word it misses: "my remidners?", "pls remeber my locker is 214".

The reflexes match whole words and the sentence encoder hears "remidners" as
a stranger, so one slip of the finger in the word a request hinges on made the
pet answer as if nothing were asked. `mend` puts such words right before the
message is routed (the message kept in the conversation stays as written).
Only the words requests hinge on (`WORDS`) are mended, only from a word one
edit away (a letter missing, added, changed, or two swapped), only when the
word is five letters or more (or one of the few common slips further off,
`KNOWN`: "rember"), never from a real word one edit away (`REAL`:
"forgot", "forgets", "memorise", "remainder"), never inside a longer token
("Remeber2024") and never from a capitalised word inside a sentence (a name:
"Remini"). Slash commands are never mended (pet.agent.loop).
"""

from __future__ import annotations

import re
from functools import lru_cache

#: the words requests hinge on
WORDS = ("remind", "reminder", "reminders", "remember", "forget", "memory", "memories", "calculate", "cancel",
         "delete", "schedule", "alarm", "recall", "tomorrow", "tonight")
#: real words one edit away from one of WORDS, never mended: every such word of five letters or more in
#: Debian's american-english-huge and british-english-huge word lists (names lower-cased: "Emory")
REAL = frozenset("""
    alarms alars alarum alary becall calculated calculates calyculate cancels cancer cannel carcel chancel
    delate deleted deletes deplete emory falculate forgat forge forged forger forges forgets forgot forpet gorget
    memoried memorise memorises memorizes rancel rebind recalls refall refind remainder remainders remand
    remembers remend reminded reminds remint rewind rewinder rewinders scheduled scheduler schedules tomorrows
    tonights""".split())
SHORTEST = 5
#: slips two edits away, common enough to be the word meant (chat slang: "rember that?"), and in no word list
KNOWN = {"rember": "remember", "lsit": "list"}
#: a word on its own: not part of "Remeber2024" or "Forge-Remeber"
_WORD = re.compile(r"(?<![\w-])[A-Za-z]+(?![\w-])")
#: where a sentence starts: a capital there says nothing, elsewhere it may be a name ("Alarmo", "Remini")
_STARTS = re.compile(r"(?:^|[.!?。！？]\s*)$")


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
    if lowered in KNOWN:
        return (KNOWN[lowered],)
    if len(lowered) < SHORTEST or lowered in WORDS or lowered in REAL:
        return ()
    return tuple(sorted((w for w in WORDS if _one_edit(lowered, w)), key=len))


#: a word after a verb: "remindr me" is remind, "a remindr for" reminder
_OBJECT = re.compile(r"\s+(?:me|us|him|her|them)\b", re.IGNORECASE)


def mend(text: str) -> str:
    """`text` with each misspelt request word put right (see the module's docstring)."""
    def fix(match: re.Match[str]) -> str:
        word = match.group()
        if word[0].isupper() and not _STARTS.search(text[:match.start()].rstrip() if match.start() else ""):
            return word  # a name, most likely
        found = _mended(word)
        if not found:
            return word
        # two it could be ("remindr"): the verb before an object, else the longer word
        mended = found[0] if _OBJECT.match(text, match.end()) else found[-1]
        return mended.capitalize() if word[0].isupper() else mended

    return _WORD.sub(fix, text)

"""Cutting a streaming reply into sentences that can be spoken one by one,
in Chinese and English, and cleaning each for the voice."""

from __future__ import annotations

import re
import unicodedata

from pet.text import is_cjk

#: end a sentence wherever they stand
_HARD_ENDS = "。！？；…!?;\n"
#: a closing quote or bracket after the end mark still belongs to the sentence
_CLOSERS = "\"'”’）)」』】]"
#: words whose dot is not a sentence end
_ABBREVIATIONS = {"mr", "mrs", "ms", "dr", "st", "vs", "etc", "e.g", "i.e", "no", "approx"}
#: a sentence with no end mark is cut at its last pause beyond this much
#: speech (see _weight), so a run-on reply does not hold back the voice
LONG_SENTENCE = 120
#: the first sentence may end at a pause once this much is said: the first
#: sound comes sooner, and the rest of that sentence follows as the next piece
FIRST_CLAUSE = 20
#: a comma or colon only pauses before a space ("3,000" and "10:30" go on)
_PAUSES = ",:"
#: these pause wherever they stand
_WIDE_PAUSES = "，、："


def _weight(text: str) -> int:
    """About how long `text` takes to say: a Chinese character counts as two letters."""
    return sum(2 if is_cjk(ch) else 1 for ch in text)


class SentenceSplitter:
    """Feed reply text as it streams; take back each sentence once it is complete."""

    def __init__(self) -> None:
        self._buffer = ""
        self._first = True

    def feed(self, text: str) -> list[str]:
        self._buffer += text
        sentences = []
        while (cut := self._next_cut()) is not None:
            sentence, self._buffer = self._buffer[:cut], self._buffer[cut:]
            if sentence.strip():
                sentences.append(sentence.strip())
                self._first = False
        return sentences

    def flush(self) -> list[str]:
        """What is left when the reply has ended."""
        rest, self._buffer = self._buffer.strip(), ""
        return [rest] if rest else []

    def _next_cut(self) -> int | None:
        text = self._buffer
        said = 0
        for i, ch in enumerate(text):
            if ch in _HARD_ENDS or ch == ".":
                end = _after_closers(text, i + 1)
                if end >= len(text):
                    return None  # the next piece may close a quote, or show the dot is 3.14
                if ch != ".":
                    return end
                if text[end].isspace() and not _is_abbreviation(text, i) and not _is_list_number(text, i):
                    return end
            elif self._first and said >= FIRST_CLAUSE and _is_pause(text, i):
                return i + 1
            said += _weight(ch)
        if said > LONG_SENTENCE:
            return _run_on_cut(text)
        return None


def _is_pause(text: str, i: int) -> bool:
    if text[i] in _WIDE_PAUSES:
        return i + 1 < len(text)
    return text[i] in _PAUSES and text[i + 1 : i + 2].isspace()


def _run_on_cut(text: str) -> int:
    """Where to cut a sentence that is too long: its last pause, else its
    last space, within LONG_SENTENCE of speech."""
    limit, said = len(text), 0
    for i, ch in enumerate(text):
        said += _weight(ch)
        if said > LONG_SENTENCE:
            limit = i
            break
    pauses = [i for i in range(limit) if _is_pause(text, i)]
    if pauses:
        return pauses[-1] + 1
    space = text.rfind(" ", 0, limit)
    return space if space > 0 else limit


def _after_closers(text: str, index: int) -> int:
    while index < len(text) and (text[index] in _CLOSERS or text[index] in _HARD_ENDS or text[index] == "."):
        index += 1
    return index


def _is_abbreviation(text: str, dot: int) -> bool:
    start = dot
    while start > 0 and (text[start - 1].isalpha() or text[start - 1] == "."):
        start -= 1
    word = text[start:dot].lower()
    return word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha())


def _is_list_number(text: str, dot: int) -> bool:
    """"2. Buy milk" at the start of a line numbers a list item."""
    start = dot
    while start > 0 and text[start - 1].isdigit():
        start -= 1
    return start < dot and (start == 0 or text[start - 1] == "\n")


_URL = re.compile(r"https?://\S+")
_MARKUP = re.compile(r"[*_`#>|~]+")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


def speakable(sentence: str) -> str:
    """The sentence as the voice should read it: no markdown marks, links
    read as their words, no emoji; empty when nothing is left to say."""
    text = _LINK.sub(r"\1", sentence)
    text = _URL.sub(" ", text)
    text = _MARKUP.sub(" ", text)
    kept = []
    for ch in text:
        category = unicodedata.category(ch)
        if category in ("So", "Sk", "Cs", "Co") or ch in "\u200d\ufe0f\ufe0e":
            continue  # emoji and pictographs: espeak reads their long names aloud
        kept.append(ch)
    text = " ".join("".join(kept).split())
    return text if any(ch.isalnum() for ch in text) else ""

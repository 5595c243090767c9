"""The figure guard: a number, date or time the model states must come from
a tool of this turn.

The claim guard (pet.agent.guards) checks what a reply says was done; this
checks what it says is so. When the person's message is arithmetic the
calculator can read, or asks the date or time, every figure of the reply
that is not in the message must be in a tool result of this turn, and a sum
read whole must be answered with its value. "128 * 7 = 964" is held back;
the agent then computes the figure in code (pet.agent.loop).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from pet.agent import arithmetic, reflexes
from pet.errors import ToolError
from pet.text import ZH_NUMERAL, zh_int
from pet.tools.calc import calculate


@dataclass(frozen=True)
class Asked:
    """A message that asks for a figure: a sum (its expression and the
    calculator's value) or the current date and time."""

    expression: str = ""
    value: str = ""
    #: a sum asked in words the calculator's reader does not know ("if I read 23 pages every night, how
    #: many after three weeks?"): no figure to compare, so any figure that neither the message nor a
    #: tool gave is held
    unread: bool = False

    @property
    def time(self) -> bool:
        return not self.expression and not self.unread

    @property
    def tool(self) -> str:
        """The tool whose result holds the figure."""
        return "get_current_time" if self.time else "calculate"


def asked(message: str) -> Asked | None:
    """What figure `message` asks for, or None when it asks for none."""
    expression = arithmetic.expression_in(message)
    if expression:
        try:
            return Asked(expression, calculate(expression))
        except ToolError:
            return None  # the calculator cannot answer it either: nothing to check against
    return Asked() if reflexes.asks_time(message) else None


# --- figures in text -------------------------------------------------------------------------

_NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
# A Chinese numeral that is a figure: before a unit of time or date, or long enough not to be a word (三百六十五)
_ZH_FIGURE = re.compile(rf"{ZH_NUMERAL}+(?=[点时分秒月日号年])|{ZH_NUMERAL}*[十百千万亿]{ZH_NUMERAL}*")
_CLOCK = re.compile(r"\b(\d{1,2}):(\d{2})\b")
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december"]
_MONTH_NAME = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?" \
              r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
# A month name is a figure only beside a day ("December 1", "1st of December"): "may" alone is a verb.
_MONTH = re.compile(rf"\b{_MONTH_NAME}\.?\s+\d{{1,2}}(?!\d)|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH_NAME}\b",
                    re.IGNORECASE)
_WEEKDAYS_EN = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_WEEKDAY_EN = re.compile(r"\b(" + "|".join(_WEEKDAYS_EN) + r")\b", re.IGNORECASE)
_WEEKDAY_ZH = re.compile(r"(?:星期|周|礼拜)([一二三四五六日天])")
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|[。！？\n]")
_ZH_WEEKDAY_INDEX = {ch: i for i, ch in enumerate("一二三四五六日")} | {"天": 6}


@dataclass(frozen=True)
class Figures:
    numbers: tuple[float, ...]
    #: the text of each number as written, for rounding ("0.33" of 0.333…)
    written: tuple[str, ...]
    weekdays: frozenset[int]


def figures(text: str, derived: bool = False) -> Figures:
    """The numbers (month names as numbers) and weekdays a text states.
    `derived`: for a tool result, also the 12-hour form of each clock time."""
    written = [m.group().replace(",", "") for m in _NUMBER.finditer(text)]
    for found in _ZH_FIGURE.finditer(text):
        try:
            written.append(str(zh_int(found.group())))
        except ValueError:
            pass
    for found in _MONTH.finditer(text):
        name = (found.group(1) or found.group(2)).lower()[:3]
        written.append(str([m[:3] for m in _MONTHS].index(name) + 1))
    if derived:
        written += [str(int(hour) % 12 or 12) for hour, _ in _CLOCK.findall(text)]
    weekdays = {_WEEKDAYS_EN.index(m.group(1).lower()) for m in _WEEKDAY_EN.finditer(text)}
    weekdays |= {_ZH_WEEKDAY_INDEX[m.group(1)] for m in _WEEKDAY_ZH.finditer(text)}
    return Figures(tuple(float(w) for w in written), tuple(written), frozenset(weekdays))


def _matches(written: str, value: float, supported: Iterable[float]) -> bool:
    """`written` is one of the supported values, or one of them rounded to its decimals."""
    decimals = len(written.partition(".")[2])
    return any(abs(value) == abs(s) or (decimals and round(abs(s), decimals) == abs(value)) for s in supported)


@dataclass(frozen=True)
class Check:
    """What a reply may state this turn."""

    asked: Asked
    message: Figures
    results: Figures

    def unsupported(self, text: str, streaming: bool = False) -> list[str]:
        """The figures of `text` no tool result of this turn gave (and that
        the person did not say). While streaming, a sum's own value passes
        and a tool's other figures wait: the final check decides."""
        stated = figures(text)
        if self.asked.time or not streaming:
            supported = self.results.numbers
        else:
            supported = (float(self.asked.value),) if _is_number(self.asked.value) else ()
        said = self.message.numbers
        bad = [w for w, v in zip(stated.written, stated.numbers)
               if not _matches(w, v, said) and not _matches(w, v, supported)]
        bad += [_WEEKDAYS_EN[d] for d in stated.weekdays - self.results.weekdays - self.message.weekdays]
        if not streaming and not bad and self.asked.expression and _is_number(self.asked.value):
            answers = [(w, v) for w, v in zip(stated.written, stated.numbers) if not _matches(w, v, said)]
            if answers and not any(_matches(w, v, [float(self.asked.value)]) for w, v in answers):
                bad = [w for w, _ in answers]  # a figure a tool gave, but not the sum that was asked
        return bad

    def first_unsupported(self, text: str) -> int | None:
        """Where to stop streaming: the sentence holding the first figure
        that is not supported yet, or else an unfinished last sentence (its
        figure may still grow: the "9" of "964", "等于" before "七百二十")."""
        start = 0
        for end in (m.end() for m in _SENTENCE_END.finditer(text)):
            if self.unsupported(text[start:end], streaming=True):
                return start
            start = end
        return start if text[start:].strip() else None


def _is_number(text: str) -> bool:
    return re.fullmatch(r"-?\d+(?:\.\d+)?", text) is not None


def check(asked_for: Asked, message: str, results: Iterable[str]) -> Check:
    said = figures(message)
    if asked_for.unread:  # "六块五", "三斤半", "a dozen": restating what was said is no guess
        extra = sorted(arithmetic.said_numbers(message) - set(said.numbers))
        said = Figures(said.numbers + tuple(extra), said.written + tuple(f"{v:g}" for v in extra), said.weekdays)
    return Check(asked_for, said, figures("\n".join(results), derived=True))


def unread_line(language: str) -> str:
    """What the pet says instead of a figure it would only guess at."""
    if language == "zh":
        return "这题绕在字里了，我硬算怕算错。写成算式给我吧，比如 12 * 3.5 + 8，我马上给你准数。"
    return ("That one's a word puzzle, and I'd only be guessing at the number. Give it to me as a sum, "
            "like 12 * 3.5 + 8, and I'll work it out exactly.")

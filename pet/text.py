"""Text rules every part of the pet shares: which characters are Chinese,
which language a message is in, Chinese numerals, simplified characters and
token estimates.

Pure functions and patterns, no imports from the rest of the pet, so any
layer may use them. Keep one copy of each rule here: when two modules judge
"is this Chinese?" differently, a sentence one of them understands falls
through the other.
"""

from __future__ import annotations

import functools
import logging
import math
import re
from typing import Any

log = logging.getLogger(__name__)

#: Chinese characters, for use inside a regex character class: the Unified
#: Ideographs, Extension A and the Compatibility Ideographs
CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
CJK_CHAR = re.compile(f"[{CJK}]")
CJK_RUN = re.compile(f"[{CJK}]+")
#: placed right after a pattern's "\.": that point ends no sentence when it closes a title ("Mr. Petrakis",
#: "Dr. Wu") or a number's sign ("Anji No. 2 High School": round 49's memory set kept "2 High School" as a fact);
#: one list for every splitter (pet.agent.capture, pet.agent.reflexes)
NOT_AFTER_TITLE = "".join(rf"(?<!\b(?i:{title})\.)" for title in ("mr", "mrs", "ms", "dr", "st", "prof")) + (
    r"(?!(?<=\b[Nn]o\.)\s?\d)")

#: what a Chinese character costs in a model's tokens; other text costs one
#: token per CHARS_PER_TOKEN characters
CJK_CHAR_TOKENS = 1
CHARS_PER_TOKEN = 4

#: Chinese digits (simplified and traditional 两), for regex character classes
ZH_DIGITS = "零〇一二两兩三四五六七八九"
#: one character of a Chinese numeral, digits and units
ZH_NUMERAL = f"[{ZH_DIGITS}十百千万萬亿億]"

_DIGIT_VALUES = dict(zip(ZH_DIGITS, (0, 0, 1, 2, 2, 2, 3, 4, 5, 6, 7, 8, 9)))
_SMALL_UNITS = {"十": 10, "百": 100, "千": 1000}
_BIG_UNITS = {"万": 10**4, "萬": 10**4, "亿": 10**8, "億": 10**8}
_NO_UNIT = 10**4  # a section has no small unit yet


def is_cjk(char: str) -> bool:
    """Whether `char` (one character) is a Chinese character."""
    return CJK_CHAR.fullmatch(char) is not None


def cjk_count(text: str) -> int:
    return 0 if text.isascii() else len(CJK_CHAR.findall(text))


def detect_language(text: str, default: str = "en") -> str:
    """"zh" when Chinese characters are at least half as many as Latin
    letters ("我最喜欢Python") or, three or more, at least one and a half times as many as English words ("现在what
    time啊"); "en" when Latin letters outnumber them more ("ping me at 5pm to buy 豆腐"), `default` when there are
    neither."""
    cjk = cjk_count(text)
    latin = sum(ch.isascii() and ch.isalpha() for ch in text)
    if cjk == 0 and latin == 0:
        return default
    if cjk * 2 >= latin:
        return "zh"
    # a few English words in a Chinese sentence ("现在what time啊", "帮我calculate一下"): a Chinese character says about
    # two thirds of a word (not "I love 火锅", "what is 饺子?", "thanks 钳钳": the review of 2026-12-07)
    words = len(re.findall(r"[A-Za-z]+", text))
    return "zh" if cjk >= 3 and cjk * 2 >= words * 3 else "en"


def estimate_tokens(text: str) -> int:
    """Roughly how many tokens a model spends on `text`: a Chinese character
    about one, other text about four characters each."""
    cjk = cjk_count(text)
    return cjk * CJK_CHAR_TOKENS + math.ceil((len(text) - cjk) / CHARS_PER_TOKEN)


def clip(text: str, tokens: int) -> str:
    """`text` cut to about `tokens` estimated tokens, at a sentence end when
    one is in reach, else mid-sentence with "…"."""
    if estimate_tokens(text) <= tokens:
        return text
    cost, end = 0.0, len(text)
    for index, ch in enumerate(text):
        cost += CJK_CHAR_TOKENS if is_cjk(ch) else 1 / CHARS_PER_TOKEN
        if cost > tokens - 1:
            end = index
            break
    head = text[:end]
    cut = max(head.rfind(mark) for mark in "。！？.!?")
    return head[: cut + 1] if cut > len(head) // 2 else head.rstrip() + "…"


def zh_int(text: str) -> int:
    """A whole number written in decimal digits or in Chinese, like int():
    "12", "十二", "两", "三百六十五", "一百零五", "两万五" (25000, as said),
    "二〇二六" (digit by digit). Raises ValueError when `text` is not one."""
    text = text.strip()
    if not text:
        raise ValueError("not a number: ''")
    if text.isdecimal():
        return int(text)
    if all(ch in _DIGIT_VALUES for ch in text):
        return int("".join(str(_DIGIT_VALUES[ch]) for ch in text))
    value = _zh_units(text)
    if value is None:
        raise ValueError(f"not a number: {text!r}")
    return value


def _zh_units(text: str) -> int | None:
    """A Chinese numeral with units (十, 百, 千, 万, 亿), or None."""
    total, section, digit = 0, 0, None
    small, big = _NO_UNIT, 1  # the last unit used in this section, and overall
    after_zero = False
    for ch in text:
        if ch in _DIGIT_VALUES:
            if digit is not None:
                return None  # two digits in a row: "三五百"
            if _DIGIT_VALUES[ch] == 0:
                after_zero = True  # "一百零五": the 5 is ones, not tens
            else:
                digit = _DIGIT_VALUES[ch]
        elif ch in _SMALL_UNITS:
            unit = _SMALL_UNITS[ch]
            if unit >= small or (digit is None and unit != 10):
                return None  # "十百", or "百" without a digit
            section += (1 if digit is None else digit) * unit
            digit, small, after_zero = None, unit, False
        elif ch in _BIG_UNITS:
            unit = _BIG_UNITS[ch]
            section += digit or 0
            if section == 0 and (total == 0 or unit <= big):
                return None  # "万", "三亿万"; "一万亿" is fine
            # "一万亿" multiplies all before it; "三亿五千万" adds a lower section
            total = (total + section) * unit if unit > big else total + section * unit
            section, digit, small, big, after_zero = 0, None, _NO_UNIT, max(big, unit), False
        else:
            return None
    if digit is not None:
        # "一百五" is 150 and "两万五" 25000: a last digit counts in the unit below
        below = small if small != _NO_UNIT else big
        section += digit if after_zero or below == 10 else digit * below // 10
    return total + section


# --- simplified characters -------------------------------------------------------------------


@functools.cache
def _to_simplified() -> Any:
    try:
        import opencc
    except ImportError:
        log.warning("opencc is not installed: Chinese text keeps any traditional characters (pip install opencc)")
        return None
    return opencc.OpenCC("t2s")


def simplified(text: str) -> str:
    """Chinese text in simplified characters, read whole (OpenCC's phrases
    too: Whisper and small models write traditional characters now and then)."""
    converter = _to_simplified()
    return converter.convert(text) if converter is not None and CJK_CHAR.search(text) else text


@functools.lru_cache(maxsize=8192)
def _simplified_char(char: str) -> str:
    converter = _to_simplified()
    converted = converter.convert(char) if converter is not None else char
    return converted if len(converted) == 1 else char


def simplified_chars(text: str) -> str:
    """`text` with each traditional Chinese character in its simplified form,
    one character at a time: a reply converted as it streams, piece by
    piece, reads the same as the whole reply converted at its end."""
    if not CJK_CHAR.search(text):
        return text
    return "".join(_simplified_char(char) if is_cjk(char) else char for char in text)

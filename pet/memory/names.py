"""Names across scripts: a fact that opens with a name ("Tiedan has a new
name: Captain", "陶森毕业了", "我和Bartek分手了") is about whoever a memory
naming them is about ("我收养了一只流浪狗，叫铁蛋", "My younger brother Tao Sen
…", "My boyfriend Bartek …"). A Chinese name and its pinyin are one name:
"铁蛋" is "Tiedan", "陶森" is "Tao Sen", "阿芬" is "Fen".

The pinyin comes from pypinyin's table of single characters (its
pinyin_dict.json: the first reading, tones dropped), read on first use
without importing the package (whose phrase table takes 0.8 s and 50 MB; the
characters alone 0.1 s).
"""

from __future__ import annotations

import importlib.util
import json
import re
import unicodedata
from functools import lru_cache
from pathlib import Path

_CJK = "\u4e00-\u9fff"
#: a capitalised word or two ("Bartek", "Tao Sen")
_LATIN_NAME = re.compile(r"(?<![A-Za-z])[A-Z][a-z]+(?:[ -][A-Z][a-z]+)?(?![A-Za-z])")  # beside Chinese too ("叫Leo，")
#: what a fact may say before the name it opens with: "我和Bartek…", "跟Mira订婚了", "Me and Leo …"
_BEFORE = re.compile(r"^\W*(?:(?:我和|我跟|我与|我把|跟|和|与)\s*|(?:me and|with) )?", re.IGNORECASE)
_LEADING_LATIN = re.compile(r"[A-Z][a-z]{2,}(?:[ -][A-Z][a-z]+)?")
_LEADING_CJK = re.compile(rf"[{_CJK}]{{2,3}}")
#: a one-character given name after this is a name ("阿芬"; not 小 or 老: "小妹", "老家" are words)
_FAMILIAR = "阿"
#: words a sentence opens with that are no name ("The landlord …", "Mom is …", "Finally …")
_COMMON = frozenset("""the this that these those there then my our your his her their its it we they he she you
a an and but so also just finally today tonight yesterday tomorrow now still got guess big update plot news
mom mum dad mother father grandma grandpa sister brother wife husband boyfriend girlfriend friend boss
well yes yeah no not never after before since because when while what who where why how some any
every all one two moved sold quit left started""".split())
#: the mark of a key read from Chinese characters: it matches Latin letters only
ZH = "zh:"


@lru_cache(maxsize=1)
def _table() -> dict[int, str]:
    """Code point -> its first pinyin reading, tones dropped; empty without pypinyin."""
    spec = importlib.util.find_spec("pypinyin")
    if spec is None or not spec.submodule_search_locations:
        return {}
    table = Path(next(iter(spec.submodule_search_locations))) / "pinyin_dict.json"
    try:
        readings = json.loads(table.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {int(point): _plain(found.split(",")[0]) for point, found in readings.items()}


def _plain(reading: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", reading) if c.isascii()).lower()


def pinyin(text: str) -> str:
    """The characters' readings run together ("陶森" -> "taosen"); "" if one has none."""
    table = _table()
    readings = [table.get(ord(c), "") for c in text]
    return "".join(readings) if all(readings) else ""


def leading(fact: str) -> frozenset[str]:
    """The keys of the name `fact` opens with (after "我和", "跟", "me and" …):
    a capitalised word or two, lower-cased and run together, or the pinyin of
    its first two or three Chinese characters. Empty when it opens with neither."""
    before = _BEFORE.match(fact)
    rest = fact[before.end():] if before else fact
    latin = _LEADING_LATIN.match(rest)
    if latin and latin.group().split()[0].casefold() not in _COMMON:  # "The new flat…", "Mom is…"
        return frozenset({_key(latin.group())} | {_key(w) for w in latin.group().split()[:1]})
    cjk = _LEADING_CJK.match(rest)
    if cjk and "我" not in cjk.group():  # matched to Latin letters only ("陶森" to "Tao Sen", not 今天 to 今天)
        return frozenset(ZH + k for k in (pinyin(cjk.group()[:2]), pinyin(cjk.group())) if k)
    return frozenset()


def named(keys: frozenset[str], text: str) -> bool:
    """Whether `text` names one of `keys`: in Latin letters not at its start
    ("My boyfriend Bartek …", not "Sold the bike" for "Sold") or, for keys
    from Latin letters, in Chinese characters read as pinyin ("叫铁蛋", "室友阿芬")."""
    if not keys:
        return False
    for found in _LATIN_NAME.finditer(text):
        whole, first = _key(found.group()), _key(found.group().split()[0])
        if found.start() > 0 and keys & {whole, first, ZH + whole, ZH + first}:
            return True
    for run in re.findall(rf"[{_CJK}]+", text):
        for size in (2, 3):
            for at in range(len(run) - size + 1):
                if pinyin(run[at:at + size]) in keys:
                    return True
        for at in range(len(run) - 1):
            if run[at] in _FAMILIAR and pinyin(run[at + 1]) in keys:
                return True
    return False


def _key(name: str) -> str:
    return re.sub(r"[ -]", "", name).lower()

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


#: characters of grammar, never part of a name read as pinyin ("women" is no 我们)
_FUNCTION = frozenset("我你他她它们的了是在有和不这那个就也都要会说得着过吗呢吧啊")
#: where a sentence opens: a capital there says nothing
_OPENS = re.compile(r"(?:^|[.!?。！？]\s*)\W*$")
#: two short words read as one name ("Peng Hao", "Tao Sen", "Qiao-Mai")
_PAIR = re.compile(r"(?<![A-Za-z])([A-Za-z]{1,6})[ -]([A-Za-z]{1,6})(?![A-Za-z])")


#: readings of one letter or of no vowel, which any English word holds somewhere ("a", "e", "n", "ng")
_BARE = frozenset({"a", "e", "o", "n", "m", "ng", "hm", "hng", "r", "ê"})


@lru_cache(maxsize=1)
def _syllables() -> frozenset[str]:
    return frozenset(reading for reading in _table().values() if reading and reading not in _BARE)


def _reads_as_pinyin(word: str) -> bool:
    """Whether `word` is two or more pinyin syllables run together ("tangyuan", "guzheng", "penghao")."""
    syllables, size = _syllables(), len(word)
    if not syllables:
        return False
    counts = [0] + [-1] * size  # the most syllables a prefix of each length splits into (-1: none)
    for end in range(1, size + 1):
        for start in range(max(0, end - 6), end):
            if counts[start] >= 0 and word[start:end] in syllables:
                counts[end] = max(counts[end], counts[start] + 1)
    return counts[size] >= 2


#: a place, not someone: "in Ningbo", "from Lanzhou", "Haishu district"; "在兰州", "回贵阳", "景德镇人", "宁波市"
_PLACE_BEFORE_EN = re.compile(r"\b(?:in|to|from|at|near|around|of|visit|visited|visiting|leave|left|moved)\s+(?:the\s+)?(?:old\s+)?$", re.I)
_PLACE_AFTER_EN = re.compile(r"^\s*(?:district|city|province|county|town|village|road|street|lake|river|mountain|airport"
                             r"|station|university|flat|apartment|house)\b", re.I)
_PLACE_BEFORE_ZH = re.compile(r"(?:在|到|去|回|从|住|来|于|是|搬|飞|省|江西|广东|四川|浙江|江苏|湖南|湖北|福建|云南|贵州|甘肃|青海)$")
_PLACE_AFTER_ZH = re.compile(r"^(?:市|省|县|区|镇|人|话|的房|那边|这边|大学|机场|站)")


def _pinyin_keys(text: str) -> set[str]:
    """The capitalised words of `text` not opening a sentence ("Gave Tangyuan to…"; and pairs of short ones, "Peng
    Hao") that read as a name in pinyin, lower-cased and run together; not a place ("in Ningbo", "Haishu district").
    An English word lower-cased ("like", "sushi") may read as pinyin too, and is none."""
    found = [(m.group().lower(), m.start(), m.end()) for m in re.finditer(r"(?<![A-Za-z])[A-Z][a-z]{3,}(?![A-Za-z])", text)
             if not _OPENS.search(text[max(0, m.start() - 8):m.start()]) and m.start() > 0]
    pairs = [m for m in _PAIR.finditer(text) if m.group(1)[:1].isupper() and m.group(2)[:1].isupper()]
    found += [((m.group(1) + m.group(2)).lower(), m.start(), m.end()) for m in pairs]
    # a pair whose words are each pinyin, a bare vowel too: "A Da" (阿大, round 50's set), "E Ming"
    spelt = {(m.group(1) + m.group(2)).lower() for m in pairs if all(
        word.lower() in _BARE or _reads_as_pinyin(word.lower()) or word.lower() in _syllables() for word in m.groups())}
    return {key for key, start, end in found if key not in _COMMON and (_reads_as_pinyin(key) or key in spelt)
            and not _PLACE_BEFORE_EN.search(text[max(0, start - 40):start]) and not _PLACE_AFTER_EN.match(text[end:end + 40])}


#: characters that write a foreign name by its sound (拉斐尔 Rafael, 艾米丽 Emily, 巴特尔 Bater, 捷达 Jetta): the
#: common ones of the transliteration tables; a run of them is read as a name only beside a capitalised word
_SOUNDS = frozenset(
    "阿埃艾爱安昂奥澳巴拜班邦保鲍贝本比彼宾波伯博布查达戴丹道德迪蒂丁东杜敦多厄恩尔法范菲斐芬丰弗福富盖甘冈戈哥格"
    "古瓜圭哈海汉豪赫亨胡华霍基吉加贾简杰捷金京久居卡凯坎康柯科克肯库夸奎拉莱赖兰朗劳勒雷蕾里丽利莉黎莲林琳玲"
    "留卢鲁路伦罗洛马玛迈麦曼梅美蒙米密敏莫姆穆纳娜奈南内尼妮涅宁纽努诺欧帕潘佩彭皮珀普齐奇恰乔切琴琼丘让瑞若"
    "萨塞桑瑟森沙莎珊什施史斯丝素苏索塔泰坦汤唐特提汀通图托瓦万旺威韦维温沃乌伍西希夏谢辛休雅亚扬耶伊依因英尤"
    "约扎詹珍朱卓兹佐黛娅娃卫可露得翰大")
#: a letter's (or two letters') sound, as the transliteration tables write it: one class for sounds they write alike
_LATIN_SOUNDS = (("ph", "f"), ("th", "d"), ("ck", "k"), ("sh", "s"), ("ch", "s"), ("qu", "k"), ("x", "ks"),
                 ("ce", "se"), ("ci", "si"), ("cy", "sy"), ("ge", "se"), ("gi", "si"), ("c", "k"), ("g", "k"),
                 ("q", "k"), ("j", "s"), ("z", "s"), ("v", "f"), ("w", "f"), ("t", "d"), ("p", "b"), ("r", "l"))
_PINYIN_SOUNDS = (("wu", "u"), ("yi", "i"), ("yu", "u"), ("zh", "s"), ("ch", "s"), ("sh", "s"), ("er", "l"), ("ng", "n"), ("j", "s"), ("q", "s"), ("x", "s"),
                  ("z", "s"), ("c", "s"), ("g", "k"), ("w", "f"), ("t", "d"), ("p", "b"), ("r", "l"))
_VOWELS = re.compile(r"[aeiouy]+")


def _skeleton(sounds: str) -> str:
    """The consonant classes of `sounds` (already mapped), vowels dropped, repeats run together."""
    return re.sub(r"(.)\1+", r"\1", _VOWELS.sub("", sounds))


def _latin_sound(word: str) -> tuple[bool, str]:
    """Whether `word` opens with a vowel, and its consonants as the tables write them ("Rafael" -> "lfl")."""
    word = word.lower()
    word = re.sub(r"(?<=[aeiou])r(?=[^aeiouy])", "", word)  # an r after a vowel before a consonant: "Mark", "Martin"
    for letters, sound in _LATIN_SOUNDS:
        word = word.replace(letters, sound)
    return word[:1] in "aeiouy", _skeleton(word)


def _pinyin_sound(run: str) -> tuple[bool, str]:
    """The same of the characters' readings ("拉斐尔" -> "lfl"); the -n of a syllable stays ("丹尼尔" -> "dnl")."""
    reading = "".join(pinyin(c) for c in run)
    for letters, sound in _PINYIN_SOUNDS:
        reading = reading.replace(letters, sound)
    return reading[:1] in "aeiouy", _skeleton(reading)


def sounds_alike(latin: str, chinese: str) -> bool:
    """Whether the Chinese characters write the Latin name by its sound: the same consonants as the tables write
    them, both opening with a vowel or neither, at least two of them; the Latin's last one may be left unwritten
    ("David" 大卫, "Oliver" 奥利弗)."""
    if not (2 <= len(chinese) <= 4 and _SOUNDS.issuperset(chinese)):
        return False
    vowel, mine = _latin_sound(latin)
    their_vowel, theirs = _pinyin_sound(chinese)
    if vowel != their_vowel or len(theirs) < 2 or not mine:
        return False
    return theirs in (mine, mine[:-1])


def shared(one: str, other: str) -> bool:
    """Whether one text names in pinyin, or by its sound, what the other writes in Chinese characters, anywhere in
    them: "Gave Tangyuan to my niece" and "家里养了一只荷兰猪，叫汤圆", "Peng Hao and I broke up" and "我男朋友叫彭浩",
    "My husband Rafael is a chef" and "我跟拉斐尔离婚了". Two to four characters, none of them grammar, read by their first
    readings; the Latin side capitalised (a name lower-cased, "peng hao", is not told from English words that read as
    pinyin: "sushi" is 宿舍 by a rarer reading of 舍), and not a place ("in Ningbo", "在西安")."""
    for latin, chinese in ((one, other), (other, one)):
        runs = re.findall(rf"[{_CJK}]+", chinese)
        if not runs:
            continue
        if _sound_shared(latin, runs):
            return True
        keys = _pinyin_keys(latin)
        if not keys:
            continue
        for run in runs:
            for size in (2, 3, 4):
                for at in range(len(run) - size + 1):
                    part = run[at:at + size]
                    # (first readings only: a rare reading turns English words into names, "rude" into 月底)
                    if not _FUNCTION.intersection(part) and pinyin(part) in keys and not (
                            _PLACE_BEFORE_ZH.search(run[:at]) or _PLACE_AFTER_ZH.match(run[at + size:])):
                        return True
    return False


def _sound_shared(latin: str, runs: list[str]) -> bool:
    """Whether a capitalised word of `latin` (not a common opening word, not a place) is written by its sound in
    one of the Chinese `runs` (not after a word for a place: "住在西安")."""
    words = [m.group() for m in re.finditer(r"(?<![A-Za-z])[A-Z][a-z]{2,}(?![A-Za-z'])", latin)
             if m.group().lower() not in _COMMON and not _PLACE_BEFORE_EN.search(latin[max(0, m.start() - 40):m.start()])
             and not _PLACE_AFTER_EN.match(latin[m.end():m.end() + 40])]
    if not words:
        return False
    for run in runs:
        for size in (4, 3, 2):
            for at in range(len(run) - size + 1):
                part = run[at:at + size]
                if _PLACE_BEFORE_ZH.search(run[:at]) or _PLACE_AFTER_ZH.match(run[at + size:]):
                    continue
                alike = [word for word in words if sounds_alike(word, part)]
                if alike and not _a_word_not_the_name(run, at, size, alike):
                    return True
    return False


def _a_word_not_the_name(run: str, at: int, size: int, latin: list[str]) -> bool:
    """Whether the characters at `at` are a word of the dictionary (pet.memory.lexicon) that means no such name, or part of
    a longer word: "马拉" of 马拉松 is not "Molly", nor "马克" of 马克杯 "Mark", nor "美丽" "Millie", nor "沙拉" "Sally" (the
    review of 2026-12-07); "拉斐尔" is the dictionary's "Raphael", and a name it does not know is a name."""
    from pet.memory import lexicon

    known = lexicon.senses()
    if not known:
        return False
    part = run[at:at + size]
    for start in range(max(0, at - lexicon.LONGEST + 1), at + 1):
        for end in range(at + size, min(len(run), start + lexicon.LONGEST) + 1):
            if (start, end) != (at, at + size) and run[start:end] in known:
                return True
    meant = known.get(part)
    if meant is None:
        return False
    sounds = {_latin_sound(word)[1] for word in latin}
    return not any(_latin_sound(sense)[1] in sounds for sense in meant)

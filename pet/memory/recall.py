"""Which memories fit a message: search terms and best matches.

English: words lose stop words, a possessive "'s" and a common ending, so
"coding" searches for "cod" and finds "code" and "codes" (the index matches
substrings). Chinese has no spaces: a run of Chinese is cut at function
words (的, 吗, 什么, 哪里…) into segments; a segment gives its two-character
pieces (names like 张伟, words like 咖啡), which the trigram index cannot
match directly, and when longer its three-character pieces, which it can.
A one-character segment (鞋, 猫) is a word too, kept for scoring. Each
longer segment is then cut into words by the rows of its pieces and by
jieba's dictionary (no guessing of unknown words: a name stays single
characters for the rows to decide): a piece that cuts through a dictionary
word (这周 and 末有 of 这/周末/有) is taken only when the memories hold it
more often than the word. Without jieba, the rows alone decide.
"""

from __future__ import annotations

import functools
import logging
import math
import re
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence, TypeVar

from pet.text import CJK_RUN

if TYPE_CHECKING:
    import jieba

T = TypeVar("T")

_WORD = re.compile(r"[A-Za-z0-9]+(?:'[A-Za-z]+)*")

EN_STOP = frozenset(
    """a about above after again against all also am an and any anyone anything anyway are aren't as at be
    because been before being below between both but by can can't cannot could couldn't did didn't do does
    doesn't doing don't done down during each either else ever every few for from further get gets got had
    hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself him himself his how
    how's i i'd i'll i'm i've if in into is isn't it it'd it'll it's its itself just let let's lets like
    likes me might more most much must my myself no nor not now of off oh ok okay on once one only or other
    ought our ours ourselves out over own please quite rather really same say said says shall she she'd
    she'll she's should shouldn't so some someone something still such than thank thanks that that's the
    their theirs them themselves then there there's these they they'd they'll they're they've thing things
    this those though through to too under until up upon us very was wasn't we we'd we'll we're we've well
    were weren't what what's whatever when when's where where's whether which while who who's whom whose
    why why's will with won't would wouldn't yes yeah yep you you'd you'll you're you've your yours yourself
    yourselves hey hi hello um uh hmm tell told know knew remember remind recall forget forgot think thought
    want wanted need make made go going come came maybe sure right kind sort lot bit question""".split()
)
#: Chinese function words and question words; a run of Chinese is cut at them
ZH_STOP = frozenset(
    """什么 怎么 怎样 怎么样 为什么 为啥 干嘛 哪里 哪儿 哪个 哪些 哪天 哪位 哪种 多少 是不是 有没有 能不能
    会不会 要不要 可不可以 我们 你们 他们 她们 它们 咱们 自己 大家 这个 那个 这些 那些 这样 那样 这么 那么
    这里 那里 这儿 那儿 一个 一下 一些 一点 一直 还是 就是 不是 可以 可能 知道 记得 记住 告诉 没有 现在
    时候 已经 因为 所以 如果 但是 然后 还有 的话 或者 而且 其实 比较 非常 特别 觉得 好像 应该 需要 请问
    问你 对了 一般 平时 东西 有点 之前 之后 以前 以后 忘了 想想 知不知道 了解""".split()
)
#: single characters that are (nearly always) function words: 的 了 吗, pronouns
ZH_STOP_CHARS = frozenset("的了吗呢吧啊呀哦嘛么呗哈嗯是在我你他她它和也很最谁啥哪几还又就给跟让把被对请个")
_ZH_STOP_LONGEST = max(len(word) for word in ZH_STOP)

#: more terms than this add noise and time, not recall
MAX_TERMS = 24
#: terms from earlier turns count for less than the new message's own
EARLIER_WEIGHT = 0.5
#: a three-character piece is one word when it holds this share of its parts' rows
WORD_SHARE = 0.5
#: what a piece that is one of the dictionary's words adds to a cut's score
DICTIONARY_BONUS = math.log(2)
#: a piece that cuts through a dictionary word must be in at least this many rows (and more than the word)
CROSSING_ROWS = 2


@dataclass(frozen=True)
class Term:
    """A substring to look for, lower-case. Three characters or more: the
    trigram index matches it; shorter ones need another way (see search.py)."""

    text: str
    weight: float = 1.0
    #: for a two-character piece of a longer run of Chinese: that run, which
    #: `resolve` later cuts into the pieces the memories actually use
    segment: str = ""
    #: for a related word (concepts.py): the term of the message it stands in for
    source: str = ""


def stem(word: str) -> str:
    """A substring shared by a word's common forms: hobbies -> hobb, living -> liv."""
    if len(word) <= 3 or not word.isalpha():
        return word
    for suffix, keep in (("ies", 3), ("ied", 3), ("ing", 3), ("ed", 3), ("ic", 4)):
        if word.endswith(suffix) and len(word) - len(suffix) >= keep:
            return word[: -len(suffix)]
    if word[-1] in "ey" and len(word) >= 5 and word[-2] not in "aeiouy":  # drive -> driv, hobby -> hobb
        return word[:-1]
    if word.endswith("es") and word[:-2].endswith(("ch", "sh", "ss", "x", "z")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _english(text: str) -> list[str]:
    terms = []
    for match in _WORD.finditer(text.replace("\u2019", "'")):
        word = match.group().casefold()
        if word.endswith("'s"):
            word = word[:-2]
        if "'" in word or len(word) < 2:
            continue
        # A stop word with a capital inside a sentence is a name: Will, May, Mark.
        if word in EN_STOP and not (match.group()[:1].isupper() and _inside_sentence(text, match.start())):
            continue
        terms.append(stem(word))
    return terms


def _inside_sentence(text: str, start: int) -> bool:
    before = text[:start].rstrip(" \t\"'(")
    return bool(before) and before[-1] not in ".!?:;\n"


_jieba: jieba.Tokenizer | None = None
_jieba_lock = threading.Lock()
_jieba_missing = False


def _dictionary() -> jieba.Tokenizer | None:
    """jieba's tokenizer on its own dictionary, built on first use (about a
    second and 60 MB) and then shared: cutting only reads it. No cache file
    is written and nothing is logged. None when jieba is not installed."""
    global _jieba, _jieba_missing
    if _jieba is None and not _jieba_missing:
        with _jieba_lock:
            if _jieba is None and not _jieba_missing:
                try:
                    import jieba
                except ImportError:
                    _jieba_missing = True
                    return None
                logging.getLogger("jieba").setLevel(logging.WARNING)
                tokenizer = jieba.Tokenizer()
                # What initialize() does, minus the cache file in the temp folder and its log lines.
                tokenizer.FREQ, tokenizer.total = tokenizer.gen_pfdict(tokenizer.get_dict_file())
                tokenizer.initialized = True
                _jieba = tokenizer
    return _jieba


def warm_in_background() -> None:
    """Build jieba's dictionary in a daemon thread (a pet that speaks Chinese:
    its first Chinese message need not wait for it)."""
    if _jieba is None and not _jieba_missing:
        threading.Thread(target=_dictionary, name="chinese-words", daemon=True).start()


@functools.lru_cache(maxsize=4096)
def dictionary_words(run: str) -> tuple[str, ...] | None:
    """A run of Chinese cut into the dictionary's words (unknown ones, names
    most often, as single characters); None without jieba."""
    tokenizer = _dictionary()
    if tokenizer is None:
        return None
    return tuple(tokenizer.cut(run, HMM=False))


def _segments(run: str) -> list[str]:
    """A run of Chinese cut at stop words and stop characters (the dictionary
    cuts each segment later: split_segment)."""
    segments: list[str] = []
    current: list[str] = []
    whole = _whole_words(run)
    i = 0
    while i < len(run):
        if i in whole:  # a word that holds a stop character: 吉他, 对象, 请假
            current.extend(run[i : whole[i]])
            i = whole[i]
            continue
        for size in range(min(_ZH_STOP_LONGEST, len(run) - i), 1, -1):
            if run[i : i + size] in ZH_STOP:
                break
        else:
            size = 1 if run[i] in ZH_STOP_CHARS else 0
        if size:
            segments.append("".join(current))
            current = []
            i += size
        else:
            current.append(run[i])
            i += 1
    segments.append("".join(current))
    return [segment for segment in segments if segment]


#: a word that opens with one is the pronoun's ("我家", "她家": the review of 2026-12-07), cut as before
_PRONOUNS = frozenset("我你他她它")


def _whole_words(run: str) -> dict[int, int]:
    """Start → end of the dictionary's words in `run` that hold a stop character and something else (吉他, 对象,
    请假, 被子): cut at the stop character they would lose their meaning ("我已经不练吉他了" asked for 吉, and a memory
    "在学吉他" was not known). Not the stop words themselves (他们, 还是), nor words of stop characters only (给我)."""
    spans: dict[int, int] = {}
    start = 0
    for word in dictionary_words(run) or ():
        if len(word) >= 2 and word not in ZH_STOP and word[0] not in _PRONOUNS and any(ch in ZH_STOP_CHARS for ch in word) and any(
                ch not in ZH_STOP_CHARS for ch in word) and not any(w in word for w in ZH_STOP if len(w) < len(word)):
            spans[start] = start + len(word)
        start += len(word)
    return spans


def _chinese(text: str) -> list[tuple[str, str]]:
    """(piece, the segment it is a piece of when that is longer)."""
    terms = []
    for run in CJK_RUN.findall(text):
        for segment in _segments(run):
            if len(segment) <= 2:
                terms.append((segment, ""))
            else:
                terms += [(segment[i : i + 2], segment) for i in range(len(segment) - 1)]
    return terms


def search_terms(text: str, earlier: Sequence[str] = ()) -> list[Term]:
    """Distinct terms of a message, then of earlier turns (newest first) at
    a lower weight; at most MAX_TERMS."""
    terms: dict[str, Term] = {}
    for weight, source in [(1.0, text), *((EARLIER_WEIGHT, e) for e in earlier)]:
        for found, segment in [*((w, "") for w in _english(source)), *_chinese(source)]:
            if found not in terms:
                terms[found] = Term(found, weight, segment)
    return list(terms.values())[:MAX_TERMS]


def split_segment(segment: str, df: Mapping[str, float]) -> list[str]:
    """Cut a run of Chinese into words the way the memories use them.

    A two-character piece scores log(2 + rows): any pair beats two lone
    characters, a common one beats a rare one. A three-character piece
    counts as one word (a name like 徐军芳) when it is in two rows or more
    and in at least WORD_SHARE of the rows of each of its two-character
    pieces; it scores for two. The cut with the highest total wins. So 朱静养 is 朱静 + 养 when
    the memories often hold 朱静 and rarely 静养: a piece straddling two
    words would match by accident, and weigh most because it is rare.

    The dictionary (jieba) speaks too: a piece that is one of its words adds
    DICTIONARY_BONUS (and a three-character one, 乌龙茶, needs no rows); one
    that cuts through a word of it (这周 of 这/周末/有) is taken only when in
    CROSSING_ROWS rows or more and in more rows than that word. So with no
    rows known (`words`) the cut is the dictionary's.
    """
    words = _spans(segment)
    best: list[tuple[float, list[str]]] = [(0.0, [])]
    for end in range(1, len(segment) + 1):
        score, pieces = best[end - 1]
        choice = (score, [*pieces, segment[end - 1]])
        for size in (2, 3):
            if end < size:
                continue
            piece = segment[end - size : end]
            rows = df.get(piece, 0.0)
            parts = max(df.get(piece[:2], 0.0), df.get(piece[1:], 0.0))
            known = (end - size, end, piece) in words
            if size == 3 and not known and rows < max(2.0, WORD_SHARE * parts):
                continue
            crossed = [word for start, stop, word in words if start < end and end - size < stop
                       and not (start <= end - size and end <= stop) and not (end - size <= start and stop <= end)]
            if any(rows < CROSSING_ROWS or rows <= df.get(word, 0.0) for word in crossed):
                continue  # 这周 of 这周末: the memories do not say so often enough
            bonus = DICTIONARY_BONUS if known else 0.0
            gain = best[end - size][0] + (size - 1) * math.log(2 + rows) + bonus
            if gain > choice[0]:
                choice = (gain, [*best[end - size][1], piece])
        best.append(choice)
    return best[-1][1]


def _spans(segment: str) -> list[tuple[int, int, str]]:
    """(start, end, word): the dictionary's words of two characters or more in a segment."""
    spans = []
    start = 0
    for word in dictionary_words(segment) or ():
        if len(word) >= 2:
            spans.append((start, start + len(word), word))
        start += len(word)
    return spans


def words(text: str) -> list[str]:
    """The words of a message as search cuts them before it knows the
    memories: English terms (stemmed), Chinese words by the dictionary."""
    found: dict[str, None] = {}
    for term in search_terms(text):
        if term.segment:
            found.update(dict.fromkeys(split_segment(term.segment, {})))
        else:
            found[term.text] = None
    return list(found)


#: words that ask for everything rather than name a topic ("what do you know about me?")
_GENERAL = frozenset(
    """everything anything all stuff things thing about know remember recall me myself life so far yet already
    learned learnt tell say
    一切 所有 全部 事 事情 东西 了解 关于 哪些 多少 自己 情况 信息 资料 都 些 一些 一点 还 目前 为止 到
    说说 说说看 讲讲 讲讲看 聊聊 告诉 看看""".split()
)
_GENERAL_TERMS = _GENERAL | {stem(word) for word in _GENERAL}


def about_the_person(text: str) -> bool:
    """Whether a question about memories asks what the pet knows of the
    person in general ("me", "what do you know about me?", "你记得我什么"),
    not about a topic: no word of it names one."""
    return all(word in _GENERAL_TERMS for word in words(text))


def segment_pieces(terms: Sequence[Term]) -> list[str]:
    """The two- and three-character pieces of the longer Chinese segments,
    whose rows `split_segment` needs."""
    pieces = {}
    for segment in dict.fromkeys(t.segment for t in terms if t.segment):
        for size in (2, 3):
            pieces.update(dict.fromkeys(segment[i : i + size] for i in range(len(segment) - size + 1)))
    return list(pieces)


def resolve(terms: Sequence[Term], df: Mapping[str, float]) -> list[Term]:
    """Replace the pieces of each longer Chinese segment by its cut
    (`split_segment`) and the whole segment, which rewards a memory that
    holds it word for word (咖啡加奶 over 咖啡要加奶)."""
    resolved: dict[str, Term] = {}
    done: set[str] = set()
    for term in terms:
        if not term.segment:
            resolved.setdefault(term.text, term)
        elif term.segment not in done:
            done.add(term.segment)
            for piece in [*split_segment(term.segment, df), term.segment]:
                resolved.setdefault(piece, Term(piece, term.weight))
    return list(resolved.values())


def query_terms(text: str, limit: int = 16) -> list[str]:
    """Distinct search terms from a message, in order of appearance."""
    return [term.text for term in search_terms(text)][:limit]


def score(content: str, terms: list[str]) -> int:
    lowered = content.lower()
    return sum(1 for term in terms if term in lowered)


_NORMALISE = re.compile(r"[\s\W_]+", re.UNICODE)


def memory_key(content: str) -> str:
    """The same fact written twice (case, spaces, punctuation aside) has one key."""
    return _NORMALISE.sub(" ", content.casefold()).strip()[:500]


_ID = re.compile(
    r"^\s*(?:#|id\s*[:=]?\s*|(?:memory|reminder)\s*#?\s*|第)?\s*(\d+)\s*(?:条|号|个)?\s*(?:记忆|提醒)?\s*$",
    re.IGNORECASE,
)


#: more digits than any id has; int() itself refuses a few thousand
_LONGEST_ID = 100


def read_id(text: str) -> int | None:
    """An id as people write one: "#3", "id 3", "memory #3", "第3条", "3号",
    in any script's digits ("#３", "#٣"). The number may be past any stored
    id (the stores answer "no such" to that); a run of digits too long to be
    a number at all is not an id."""
    match = _ID.match(text)
    if match is None or len(match.group(1)) > _LONGEST_ID:
        return None
    return int(match.group(1))


def best_matches(text: str, items: Iterable[tuple[T, str]]) -> list[T]:
    """The items whose text shares the most terms with `text`, in the given
    order; empty when none shares any. More than one means a tie."""
    terms = query_terms(text)
    scored = [(score(content, terms), item) for item, content in items]
    top = max((s for s, _ in scored), default=0)
    return [item for s, item in scored if s == top] if top else []

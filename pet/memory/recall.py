"""Which memories fit a message: query terms and a simple ranking.

Chinese has no spaces, so CJK runs become overlapping two-character terms;
English keeps words of three letters or more that are not stop words.
"""

from __future__ import annotations

import re
from typing import Iterable, TypeVar

T = TypeVar("T")

_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]{2,}|\d+(?:[.:]\d+)?")
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")

EN_STOP = frozenset(
    """the and for are but not you your yours with this that these those have has had was were will would
    can could should what when where which who whom why how all any some about from into onto over under
    than then them they their there here its it's i'm i've you're don't does did doing done just very
    really also been being more most much many such only own same too again once please tell know
    remember recall forget think like want need make made get got say said let lets okay yes yeah""".split()
)
ZH_STOP = frozenset(
    """我们 你们 他们 她们 什么 怎么 为什么 这个 那个 这些 那些 一个 一下 还是 就是 不是 可以 知道 记得 记住
    告诉 一些 没有 现在 时候 已经 因为 所以 如果 但是 然后 还有 的话 吗吗 了吗 是不""".split()
)


def query_terms(text: str, limit: int = 16) -> list[str]:
    """Distinct search terms from a message, in order of appearance."""
    terms: list[str] = []
    for word in _WORD.findall(text):
        word = word.lower().strip("'-")
        if word not in EN_STOP and len(word) >= 2:
            terms.append(word)
    for run in _CJK_RUN.findall(text):
        if len(run) == 1:
            continue
        for i in range(len(run) - 1):
            pair = run[i : i + 2]
            if pair not in ZH_STOP and not (pair[0] in "的了吗呢吧啊" or pair[1] in "的了吗呢吧啊"):
                terms.append(pair)
    return list(dict.fromkeys(terms))[:limit]


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


def read_id(text: str) -> int | None:
    """An id as people write one: "#3", "id 3", "memory #3", "第3条", "3号"."""
    match = _ID.match(text)
    return int(match.group(1)) if match else None


def best_matches(text: str, items: Iterable[tuple[T, str]]) -> list[T]:
    """The items whose text shares the most terms with `text`, in the given
    order; empty when none shares any. More than one means a tie."""
    terms = query_terms(text)
    scored = [(score(content, terms), item) for item, content in items]
    top = max((s for s, _ in scored), default=0)
    return [item for s, item in scored if s == top] if top else []

"""History compression that keeps numbers and names.

When the earlier messages of a conversation outgrow their budget, the oldest
are folded into a running summary. The model writes it; code checks that
every must-keep item of the folded text (see `must_keep`) is in it verbatim,
asks once more naming what was dropped, and otherwise builds an extractive
summary itself. Pure logic: the store and the model are passed in.
"""

from __future__ import annotations

import logging
import re
import threading
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, NamedTuple, Protocol, Sequence

from pet.brain.base import aside
from pet.errors import BrainError
from pet.events import Message, StoredMessage
from pet.text import CJK, ZH_DIGITS, ZH_NUMERAL, estimate_tokens

if TYPE_CHECKING:
    from pet.brain.base import ChatModel

log = logging.getLogger(__name__)

#: how long a summary may be (estimated tokens) before the extractive
#: summary falls back to shorter pieces; about a fifth of the default
#: history budget, so folding really shrinks the context
SUMMARY_TOKENS = 400
#: room for the model's answer beyond SUMMARY_TOKENS (a bullet or two)
REPLY_SLACK_TOKENS = 100
#: per-message overhead in the token estimate (role markers)
MESSAGE_OVERHEAD_TOKENS = 4
#: quoted terms longer than this are quotations, not names; their contents
#: are scanned by the other rules instead
MAX_QUOTED_CHARS = 20
#: the first sentence of a request kept as "what the person asked"
MAX_ASK_CHARS = 100


def message_tokens(message: Message) -> int:
    return estimate_tokens(message.content) + MESSAGE_OVERHEAD_TOKENS


# --- what must survive ------------------------------------------------------------

_MASK = "\x00"

_LIST_MARKER = re.compile(r"^[ \t]*\d{1,2}[.)、][ \t]", re.MULTILINE)
_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_CODE = re.compile(r"`([^`\n]+)`")
_URL = re.compile(r"https?://[^\s<>\"'`）)\]」》]+[^\s<>\"'`）)\]」》.,;:!?。，；：！？]")
_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
_QUOTED = re.compile(
    rf"“([^”\n]{{1,{MAX_QUOTED_CHARS}}})”|「([^」\n]{{1,{MAX_QUOTED_CHARS}}})」"
    rf"|『([^』\n]{{1,{MAX_QUOTED_CHARS}}})』|《([^》\n]{{1,{MAX_QUOTED_CHARS}}})》"
    rf"|\"([^\"\n]{{1,{MAX_QUOTED_CHARS}}})\""
)

_MONTH = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|December"
    r"|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?"
)
_ZH_YEAR = rf"(?:\d{{4}}|[{ZH_DIGITS}]{{4}})年"
_ZH_MONTH = r"(?:1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九])月"
_ZH_DAY = r"(?:3[01]|[12]\d|0?[1-9]|三十一?|二?十[一二三四五六七八九]?|[一二三四五六七八九])[日号]"
_DATES = [
    re.compile(r"(?<!\d)\d{4}[-/.]\d{1,2}[-/.]\d{1,2}(?!\d)"),
    re.compile(rf"(?<![\d{ZH_DIGITS}十]){_ZH_YEAR}(?:{_ZH_MONTH}(?:{_ZH_DAY})?)?"),
    re.compile(rf"(?<![\d{ZH_DIGITS}十]){_ZH_MONTH}(?:{_ZH_DAY})?"),
    re.compile(rf"(?<![\d{ZH_DIGITS}十]){_ZH_DAY}"),
    re.compile(rf"\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?(?![\w:])"),
    re.compile(rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}(?:,?\s+\d{{4}})?(?![\w:])"),
    re.compile(rf"\b{_MONTH}\s+\d{{4}}\b"),
    re.compile(r"\b(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)\b"),
    re.compile(r"(?:下个?|上个?|这个?|本)?(?:星期|礼拜)[一二三四五六日天]"),
    # "一周一次" is once a week, not Monday
    re.compile(r"(?:下个?|上个?|这个?|本)?(?<![一二三四五六七八九十两几])周[一二三四五六日天](?![次个遍回])"),
]

_AM_PM = r"(?i:[ap]m(?![A-Za-z])|[ap]\.m\.)"
_ZH_PERIOD = r"(?:凌晨|早上|早晨|上午|中午|下午|傍晚|晚上|今晚|明早|明晚|半夜|夜里)"
_ZH_MINUTES = rf"(?:半|一刻|三刻|整|钟|\d{{1,2}}分?|{ZH_NUMERAL}{{1,3}}分)"
_TIMES = [
    re.compile(rf"(?<![\d:])\d{{1,2}}:\d{{2}}(?::\d{{2}})?(?:\s?{_AM_PM})?(?![\d:])"),
    re.compile(rf"(?<![\d.:])\d{{1,2}}(?:\.\d{{2}})?\s?{_AM_PM}"),
    re.compile(rf"{_ZH_PERIOD}(?:\d{{1,2}}|{ZH_NUMERAL}{{1,3}})[点时](?:{_ZH_MINUTES})?"),
    re.compile(rf"(?<!\d)\d{{1,2}}[点时](?:{_ZH_MINUTES})?"),
    re.compile(rf"(?<!{ZH_NUMERAL}){ZH_NUMERAL}{{1,3}}点{_ZH_MINUTES}"),
]

_NUM = r"(?<![A-Za-z0-9.])\d+(?:[.,]\d+)*"
_EN_UNITS = sorted(
    """% percent kg kgs mg km cm mm mi miles mile ft feet lb lbs ml mL L h hr hrs hour hours min mins
    minute minutes sec secs second seconds day days week weeks month months year years yr yrs °C °F °
    GB MB KB TB GHz MHz kcal cal yuan dollars dollar euros euro RMB USD CNY EUR times people pages page
    steps items g m""".split(),
    key=len,
    reverse=True,
)
_ZH_UNITS = sorted(
    """个月 个小时 小时 分钟 公斤 公里 千克 毫升 厘米 毫米 块钱 美元 欧元 英镑 人民币 元 块 岁 斤 克 米 升 个 只
    本 次 天 周 年 页 杯 瓶 张 份 位 件 条 层 楼 度 倍 遍 分 秒""".split(),
    key=len,
    reverse=True,
)
_EN_UNIT = "|".join(re.escape(u) for u in _EN_UNITS)
_ZH_UNIT = "|".join(_ZH_UNITS)
_QUANTITIES = [
    re.compile(r"[$¥€£￥]\s?\d+(?:[.,]\d+)*"),
    re.compile(rf"{_NUM}\s?(?:{_EN_UNIT})(?![A-Za-z])"),
    re.compile(rf"{_NUM}\s?(?:{_ZH_UNIT})"),
    # Chinese numerals count only with a unit; a lone 一 ("一个", "一次") means "a"
    re.compile(rf"(?<!{ZH_NUMERAL})(?!一(?:{_ZH_UNIT}))(?!半){ZH_NUMERAL}+(?:{_ZH_UNIT})"),
]
_IDS = [
    re.compile(r"#[A-Za-z0-9][A-Za-z0-9_-]*"),
    re.compile(
        r"(?<![A-Za-z0-9_.-])(?=[A-Za-z0-9_.-]*\d)(?=[A-Za-z0-9_.-]*[A-Za-z])[A-Za-z0-9]+(?:[-_.][A-Za-z0-9]+)*"
    ),
]

_ZH_NAME_CUE = re.compile(r"(?:名叫|叫做|名字是|名字叫|名为|昵称是|外号是|称呼|(?<![大喊尖吼])叫(?![我你他她它醒做声]))")
_ZH_NAME_RUN = re.compile(f"[{CJK}]{{2,}}")
_ZH_NAME_STOPS = ("明天", "今天", "昨天", "后天", "的", "了", "是", "在", "和", "跟", "与", "也", "就", "都", "吗", "呢", "吧", "啊", "呀")
_ZH_SURNAME = re.compile(
    rf"(?<!百)姓(?![名氏])(欧阳|司马|诸葛|上官|慕容|东方|皇甫|令狐|司徒|尉迟|公孙|夏侯|长孙|宇文|[{CJK}])"
)

_WORD = re.compile(r"[A-Za-z]+(?:['’-][A-Za-z]+)*")
_NOT_NAMES = frozenset("I I'm I'd I'll I've I’m I’d I’ll I’ve OK Ok".split())
_LEADING_WORDS = frozenset(
    """A An The And But Or So Yes No Hi Hello Hey Dear Oh Well Thanks Thank Please Sure Okay Also Then
    When What Where Why How Who My Your Our His Her Their This That These Those It Its We You He She They
    Let Just Maybe Today Tomorrow Yesterday""".split()
)
_ABBREVIATIONS = frozenset("Mr Mrs Ms Dr Prof St Jr Sr vs etc".split())
_SENTENCE_END = ".!?。！？…:：;；"
_TRANSPARENT = " \t\"'“‘（(「『[*•-"

_NUMBER = re.compile(r"(?<![A-Za-z0-9])\d+(?:[.,:/-]\d+)*")


def _take(pattern: re.Pattern[str], text: str, items: list[str], group: bool = False) -> str:
    """Add every match (or its first non-empty group) to items; mask the match."""

    def mask(match: re.Match[str]) -> str:
        found = next((g for g in match.groups() if g), "") if group else match.group(0)
        found = " ".join(found.split())
        if found:
            items.append(found)
        return _MASK * len(match.group(0))

    return pattern.sub(mask, text)


def _zh_names(text: str, items: list[str]) -> None:
    for cue in _ZH_NAME_CUE.finditer(text):
        run = _ZH_NAME_RUN.match(text, cue.end())
        if run is None:
            continue
        name = run.group(0)
        cut = next((i for i in range(1, len(name)) if name.startswith(_ZH_NAME_STOPS, i)), None)
        if cut is not None:
            name = name[:cut]
        elif len(name) > 4:
            name = name[:3]
        if len(name) >= 2:
            items.append(name)
    items.extend(match.group(1) for match in _ZH_SURNAME.finditer(text))


def _at_sentence_start(text: str, start: int) -> bool:
    i = start - 1
    while i >= 0 and text[i] in _TRANSPARENT:
        i -= 1
    if i < 0 or text[i] == "\n":
        return True
    if text[i] not in _SENTENCE_END:
        return False
    if text[i] == ".":
        before = re.search(r"([A-Za-z]+)$", text[:i])
        if before and before.group(1) in _ABBREVIATIONS:
            return False
    return True


def _en_names(text: str, items: list[str]) -> None:
    """Runs of capitalised words (one space apart), less a first word at the
    start of a sentence ("Meeting Alice Chen" gives "Alice Chen"). Camel-case
    words (iPhone, macOS) count anywhere."""
    group: list[re.Match[str]] = []

    def close() -> None:
        words = [m.group(0) for m in group]
        if _at_sentence_start(text, group[0].start()):
            words = words[1:]
        while words and words[0] in _LEADING_WORDS:
            words = words[1:]
        if words:
            words[-1] = re.sub(r"['’]s$", "", words[-1])
            items.append(" ".join(words))
        group.clear()

    for match in _WORD.finditer(text):
        word = match.group(0)
        capital = word[0].isupper() and word not in _NOT_NAMES
        if not capital and any(c.isupper() for c in word[1:]) and word[0].islower():
            items.append(word)  # camel case
        if group and (not capital or text[group[-1].end() : match.start()] != " "):
            close()
        if capital:
            group.append(match)
    if group:
        close()


def must_keep(text: str) -> set[str]:
    """The items a summary of `text` must contain verbatim.

    Rules, applied in this order; each match is masked so later rules do not
    take pieces of it:

    - list markers at a line start ("1. ", "2) ") are ignored;
      fenced ```code blocks``` are skipped (too long to copy);
    - code spans: the text inside `backticks`;
    - URLs and e-mail addresses;
    - quoted terms of at most 20 characters: “…” 「…」 『…』 《…》 "…";
    - dates: 2026-03-05, 2026/3/5, 2026年3月5日, 3月5日, 三月五号, 3月, 5号,
      March 5, 5th of March, March 2026, weekday names, 周三, 星期三, 下周五;
    - times: 9:30, 09:30:15, 9:30 pm, 11pm, 9 a.m., 下午三点, 晚上8点半,
      3点15分, 15时, 三点半 (a bare 三点 is not a time: "三点建议");
    - quantities: $12, ¥30, 15%, 5 kg, 3 hours, 42元, 3个月, 两只, 三次
      (Chinese numerals only with a unit, and not a lone 一: 一个 means "a");
    - ids: #12, #abc-1, and codes mixing letters and digits (A-12345, qwen2.5, v2);
    - Chinese names after 叫/名叫/叫做/名字是/昵称是… (two to four characters,
      cut before 的/了/是/在/明天…) and surnames after 姓;
    - English names: capitalised words not at the start of a sentence (after
      . ! ? : ; or a line start, not after Mr./Dr.), joined when adjacent
      ("Alice Chen"); leading function words (The, Hi, Dear…) and a
      possessive 's are dropped; "I" and "OK" are not names; camel-case
      words (iPhone) count anywhere;
    - every other number: 42, 3.5, 1,000, 138-1234-5678, 3/5.

    Bare Chinese numerals, relative days (today, 明天) and lower-case words
    are not kept. An item inside another item is dropped as redundant.
    """
    items: list[str] = []
    text = _LIST_MARKER.sub(lambda m: " " * len(m.group(0)), text)  # the line still starts a sentence
    text = _FENCE.sub(lambda m: _MASK * len(m.group(0)), text)
    text = _take(_CODE, text, items, group=True)
    for pattern in (_URL, _EMAIL):
        text = _take(pattern, text, items)
    text = _take(_QUOTED, text, items, group=True)
    for pattern in (*_DATES, *_TIMES, *_QUANTITIES, *_IDS):
        text = _take(pattern, text, items)
    _zh_names(text, items)
    _en_names(text, items)
    text = _take(_NUMBER, text, items)
    found = {item.strip() for item in items if item.strip()}
    return {item for item in found if not any(other != item and contains(other, item) for other in found)}


def contains(text: str, item: str) -> bool:
    """Whether `item` is in `text` verbatim (a space inside the item may be
    missing: "5kg" keeps "5 kg"), and not as part of a longer word or number
    ("12" is not in "123" nor in "12.5")."""
    parts = item.split()
    if not parts or parts[0] not in text:  # the cheap test first: most items are absent
        return False
    pattern = r"\s*".join(re.escape(part) for part in parts)
    if item[:1].isascii() and item[:1].isalnum():
        pattern = r"(?<![A-Za-z0-9])" + (r"(?<!\d[.,:/-])" if item[0].isdigit() else "") + pattern
    if item[-1:].isascii() and item[-1:].isalnum():
        pattern += r"(?![A-Za-z0-9])" + (r"(?![.,:/-]\d)" if item[-1].isdigit() else "")
    return re.search(pattern, text) is not None


def missing(summary: str, turns_text: str) -> list[str]:
    """The must-keep items of `turns_text` not verbatim in `summary`, in the
    order they first appear."""
    lost = [item for item in must_keep(turns_text) if not contains(summary, item)]
    return sorted(lost, key=lambda item: (_position(turns_text, item), item))


def _position(text: str, item: str) -> int:
    at = text.find(item)
    return at if at >= 0 else len(text)


# --- the extractive summary ------------------------------------------------------

#: (a point between digits ends nothing: "小费是12.96元" was cut to "96元", found by the review of 2026-12-07)
_SENTENCE = re.compile(r"(?:[^\n.!?。！？…]|(?<=\d)\.(?=\d))+(?:[.!?。！？…]+|$)", re.MULTILINE)
_CLAUSE = re.compile(r"(?:[^\n.!?。！？…,;，；、]|(?<=\d)[.,](?=\d))+(?:[.!?。！？…,;，；、]+|$)", re.MULTILINE)
_LABELS = {"user": "Person", "assistant": "Pet"}


def _pieces(text: str, pattern: re.Pattern[str]) -> list[str]:
    return [p.strip() for p in pattern.findall(text) if p.strip()]


def source_text(turns: Sequence[Message], previous: str = "") -> str:
    """What a summary of these turns answers to: the previous summary and the
    turns' words, one message per line; of the pet's replies, not what they
    quote. A small model quotes the person's words back garbled, and each
    quoted piece became an item every summary had to keep ("今天好累啊，加班到9点；
    我咬了指甲！怎么？" as the reply to "我妈今天给我打电话了", said from the summary's
    "Also: 今天好累啊，加班到九点; 我咬了指甲！怎么？", seen on the page; a model's summary
    that left one out was refused); the figures and names the pet's replies
    give (a sum's result, a recalled name, a reminder's hour) stay items."""
    said = [m.content.strip() if m.role == "user" else _QUOTED.sub(" ", m.content).strip() for m in turns]
    return "\n".join([previous.strip(), *said]).strip()


def _points(entries: list[tuple[str, str, str]], items: set[str], pattern: re.Pattern[str], asks: bool) -> str:
    lines = []
    for label, role, text in entries:
        if asks and role == "summary":
            lines.append(f"- {text}")  # already a point
            continue
        pieces = _pieces(text, pattern)
        chosen = [p for p in pieces if any(contains(p, item) for item in items)]
        if asks and role == "user" and pieces:
            # what the person asked: their first question, else their first sentence
            ask = next((p for p in pieces if p.endswith(("?", "？"))), pieces[0])
            if ask not in chosen:
                chosen.insert(0, ask if len(ask) <= MAX_ASK_CHARS else ask[:MAX_ASK_CHARS] + "…")
        if chosen:
            lines.append(f"- {label}: {' '.join(chosen)}" if label else f"- {' '.join(chosen)}")
    return "\n".join(lines)


def _with_all(text: str, source: str) -> str:
    """Append any item the pieces did not carry (one split across pieces)."""
    lost = missing(text, source)
    if not lost:
        return text
    return (text + "\n" if text else "") + f"- Also: {'; '.join(lost)}"


def extractive_summary(turns: Sequence[Message], previous: str = "", max_tokens: int = SUMMARY_TOKENS) -> str:
    """A summary built in code, as points: the previous summary's points, and
    the sentences of the turns that hold a must-keep item plus what the person
    asked (their first question, else first sentence). If that is longer than
    `max_tokens`, only the clauses holding items; then only the items. Every
    must-keep item of the previous summary and the turns is kept even when
    that exceeds `max_tokens`."""
    source = source_text(turns, previous)
    items = must_keep(source)
    old = [line.strip().lstrip("-•* ").strip() for line in previous.splitlines() if line.strip()]
    entries = [("", "summary", line) for line in old]
    entries += [(_LABELS.get(m.role, m.role), m.role, m.content) for m in turns if m.content.strip()]
    for pattern, asks in ((_SENTENCE, True), (_CLAUSE, False)):
        text = _with_all(_points(entries, items, pattern, asks), source)
        if estimate_tokens(text) <= max_tokens:
            return text
    ordered = sorted(items, key=lambda item: (_position(source, item), item))
    return f"- Facts: {'; '.join(ordered)}" if ordered else ""


# --- asking the model ------------------------------------------------------------

SUMMARY_INSTRUCTIONS = (
    "You compress part of a chat between a person and their pet into short points for the pet's memory. "
    "Write a few lines, each starting with \"- \": what the person asked, what was done, and the facts. "
    "Copy every number, date, time, name, id and `code` exactly as written: same digits, same spelling. "
    "Keep the earlier points that still matter. Write only the points. Do not call tools."
)
RETRY_NOTE = (
    "Your points dropped these items. Write all the points again so that each of them appears exactly "
    "as written here:\n{items}"
)


@dataclass(frozen=True)
class Summary:
    text: str
    #: "model" (checked against the turns) or "extractive" (built in code)
    method: str


def _transcript(turns: Sequence[Message], previous: str) -> str:
    parts = []
    if previous.strip():
        parts.append("Earlier points:\n" + previous.strip())
    lines = [f"{_LABELS.get(m.role, m.role)}: {m.content.strip()}" for m in turns if m.content.strip()]
    parts.append("Messages to compress:\n" + "\n".join(lines))
    return "\n\n".join(parts)


def _usable(text: str, source: str, max_tokens: int) -> bool:
    """An answer worth checking: some words, no tool call, not longer than
    what it compresses."""
    stripped = text.lstrip()
    if not re.search(f"[A-Za-z{CJK}]", text) or stripped.startswith(("{", "[", "<tool_call>", "```json")):
        return False
    return estimate_tokens(text) <= max(max_tokens, estimate_tokens(source))


def summarize(
    model: ChatModel,
    turns: Sequence[Message],
    *,
    previous: str = "",
    max_tokens: int = SUMMARY_TOKENS,
) -> Summary:
    """Compress `turns` (and the `previous` summary) into points. The model
    writes them; if it drops a must-keep item it is told which and asked once
    more; if it drops one again, fails, or answers with nothing usable, the
    extractive summary is returned instead."""
    # its prompt starts unlike the conversation's: a prefix cache keeps the latter
    with aside(model):
        return _summarize(model, turns, previous, max_tokens)


def _summarize(model: ChatModel, turns: Sequence[Message], previous: str, max_tokens: int) -> Summary:
    source = source_text(turns, previous)
    messages = [Message("system", SUMMARY_INSTRUCTIONS), Message("user", _transcript(turns, previous))]
    for attempt in range(2):
        try:
            completion = model.complete(messages, (), max_tokens=max_tokens + REPLY_SLACK_TOKENS, temperature=0.0)
        except BrainError as exc:
            log.warning("summary: the model failed (%s); using the extractive summary", exc)
            break
        text = completion.text.strip()
        if completion.tool_calls or not _usable(text, source, max_tokens):
            log.info("summary: unusable answer from the model; using the extractive summary")
            break
        lost = missing(text, source)
        if not lost:
            return Summary(text, "model")
        # the items are the person's words: counted in the log, never quoted
        log.info("summary attempt %d dropped %d must-keep items", attempt + 1, len(lost))
        messages += [
            Message("assistant", text),
            Message("user", RETRY_NOTE.format(items="\n".join(f"- {item}" for item in lost))),
        ]
    return Summary(extractive_summary(turns, previous, max_tokens), "extractive")


# --- folding a conversation --------------------------------------------------------


@dataclass(frozen=True)
class SummaryRecord:
    id: int
    conversation_id: int
    #: the last message folded into this summary
    through_message_id: int
    content: str
    method: str
    created_at: datetime | None = None


class SummaryKeeper(Protocol):
    def latest(self, conversation_id: int) -> SummaryRecord | None: ...
    def save(self, conversation_id: int, through_message_id: int, content: str, method: str) -> SummaryRecord: ...


class Condensed(NamedTuple):
    """The earlier part of a conversation as the context shows it."""

    summary: str  # "" when nothing has been folded yet
    recent: list[StoredMessage]


#: how many times its budgets a conversation's unfolded messages may take while the fold waits for a
#: pause: of messages, and of tokens (the embedded brain's budget is a quarter of its window, its stable
#: prompt about half: 1.5 times it still leaves the reply its room)
OVERFLOW_MESSAGES, OVERFLOW_TOKENS = 2, 1.5


class HistorySummarizer:
    """Keeps the earlier messages of a conversation within a budget by folding
    the oldest into the running summary.

    Folding starts when the messages not yet summarized exceed `budget_tokens`
    or `max_messages`, and then folds down to half of each, so the next
    summary call comes only after as much again has been said (not on every
    turn). The newest message is never folded.
    """

    def __init__(self, model: ChatModel, store: SummaryKeeper, *, budget_tokens: int, max_messages: int):
        self.model = model
        self.store = store
        self.budget_tokens = budget_tokens
        self.max_messages = max_messages
        self._due: set[int] = set()
        self._due_lock = threading.Lock()

    def take_due(self, conversation_id: int) -> bool:
        """Whether a condense without folding found this conversation's fold
        due since the last call (the agent then folds after the reply)."""
        with self._due_lock:
            if conversation_id in self._due:
                self._due.discard(conversation_id)
                return True
            return False

    def may_wait(self, earlier: Sequence[StoredMessage]) -> bool:
        """Whether `earlier`, the messages not yet folded, fit within
        OVERFLOW_* times the budgets: a turn before the fold then shows them whole."""
        return self._fits(earlier, int(OVERFLOW_TOKENS * self.budget_tokens), OVERFLOW_MESSAGES * self.max_messages)

    def _fits(self, messages: Sequence[StoredMessage], tokens: int, count: int) -> bool:
        return len(messages) <= count and sum(message_tokens(m.message) for m in messages) <= tokens

    def fold(self, conversation_id: int, earlier: Sequence[StoredMessage]) -> str | None:
        """Fold what of `earlier` no longer fits into the stored summary now.
        Returns how that summary was made ("model" or "extractive"), or None
        when nothing needed folding."""
        before = self.folded_through(conversation_id)
        self.condense(conversation_id, earlier)
        latest = self.store.latest(conversation_id)
        return latest.method if latest is not None and latest.through_message_id != before else None

    def folded_through(self, conversation_id: int) -> int:
        """The id of the last message already in the summary (0: none)."""
        latest = self.store.latest(conversation_id)
        return latest.through_message_id if latest else 0

    def condense(self, conversation_id: int, earlier: Sequence[StoredMessage], *, fold: bool = True,
                 store: bool = True) -> Condensed:
        """`earlier`: the conversation's messages that the context would show,
        oldest first (folded ones are skipped by id). Without `fold` nothing
        is asked of the model: the messages are shown whole while they fit
        within OVERFLOW_* times the budgets, and the fold is marked due (a
        turn that came before the fold: its prompt starts as the last turn's
        did, which a brain caching the prefix need not read again); past
        that, the ones that would be folded are summarised in code and that
        summary is stored (without `store`: a read-ahead outside the
        conversation's lock shows it and stores nothing, and the turn then
        stores the same text)."""
        latest = self.store.latest(conversation_id)
        previous = latest.content if latest else ""
        pending = [m for m in earlier if latest is None or m.id > latest.through_message_id]
        if self._fits(pending, self.budget_tokens, self.max_messages):
            return Condensed(previous, pending)
        keep = 1
        while keep < len(pending) and self._fits(
            pending[-(keep + 1) :], self.budget_tokens // 2, max(1, self.max_messages // 2)
        ):
            keep += 1
        folded, recent = pending[:-keep], pending[-keep:]
        if not folded:
            return Condensed(previous, recent)
        if not fold:
            if self.may_wait(pending):
                with self._due_lock:
                    self._due.add(conversation_id)
                return Condensed(previous, pending)
            # The fold gave way to turns until the messages no longer fit: the summary made in code is
            # stored, so the turns after this one start as it does (a summary made afresh each turn
            # changed the prompt's start each time, and a brain caching the prefix read it all again:
            # 14 s and 23 s to the first token of two quick turns, seen on the page)
            text = extractive_summary([m.message for m in folded], previous, SUMMARY_TOKENS)
            if not store:
                return Condensed(text, recent)
            self.store.save(conversation_id, folded[-1].id, text, "extractive")
            log.info("folded %d messages of conversation %d into the summary in code (the fold had given way)",
                     len(folded), conversation_id)
            return Condensed(text, recent)
        summary = summarize(self.model, [m.message for m in folded], previous=previous)
        self.store.save(conversation_id, folded[-1].id, summary.text, summary.method)
        log.info(
            "folded %d messages of conversation %d into the summary (%s)", len(folded), conversation_id, summary.method
        )
        return Condensed(summary.text, recent)

"""Arithmetic said in words, read whole into an expression the calculator
takes, or a question back when it cannot be read whole. Never part of it.

- "1250 divided by 5, plus 12" is (1250 / 5) + 12: a comma, "then", "再" or
  "然后" before an operator applies it to everything said so far.
- Chinese numerals are read where they are operands: 三百六十五乘以二 is
  365*2, 一千二百五十除以五再加十二 is (1250/5)+12; and so are English number
  words: "twelve times fifteen" is 12*15, "seven hundred and twenty minus
  three hundred eighty-five" is 720-385.
- A short label before a colon ("quick math: 2048 divided by 64?") is no
  part of the sum.
- A simple word problem ("I had 20 apples and ate 3, how many left?",
  "我有二十个苹果，吃了三个，还剩几个？") adds and subtracts when every number
  has a verb this reader knows; anything else about it is a question.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal
from typing import Callable

from pet.text import ZH_DIGITS, ZH_NUMERAL, detect_language, zh_int

_I = re.IGNORECASE


@dataclass(frozen=True)
class Reading:
    """What a message asks to compute: an expression for the calculator, or
    (when it cannot be read whole) a question for the person."""

    expression: str = ""
    question: str = ""


_NUM = r"[0-9０-９]+(?:[.．][0-9０-９]+)?"
_OP = r"[-+*/×÷xX^＋－＊／%]"
_EXPR = rf"[-(（]*\s*{_NUM}(?:\s*[)）]*\s*{_OP}\s*[(（]*\s*{_NUM})+\s*[)）]*"
_CALC = [
    re.compile(rf"^(?:what(?:'s| is)|whats|wats|calculate|compute|how much is|work out)\s+(?P<e>{_EXPR})\s*=?\s*[?？]?$", _I),
    re.compile(rf"^(?P<e>{_EXPR})\s*=?\s*[?？]?$"),
    re.compile(rf"^(?:计算|算一下|算下|算算|帮我算(?:一下|下)?)?[：:]?\s*(?P<e>{_EXPR})\s*(?:等于|是|=)?\s*(?:多少|几)?[？?]?$"),
]
_ZH_OPS = [("乘以", "*"), ("除以", "/"), ("加上", "+"), ("减去", "-"), ("加", "+"), ("减", "-"), ("乘", "*")]
_EN_VERB_OPS = [
    (re.compile(rf"^divide (?P<a>{_NUM}) by (?P<b>{_NUM})$", _I), "{a} / {b}"),
    (re.compile(rf"^multiply (?P<a>{_NUM}) (?:by|and) (?P<b>{_NUM})$", _I), "{a} * {b}"),
    (re.compile(rf"^add (?P<a>{_NUM}) (?:and|to) (?P<b>{_NUM})$", _I), "{a} + {b}"),
    (re.compile(rf"^subtract (?P<a>{_NUM}) from (?P<b>{_NUM})$", _I), "{b} - {a}"),
    (re.compile(rf"^(?P<a>{_NUM}) to the (?P<b>{_NUM})(?:st|nd|rd|th)(?: power)?$", _I), "{a} ^ {b}"),
    (re.compile(rf"^(?P<a>{_NUM}) squared$", _I), "{a} ^ 2"),
    (re.compile(rf"^(?P<a>{_NUM}) cubed$", _I), "{a} ^ 3"),
    (re.compile(rf"^(?P<a>{_NUM})\s*的平方$"), "{a} ^ 2"),
    (re.compile(rf"^(?P<a>{_NUM})\s*的立方$"), "{a} ^ 3"),
    (re.compile(rf"^(?P<a>{_NUM})\s*(?:和|与|跟)\s*(?P<b>{_NUM})\s*的和$"), "{a} + {b}"),
    (re.compile(rf"^(?P<a>{_NUM})\s*(?:和|与|跟)\s*(?P<b>{_NUM})\s*的(?:乘)?积$"), "{a} * {b}"),
]
_PERCENT_OF = [
    re.compile(rf"^(?P<p>{_NUM})\s*%\s*of\s*(?P<n>{_NUM})$", _I),
    re.compile(rf"^(?P<n>{_NUM})\s*的\s*(?P<p>{_NUM})\s*%$"),
    re.compile(rf"^(?P<n>{_NUM})\s*的\s*百分之\s*(?P<p>{_NUM})$"),
]
_POWER_ZH = re.compile(rf"(?P<b>{_NUM})\s*的\s*(?P<e>{_NUM})\s*次方")
_ROOT = [
    re.compile(rf"^(?:the\s+)?(?:square\s+root\s+of|sqrt(?:\s+of)?|√)\s*\(?\s*(?P<n>{_NUM})\s*\)?$", _I),
    re.compile(rf"^(?P<n>{_NUM})\s*(?:开平方|开方|的平方根)$"),
    re.compile(rf"^根号\s*(?P<n>{_NUM})$"),
]
_CALC_FRAME = [
    re.compile(r"^(?:what(?:'s| is)|whats|wats|calculate|compute|how much is|work out)\s+(?P<q>.+?)\s*=?\s*[?？]?$", _I),
    re.compile(r"^(?:计算|算一下|算下|算算|帮我算(?:一下|下)?)?[：:]?\s*(?P<q>.+?)\s*(?:等于|是|得|=)?\s*(?:多少|几)?[？?]?$"),
]
_DISCOUNT_ZH = re.compile(rf"^(?P<n>{_NUM})\s*(?:块钱|块|元)?\s*打\s*(?P<d>[一二两三四五六七八九]|[1-9])\s*(?P<h>五)?折"
                          rf"(?:后|以后)?(?:是|要)?(?:多少|几)(?:钱)?[？?]?$")
_SUM_ZH = re.compile(rf"^(?P<before>.*?)(?P<items>{_NUM}(?:\s*(?:块|元)?\s*[、,，和跟及加]\s*{_NUM})+)\s*(?:块|元)?"
                     # (a few words between, and a remark after: "…分别是 213.6、58.2 和 97，我得算算一共多少，好心疼")
                     # (after a mark only: "每人交了50，5个人一共多少" is no list of 50 and 5)
                     rf"(?:[，,]\s*[^\d０-９，,。？?]{{1,8}}?[，,\s]*|[，,\s]*)(?:一共|总共|加起来|合计)(?:是)?(?:多少|几)(?:钱)?"
                     rf"(?:[？?]|[，,。！!~～…]+(?:(?!平摊|平分|分摊|每人|每个|平均|折|除|减|乘|多少|几)[^\d０-９？?]){{0,10}})?$")
#: the same in English: "i spent 12, 30 and 45 this week, how much is that altogether"
#: (amounts, not a count after one: "everyone paid 50, 5 people, how much in total")
_SUM_EN = re.compile(rf"^(?!.*\b(?:each|per|every|everyone|everybody|apiece|times|by|jan|feb|mar|apr|may|jun|jul|aug|sep"
                     rf"|sept|oct|nov|dec|january|february|march|april|june|july|august|september|october|november"
                     rf"|december)\b)(?P<before>.*?)"
                     rf"(?P<items>{_NUM}(?:\s*(?:,\s*(?:and\s+)?|and\s+|&\s*){_NUM})+)(?![\d.])"
                     rf"(?=\s*[,.;!?]|\s+(?:this|last|today|yesterday|on|in|for|so far|total|altogether|all together|combined"
                     rf"|added)\b|\s*$)"
                     rf"(?:\s+(?:in total|altogether|all together|combined|added up)"
                     rf"|[^\d?]{{0,40}}?\b(?:how much|what)(?:'s| is| are| does| do)?(?: (?:that|it|they|this|these))?"
                     rf"(?: come to| add up to)?(?: (?:in total|altogether|all together|in all|total)))\W*$", _I)
# Dates (2026-12-01, 12/03/2026) and phone numbers (138-0000-0000) are not sums.
# (one mark throughout: "48 / 0.6" is a sum)
_DATE_LIKE = re.compile(r"^\s*\d+\s*([-/.])\s*\d+(?:\s*\1\s*\d+)+\s*$")

# --- Chinese numerals as operands ---------------------------------------------------------

_ZH_NUMBER = re.compile(rf"{ZH_NUMERAL}+(?:点[{ZH_DIGITS}]+)?")
_ZH_OPERATOR_AFTER = re.compile(r"\s*(?:乘以|除以|加上|减去|加|减|乘|的|次方|开平方|开方|[-+*/×÷^＋－＊／xX])")
_ZH_OPERATOR_BEFORE = re.compile(r"(?:乘以|除以|加上|减去|加|减|乘|再|的|根号|[-+*/×÷^＋－＊／xX(（])\s*$")


def _zh_number(numeral: str) -> str | None:
    whole, _, decimals = numeral.partition("点")
    try:
        value = str(zh_int(whole))
        return value + ("." + "".join(str(zh_int(d)) for d in decimals) if decimals else "")
    except ValueError:
        return None


def _as_digits(text: str, number: re.Pattern[str], after: re.Pattern[str], before: re.Pattern[str],
               value: Callable[[str], str | None]) -> str:
    """Each `number` in `text` with an operator just `after` or `before` it,
    written in digits by `value` (None: left as it is)."""
    out, last = [], 0
    for found in number.finditer(text):
        operand = after.match(text, found.end()) or before.search(text[: found.start()])
        digits = value(found.group()) if operand else None
        if digits is not None:
            out += [text[last : found.start()], digits]
            last = found.end()
    return "".join(out) + text[last:]


#: a square root beside an operator ("根号二乘以一百" was read as 2×100: round 49's tools set); a root alone is _ROOT's
_ROOT_THEN_ZH = re.compile(rf"(?:根号|√)\s*(?P<n>{_NUM})(?=\s*(?:乘以|除以|加上|减去|加|减|乘|[-+*/×÷^＋－＊／]))")
_ROOT_AFTER_ZH = re.compile(rf"(?P<op>乘以|除以|加上|减去|加|减|乘|[-+*/×÷^＋－＊／])\s*(?:根号|√)\s*(?P<n>{_NUM})")


def _zh_numerals(text: str) -> str:
    """Chinese numerals next to an operator as digits: 三百六十五乘以二 → 365乘以2; a square root there as a power
    (根号二乘以一百 → 2^0.5乘以100)."""
    text = _as_digits(text, _ZH_NUMBER, _ZH_OPERATOR_AFTER, _ZH_OPERATOR_BEFORE, _zh_number)
    text = _ROOT_THEN_ZH.sub(lambda m: f"{m.group('n')}^0.5", text)
    return _ROOT_AFTER_ZH.sub(lambda m: f"{m.group('op')}{m.group('n')}^0.5", text)


def _zh_operators(text: str) -> str:
    for word, symbol in _ZH_OPS:
        text = re.sub(rf"(?<=[0-9０-９])\s*{word}\s*(?=[0-9０-９(（])", symbol, text)
    return text


# --- English number words as operands ---------------------------------------------------------

_EN_UNITS = {word: value for value, word in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen".split())}
_EN_TENS = {word: 10 * value for value, word in enumerate(
    "twenty thirty forty fifty sixty seventy eighty ninety".split(), 2)}
_EN_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
_EN_WORD = "|".join(sorted([*_EN_UNITS, *_EN_TENS, *_EN_SCALES], key=len, reverse=True))
# "seven hundred and twenty", "three hundred eighty-five", "a hundred"
_EN_NUMBER = re.compile(rf"\b(?:a\s+(?=hundred|thousand|million))?(?:{_EN_WORD})(?:(?:\s+and\s+|[\s-]+)(?:{_EN_WORD}))*\b", _I)
_EN_OPERATOR = r"(?:multiplied by|times|divided by|over|plus|added to|minus|to the power of|[-+*/×÷^xX=])"
_EN_OPERATOR_AFTER = re.compile(rf"\s*(?:{_EN_OPERATOR}|%|percent|per cent|squared|cubed)(?![a-z])", _I)
_EN_OPERATOR_BEFORE = re.compile(rf"(?<![a-z]){_EN_OPERATOR}\s*$", _I)


def _en_number(words: str) -> str | None:
    """"seven hundred and twenty" → "720"; None when the words are no one number ("one two")."""
    total = current = 0
    last = None  # the kind of the word before: "unit" (zero to nineteen), "ten" or a scale word
    for word in re.split(r"[\s-]+", words.lower().replace(" and ", " ")):
        if word in ("a", "and", ""):
            continue
        if word in _EN_SCALES:
            scale = _EN_SCALES[word]
            if scale == 100:
                if current >= 100 or last == "hundred":
                    return None
                current = (current or 1) * 100
            else:
                if current == 0 and last is not None:
                    return None
                total += (current or 1) * scale
                current = 0
            last = word
        elif word in _EN_TENS:
            if current % 100:  # "twenty twenty"
                return None
            current += _EN_TENS[word]
            last = "ten"
        else:
            value = _EN_UNITS[word]
            if current % 100 and not (last == "ten" and value < 10) or (value == 0 and last is not None):
                return None  # "one two", "twenty twelve"
            current += value
            last = "unit"
    return str(total + current)


def _en_numerals(text: str) -> str:
    """English number words next to an operator as digits: "twelve times fifteen" → "12 times 15"."""
    return _as_digits(text, _EN_NUMBER, _EN_OPERATOR_AFTER, _EN_OPERATOR_BEFORE, _en_number)


# --- a whole expression, token by token ------------------------------------------------------

_WORD_OPS = {
    "multiplied by": "*", "times": "*", "divided by": "/", "over": "/", "plus": "+", "added to": "+",
    "minus": "-", "to the power of": "^", "raised to the power of": "^", "raised to": "^",
    "乘以": "*", "除以": "/", "加上": "+", "减去": "-", "加": "+", "减": "-", "乘": "*",
}
_SYMBOLS = {"×": "*", "x": "*", "X": "*", "÷": "/", "＋": "+", "－": "-", "＊": "*", "／": "/", "（": "(", "）": ")"}
_WORDS = "|".join(sorted(map(re.escape, _WORD_OPS), key=len, reverse=True))
_TOKEN = re.compile(
    r"\s*(?:(?P<num>[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|[0-9０-９]+(?:[.．][0-9０-９]+)?)"
    rf"|(?P<op>{_WORDS}|[-+*/×÷^＋－＊／xX])|(?P<paren>[()（）])"
    r"|(?P<then>,|，|;|；|、|and then|then|然后|之后|再))\s*",
    _I,
)


def _tokens(text: str) -> list[tuple[str, str]] | None:
    """(kind, text) for every piece of `text`, or None when something in it is not arithmetic."""
    tokens, at = [], 0
    while at < len(text):
        found = _TOKEN.match(text, at)
        if not found or found.end() == at:
            return None
        kind = found.lastgroup or ""
        tokens.append((kind, found.group(kind)))
        at = found.end()
    return tokens


def _spoken(text: str) -> str | None:
    """The whole of `text` as one expression; a pause before an operator
    ("…, plus 12", "…再加12", "then divided by 7") closes what came before."""
    tokens = _tokens(text.strip().rstrip("=?？ "))
    if not tokens:
        return None
    groups: list[list[str]] = [[]]
    for kind, piece in tokens:
        if kind == "then":
            if groups[-1]:
                groups.append([])
        elif kind == "num":
            groups[-1].append(unicodedata.normalize("NFKC", piece).replace(",", ""))
        elif kind == "op":
            groups[-1].append(_WORD_OPS.get(piece.lower(), _SYMBOLS.get(piece, piece)))
        else:
            groups[-1].append(_SYMBOLS.get(piece, piece))
    groups = [g for g in groups if g]
    if not groups:
        return None  # only pauses (";", "then"): nothing to add up
    if any(g[0] not in "+-*/^" for g in groups[1:]):
        return None  # "3, 4": a list, not a sum
    expression = " ".join(groups[0])
    for group in groups[1:]:
        expression = f"({expression}) {' '.join(group)}"
    if not re.fullmatch(_EXPR, expression) or _DATE_LIKE.match(expression):
        return None
    return expression


def _worded(text: str) -> str | None:
    """Arithmetic said in words ("15% of 80", "2的10次方", "square root of 144",
    "100 divided by 8", "360块打八折", "89、156和42.5一共多少") as an expression, or None."""
    discount = _DISCOUNT_ZH.match(text)
    if discount:
        tenths = zh_int(discount.group("d"))
        rate = tenths / 10 + (0.05 if discount.group("h") else 0)
        return f"{discount.group('n')} * {rate:g}"
    total = _SUM_ZH.match(text) or _SUM_EN.match(text)
    if total and not re.search(r"[0-9０-９]", total.group("before")):  # a number before the list is no part of it
        return " + ".join(re.findall(_NUM, total.group("items")))
    for frame in _CALC_FRAME:
        found = frame.match(text)
        if not found:
            continue
        question = found.group("q").strip()
        for pattern in _PERCENT_OF:
            hit = pattern.match(question)
            if hit:
                return f"{hit.group('p')} / 100 * {hit.group('n')}"
        for pattern in _ROOT:
            hit = pattern.match(question)
            if hit:
                return f"sqrt({hit.group('n')})"
        question = re.sub(r"^(?:can (?:you|u)|could you|pls|please)\s+", "", question, flags=_I)
        question = re.sub(r"\s+(?:for me|pls|please)$", "", question, flags=_I)
        for pattern, template in _EN_VERB_OPS:
            hit = pattern.match(question)
            if hit:
                return template.format(**hit.groupdict())
        question = _POWER_ZH.sub(lambda m: f"{m.group('b')}^{m.group('e')}", question)
        if re.fullmatch(_EXPR, question.strip()) and not _DATE_LIKE.match(question):
            return question.strip()
        spoken = _spoken(question)
        if spoken:
            return spoken
    return None


# --- word problems ------------------------------------------------------------------------

_HOW_MANY_LEFT = re.compile(
    r"\bhow (?:many|much)\b.*\b(?:left|remain(?:s|ing)?|now|in total|total|altogether|all together)\b"
    r"|\bwhat(?:'s| is) left\b|还剩|剩下|剩了|剩几|剩多少|还有(?:多少|几)|一共|总共|现在有(?:多少|几)|加起来",
    _I,
)
# Numbers in a word problem: digits, or a Chinese numeral before a measure word (三个, not 一共)
_MEASURE = "个只本块元支颗张辆位条件瓶杯片根斤米岁次天页名人盒袋枚朵碗"
_PROBLEM_NUMBER = re.compile(rf"[0-9]+(?:\.[0-9]+)?|{ZH_NUMERAL}+(?=[{_MEASURE}])")
_GAIN_EN = r"gave me|gives me|give me|got|gets|get|bought|buys|found|finds|received|receives|picked|earned|won"
_GAIN_ZH = r"又买了|又有|买了|捡了|收到|得到|加了|多了|赚了|又来了|送我|给我|给了我|又"
_LOSS_EN = r"ate|eats|eat|gave away|gave|gives|give|lost|loses|sold|sells|spent|spends|used|uses|broke|threw away" \
           r"|took away|dropped"
_LOSS_ZH = r"吃了|吃掉了?|送了|送给|给了|丢了|卖了|用了|用掉|花了|花掉|拿走了?|少了|掉了|借给"
_START = r"\b(?:had|have|has|there (?:are|were|was|is)|started with)\b|有|带了|攒了"
_VERB = re.compile(rf"(?P<gain>\b(?:{_GAIN_EN})\b|{_GAIN_ZH})|(?P<loss>\b(?:{_LOSS_EN})\b|{_LOSS_ZH})|(?P<start>{_START})", _I)
_MORE_AFTER = re.compile(r"\s*(?:more|another)\b", _I)
_ALSO = re.compile(r"\band\b|和|跟|与|、|,|，")
# Sharing, rates and fractions need more than adding and taking away.
_NOT_ADDITIVE = re.compile(r"\b(?:each|every|per|half|twice|double|triple|times|percent|share|split)\b|每|倍|一半|%|平分|分给",
                           _I)


def _word_problem(text: str) -> Reading | None:
    """A "how many are left" story as a sum, a question when it is not simple, None when it is no such story."""
    if not _HOW_MANY_LEFT.search(text):
        return None
    numbers = list(_PROBLEM_NUMBER.finditer(text))
    if len(numbers) < 2 and not (numbers and _NOT_ADDITIVE.search(text)):
        return None
    if _NOT_ADDITIVE.search(text):
        return Reading(question=_ask(text))
    terms: list[str] = []
    kind: str | None = None
    last, total = 0, 0.0
    for index, number in enumerate(numbers):
        window = text[last : number.start()]
        verbs = list(_VERB.finditer(window))
        if _MORE_AFTER.match(text, number.end()):  # "3 more"
            kind = "gain"
        elif verbs:  # the verb closest before the number
            kind = verbs[-1].lastgroup
        elif not (kind and _ALSO.search(window)):  # "3 cats and 2 dogs": like the one before
            return Reading(question=_ask(text))
        if index == 0 and kind not in ("start", "gain") or index > 0 and kind == "start" and not _ALSO.search(window):
            return Reading(question=_ask(text))
        value = number.group() if number.group()[0].isdigit() else _zh_number(number.group())
        if value is None:
            return Reading(question=_ask(text))
        terms.append(value if index == 0 else ("- " if kind == "loss" else "+ ") + value)
        total += -float(value) if kind == "loss" else float(value)
        if total < 0:  # ate more than there was: the story is not what this reader thinks
            return Reading(question=_ask(text))
        last = number.end()
    return Reading(expression=" ".join(terms))


def _ask(text: str) -> str:
    if detect_language(text) == "zh":
        return "我想算对：能把它写成一个算式吗，比如用 + − × ÷ 和括号？"
    return "I want to get this right: could you write it as one calculation, with + − × ÷ and brackets?"


# --- money: tips, discounts, bill splits, rates ---------------------------------------------

# Every number, in digits or in words ("four people", 三个人, 八五折 is read apart).
_ANY_EN_NUMBER = re.compile(rf"\b(?:{_EN_WORD})(?:(?:\s+and\s+|[\s-]+)(?:{_EN_WORD}))*\b", _I)
# (a lone 一 is "a" or "each" more often than a count: 一人多少, 一晚上380)
_ANY_ZH_NUMBER = re.compile(rf"(?<![打{ZH_DIGITS}])(?!一(?!{ZH_NUMERAL})){ZH_NUMERAL}+(?:点[{ZH_DIGITS}]+)?(?!折)")
_AMOUNT = r"[$¥￥€£]?\s*(?P<{0}>[0-9]+(?:,[0-9]{{3}})*(?:\.[0-9]+)?)\s*(?:块钱|块|元|dollars?|bucks|yuan|rmb|kuai)?"
_PERCENT = re.compile(r"(?P<p>[0-9]+(?:\.[0-9]+)?)\s*(?:%|％|percent|per cent)|百分之\s*(?P<zp>[0-9]+(?:\.[0-9]+)?)", _I)
_ZHE = re.compile(r"打?\s*(?P<d>[一二三四五六七八九1-9])\s*(?P<h>[五5])?\s*折(?![叠腾磨扣])")
_TIP = re.compile(r"\b(?:tip|tips|tipping|gratuity|service(?: charge)?|tax)\b|小费|服务费|税", _I)
_OFF = re.compile(r"\b(?:off|discount(?:ed)?|sale)\b|打折|优惠|折扣|便宜", _I)
_SAVED = re.compile(r"\bsav(?:e|ed|ing)\b|省(?:了|下)?(?:多少|几)|便宜(?:了)?(?:多少|几)", _I)
_TOTAL = re.compile(r"\b(?:total|altogether|all together|in all|including|with|plus)\b|一共|总共|加上|含|算上|连", _I)
_PEOPLE = re.compile(r"(?P<n>[0-9]+)\s*(?:people|persons|ppl|peeps|folks|ways|friends|guys|of us|roommates|flatmates|housemates"
                     r"|人|个人|位|个室友)", _I)
_SPLIT = re.compile(r"\b(?:split|splitting|share|sharing|divide[ds]?|each|per person|apiece|a head|per head"
                    r"|(?:does|do|should|would|will) (?:everyone|everybody|each (?:of us|person|one))(?: \w+)? (?:pay|owe|chip in))\b"
                    r"|平分|平摊|分摊|均摊|(?<![A-Za-z])(?-i:AA)(?![A-Za-z])|每人|每个人|人均|一人", _I)
_UNITS_EN = {"hour": "hour", "hr": "hour", "day": "day", "night": "night", "week": "week", "wk": "week", "month": "month",
             "mo": "month", "year": "year", "yr": "year",
             "shift": "shift", "lesson": "lesson", "class": "lesson", "session": "lesson"}
_UNITS_ZH = {"小时": "hour", "钟头": "hour", "天": "day", "日": "day", "晚": "night", "周": "week", "星期": "week", "礼拜": "week",
             "个月": "month", "年": "year", "节课": "lesson", "次": "lesson"}  # 三月 is March: a month counted says 个月
_UNIT_EN = "|".join(_UNITS_EN)
_UNIT_ZH = "|".join(sorted(_UNITS_ZH, key=len, reverse=True))
_RATE = [  # an amount for each unit: "$25 an hour", "8500 steps a day", "每月存500", "时薪30"
    re.compile(rf"{_AMOUNT.format('r')}\s*(?:[a-z]+\s+){{0,3}}?(?:an?|per|each|every|/)\s*(?P<u>{_UNIT_EN})s?\b", _I),
    re.compile(rf"(?:每(?:个)?|一|1)(?P<u>{_UNIT_ZH})[^0-9，,。]{{0,6}}?{_AMOUNT.format('r')}"),  # 一 is 1 by then
    re.compile(rf"(?P<u>时|日|周|月|年)薪\s*{_AMOUNT.format('r')}"),
    re.compile(rf"每(?P<u>月|年)[^0-9，,。]{{0,6}}?{_AMOUNT.format('r')}"),
    re.compile(rf"{_AMOUNT.format('r')}\s*(?:一|1|每)(?:个)?(?P<u>{_UNIT_ZH})"),
]
_COUNT = [  # how many units: "for 6 hours", "存12个月", "干了8小时"
    re.compile(rf"(?P<c>[0-9]+(?:\.[0-9]+)?)\s*(?P<u>{_UNIT_EN})s?\b", _I),
    re.compile(rf"(?P<c>[0-9]+(?:\.[0-9]+)?)\s*(?:个)?(?P<u>{_UNIT_ZH})"),
]
#: one unit asked about: "in a week", "over a whole year", "per month" (一个星期 is 1个星期 by then)
_ONE = re.compile(rf"\b(?:in |over |for |across )?(?:a|an|one|per|each|every)\s+(?:whole\s+|full\s+|single\s+)?"
                  rf"(?P<u>{_UNIT_EN})\b", _I)
_ONE_ZH = re.compile(rf"(?:一|每)(?:个)?(?P<u>{_UNIT_ZH})")
#: how many of the smaller unit make one of the larger: always so, or the round figure people count with
#: (52 weeks, 365 days in a year); a month has no fixed days, so none
_WITHIN = {("day", "week"): 7, ("month", "year"): 12, ("week", "year"): 52, ("day", "year"): 365}
#: a half or a part of a unit, which this reader does not count
_HALF = re.compile(r"\bhalf\b|半", _I)
_WHOLE = re.compile(r"\b(?:in total|altogether|all together|total)\b|一共|总共|合计", _I)
_EACH_AFTER = re.compile(r"\s*(?:块钱|块|元|dollars?|bucks)?\s*(?:each|apiece|per person|a head|per head|每人|一人)", _I)
_EACH_BEFORE = re.compile(r"(?:\beach\b|\bper person\b|\bapiece\b|每人|每个人|人均|一人)[^0-9]{0,20}$", _I)
# what this reader does not place, so it reads nothing: a number in 万/千/k, the speaker
# beside a count ("me and 2 friends"), a price already discounted or a bill already
# tipped, a rise or a deduction
_UNPLACED = re.compile(
    r"[0-9]\s*(?:万|千|k\b|w\b)|\bme and\b|\band me\b|\bincluding me\b|我(?:跟|和)|另外|\bincluding\b|\boriginal"
    # "after tax", not "after 18 months" (a count of time: "275 a month, how much after 18 months")
    rf"|\bafter\b(?!\s+(?:[0-9]+|(?:{_EN_WORD})(?:[\s-]+(?:{_EN_WORD}))*)\s+(?:{_UNIT_EN})s?\b)"
    r"|原价(?:是)?(?:多少|几)|原来(?:是)?多少|\braise\b|\bincrease|\bkeep\b|\btake home\b|涨|加薪|扣|税后|到手|剩"
    r"|\bwith (?:my )?[0-9a-z]+ (?:friends|others|people|colleagues|coworkers|mates)\b"
    r"|(?:和|跟)[一二两三四五六七八九十0-9]+个(?:朋友|同事|人)", _I)
# what asks for the result: "how much", "what's the tip", "多少" (not "what's your take?" beside a sum)
_ASKS_RESULT = re.compile(
    r"\bhows? (?:much|many|far)\b|\bin total\s*[?？]?\s*$|\bcalculate\b|^\W*(?:calc|compute|figure out)\b|\bwork out\b|^(?:total|split|divide)\b|\b(?:total|altogether)\s*[?？]\s*$"
    r"|\b(?:what|wat)(?:'s|s| is| would be| will be| does| do)\s+(?:a |an |the |my |our |it |that |this )?"
    r"(?:[0-9.]+\s*%\s*)?(?:tip|total|cost|price|bill|amount|share|split|each|one|everyone|per person|it come|that come"
    r"|come to|left|owe|pay)\b"
    r"|\b(?:what|wat) (?:do|does|did|would|will|should) (?:i|we|you|it|they|that|this|each(?: one)?) (?:\w+ )?(?:pay|cost|owe|come to)\b"
    r"|多少|几块|几元|几个?(?:小时|钟头|星期|礼拜|月)|几(?:天|周|年)|算一下|^(?:帮我)?算下|算算|帮我算"
    # a bill's split asked as no more than it: "dinner came to 386.40, split four ways?" (round 29's spent set)
    rf"|\b(?:split|divided|shared)\s+(?:(?:between|among)\s+)?(?:[0-9]+|(?:{_EN_WORD})(?:[\s-]+(?:{_EN_WORD}))*)"
    r"\s+(?:ways|people|of us)\s*[?？]+\s*$"
    # a share of money, asked as no more than it ("18% tip on a $63.40 bill?", round 26's spent set; not "15% tip on 3
    # pizzas?")
    r"|^\W*(?:an? )?[0-9.]+\s*%\s*(?:tip|tax|discount|off|service(?: charge)?)\b[^?？]{0,40}?"
    r"(?:[$¥￥€£]\s*[0-9]|[0-9.]+\s*(?:dollars?|bucks|yuan|rmb|块|元)|\bbill\b)[^?？]{0,20}[?？]\s*$", _I)


#: "六块五", "6块5" and "一块五毛" are 6.5 and 1.5 yuan (before the numerals turn to digits: "六块五一斤" is not 6
#: and 51), but "6块一斤" is 6 yuan a jin
_YUAN_JIAO = re.compile(rf"(?P<a>[0-9]+|{ZH_NUMERAL}+)块(?P<b>[1-9一二三四五六七八九])(?:毛|角)?"
                        r"(?=一(?:[斤个只件瓶盒袋杯份张本条公两磅])|每|钱|[\s,，.。!！?？;；、]|$)")
#: "三斤半", "两个半小时", "3年半" are 3.5 jin, 2.5 hours, 3.5 years (not "两点半", a clock time)
_AND_HALF_ZH = re.compile(rf"(?P<a>[0-9]+|{ZH_NUMERAL}+)(?P<u>个|斤|公斤|块|元|年|天|周|公里|米|升|杯|瓶|岁)半(?!糖|价|熟|成|路|夜|天|拉子)")


def _zh_fractions(text: str) -> str:
    def number(said: str) -> int | None:
        try:
            return zh_int(said)
        except ValueError:
            return None

    def jiao(found: re.Match[str]) -> str:
        yuan, tenths = number(found.group("a")), number(found.group("b"))
        return found.group() if yuan is None or tenths is None else f"{yuan}.{tenths}块"

    def half(found: re.Match[str]) -> str:
        whole = number(found.group("a"))
        return found.group() if whole is None else f"{whole}.5{found.group('u')}"

    return _AND_HALF_ZH.sub(half, _YUAN_JIAO.sub(jiao, text))


#: digits with 万 after them: "5万" is 50000, "1.2万" 12000 (not "5万2", which says more)
#: "2 and a half" is 2.5 (the Chinese "三斤半" and "六块五" are read by _zh_fractions)
_AND_A_HALF = re.compile(r"(?P<a>[0-9]+)\s+and a half\b", _I)
_DIGITS_WAN = re.compile(r"(?<![0-9０-９.．])([0-9０-９]+(?:[.．][0-9０-９]+)?)\s*万"
                         r"(?![0-9０-９零〇一二两三四五六七八九十百千圣])")


def _in_digits(text: str) -> str:
    """Every number in `text` written in digits ("four people" → "4 people", 三个人 → 3个人, 六块五 → 6.5块,
    5万 → 50000)."""
    text = _zh_fractions(text)
    text = _as_digits(text, _ANY_EN_NUMBER, re.compile(""), re.compile("$"), _en_number)
    text = _as_digits(text, _ANY_ZH_NUMBER, re.compile(""), re.compile("$"), _zh_number)
    text = _AND_A_HALF.sub(lambda found: f"{found.group('a')}.5", text)  # "3 and a half hours" is 3.5 hours
    return _wan(unicodedata.normalize("NFKC", text))


def _wan(text: str) -> str:
    """Digits with 万 after them as digits: "5万" → "50000", "1.2万" → "12000" (not "1万零800" nor 万圣节)."""
    def digits(found: re.Match[str]) -> str:
        value = Decimal(unicodedata.normalize("NFKC", found.group(1))) * 10000
        return format(value.normalize(), "f")
    return _DIGITS_WAN.sub(digits, text)


def _number(text: str) -> str:
    """A number as the calculator takes it: "1,200" → "1200"."""
    return text.replace(",", "")


_UNIT_WORDS = re.compile(rf"\b(?:{_UNIT_EN})s?\b|{_UNIT_ZH}|每月|月薪|时薪|日薪|周薪|年薪", _I)


#: what comes before 周 when it counts weeks ("每周", "两周", "3周", "下周")
_COUNTS_WEEKS = re.compile(r"[0-9每一二两三四五六七八九十个上下这本]$")


def _units(text: str) -> set[str]:
    """The kinds of time unit a message names (hour, day, month...)."""
    kinds = set()
    for found in _UNIT_WORDS.finditer(text):
        if found.group() == "周" and not _COUNTS_WEEKS.search(text[:found.start()]):
            continue  # 小周 is a name, 周末 the weekend
        word = found.group().lower().rstrip("s") if found.group().isascii() else found.group()
        kinds.add(_UNITS_EN.get(word) or _UNITS_ZH.get(word)
                  or {"每月": "month", "月薪": "month", "时薪": "hour", "日薪": "day", "周薪": "week", "年薪": "year"}.get(word, word))
    return kinds


#: the speaker counted beside a number of others: "3 friends + me", "me and 2 friends", "我和三个朋友", "两个同事加我"
_OTHERS_EN = r"(?:friends|others|colleagues|coworkers|co-workers|mates|roommates|flatmates|housemates|guys|buddies|pals)"
_OTHERS_ZH = r"(?:朋友|同事|室友|同学|舍友|哥们|姐妹)"
_WITH_ME = re.compile(rf"\b(?P<n>[0-9]+)\s*{_OTHERS_EN}\s*(?:\+|&|and|plus)\s*me\b"
                      rf"|\bme\s*(?:\+|&|and|plus)\s*(?:my\s+)?(?P<m>[0-9]+)\s*{_OTHERS_EN}"
                      rf"|我(?:和|跟|带着?)(?P<z>[0-9]+)个{_OTHERS_ZH}|(?P<y>[0-9]+)个{_OTHERS_ZH}(?:加上?|和|跟)我", _I)


def _with_me(text: str) -> str:
    """`text` with the speaker counted among the others it names beside them ("3 friends + me split a $186 cabin
    bill" is 4 people, round 50's spent set divided by 3); as it was when it names no such count."""
    digits = _in_digits(text)
    found = _WITH_ME.search(digits)
    if found is None or re.match(r"\s*(?:\+|&|,|and\b|plus\b|加|和|跟)", digits[found.end():], _I):
        return text  # (more people after them: "4 friends and me and my wife", the review)
    count = int(next(group for group in found.groups() if group is not None)) + 1
    said = f"{count}人" if found.group("z") or found.group("y") else f"{count} people"
    return digits[: found.start()] + said + digits[found.end():]


def _money(text: str) -> str | None:
    """A money question as an expression: a tip or tax on a bill, a discount
    ("30% off 120", "打八五折"), a bill split between people, an amount for
    each hour, day or month times how many; None when it is none of these
    or something in it does not fit (then the model or a question decides)."""
    if not _ASKS_RESULT.search(text):
        return None
    text = _with_me(text)
    if _EXTRA.search(text):  # a rise over time ("从3000涨到3300一个月，一年多交多少"), whatever _UNPLACED says
        digits = _in_digits(text)
        each = [m for p in _RATE for m in p.finditer(digits)]
        if len(each) == 1 and (rise := _rise(each[0], digits)):
            return rise
    if _UNPLACED.search(text):
        return None
    split = _SPLIT.search(text)
    text = _in_digits(text)
    percent, zhe = _PERCENT.search(text), _ZHE.search(text)
    crowd = _PEOPLE.search(text)  # "a 20% tip for 4 people": 4 is no bill
    people = crowd if split else None
    rates = {m.span(): m for p in _RATE for m in p.finditer(text)
             if percent is None or m.end() <= percent.start() or m.start() >= percent.end()}
    rate = next(iter(rates.values()), None)
    if rate is not None and len(rates) == 1 and not (percent or zhe or people) and len(_units(text)) == 1:
        needed = _needed(rate, text)
        if needed:
            return needed
    if len(rates) > 1 or len(_units(text)) > 1:
        # "时薪30，一天干8小时，干了5天", "$25 an hour, 8 hours a day, a week?": more than one rate; but one rate
        # over a larger unit is a sum ("我每天走8500步，一个星期一共走多少步", "35 a month, how much a year")
        return _over(rate, text) if len(rates) == 1 and not (percent or zhe or people) else None
    counted = [m for p in _COUNT for m in p.finditer(text)]
    used = [found.span() for found in (percent, crowd, zhe) if found is not None]
    if rate is not None:
        unit = (_UNITS_EN.get(rate.group("u").lower()) or _UNITS_ZH.get(rate.group("u"))
                or {"时": "hour", "日": "day", "周": "week", "月": "month", "年": "year"}[rate.group("u")])
        count = next((m for m in counted if (_UNITS_EN.get(m.group("u").lower()) or _UNITS_ZH.get(m.group("u"))) == unit
                      and not (rate.start() <= m.start() < rate.end())), None)
        if count is not None:
            if percent or zhe or people:
                return None  # a rate, a count and a share: more than this reader places
            if _numbers_outside(text, [rate.span(), count.span()]):
                return None  # "a 2.2 kW kettle, 6 minutes a day, over 30 days": a third number
            return f"{_number(rate.group('r'))} * {_number(count.group('c'))}"
        # no count: the rate's amount is the one amount ("月薪一万二，每个月存百分之三十")
    if not (percent or zhe or people):
        return None
    amounts = [m for m in re.finditer(r"[0-9]+(?:,[0-9]{3})*(?:\.[0-9]+)?", text)
               if not any(start <= m.start() < end for start, end in used)]
    if len(amounts) > 1 and people is not None and not (percent or zhe) and not _NOT_ADDED.search(text) and all(
            _ADDED.fullmatch(text, first.end(), second.start()) for first, second in zip(amounts, amounts[1:])) and all(
            _a_cost(text, m) for m in amounts):
        # costs added up, then split: "four of us rented a van for 355 bucks plus 49 for gas. split evenly" (round
        # 33's spent set) is (355 + 49) / 4
        return f"({' + '.join(_number(m.group()) for m in amounts)}) / {people.group('n')}"
    if len(amounts) != 1:
        return None  # no bill, or two we cannot tell apart
    bill = _number(amounts[0].group())
    if _EACH_AFTER.match(text, amounts[0].end()) and (crowd is not None or people is not None):
        # "tix are $68 each, 5 of us going, plus a 12% fee": each one's price, not a bill to take a share of
        return None
    if people is not None and not percent and not zhe and (
            (_WHOLE.search(text, amounts[0].end()) and not _IS_TOTAL.match(text, amounts[0].end())) or _EACH_BEFORE.search(text[: amounts[0].start()])
            or _EACH_AFTER.match(text, amounts[0].end())):
        return None  # "4 friends each paid 12, how much in total?": the amount is each one's, not the bill
    if zhe is not None:
        rate_off = zh_int(zhe.group("d")) if not zhe.group("d").isdigit() else int(zhe.group("d"))
        share = rate_off / 10 + (0.05 if zhe.group("h") else 0)
        expression = f"{bill} * {share:g}"
        if _SAVED.search(text):
            expression = f"{bill} * {1 - share:g}"
    elif percent is not None:
        value = percent.group("p") or percent.group("zp")
        if _OFF.search(text):
            expression = f"{bill} * (1 - {value} / 100)" if not _SAVED.search(text) else f"{bill} * {value} / 100"
        elif _TIP.search(text):
            expression = (f"{bill} * (1 + {value} / 100)" if people is not None or _TOTAL.search(text)
                          else f"{bill} * {value} / 100")
        else:  # a share of the one amount: "月薪一万二，每个月存百分之三十，能存多少"
            expression = f"{bill} * {value} / 100"
    else:
        expression = bill
    if people is not None:
        if int(people.group("n")) < 1:
            return None
        expression = f"{expression} / {people.group('n')}" if expression == bill else f"({expression}) / {people.group('n')}"
    return expression


#: what stands between two costs added up: "355 bucks plus 49 for gas", "房费800，再加油钱120" (a word that
#: adds, a few words of what for; no number, and nothing said to be each one's)
_ADDED = re.compile(r"(?:(?!\b(?:each|per|every|apiece|a head)\b|每)[^0-9.?？!！])*?"
                    r"(?:\bplus\b|\band\b|\+|(?:再)?加上?|还有|外加|另外)(?:(?!\b(?:each|per|every)\b|每)[^0-9.?？!！]){0,25}",
                    _I)


#: words that take an amount off, or say one amount holds another: no costs to add up ("the bill is 300 and we
#: have a coupon for 50", "一共800，还有优惠券减50", "150 total and that includes 30 for drinks": a review)
_NOT_ADDED = re.compile(r"\b(?:off|coupon|voucher|refund|refunded|discount|back|includ(?:es|ed|ing)|already|total"
                        r"|of it|of that)\b|减|优惠|打折|折扣|退|包括|包含|含|已经|一共|总共|合计", _I)
#: a money word just before an amount, or the thing it paid for ("房费800", "$49", "油钱120")
_COST_BEFORE = re.compile(r"(?:[$¥€£]|(?:费|钱|价|租|票|款)\s*)$")
#: ...or just after it ("355 bucks", "49 for gas", "120块")
_COST_AFTER = re.compile(r"\s*(?:bucks|dollars?|usd|eur|euros?|quid|rmb|yuan|块|元|for\b)", _I)


def _a_cost(text: str, amount: re.Match[str]) -> bool:
    """The amount is said as money: a money word or sign beside it, or what it was for after it (not a date, a
    time or a count: "march 3 … 120 on dinner", "dinner at 7 and it cost 120", "3 pizzas and the bill was 54")."""
    return (_COST_BEFORE.search(text[: amount.start()]) is not None
            or _COST_AFTER.match(text, amount.end()) is not None) and not _EACH_AFTER.match(text, amount.end()) and (
        _EACH_BEFORE.search(text[: amount.start()]) is None)


#: "… 1,275 total": the amount is the whole bill, whatever follows
_IS_TOTAL = re.compile(r"\s*(?:块钱|块|元|dollars?|bucks)?\s*(?:in )?(?:total\b|一共|总共)", _I)
#: asks how many of a unit an amount takes: "how many hours does …", "要多少天", "几个小时"
_HOW_MANY_UNITS = re.compile(rf"\bhow many (?P<u>{_UNIT_EN})s?\b|(?:多少|几)(?:个)?(?P<z>{_UNIT_ZH})", _I)
#: asks what a change comes to: "how much extra", "how much more", "多花多少", "多交多少"
_EXTRA = re.compile(r"\bhow much (?:extra|more)\b|\b(?:extra|more|difference)\b.*\bhow much\b|多(?:花|交|付|出)(?:了)?多少"
                    r"|贵(?:了)?多少", _I)


def _rise(rate: re.Match[str], text: str) -> str | None:
    """A price that went from one amount to another for each unit, over a larger unit: "my gym went
    from 29 to 34 bucks a month. how much extra is that over a whole year?" is (34 - 29) * 12."""
    found = next((m for m in (p.search(text) for p in _FROM_TO) if m), None)
    if found is None or not _EXTRA.search(text) or not found.start("b") <= rate.start("r") < found.end("b"):
        return None
    small = _unit(rate.group("u"))
    asked = [_unit(m.group("u")) for pattern in (_ONE, _ONE_ZH) for m in pattern.finditer(text, rate.end())]
    larger = {unit for unit in asked if unit != small}
    within = _WITHIN.get((small, next(iter(larger)))) if len(larger) == 1 else None
    if within is None:
        return None
    if _HALF.search(text, rate.end()):
        return None
    low, high = sorted((found.group("a"), found.group("b")), key=lambda n: float(_number(n)))
    return f"({_number(high)} - {_number(low)}) * {within}"


def _needed(rate: re.Match[str], text: str) -> str | None:
    """How many units an amount takes at a rate: "reads 35 pages an hour. how many hours does a 490
    page novel take her?" is 490 / 35; None unless one other number is there to divide."""
    asked = _HOW_MANY_UNITS.search(text)
    if asked is None or _unit(asked.group("u") or asked.group("z")) != _unit(rate.group("u")):
        return None
    others = [m for m in re.finditer(r"[0-9]+(?:\.[0-9]+)?", text) if not rate.start() <= m.start() < rate.end()]
    if len(others) != 1 or float(rate.group("r").replace(",", "")) == 0:
        return None
    # the other number counts what the rate counts: "35 pages an hour" and "a 490 page novel", "40页" and "300页"
    measure, counted = _MEASURED.match(text, rate.end("r")), _MEASURED.match(text, others[0].end())
    if not (measure and counted) or _stem(measure.group(1)) != _stem(counted.group(1)):
        return None
    return f"{_number(others[0].group())} / {_number(rate.group('r'))}"


#: the word after a number, which says what it counts ("pages", "页")
_MEASURED = re.compile(r"\s*([a-z]+|[\u4e00-\u9fff])", _I)


def _stem(word: str) -> str:
    word = word.lower()
    return word[:-1] if word.endswith("s") and len(word) > 3 else word


def _numbers_outside(text: str, spans: list[tuple[int, int]]) -> bool:
    """Whether `text` holds a number outside the `spans` (those read already)."""
    return any(not any(start <= m.start() < end for start, end in spans) for m in re.finditer(r"[0-9]+", text))


def _unit(word: str) -> str:
    return (_UNITS_EN.get(word.lower()) or _UNITS_ZH.get(word)
            or {"时": "hour", "日": "day", "周": "week", "月": "month", "年": "year"}.get(word, ""))


def _over(rate: re.Match[str] | None, text: str) -> str | None:
    """An amount for each of one unit over a number of a larger one: "8500 steps a day, how many in a
    week" is 8500 * 7; None unless the message names just those two units, the larger counted after
    the rate, and one always holds a fixed number of the other (_WITHIN)."""
    if rate is None:
        return None
    small = _unit(rate.group("u"))
    counts = [(m.group("c"), _unit(m.group("u"))) for p in _COUNT for m in p.finditer(text, rate.end())]
    counts += [("1", _unit(m.group("u"))) for pattern in (_ONE, _ONE_ZH) for m in pattern.finditer(text, rate.end())]
    larger = {unit for _, unit in counts if unit != small}
    same = [count for count, unit in counts if unit == small]
    if len(same) == 1 and len(counts) == 2 and len(larger) == 1:
        # the larger unit said in the smaller too: "every week for a whole year (52 wks)"; the two must agree
        (large,) = larger
        whole = next(count for count, unit in counts if unit == large)
        if _WITHIN.get((small, large)) and float(whole) * _WITHIN[(small, large)] == float(same[0]):
            counts = [(whole, large)]
    if len(larger) != 1 or len(counts) != 1 or _units(text) != {small} | larger or _HALF.search(text, rate.end()):
        return None  # "in 2 weeks and 3 days", "in half a year": more than one count of time
    if _HOW_MANY_UNITS.search(text):
        return None  # "我每天跑5公里，一周跑几天" asks for days, not kilometres
    if _numbers_outside(text, [rate.span(), *(m.span() for p in _COUNT for m in p.finditer(text, rate.end()))]):
        return None  # another number: "went from 29 to 34 bucks a month", more than a rate over time
    (large,) = larger
    within = _WITHIN.get((small, large))
    count = next(c for c, unit in counts if unit == large)
    if within is None:
        return None
    expression = f"{_number(rate.group('r'))} * {within}"
    return expression if float(count) == 1 else f"{expression} * {count}"


# --- things bought at a price each ------------------------------------------------------------

_PRICE = r"[$€£¥￥]?\s*(?P<p>[0-9]+(?:\.[0-9]+)?)\s*(?P<cents>cents?\b)?\s*(?:dollars?|bucks|euros?|quid|yuan|rmb|kuai)?"
#: measure words a price may be for in Chinese (块 is money, not a measure, here)
_PRICED_MEASURE = "斤|公斤|千克|克|个|杯|瓶|箱|盒|件|本|支|包|袋|份|张|双|条|只|升|米|台|罐|桶|串|把|碗|盘|打|套|颗|根|节"
#: a count and its price each, either way round: "5 dozen eggs at 0.35 each", "41.5 liters at 1.89 a liter",
#: "3斤排骨，每斤32块", "4斤苹果，6.5元一斤", "苹果6块一斤，买了3斤"
_PRICED = [
    re.compile(rf"(?P<c>[0-9]+(?:\.[0-9]+)?)\s*(?P<dozen>dozen\s+)?(?:[a-z'-]+\s+){{0,3}}?(?:at|@|for)\s*{_PRICE}\s*"
               r"(?:each|apiece|a piece|ea|(?:a|an|per|every|/)\s*(?P<per>[a-z]+))\b", _I),
    re.compile(rf"(?P<c>[0-9]+(?:\.[0-9]+)?)\s*(?P<m>{_PRICED_MEASURE})[^0-9，,。；;？?]{{0,10}}?[，,]?\s*(?:每|一|1)(?P=m)"
               rf"\s*(?:是|要|卖)?\s*{_PRICE}\s*(?:块钱|块|元)?"),
    re.compile(rf"(?P<c>[0-9]+(?:\.[0-9]+)?)\s*(?P<m>{_PRICED_MEASURE})[^0-9，,。；;？?]{{0,10}}?[，,]?\s*{_PRICE}\s*"
               rf"(?:块钱|块|元)\s*(?:一|每|1)(?P=m)"),
    re.compile(rf"(?:一|每|1)(?P<m>{_PRICED_MEASURE})[^0-9，,。；;？?]{{0,10}}?{_PRICE}\s*(?:块钱|块|元)?"
               rf"[^0-9]{{0,12}}?(?:买了|买|要了|称了|拿了|来了)\s*(?P<c>[0-9]+(?:\.[0-9]+)?)\s*(?P=m)"),
    re.compile(rf"{_PRICE}\s*(?:块钱|块|元)\s*(?:一|每|1)(?P<m>{_PRICED_MEASURE})[^0-9]{{0,12}}?"
               rf"(?:买了|买|要了|称了|拿了|来了)\s*(?P<c>[0-9]+(?:\.[0-9]+)?)\s*(?P=m)"),
]


#: a fee added to what was bought, its word beside its amount: "再加运费12", "运费是8块", "plus 8 shipping",
#: "$5 delivery"
_FEE_WORD = r"运费|邮费|快递费|配送费|打包费|包装费|\bshipping\b|\bdelivery(?: fee)?\b|\bpostage\b|\bservice fee\b"
#: (a fee's amount is no count of things: "shipping 4 of them to my mom")
_FEE = [re.compile(rf"(?:{_FEE_WORD})\s*(?:is|was|of|是|要|为)?\s*{_PRICE}\s*(?:块钱|块|元)?"
                   r"(?!\s*(?!(?:and|plus|total|in|for|how|what|altogether|so|then)\b)[a-z])", _I),
        re.compile(rf"{_PRICE}\s*(?:块钱|块|元)?\s*(?:for\s+)?(?:{_FEE_WORD})", _I)]


def _priced(text: str) -> str | None:
    """What things bought at a price each cost together: "5 dozen eggs at 0.35 each, how much is that?"
    is 5 * 12 * 0.35; "3斤排骨，每斤32块，又买了2.5斤虾，每斤48，一共多少钱" is 3 * 32 + 2.5 * 48. None unless
    every number in the message is a count or its price, and the message asks for the result."""
    if not _ASKS_RESULT.search(text) or _HOW_MANY_UNITS.search(text) or re.search(r"\bhow many\b", text, _I):
        return None  # "how many hours to drive 300 miles at 60 an hour?" divides
    text = _THOUSANDS.sub("", _in_digits(text))
    if any(pattern.search(text) for pattern in (_ONE, _ONE_ZH, *_COUNT)):
        return None  # "2 coffees a day at 4.50 each, how much a month?": a count over time is _money's
    found: dict[tuple[int, int], re.Match[str]] = {}
    for pattern in _PRICED:
        for match in pattern.finditer(text):
            if not any(start < match.end() and match.start() < end for start, end in found):
                found[match.span()] = match
    fees: list[re.Match[str]] = []
    for match in (m for pattern in _FEE for m in pattern.finditer(text)):
        if not any(start < match.end() and match.start() < end for start, end in [*found, *(m.span() for m in fees)]):
            fees.append(match)
    if not found or _numbers_outside(text, [*found, *(m.span() for m in fees)]):
        return None
    terms = []
    for _, match in sorted(found.items()):
        price = match.group("p")
        if match.group("cents"):
            price = f"{price} / 100"
        dozens = "dozen" in match.groupdict() and match.group("dozen") and (match.group("per") or "").lower() != "dozen"
        count = match.group("c") + (" * 12" if dozens else "")  # "5 dozen eggs at 3 a dozen" is 5 * 3
        terms.append(f"{count} * {price}")
    terms += [m.group("p") if not m.group("cents") else f"{m.group('p')} / 100" for m in fees]
    return " + ".join(terms)


# --- interest on savings -----------------------------------------------------------------------

#: asks for the interest, or the savings with it: "单利能拿多少利息", "how much interest", "本息一共多少"
_ASKS_INTEREST = re.compile(r"利息|\binterest\b|本息|连本带利", _I)
#: ...and the savings with it, in so many words ("how much interest in total" is the interest)
_ASKS_WITH_PRINCIPAL = re.compile(r"本息|连本带利|本金加利息|\bend up with\b|\bhow much (?:will|would|do|did) (?:i|we) have\b"
                                  r"|\bwith (?:the )?interest\b|\bincluding (?:the )?(?:principal|savings)\b", _I)
_SIMPLE = re.compile(r"单利|定期|\bsimple\b", _I)  # a fixed deposit in China earns simple interest
_COMPOUND = re.compile(r"复利|利滚利|\bcompound(?:ed|ing)?\b", _I)
_YEARS = re.compile(r"(?P<n>[0-9]+(?:\.[0-9]+)?)\s*(?:个)?(?:年|\byears?\b|\byrs?\b)", _I)


def _interest(text: str) -> str | None:
    """Interest on savings at a yearly rate over years, simple or compound as the message says: "五千块 年化3.5% 存两年
    单利能拿多少利息" is 5000 * 3.5 / 100 * 2. None unless the message names which interest, and says one rate in
    percent, one count of years and one other amount (the savings)."""
    if not _ASKS_INTEREST.search(text) or bool(_SIMPLE.search(text)) == bool(_COMPOUND.search(text)):
        return None
    digits = _THOUSANDS.sub("", _in_digits(text))
    rates, years = list(_PERCENT.finditer(digits)), list(_YEARS.finditer(digits))
    if len(rates) != 1 or len(years) != 1:
        return None
    used = [rates[0].span(), years[0].span()]
    amounts = [m for m in re.finditer(r"[0-9]+(?:\.[0-9]+)?", digits) if not any(a <= m.start() < b for a, b in used)]
    if len(amounts) != 1:
        return None
    savings, rate, count = amounts[0].group(), rates[0].group("p") or rates[0].group("zp"), years[0].group("n")
    whole = _ASKS_WITH_PRINCIPAL.search(text)
    if _SIMPLE.search(text):
        earned = f"{savings} * {rate} / 100 * {count}"
        return f"{savings} + {earned}" if whole else earned
    grown = f"{savings} * (1 + {rate} / 100) ^ {count}"
    return grown if whole else f"{grown} - {savings}"


# --- the price before a discount -----------------------------------------------------------

#: asks for the price before the discount: "原价多少", "原来多少钱", "打折前是多少", "what was the original price",
#: "how much was it originally", "what's the full price" (not "how much is the original 80 dollar jacket after …")
_ASKS_ORIGINAL = re.compile(
    r"原价(?:是|为)?(?:多少|几)|原来(?:是|卖)?(?:多少|几)|打折前(?:是)?多少|没打折(?:的时候|前)?(?:是)?多少"
    r"|\b(?:what|whats|what's|how much)\s+(?:(?:was|is|were)\s+)?(?:the\s+|it\s+|its\s+)?"
    r"(?:original(?:ly)?\s+(?:price|cost)|full price|price before (?:the )?(?:discount|sale))\b"
    r"|\b(?:what|how much) (?:was|did) (?:it|that|they) (?:cost )?originally\b"
    r"|\b(?:what|how much) (?:was|were) (?:it|that|they) before (?:the )?(?:discount|sale)\b", _I)
#: "N% off": the discount, as a share off
_PERCENT_OFF = re.compile(r"(?P<p>[0-9]+(?:\.[0-9]+)?)\s*(?:%|％|percent|per cent)\s*(?:off|discount)\b", _I)
#: the price paid, said as money or as what the thing costs now: "是238块", "340元", "$51", "80 bucks", "paid 70",
#: "costs 49" (not a count, a size or a number of days: "买了3件", "size 42", "还剩3天")
_PAID = re.compile(r"[$¥￥€£]\s*(?P<a>[0-9]+(?:\.[0-9]+)?)"
                   r"|(?P<b>[0-9]+(?:\.[0-9]+)?)\s*(?:块钱|块|元|dollars?\b|bucks\b|yuan\b|rmb\b|kuai\b)"
                   r"|(?:是|为|卖|花了|付了|\bpaid|\bpay|\bcosts?|\bcost me)\s*(?P<c>[0-9]+(?:\.[0-9]+)?)(?![0-9.]*\s*(?:%|折|件|斤|天|个|号|码))"
                   r"|\bfor\s*(?P<d>[0-9]+(?:\.[0-9]+)?)(?![0-9.]*\s*(?:[a-z%]|折|件|斤|天|个|号|码))", _I)


def _before_discount(text: str) -> str | None:
    """The price before a discount, from the price paid: "打七折以后是238块，那原价是多少" is
    238 / 0.7; "paid $51 after 15% off, what was the original price?" is 51 / (1 - 15 / 100).
    None unless the message says one discount and one other number, that number is the price paid (as
    money, or after 是 / paid / costs), nothing was saved ("省了90块" is the discount's amount), and the
    message asks for the price before."""
    if not _ASKS_ORIGINAL.search(text) or _SAVED.search(text) or re.search(r"省|便宜了", text):
        return None
    digits = _THOUSANDS.sub("", _in_digits(text))
    zhe, off = list(_ZHE.finditer(digits)), list(_PERCENT_OFF.finditer(digits))
    if len(zhe) + len(off) != 1:
        return None
    found = (zhe or off)[0]
    numbers = [m for m in re.finditer(r"[0-9]+(?:\.[0-9]+)?", digits) if not found.start() <= m.start() < found.end()]
    paid = [m for m in _PAID.finditer(digits) if not found.start() <= m.start() < found.end()]
    if len(numbers) != 1 or len(paid) != 1:
        return None
    amount = paid[0].group("a") or paid[0].group("b") or paid[0].group("c") or paid[0].group("d")
    if amount != numbers[0].group() or float(amount) == 0:
        return None
    if zhe:
        tenth = zh_int(found.group("d")) if not found.group("d").isdigit() else int(found.group("d"))
        return f"{_number(amount)} / {tenth / 10 + (0.05 if found.group('h') else 0):g}"
    value = found.group("p")
    if float(value) >= 100:
        return None
    return f"{_number(amount)} / (1 - {value} / 100)"


# --- the price of one, from the price of several ---------------------------------------------

_EN_EACH_UNIT = r"kg|kgs|kilos?|kilograms?|lbs?|pounds?|liters?|litres?|l|gallons?|oz|ounces?|grams?|g|meters?|metres?|m|pieces?|items?|bottles?|cans?|boxes?|bags?|packs?|tickets?"
#: a count of a measure and what they cost together, then the price of one asked: "4.5 kg of rice for 13.95, whats
#: that per kg", "五斤苹果二十六块五，一斤多少钱" ("一斤" is "1斤" by then)
_UNIT_PRICE = [
    re.compile(rf"^(?P<c>[0-9]+(?:\.[0-9]+)?)\s*(?P<u>{_EN_EACH_UNIT})\b(?:\s+of)?(?:\s+[a-z'-]+){{0,3}}?\s+(?:for|cost|costs|was|were|is|are)"
               rf"\s*{_PRICE}[\s,，]+(?:so\s+)?(?:what(?:'s|s| is)?|wats|how much(?: is)?)\s+(?:(?:that|it|this)\s+)?"
               rf"(?:per|a|an|for (?:one|a|an|1)|each)\s+(?P<u2>{_EN_EACH_UNIT})\b\s*[?？]*$", _I),
    re.compile(rf"^(?P<c>[0-9]+(?:\.[0-9]+)?)\s*(?P<m>{_PRICED_MEASURE})[^0-9，,。；;？?]{{0,8}}?\s*(?:是|要|花了|共|一共)?\s*"
               rf"(?P<p>[0-9]+(?:\.[0-9]+)?)\s*(?:块钱|块|元)\s*[,，]?\s*(?:那)?(?:1|一|每)(?P=m)(?:是|要)?(?:多少钱?|几块钱?)\s*[?？]*$"),
]


def _unit_price(text: str) -> str | None:
    """What one of a measure costs, from what several cost together: "4.5 kg of rice for 13.95, whats that per kg" is
    13.95 / 4.5. None unless the message is just that: two numbers, the measure said again for the one asked."""
    digits = _THOUSANDS.sub("", _in_digits(text.strip()))
    for pattern in _UNIT_PRICE:
        found = pattern.match(digits)
        if not found:
            continue
        if "u2" in found.re.groupindex and _stem(found.group("u").lower()).rstrip("s") != _stem(found.group("u2").lower()).rstrip("s"):
            return None
        count = found.group("c")
        if float(count) == 0 or found.groupdict().get("cents"):
            return None
        return f"{_number(found.group('p'))} / {_number(count)}"
    return None


# --- changes in percent, and units of time, length and weight ---------------------------------

_SUM_AMOUNT = r"[$¥￥€£]?\s*(?P<{0}>[0-9]+(?:\.[0-9]+)?)\s*(?:块钱|块|元|dollars?|bucks|yuan|rmb|kuai)?"
#: two amounts, the first changing into the second: "from 1450 to 1595", "从3000涨到3300"
#: what may stand between "this month" and its amount: no word of a change ("这个月涨了200" says the rise)
_GAP_ZH = r"(?:(?!涨|降|省|多|少|加|减|贵|便宜|跌|升|提|扣|花)[^0-9，,。；;]){0,6}?"
_GAP_EN = (r"(?:(?!\b(?:by|rais\w*|rose|up|down|more|less|extra|cut|off|sav\w*|increas\w*|decreas\w*|went|dropp?\w*"
           r"|plus|minus)\b)[^0-9,;.]){0,20}?")
_FROM_TO = [
    re.compile(rf"\bfrom\s+{_SUM_AMOUNT.format('a')}\s+(?:up |down )?to\s+{_SUM_AMOUNT.format('b')}", _I),
    re.compile(rf"{_SUM_AMOUNT.format('a')}\s*(?:涨到|涨成|降到|跌到|升到|变成|变到|增加到|减少到|提高到|降低到|调到|涨至|降至)"
               rf"\s*(?:了\s*)?{_SUM_AMOUNT.format('b')}"),
    # then and now, each with its amount: "上个月218.4，这个月301.9" (round 34's spent set), "last month 80, this month 95"
    # (not a change told as an amount: "上个月房租3000，这个月涨了200", "this month they raised it by 100")
    re.compile(rf"(?:上个?月|去年|上周|上次|以前|之前|原来){_GAP_ZH}{_SUM_AMOUNT.format('a')}\s*[，,；;]\s*"
               rf"(?:这个?月|本月|今年|这周|这次|现在){_GAP_ZH}{_SUM_AMOUNT.format('b')}"),
    re.compile(rf"\blast (?:month|year|week|time)\b{_GAP_EN}{_SUM_AMOUNT.format('a')}\s*[,;]\s*(?:and\s+)?"
               rf"(?:this (?:month|year|week|time)|now)\b{_GAP_EN}{_SUM_AMOUNT.format('b')}", _I),
]
#: a question for the change between them in percent
_ASKS_PERCENT = re.compile(
    r"\b(?:what|which|how much|how many)\b[^.?!0-9]{0,25}(?:percent(?:age)?|%)|\bby what percent|\bin percent\b"
    r"|\bpercent(?:age)? (?:increase|decrease|change|rise|drop|jump|hike|cut)\b[^.!]*\?"
    r"|百分之(?:几|多少)|多少%|几%|涨幅|降幅|增幅|跌幅|百分比(?:是)?多少", _I)
#: an amount raised or lowered by a percentage ("8000涨百分之十五", "13500, minus 11% tax")
_RISE = re.compile(r"\b(?:increase[sd]?|rais(?:e|es|ed)|rise|rose|more than|up by|goes up|went up|grows?|grew|bump(?:ed)?)\b"
                   r"|涨|增加|增长|提高|上调|加薪", _I)
_FALL = re.compile(r"\b(?:decrease[sd]?|drop(?:s|ped)?|fall|fell|less than|down by|goes down|went down|cut|deduct(?:s|ed|ion)?"
                   r"|minus|taken off)\b|降|跌|减少|下调|扣|减掉|减去", _I)
_RISE_WORDS = re.compile(r"\bplus\b", _I)
_ASKS_AMOUNT = re.compile(r"^(?:so )?what(?:'s| is| would be| will be)\b(?! going on| up\b| wrong| happening)|\bhow much\b"
                          r"|\bwhat(?:['’]s|s| is| would be| will be) (?:my|the|our|their|his|her) new (?:(?:monthly|weekly|yearly"
                          r"|annual|hourly|daily) )?(?:pay|salary|wage|rent|price|total|income|paycheck|bill|amount)\b"
                          r"|多少|几块|几元", _I)
#: words of a change, which a question for a percentage between two amounts needs ("what percentage of my
#: day is 9 to 5" asks no change)
_CHANGE_WORDS = re.compile(r"\b(?:increase|decrease|rise|rose|raise|drop|jump|hike|cut|change|grow|grew|growth|up|down"
                           r"|more|less|bump|went|goes|going)\b|涨|降|跌|升|增|减|变|提高|降低", _I)
#: asks for the size of the change, or the amount before it: more than this reader places
_ASKS_OTHER = re.compile(r"(?:涨|降|多|少|加|减|扣)了?多少|原价|原来|before the|\bby how much\b|how much (?:more|less)"
                         r"|\boriginal|多少有点|多多少少", _I)


#: the amount said is the one after the change already ("after a 5% raise i'm now at 60000")
_ALREADY_CHANGED = re.compile(r"\b(?:i'?m|im|i am|we'?re|it'?s|now) (?:now )?at\b|\bnow (?:make|earn|get|pay|costs?)\b"
                              r"|现在(?:是|拿|每月|一个月|月薪)?\s*[0-9]", _I)


#: a question for the size of a change between two amounts ("rent goes from 1450 to 1520, how much extra", "房租从1450涨到
#: 1520，多了多少")
_ASKS_CHANGE = re.compile(r"\bhow much (?:more|extra|less|higher|lower|cheaper|bigger|of a (?:raise|jump|hike|increase|drop|cut))\b"
                          r"|\bby how much\b|\bwhat(?:'s| is)? the (?:difference|increase|raise|jump|hike)\b"
                          r"|(?:涨|降|跌|多|少|贵|便宜|加|减|差|升)了?多少", _I)


def _amount_change(text: str) -> str | None:
    """The size of a change between the only two amounts said, asked: "rent goes from 1450 to 1520 next month … how
    much extra" → 1520 - 1450 (round 32's spent set noted it as a fact). Not a change in percent (_percent_change)."""
    text = _THOUSANDS.sub("", _in_digits(text))
    if not _ASKS_CHANGE.search(text) or _ASKS_PERCENT.search(text) or re.search(r"%|百分", text):
        return None
    if re.search(r"\b(?:a|per|each|every) (?:day|week|month|year)\b|\bover\b|每|一年|一个月|全年", text, _I):
        return None  # "from 29 to 34 a month, over a whole year and a half how much extra?": over a span, not read here
    spans = [m for p in _FROM_TO for m in p.finditer(text)]
    if len(spans) != 1 or len(re.findall(r"[0-9]+(?:\.[0-9]+)?", text)) != 2:
        return None
    a, b = spans[0].group("a"), spans[0].group("b")
    return f"{b} - {a}" if float(b) >= float(a) else f"{a} - {b}"


# --- a chain of rates ("8 hours a day, 5 days a week, 50 weeks a year: how many hours?"): their product ---------------

#: spans of time, smallest first, each in both languages
_RATE_SPANS = {"minute": ("minute", "minutes", "min", "mins", "分钟"), "hour": ("hour", "hours", "hr", "hrs", "h", "小时", "个小时", "钟头"),
          "day": ("day", "days", "天", "日"), "week": ("week", "weeks", "wk", "周", "星期", "礼拜", "个星期", "个礼拜"),
          "month": ("month", "months", "个月", "月"), "year": ("year", "years", "yr", "年")}
_SPAN_OF = {word: key for key, words in _RATE_SPANS.items() for word in words}
_SPAN_WORD = "|".join(sorted((re.escape(w) for w in _SPAN_OF), key=len, reverse=True))
#: one rate: "8 hours a day", "5 km per day", "50 weeks a year", "一天 8 小时", "一周上 5 天", "一年按 50 周算", "每天跑 5 公里"
_RATE_EN = re.compile(rf"(?<![\w.])(?P<n>{_NUM})\s*(?P<b>[a-z]+)\s+(?:a|an|per|each|every|/)\s+(?P<a>{_SPAN_WORD})\b", _I)
_RATE_ZH = re.compile(rf"(?:一|每)(?:个)?(?P<a>{_SPAN_WORD})\s*(?:[\u4e00-\u9fff]{{0,2}}?)\s*(?P<n>{_NUM})\s*"
                      rf"(?:个)?(?P<b>{_SPAN_WORD}|[\u4e00-\u9fff]{{1,2}}|[a-z]+)", _I)
#: the question for the total: "how many hours", "总共多少小时", "一共跑多少公里"
_ASKS_TOTAL = re.compile(r"\bhow (?:many|much)\s+(?P<en>[a-z]+)|(?:总共|一共|总计|合计|加起来)?[^，,。？?]{0,3}?多少\s*(?:个)?(?P<zh>[\u4e00-\u9fff]{1,2}|[a-z]+)?", _I)


def _rate_chain(text: str) -> str | None:
    """The product of a chain of rates whose units link up, when every number said is in it and the question asks for
    the first one's amount: "一天 8 小时，一周上 5 天，一年按 50 周算，总共多少小时" → 8 * 5 * 50 (round 32's spent set made
    no call). None otherwise."""
    digits = _THOUSANDS.sub("", _in_digits(text))
    rates = [(m.group("n"), m.group("b"), m.group("a")) for m in _RATE_EN.finditer(digits)]
    rates += [(m.group("n"), m.group("b"), m.group("a")) for m in _RATE_ZH.finditer(digits)]
    asked = _ASKS_TOTAL.search(digits)
    if len(rates) < 2 or asked is None or len(re.findall(r"[0-9]+(?:\.[0-9]+)?", digits)) != len(rates):
        return None
    per = {}  # span → (amount, what it counts)
    for n, b, a in rates:
        span = _SPAN_OF.get(a.lower())
        if span is None or span in per:
            return None
        per[span] = (n, _SPAN_OF.get(b.lower(), b.lower()))
    counted = {what for _, what in per.values()}
    top = [span for span in per if span not in counted]
    if len(top) != 1:
        return None
    factors, span = [], top[0]
    while span in per:
        n, span = per[span]
        factors.append(n)
    if len(factors) != len(per):
        return None  # (two chains, or a loop)
    question = re.split(r"[,，.。;；!！?？]", digits[:asked.start()])[-1] + digits[asked.start():]  # (its whole clause)
    # (less a rate of the chain said in it: "我每周跑25公里的话一年一共跑多少公里", round 34's spent set)
    question = _RATE_ZH.sub(" ", _RATE_EN.sub(" ", question))
    spans: set[str] = set()
    for found in re.finditer(rf"(?<![a-z])(?:a|an|per|each|every|in a|in an|one)\s+({_SPAN_WORD})\b|(?:一|每)(?:个)?({_SPAN_WORD})",
                             question, _I):
        spans.add(_SPAN_OF[(found.group(1) or found.group(2)).lower()])
    if spans - {top[0]}:
        return None  # "一天工作8小时，一周5天，一年工作多少小时": a span the chain does not reach
    unit = (asked.group("en") or asked.group("zh") or "").lower()
    if not unit and not re.search(r"总共|一共|总计|合计|加起来|\bin total\b|\baltogether\b", digits, _I):
        return None  # "一天工作8小时，一周5天，工资多少": asks for another thing
    if unit and _SPAN_OF.get(unit, unit) != span and not (unit.rstrip("s") == span.rstrip("s")):
        return None  # asks for another thing than the chain counts
    return " * ".join(reversed(factors))  # in the order said: "8 * 5 * 50"


#: so many months of a monthly pay: "年终奖按三个月 base 发", "发 2 个月工资", "a bonus of 2 months' salary", "3 months of rent"
_MONTHS_OF = re.compile(r"(?P<n>[0-9]+(?:\.[0-9]+)?)\s*(?:个)?月(?:的)?\s*(?P<w>工资|月薪|薪水|薪资|底薪|base|房租|租金)"
                        r"|(?P<n2>[0-9]+(?:\.[0-9]+)?)\s*months?(?:'|’)?\s+(?:of\s+)?(?:my\s+)?(?P<w2>salary|pay|base|rent|wages?)\b", _I)
#: ...and the monthly amount: "我 base 是 12800", "月薪12800", "my salary is 12,800", "rent is 1450"
_MONTHLY = re.compile(r"(?:工资|月薪|薪水|薪资|底薪|base|房租|租金|salary|pay|rent|wages?)\s*(?:是|有|为|:|：|is|=)?\s*"
                      r"[$¥￥€£]?\s*(?P<n>[0-9]+(?:\.[0-9]+)?)", _I)


def _months_of_pay(text: str) -> str | None:
    """So many months of a monthly amount, both said and asked for: "年终奖按三个月 base 发，我 base 是 12800，算算一共多少"
    → 3 * 12800 (round 32's spent set asked for a sum). None otherwise."""
    digits = _THOUSANDS.sub("", _in_digits(text))
    months, monthly = _MONTHS_OF.search(digits), _MONTHLY.search(digits)
    if months is None or monthly is None or not (_ASKS_RESULT.search(digits) or re.search(r"多少|几", digits)):
        return None
    if re.search(r"一年|年薪|全年|\b(?:a|per) year\b|\bannual", digits, _I):
        return None  # (a year's pay and the bonus beside it: more than this reads)
    if len(re.findall(r"[0-9]+(?:\.[0-9]+)?", digits)) != 2 or monthly.start() == (months.start("w") if months.group(
            "w") else months.start("w2")):
        return None
    rent = re.compile(r"房租|租金|rent", _I)
    if bool(rent.search(months.group("w") or months.group("w2"))) != bool(rent.search(monthly.group())):
        return None  # "押金是3个月房租，我工资是9000": months of rent, not of pay
    return f"{months.group('n') or months.group('n2')} * {monthly.group('n')}"


def _percent_change(text: str) -> str | None:
    """A change in percent as an expression: between two amounts ("from 1450 to
    1595, what percent increase?", "从3000涨到3300，涨了百分之几") or of one amount by a
    percentage ("工资8000涨百分之十五，现在多少", "税前13500，扣掉百分之十一，到手多少钱")."""
    text = _THOUSANDS.sub("", _in_digits(text))
    if _ASKS_OTHER.search(text):
        return None  # "涨了多少钱", "原价多少", "多少有点难过": not the new amount
    if _ASKS_PERCENT.search(text):
        if not _CHANGE_WORDS.search(text):
            return None
        spans = [m for p in _FROM_TO for m in p.finditer(text)]
        if len(spans) != 1 or len(re.findall(r"[0-9]+(?:\.[0-9]+)?", text)) != 2:
            return None
        a, b = spans[0].group("a"), spans[0].group("b")
        if float(a) == 0:
            return None
        # to two places: "7.37", not "7.36842105263" (seen on the page)
        return f"round(({b} - {a}) / {a} * 100, 2)" if float(b) >= float(a) else f"round(({a} - {b}) / {a} * 100, 2)"
    percents = list(_PERCENT.finditer(text))
    if len(percents) != 1 or not _ASKS_AMOUNT.search(text) or _ALREADY_CHANGED.search(text):
        return None
    percent = percents[0]
    amounts = [m for m in re.finditer(r"[0-9]+(?:\.[0-9]+)?", text)
               if not percent.start() <= m.start() < percent.end()]
    rise, fall = _RISE.search(text) or _RISE_WORDS.search(text), _FALL.search(text)
    if len(amounts) != 1 or bool(rise) == bool(fall):
        return None
    value = percent.group("p") or percent.group("zp")
    return f"{amounts[0].group()} * (1 {'+' if rise else '-'} {value} / 100)"


#: each unit in its base unit (seconds, metres, grams), and the words for it
_MEASURES: dict[str, tuple[float, str]] = {
    "second": (1, "time"), "minute": (60, "time"), "hour": (3600, "time"), "day": (86400, "time"),
    "week": (604800, "time"), "year": (31536000, "time"),  # a year of 365 days, as people count it
    "millimetre": (0.001, "length"), "centimetre": (0.01, "length"), "metre": (1, "length"), "kilometre": (1000, "length"),
    "gram": (1, "weight"), "kilogram": (1000, "weight"), "jin": (500, "weight"),
}
_MEASURE_EN = {
    "seconds": "second", "second": "second", "secs": "second", "sec": "second", "minutes": "minute", "minute": "minute",
    "mins": "minute", "min": "minute", "hours": "hour", "hour": "hour", "hrs": "hour", "hr": "hour", "days": "day",
    "day": "day", "weeks": "week", "week": "week", "years": "year", "year": "year", "yrs": "year", "millimetres": "millimetre", "millimeters": "millimetre",
    "mm": "millimetre", "centimetres": "centimetre", "centimeters": "centimetre", "cm": "centimetre", "metres": "metre",
    "meters": "metre", "metre": "metre", "meter": "metre", "m": "metre", "kilometres": "kilometre",
    "kilometers": "kilometre", "kilometre": "kilometre", "kilometer": "kilometre", "km": "kilometre",
    "grams": "gram", "gram": "gram", "g": "gram", "kilograms": "kilogram", "kilogram": "kilogram", "kilos": "kilogram",
    "kilo": "kilogram", "kg": "kilogram",
}
_MEASURE_ZH = {
    "秒钟": "second", "秒": "second", "分钟": "minute", "小时": "hour", "钟头": "hour", "天": "day", "星期": "week",
    "周": "week", "年": "year", "毫米": "millimetre", "厘米": "centimetre", "公分": "centimetre", "公里": "kilometre", "千米": "kilometre",
    "米": "metre", "公斤": "kilogram", "千克": "kilogram", "克": "gram", "斤": "jin",
}
_EN_MEASURE = "|".join(sorted(map(re.escape, _MEASURE_EN), key=len, reverse=True))
_ZH_MEASURE = "|".join(sorted(map(re.escape, _MEASURE_ZH), key=len, reverse=True))
_CONVERT = [
    # "how many seconds (are) in 3.5 hours", "how many minutes r in two days"
    re.compile(rf"^(?:so |and |hey,? )?how many (?P<to>{_EN_MEASURE}) (?:are |r |is |is there |are there )?(?:there )?in "
               rf"(?:a |an |(?P<n>{_NUM}) ?)(?P<from>{_EN_MEASURE})\s*[?？]*$", _I),
    # "3.5 hours in seconds", "convert 5 km to metres", "what's 90 minutes in hours"
    re.compile(rf"^(?:(?:what(?:'s| is)|whats|wats|convert|how much is)\s+)?(?P<n>{_NUM}) ?(?P<from>{_EN_MEASURE})"
               rf"(?:,? (?:and )?(?P<n2>{_NUM}) ?(?P<from2>{_EN_MEASURE}))? "
               rf"(?:in|to|into|as) (?P<to>{_EN_MEASURE})\s*[?？]*$", _I),
    # "how many minutes is 2 hours 15 minutes"
    re.compile(rf"^(?:so |and |hey,? )?how many (?P<to>{_EN_MEASURE}) (?:is|are|r|makes?) (?P<n>{_NUM}) ?(?P<from>{_EN_MEASURE})"
               rf"(?:,? (?:and )?(?P<n2>{_NUM}) ?(?P<from2>{_EN_MEASURE}))?\s*[?？]*$", _I),
    # "3.5小时是多少秒", "两天有多少个小时", "90分钟等于几小时", "一斤是多少克", "8 小时 45 分钟是多少分钟"
    re.compile(rf"^(?:计算|算一下|算下|算算|帮我算(?:一下|下)?)?[：:，,]?\s*(?P<n>{_NUM}|一)\s*个?(?P<from>{_ZH_MEASURE})(?:\s*零?(?P<n2>{_NUM})\s*个?(?P<from2>{_ZH_MEASURE}))?\s*"
               rf"(?:是|等于|有|合|换算成|折合)?(?:多少|几)个?(?P<to>{_ZH_MEASURE})"
               r"(?:啊|呀|呢|来着)?[?？]*$"),
]


_LEADING_ZEROS = re.compile(r"^0+(?=\d)")


#: a rate of two amounts said with their units, asked per one of them: "drove 348 km on 29 liters of gas, how many
#: km per liter is that" is 348 / 29, "跑了5.6公里，用了35分钟，平均每公里几分钟" is 35 / 5.6
_PER_ASK = [
    re.compile(r"[,，.;]?\s*(?:so\s+)?how (?:many|much) (?P<a>[a-z]+) (?:per|a|an|each|every|for each|for every) (?P<b>[a-z]+)"
               r"\b(?:\s+(?:is|was) (?:that|it))?(?:\s+on average)?\s*[?？.!]*$", _I),
    re.compile(r"[,，。；;]?\s*(?:那)?(?:平均)?(?:一|每)(?P<b>[\u4e00-\u9fff]{1,2}?)(?:是|要|跑|走|用|花|大概|平均)?(?:多少|几)个?"
               r"(?P<a>[\u4e00-\u9fff]{1,2}?)(?:啊|呀|呢)?\s*[?？。]*$"),
]
_PER_AMOUNT = re.compile(r"(?P<n>[0-9]+(?:\.[0-9]+)?)\s*(?:个)?(?P<u>[a-z]+|[\u4e00-\u9fff]{1,2})", _I)
#: an amount already a rate ("2 liters a day", "每天跑3公里") or an age ("6 years old"): the two amounts are then no
#: total and its count, and dividing one by the other means nothing (review: "I drink 2 liters a day for 3 weeks,
#: how many liters a week" gave 0.67)
_PER_RATE = re.compile(r"\b(?:a|an|per|every|each)\s+(?:[a-z]+\s+)?(?:day|night|week|month|year|hour|minute|morning|evening)s?\b"
                       r"|\b(?:daily|weekly|monthly|yearly|hourly|nightly|old)\b|每|岁|/", _I)
#: units beside those of _MEASURE_EN and _MEASURE_ZH, one name each; a Chinese one read from the start of its word
#: ("29升油")
_PER_EN = {"liter": "litre", "liters": "litre", "litres": "litre", "l": "litre", "gallons": "gallon", "miles": "mile",
           "pages": "page"}
_PER_ZH = sorted({**_MEASURE_ZH, "升": "litre", "页": "page"}.items(), key=lambda item: len(item[0]), reverse=True)


def _per_unit(text: str) -> str | None:
    """One amount per one of another, when the message says just two amounts with their units and asks for the
    first per the second: the first over the second. None otherwise."""
    digits = _THOUSANDS.sub("", _in_digits(text.strip()))
    for pattern in _PER_ASK:
        asked = pattern.search(digits)
        if not asked:
            continue
        body = digits[: asked.start()]
        if len(re.findall(r"[0-9]+(?:\.[0-9]+)?", digits)) != 2 or _PER_RATE.search(body):
            return None
        kinds = {_per_kind(m.group("u")): m.group("n") for m in _PER_AMOUNT.finditer(body)}
        a, b = _per_kind(asked.group("a")), _per_kind(asked.group("b"))
        if a == b or a not in kinds or b not in kinds or float(kinds[b]) == 0 or len(kinds) != 2:
            return None
        return f"{kinds[a]} / {kinds[b]}"
    return None


def _per_kind(word: str) -> str:
    """A unit's word as one name for it, however it is spelt: "km", "kilometers" and 公里 are one."""
    zh = next((name for prefix, name in _PER_ZH if word.startswith(prefix)), None)
    lowered = word.lower()
    return zh or _MEASURE_EN.get(lowered) or _PER_EN.get(lowered) or _stem(lowered)


#: the difference of two numbers, asked ("what's the difference between 45 and 17", "45和17相差多少",
#: "17比45少多少"): the larger less the smaller, as the words ask no sign
_DIFFERENCE = [
    re.compile(rf"^(?:what(?:'s| is|s)\s+)?(?:the\s+)?diff(?:erence)?\s+(?:between|of)\s+(?P<a>{_NUM})\s+and\s+(?P<b>{_NUM})"
               r"\s*[?？.!]*$", _I),
    re.compile(rf"^(?P<a>{_NUM})\s*(?:和|跟|与)\s*(?P<b>{_NUM})\s*(?:之间)?(?:相差|差|的差(?:是|等于)?)\s*(?:多少|几)\s*[?？。]*$"),
    re.compile(rf"^(?P<a>{_NUM})\s*比\s*(?P<b>{_NUM})\s*(?:多|少|大|小)\s*(?:多少|几)\s*[?？。]*$"),
]


def _difference(text: str) -> str | None:
    """The difference of two numbers asked in words, larger first, or None."""
    text = unicodedata.normalize("NFKC", text.strip())
    for pattern in _DIFFERENCE:
        found = pattern.match(text)
        if found:
            a, b = found.group("a"), found.group("b")
            return f"{a} - {b}" if float(a) >= float(b) else f"{b} - {a}"
    return None


#: how the person counts a year, after the question: "一年有多少秒啊？按 365 天算", "how many hours in a year, counting
#: 365 days" (a year is 365 days here: another count is not read)
_YEAR_COUNTED = re.compile(r"\s*[?？，,。]*\s*(?:按|算|就按|按照|counting|assuming|with|at)\s*(?P<days>[0-9]+)\s*(?:天|days?)"
                           r"(?:\s*算|\s*a year)?\s*[?？。.!！]*$", _I)


def _conversion(text: str) -> str | None:
    """A unit of time, length or weight in another ("how many seconds in 3.5
    hours", "90分钟等于几小时") as an expression."""
    text = _in_digits(text.strip())
    counted = _YEAR_COUNTED.search(text)
    if counted:
        if counted.group("days") != "365":
            return None
        text = text[: counted.start()].rstrip()
    for pattern in _CONVERT:
        found = pattern.match(text)
        if not found:
            continue
        units = [_MEASURE_ZH.get(found.group(side)) or _MEASURE_EN[found.group(side).lower()] for side in ("from", "to")]
        if "year" in units and (len(found.group("n") or "") >= 4 or "week" in units):
            return None  # "2024年有多少天" asks of a calendar year; a year in weeks is 52 and a day, not 52.14 (a review)
        (source, kind), (target, other) = _MEASURES[units[0]], _MEASURES[units[1]]
        two = "n2" in found.re.groupindex and found.group("n2") is not None
        if kind != other or units[0] == units[1] and not two:
            return None
        number = found.group("n") if found.group("n") not in (None, "一") else "1"
        number = _LEADING_ZEROS.sub("", number)  # "08小时…": the calculator reads no leading zero
        if two:
            # two parts: "8 小时 45 分钟" in minutes is 8 * 60 + 45, the second part the smaller unit
            second = _MEASURE_ZH.get(found.group("from2")) or _MEASURE_EN[found.group("from2").lower()]
            part, third = _MEASURES[second]
            if third != kind or part >= source:
                return None
            terms = []
            for amount, unit in ((number, source), (_LEADING_ZEROS.sub("", found.group("n2")), part)):
                terms.append(amount if unit == target else f"{amount} * {unit / target:g}" if unit > target
                             else f"{amount} / {target / unit:g}")
            return " + ".join(terms)
        steps = _down(units[0], units[1])
        if steps:  # "一年有多少秒" is 365 * 24 * 60 * 60, as a person would work it out
            return " * ".join(([] if number == "1" else [number]) + [str(step) for step in steps])
        return f"{number}{_times(source, target)}"
    return None


#: each unit of time in the next smaller one, as people count
_TIME_STEPS = {"year": (365, "day"), "week": (7, "day"), "day": (24, "hour"), "hour": (60, "minute"),
               "minute": (60, "second")}


def _down(source: str, target: str) -> list[int] | None:
    """The steps from a unit of time down to a smaller one (year to second: 365, 24, 60, 60); None when the target
    is not below it (a year in weeks) or it takes one step only."""
    steps = []
    while source != target and source in _TIME_STEPS:
        step, source = _TIME_STEPS[source]
        steps.append(step)
    return steps if source == target and len(steps) > 1 else None


def _times(source: float, target: float) -> str:
    """The factor from one unit to another, written as the calculator reads it: " * 60", " / 60" or, when neither
    divides the other, " * 31536000 / 604800" (a year in weeks)."""
    if source >= target and (source / target).is_integer():
        return f" * {source / target:.0f}"
    if target > source and (target / source).is_integer():
        return f" / {target / source:.0f}"
    return f" * {_plain(source)} / {_plain(target)}"


def _plain(number: float) -> str:
    """A number in digits, no exponent: 31536000, 0.001."""
    return format(number, "f").rstrip("0").rstrip(".")


# --- reading a message ---------------------------------------------------------------------


_LABEL = re.compile(r"^[^:：\d]{1,20}[:：]\s*(?=\S)")


#: a word asking to compute before the sum: "do 3847 divided by 13", "calc一下 (88+92+79)/3"
_ASK_VERB = re.compile(r"^(?:do|calc|calculate|compute|work out|figure out|solve|crunch)\b\s*[:：]?\s*(?=\S)"
                       r"|^(?:calc|计算|算|帮我算|帮忙算)(?:一下|下|算)?\s*[:：]?\s*(?=\S)", _I)


#: the most digits in a row read as a figure: past it the message is no everyday sum, and the readings below, each a
#: pass of patterns over the text, took seconds on a 10,000-character message of nines (the CI's number fuzz timed out
#: under load)
MOST_DIGITS = 100
_LONG_FIGURE = re.compile(r"\d{%d}" % (MOST_DIGITS + 1))


def read(text: str) -> Reading | None:
    """What `text` (one request, fillers already stripped) asks to compute;
    None when it is not arithmetic (nor a sum of figures longer than MOST_DIGITS)."""
    if _LONG_FIGURE.search(text):
        return None
    text = _with_me(text)  # "两个同事加我平摊…" is 3 people, no 2 times the bill
    converted = conversion(text)
    if converted is not None:
        return converted
    label = _LABEL.match(text)
    if label and len(label.group().split()) <= 3:
        return read(text[label.end():]) or _read(text)
    asked = _ASK_VERB.match(text)
    if asked:
        found = _read(text)
        return found if found is not None and found.expression else _read(text[asked.end():]) or found
    return _read(text)


# --- units converted ("convert 10 miles to km", "72华氏度是多少摄氏度"): the small model guessed "1.6 km" -----------

#: each unit's words and its size in its kind's base unit (metre, kilogram, litre); temperatures apart
_UNITS: dict[str, tuple[str, float, tuple[str, ...]]] = {
    "km": ("length", 1000.0, ("km", "kms", "kilometer", "kilometers", "kilometre", "kilometres", "公里", "千米")),
    "m": ("length", 1.0, ("m", "meter", "meters", "metre", "metres", "米")),
    "cm": ("length", 0.01, ("cm", "centimeter", "centimeters", "centimetre", "centimetres", "厘米", "公分")),
    "mm": ("length", 0.001, ("mm", "millimeter", "millimeters", "millimetre", "millimetres", "毫米")),
    "mile": ("length", 1609.344, ("mi", "mile", "miles", "英里")),
    "yard": ("length", 0.9144, ("yd", "yds", "yard", "yards")),  # (码 is a shoe's or a shirt's size in Chinese)
    "foot": ("length", 0.3048, ("ft", "foot", "feet", "英尺")),
    "inch": ("length", 0.0254, ("in", "inch", "inches", "英寸")),
    "kg": ("mass", 1.0, ("kg", "kgs", "kilo", "kilos", "kilogram", "kilograms", "公斤", "千克")),
    "g": ("mass", 0.001, ("g", "gram", "grams", "克")),
    "jin": ("mass", 0.5, ("斤",)),
    "lb": ("mass", 0.45359237, ("lb", "lbs", "pound", "pounds", "磅")),
    "oz": ("mass", 0.028349523125, ("oz", "ounce", "ounces", "盎司")),
    "l": ("volume", 1.0, ("l", "liter", "liters", "litre", "litres", "升")),
    "ml": ("volume", 0.001, ("ml", "milliliter", "milliliters", "millilitre", "millilitres", "毫升")),
    "gallon": ("volume", 3.785411784, ("gal", "gallon", "gallons", "加仑")),
    "c": ("temperature", 0.0, ("c", "°c", "℃", "celsius", "centigrade", "degrees c", "degrees celsius", "摄氏度")),
    "f": ("temperature", 0.0, ("f", "°f", "℉", "fahrenheit", "degrees f", "degrees fahrenheit", "华氏度")),
}
_UNIT_OF = {word: key for key, (_, _, words) in _UNITS.items() for word in words}
_UNIT_WORD = "|".join(sorted((re.escape(word) for word in _UNIT_OF), key=len, reverse=True))
_CONVERSIONS = [
    # "convert 10 miles to km", "10 miles in km?", "what's 72 fahrenheit in celsius"
    re.compile(rf"^(?:(?:please |pls |can you |could you )*(?:convert|change|turn)\s+|what(?:'s| is)\s+|how (?:much|many) is\s+)?"
               rf"(?P<n>-?{_NUM})\s*(?P<a>{_UNIT_WORD})\s+(?:to|in|into|in to|as)\s+(?P<b>{_UNIT_WORD})"
               rf"(?:\s+(?:please|pls))?\s*[?？.!]*$", _I),
    # "how many km is 10 miles", "how many kilos in 150 pounds"
    re.compile(rf"^how (?:many|much)\s+(?P<b>{_UNIT_WORD})\s+(?:is|are|in|make)\s+(?P<n>-?{_NUM})\s*(?P<a>{_UNIT_WORD})"
               rf"\s*[?？.!]*$", _I),
    # "10英里是多少公里", "72华氏度等于几摄氏度", "把5磅换成公斤", "150斤合多少公斤"
    re.compile(rf"^(?:帮我)?(?:把)?(?P<n>(?:-|零下)?{_NUM})\s*(?P<a>{_UNIT_WORD})\s*(?:是|等于|合|换成|换算成|折合|转成|转换成)"
               rf"(?:多少|几)?\s*(?P<b>{_UNIT_WORD})(?:是多少|多少)?(?:呀|啊|呢)?\s*[?？.!。]*$", _I),
]


def conversion(text: str) -> Reading | None:
    """A unit conversion asked ("convert 10 miles to km" → 10*1.609344, "72华氏度是多少摄氏度" → (72-32)*5/9);
    None when the text asks none, or two units of different kinds."""
    text = _THOUSANDS.sub("", " ".join(unicodedata.normalize("NFKC", text).split()).strip())  # "1,500 miles"
    for pattern in _CONVERSIONS:
        found = pattern.match(text)
        if found is None:
            continue
        a, b = _UNIT_OF.get(found.group("a").lower()), _UNIT_OF.get(found.group("b").lower())
        if a is None or b is None or a == b or _UNITS[a][0] != _UNITS[b][0]:
            return None
        n = found.group("n").replace("零下", "-")
        if _UNITS[a][0] == "temperature":
            return Reading(f"({n}-32)*5/9" if a == "f" else f"{n}*9/5+32")
        ratio = Decimal(repr(_UNITS[a][1])) / Decimal(repr(_UNITS[b][1]))
        return Reading(f"{n}*{format(float(ratio), '.12g')}")
    return None


#: a thousands separator: "2,400", "1,234,567" (not "1,2,3")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
#: words of summing a list in Chinese ("120,350,400 一共多少"), where commas part the numbers
_LIST_SUM = re.compile(r"一共|总共|加起来|合计|共计|总和")
#: "19 squared" is 19^2
_POWER_WORD = re.compile(r"(?<=[0-9])\s*\b(?P<w>squared|cubed)\b", _I)
#: "1.035 的平方" is 1.035^2, wherever it stands ("1500 乘 1.035 的平方"); not 的平方根
_POWER_WORD_ZH = re.compile(r"(?<=[0-9])\s*的\s*(?P<w>平方|立方)(?!根)")
#: "23 percent" is "23%"
_PERCENT_WORD = re.compile(r"(?<=\d)\s*(?:percent|per cent)\b", _I)


#: a space between Chinese words, or after a number before one, where chat Chinese may put it for a comma ("每月停车费380
#: 一年多少": not 380 a year), read so when the text as it is reads as no sum ("8 小时 45 分钟" is spaced words)
_ZH_SPACE = re.compile(r"(?<=[\u4e00-\u9fff0-9])\s+(?=[\u4e00-\u9fff])")


def _read(text: str) -> Reading | None:
    found = _read_as_is(text)
    if found is None and _ZH_SPACE.search(text):
        return _read_as_is(_ZH_SPACE.sub("，", text))
    return found


def _read_as_is(text: str) -> Reading | None:
    text = _en_numerals(_zh_numerals(_wan(text)))
    if not _LIST_SUM.search(text):  # "35,120和80一共多少": a list of numbers, not 35120
        text = _THOUSANDS.sub("", text)
    text = _PERCENT_WORD.sub("%", text)
    text = _POWER_WORD.sub(lambda m: "^2" if m.group("w").lower() == "squared" else "^3", text)
    text = _POWER_WORD_ZH.sub(lambda m: "^2" if m.group("w") == "平方" else "^3", text)
    expression_text = _zh_operators(text)
    found = next((m for m in (p.match(expression_text) for p in _CALC) if m), None)
    if found and not _DATE_LIKE.match(found.group("e")):
        return Reading(expression=found.group("e").strip())
    worded = _worded(expression_text)
    if worded:
        return Reading(expression=worded)
    # the price before a discount first: _money would read its discount as one off the price paid
    money = (_before_discount(text) or _interest(text) or _unit_price(text) or _priced(text) or _money(text) or _percent_change(text)
             or _amount_change(text) or _rate_chain(text) or _months_of_pay(text) or _conversion(text) or _series(text) or _difference(text) or _per_unit(text))
    if money:
        return Reading(expression=money)
    return _word_problem(text)


#: the whole numbers from 1 to n added up: "从1加到100", "1+2+3+…+100", "sum of the numbers from 1 to 50"; the
#: series alone, asked ("老板把我的工资从8000加到10000了" raises a salary; "从1加到100，再乘以2" is more)
_N = r"(?<![\d.])(?P<{0}>[0-9]+)(?![\d.])"
_SERIES = [
    re.compile(rf"^(?:(?:请|帮我)?(?:算(?:一下|算)?)?)?\s*(?:从|由)?\s*{_N.format('a')}\s*(?:一直|连续)?\s*(?:累?加|相加)\s*(?:一直)?到"
               rf"\s*{_N.format('b')}(?![万千百亿十])"),
    re.compile(rf"^(?:what(?:'s| is)\s+)?(?:the\s+)?(?:sum|total)\s+of\s+(?:all\s+)?(?:the\s+)?(?:whole\s+)?(?:numbers|integers)\s+"
               rf"(?:from\s+)?{_N.format('a')}\s+(?:to|through|thru|up to)\s+{_N.format('b')}", _I),
    re.compile(rf"^(?:what(?:'s| is)\s+)?(?:add(?:ing)? up|sum up)\s+(?:all\s+)?(?:the\s+)?(?:numbers\s+)?(?:from\s+)?{_N.format('a')}"
               rf"\s+(?:to|through|thru)\s+{_N.format('b')}", _I),
    re.compile(rf"^(?:what(?:'s| is)\s+)?{_N.format('a')}\s*\+\s*{_N.format('a2')}\s*\+\s*(?:[0-9]+\s*\+\s*)?(?:\.{{2,}}|…+|⋯+)"
               rf"\s*\+\s*{_N.format('b')}"),
]
#: what may follow the series: the asking only
_SERIES_TAIL = re.compile(r"^\s*(?:的和|之和|的总和|的结果)?\s*(?:是|等于|得|=|is|equals?)?\s*(?:多少|几|什么|啥|what|\?)?\s*(?:呀|啊|呢|吗)?"
                          r"[\s?？。.!！=]*$", _I)


def _series(text: str) -> str | None:
    """1 + 2 + … + n as an expression the calculator takes: "(1 + 100) * 100 / 2"; the series must start at 0 or
    1 and be asked for."""
    digits = _in_digits(text).strip()
    if not (_ASKS_RESULT.search(digits) or re.search(r"[?？=]|等于|是多少|\b(?:sum|add up|adding up)\b", digits, _I)):
        return None
    for pattern in _SERIES:
        found = pattern.search(digits)
        if not found or not _SERIES_TAIL.match(digits[found.end():]):
            continue
        first, last = int(found.group("a")), int(found.group("b"))
        step = int(found.group("a2")) - first if "a2" in pattern.groupindex else 1
        if step != 1 or first > 1 or not first < last <= 10**9:
            return None
        return f"({first} + {last}) * {last - first + 1} / 2"
    return None


_MATH_WORDS = re.compile(
    rf"{_NUM}|{ZH_NUMERAL}{{2,}}|\b(?:plus|minus|times|divided|multiplied|half|double|twice|sum|total)\b"
    r"|[+*/×÷^=]|乘|除|加|减|一半|倍",
    _I,
)


def asks_a_sum(text: str) -> bool:
    """The message asks for a result in some form: a sum read whole or within it, a question, a word of working it
    out ("算", "how much", "多少"), of an operation or a conversion ("add those up", "split that three ways", "convert 10
    miles to km", "72 fahrenheit to celsius", "18 percent", "再乘以3", "100美元换成人民币")."""
    if read(text.strip()) is not None or expression_in(text):
        return True
    if _answered(text):
        return False  # "三乘七等于二十一，这个我还是会的哈哈": its operation word asks nothing
    return bool(re.search(r"[?？]", text) or _COMPUTE_ASKED.search(text) or _OPERATION_ASKED.search(text))


def _answered(text: str) -> bool:
    """A sum said with its result, nothing asked about it."""
    words = _zh_operators(_zh_numerals(text))
    return any(_said_with_result(words, found) for found in re.finditer(_EXPR, words))


#: words of an operation or a conversion, asked without a sum written out
_OPERATION_ASKED = re.compile(
    r"\b(?:how many|convert|conversion|add (?:those|them|these|that|it|everything|all)(?: up)?|add up|total|sum|split"
    r"|tip|percent|times (?:that|it|this|those)|divided|divide|multiply|plus|minus|average|per|each|squared|cubed|root)\b|%"
    r"|\b(?:in|to|into) (?:km|kilometers|kilometres|miles|meters|metres|feet|inches|cm|celsius|fahrenheit|kg|kilos"
    r"|pounds|lbs|ounces|grams|liters|litres|gallons|dollars|euros|yuan|rmb|usd|eur|hours|minutes|seconds|days|weeks)\b"
    r"|几|换成|换算|折合|兑换|乘|除|加起来|加上|减|一共|总共|平均|分摊|均摊|小费|百分之|平方|开方", _I)


def has_numbers(text: str) -> bool:
    """Whether `text` holds a number or an arithmetic word: a clause that must not be left out of a sum."""
    return _MATH_WORDS.search(text) is not None


def partial(text: str) -> str:
    """The question when only part of `text` reads as a sum."""
    return _ask(text)


# Words that ask for a result, in the same clause as the sum: "so what's 128*7 then", "128乘7是多少呀"
_ASKS = r"(?:(?<![a-z])(?:what(?:'s| is)?|whats|how much|tell me|give me|calc(?:ulate)?|compute|work out|equals?|solve)(?![a-z])|=|等于|多少|几|算)"
_ASKS_BEFORE = re.compile(_ASKS + r"[^,.;!?，。；！？]{0,20}$", _I)
_ASKS_AFTER = re.compile(r"[^,.;!?，。；！？]{0,12}?" + _ASKS, _I)

#: a result said right after a sum ("= 21", "等于二十一" once the numerals are digits, "is 56")…
_RESULT_SAID = re.compile(rf"\s*(?:=|＝|等于|\b(?:is|equals|makes)\b)\s*(?:-?{_NUM}(?![\d.])|[零一二两三四五六七八九十百千万]+)", _I)
#: …and a question in its clause, which asks to check it ("12*12=144 right?", "3乘7等于21吗", "对不对", "is 3*7=21")
_CHECKED = re.compile(r"[?？]|吗|么|吧|对不对|是不是|\b(?:right|correct)\b", _I)
_CLAUSE_AFTER = re.compile(r"[^，,。.!！;；?？\n]*[?？]?")
_ASKED_BEFORE = re.compile(r"(?:\b(?:is|does|do|what(?:'s| is)?|whats|how much is|check|calc(?:ulate)?)|算|验算|检查)\W*$", _I)


def _said_with_result(words: str, found: re.Match[str]) -> bool:
    """The sum `found` in `words` is said with its result and nothing in its clause asks about it."""
    result = _RESULT_SAID.match(words, found.end())
    if result is None or _ASKED_BEFORE.search(words[: found.start()]):
        return False
    clause = _CLAUSE_AFTER.match(words, result.end())
    return not _CHECKED.search(clause.group() if clause else "")

#: asks why or when a result holds, not what it is
_WHY_SO = re.compile(r"什么情况下|为什么|为啥|怎么会|怎么可能|凭什么|\b(?:why|how come|in what (?:case|world|situation))\b", _I)


_COMPUTE_ASKED = re.compile(r"算|\b(?:calc|calculate|compute|work out|what(?:'s| is)|whats|how much)\b|多少", _I)


def expression_in(text: str) -> str | None:
    """An expression the calculator can take in a message that asks for a
    result, read from anywhere in it ("so what's 128*7 then, buddy?"), or
    None. A sum in passing ("we won 10-3") asks for nothing."""
    reading = read(text.strip())
    if reading is not None:
        return reading.expression or None
    if _WHY_SO.search(text) and not _COMPUTE_ASKED.search(text):
        # "1+1什么情况下等于3 哈哈", "how come 2+2=5 in that book": a riddle about a result said, no sum asked (but
        # "算一下23*47 为什么我总算错" asks)
        return None
    words = _POWER_WORD_ZH.sub(lambda m: "^2" if m.group("w") == "平方" else "^3", _zh_operators(_zh_numerals(text)))
    for word, symbol in _WORD_OPS.items():
        pattern = rf"(?<=\d)\s*\b{re.escape(word)}\b\s*(?=[\d(])" if word.isascii() else rf"(?<=\d)\s*{word}\s*(?=[\d(])"
        words = re.sub(pattern, f" {symbol} ", words, flags=_I)
    for found in re.finditer(_EXPR, words):
        candidate = found.group().strip()
        if _said_with_result(words, found):
            continue  # the result said with it, nothing asked: "三乘七等于二十一，这个我还是会的哈哈", "2+2=4 duh"
        asks = _ASKS_BEFORE.search(words[: found.start()]) or _ASKS_AFTER.match(words, found.end())
        if asks and re.search(r"\d\s*[-+*/×÷xX^＋－＊／%]\s*[\d(-]", candidate) and not _DATE_LIKE.match(candidate):
            return candidate
    return None


# --- the numbers a message says (what a figure of the model's may restate) ---------------------

#: numbers said in words that are no numerals: "a dozen", "half", "twice", "a quarter"
_SAID_AS = [(re.compile(r"\bdozens?\b|打(?=[鸡蛋啤])", _I), 12.0), (re.compile(r"\bhalf\b|一半|半", _I), 0.5),
            (re.compile(r"\bquarters?\b", _I), 0.25), (re.compile(r"\btwice\b|\bdouble\b|两倍|翻倍", _I), 2.0),
            (re.compile(r"\btriple\b|三倍", _I), 3.0), (re.compile(r"\bfortnight\b", _I), 14.0),
            (re.compile(r"\bleap year\b|闰年", _I), 366.0)]


#: a Chinese discount said in numerals ("打七折", "七五折"): one number, which _in_digits leaves in words
_ZH_DISCOUNT = re.compile(r"(?<![0-9一二三四五六七八九])[一二三四五六七八九]{1,2}\s*折(?![叠腾磨扣])")
#: one of a unit of time ("一天", "a day", "in an hour"), a number when another unit of time is said
_ONE_SPAN = re.compile(r"(?<![每0-9])一(?:个)?(?:天|年|周|星期|礼拜|小时|分钟|月)"
                       r"|\b(?:in|for|over)\s+(?:a|an|one)\s+(?:day|week|month|year|hour|minute)\b", _I)
_SPANS = re.compile(r"天|年|周|星期|礼拜|小时|分钟|月|\b(?:days?|weeks?|months?|years?|hours?|minutes?|mins?)\b", _I)


def counted(message: str) -> int:
    """How many numbers a message says: in digits, words or Chinese numerals,
    as a Chinese discount ("打七折" is 0.7), or as one of a unit of time that
    turns a rate into a total ("每分钟漏0.35升，一天漏多少" says 1 day: 1440
    minutes)."""
    numbers = len(re.findall(r"[0-9]+(?:\.[0-9]+)?", _in_digits(message).replace(",", "")))
    numbers += len(_ZH_DISCOUNT.findall(_in_digits(message)))  # "七五折" is "7五折" by then: counted once
    spans = {_span_unit(m.group()) for m in _SPANS.finditer(message)}
    if len(spans) >= 2:  # a span of one unit, said against another: a conversion, its factor implied
        numbers += len(_ONE_SPAN.findall(message))
    return numbers


def _span_unit(word: str) -> str:
    return _SPAN_OF.get(word.lower()) or word.lower().rstrip("s")


def _without_thousands(text: str) -> str:
    """`text` with the commas between thousands taken out ("3,400" → "3400"), not those between figures ("房租120，水电80"
    is "120,80" once normalised: two figures, the review of 2026-12-06)."""
    return re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)


def figures_in(message: str) -> list[float]:
    """The numbers a message says, in digits, words or Chinese numerals, each once, in order."""
    found: list[float] = []
    for figure in re.findall(r"[0-9]+(?:\.[0-9]+)?", _without_thousands(_in_digits(message))):
        if float(figure) not in found:
            found.append(float(figure))
    return found


def said_numbers(message: str) -> frozenset[float]:
    """The numbers a message says, in digits, words or Chinese numerals, and
    what it says them as: a percentage as a share (15% → 0.15, 1.15, 0.85),
    a Chinese discount as a share (打八折 → 0.8)."""
    text = _without_thousands(_in_digits(message))
    values = {float(m.group()) for m in re.finditer(r"[0-9]+(?:\.[0-9]+)?", text)}
    values |= {value for pattern, value in _SAID_AS if pattern.search(message)}
    shares = {v / 100 for v in values} | {1 + v / 100 for v in values} | {1 - v / 100 for v in values if v < 100}
    discounts = {int(d) / 10 for d in re.findall(r"([1-9])\s*折", text)}
    discounts |= {int(d) / 10 + int(h) / 100 for d, h in re.findall(r"([1-9])\s*([1-9])\s*折", text)}
    return frozenset(values | shares | discounts | {1 - d for d in discounts})

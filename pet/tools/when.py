"""Read reminder times in English and Chinese: "in 20 minutes", "tomorrow at 9am", "明天早上8点".

Precision first. Text without a time expression gives None; a time that could
mean two things, does not exist, or has passed raises a TimeProblem whose
message is a question for the person, with the readings on offer in
`options`. Results are aware datetimes in the pet's zone, built from local
wall time so a daylight-saving change never moves "9am"; relative delays are
added to the UTC instant so "in 2 hours" is two real hours.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone, tzinfo

from pet.errors import ToolArgumentError
from pet.text import detect_language, zh_int

#: a relative delay longer than this is refused ("in 99999999999999999999 minutes")
MAX_DELAY = timedelta(days=365)
_MAX_DELAY_MINUTES = MAX_DELAY / timedelta(minutes=1)
_DAY = timedelta(days=1)
_WEEK = timedelta(days=7)


@dataclass(frozen=True)
class When:
    at: datetime  # aware, in the pet's zone; the first fire time
    repeat: str = "none"  # "none", "daily", "weekly"
    span: tuple[int, int] = (0, 0)  # where the time expression sits in the input text


class TimeProblem(ToolArgumentError):
    """A time that cannot be used as said; str(e) is for the person, `options` are readings to offer."""

    def __init__(self, message: str, options: tuple[When, ...] = ()) -> None:
        super().__init__(message)
        self.options = options


class InvalidTime(TimeProblem):
    """No such time: 25:00, 2月30日, 13pm, or a local time skipped by daylight saving."""


class AmbiguousTime(TimeProblem):
    """More than one reading ("at 8": morning or evening?), or a day without a time."""


class PastTime(TimeProblem):
    """The time has passed; `options` holds the next occurrence when there is one."""


# --- words ------------------------------------------------------------------------------------

_EN_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_EN_WD_SHORT = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
_MONTH_WORDS = ("jan january|feb february|mar march|apr april|may|jun june|jul july|aug august|"
                "sep sept september|oct october|nov november|dec december").split("|")
_EN_MONTHS = {name: i + 1 for i, names in enumerate(_MONTH_WORDS) for name in names.split()}
_MONTH_NAMES = [names.split()[-1].title() for names in _MONTH_WORDS]
_MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]  # Feb 29 exists in some years
_EN_NUMBERS = {w: i + 1 for i, w in enumerate(
    "one two three four five six seven eight nine ten eleven twelve".split())}
_EN_NUMBERS |= {"fifteen": 15, "twenty": 20, "thirty": 30, "forty": 40, "forty-five": 45,
                "fifty": 50, "sixty": 60, "ninety": 90}
_ZH_WEEKDAYS = dict(zip("一二三四五六日天1234567", [0, 1, 2, 3, 4, 5, 6, 6, 0, 1, 2, 3, 4, 5, 6]))
_ZH_WD = "一二三四五六日"
# which week a Chinese weekday prefix means: None = the next such day, 0 = this week, 1 = next
_ZH_WEEK = {"下下": 2, "下个": 1, "下個": 1, "下": 1, "这个": 0, "這個": 0, "这": 0, "這": 0, "本": 0,
            "上个": -1, "上個": -1, "上": -1}
# which month a Chinese prefix of 月 means, before a day ("下个月3号"): 0 = this month, 1 = next
_ZH_MONTHS_AHEAD = {"下下个": 2, "下下個": 2, "下个": 1, "下個": 1, "这个": 0, "這個": 0, "本": 0}
_ZH_DAYS = {"今天": 0, "今日": 0, "明天": 1, "明日": 1, "后天": 2, "後天": 2, "大后天": 3, "大後天": 3,
            "昨天": -1, "前天": -2, "今": 0, "明": 1, "昨": -1}
_PERIOD_NAMES = {
    "morning": "morning", "afternoon": "afternoon", "evening": "evening", "night": "night",
    "早上": "morning", "早晨": "morning", "清晨": "morning", "上午": "morning", "早": "morning",
    "中午": "noon", "正午": "noon", "下午": "afternoon", "傍晚": "dusk", "晚上": "evening",
    "晚": "evening", "夜里": "night", "夜裡": "night", "夜间": "night", "夜": "night",
    "半夜": "late", "深夜": "late", "凌晨": "early",
}
# the 24-hour hours a period can mean; 24 is midnight at the end of the day
_PERIODS = {
    "morning": set(range(1, 12)), "noon": {11, 12, 13}, "afternoon": set(range(12, 19)),
    "dusk": set(range(16, 20)), "evening": set(range(18, 25)),
    "night": set(range(18, 25)) | set(range(0, 5)), "late": {22, 23, 24, 0, 1, 2, 3},
    "early": set(range(0, 6)),
}
_LATE_PERIODS = {"evening", "night", "late"}

# --- patterns ---------------------------------------------------------------------------------

_ZN = (r"(?:\d{1,3}|[一二两兩三四五六七八九]?十[一二三四五六七八九]?"  # 0-99 in digits or Chinese numerals
       r"|[零〇][一二三四五六七八九]?|[一二两兩三四五六七八九])")
# a delay's amount: digits of any length (so a huge one is refused, not cut to its last
# three digits) with an optional fraction ("1.5小时后"), or a numeral 0-99. It starts where
# a number starts: never inside "1.5", and a long run of digits is tried once, not at each digit.
_ZD = rf"(?<![\d.])(?:\d+(?:\.\d+)?|{_ZN})"
_ZH_WEEKDAY = r"(?:周|週|星期|礼拜|禮拜)\s*(?P<wd>[一二三四五六日天1-7])"
_AMPM = r"(?P<ap>[ap])\.?\s?m\b\.?"
_EN_WORDS = "|".join(sorted(_EN_NUMBERS, key=len, reverse=True))
_HOUR = r"(?:\d{1,2}|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b)"
_WEEKDAYS = "|".join(_EN_WEEKDAYS)
_MONTHS = "|".join(sorted(_EN_MONTHS, key=len, reverse=True))
#: days of the year named by a holiday on a fixed date (not the lunar ones: 春节, 中秋 move): (month, day)
_HOLIDAYS = {"christmas eve": (12, 24), "christmas day": (12, 25), "christmas": (12, 25), "new year's eve": (12, 31),
             "new year's day": (1, 1), "valentine's day": (2, 14), "halloween": (10, 31),
             "平安夜": (12, 24), "圣诞夜": (12, 24), "圣诞节": (12, 25), "圣诞": (12, 25), "元旦": (1, 1),
             "跨年夜": (12, 31), "情人节": (2, 14), "万圣节": (10, 31), "愚人节": (4, 1), "劳动节": (5, 1),
             "儿童节": (6, 1), "妇女节": (3, 8), "教师节": (9, 10), "国庆节": (10, 1)}
#: a holiday named as a day: "christmas eve", "new year’s day", "on christmas", "halloween at 7pm", "元旦那天",
#: "平安夜的晚上"; not a thing of it ("christmas eve menu planning", "情人节礼物", "圣诞节目", "元旦联欢会"), another
#: holiday of the name ("七夕情人节", "白色情人节") or a day before or after it ("the day before valentine's day")
_HOLIDAY = (r"(?<!before )(?<!after )\b(?P<en>(?:christmas|xmas)\s+(?:eve|day)|new\s+year['’]?s?['’]?\s+(?:eve|day)"
            r"|valentine['’]?s?['’]?\s+day|halloween|(?<=\bon\s)(?:christmas|xmas))\b"
            r"(?!['’]s\b|\s+(?!(?:at|on|to|and|i|we|remind|please|pls|morning|afternoon|evening|night|this|next|from"
            r"|for|in)\b)[a-z])"
            r"|(?<!七夕|白色)(?P<zh>平安夜|圣诞夜|圣诞节?|元旦|跨年夜|情人节|万圣节|愚人节|劳动节|儿童节|妇女节|教师节|国庆节)"
            r"(?!晚会|礼物|快乐|老人|树|贺卡|大餐|活动|目|联欢|假期|前|后|节|的(?!早上|上午|中午|下午|晚上|傍晚))")


def _holiday(m: re.Match[str]) -> dict:
    said = m["zh"] or re.sub(r"\s+", " ", m["en"].lower().replace("’", "'")).replace("xmas", "christmas")
    said = re.sub(r"new years?'?s?'? ", "new year's ", said)
    said = re.sub(r"valentines?'?s?'? ", "valentine's ", said)
    month, day = _HOLIDAYS[said]
    return {"day": _Day(month=month, day=day)}


# words that may follow a bare "at 8"; any other word ("at 3 desks") means it is not a time
#: tomorrow as chat writes it too ("remind me tmrw at 7:40am")
_TOMORROW = r"(?:tomorrow|tmrw|tmr|tmrrw|2moro|2morrow|tomorow|tommorow|tommorrow)"
_AFTER_AT = rf"(?:(?:to|and|or|for|with|on|in|at|by|{_TOMORROW}|tonight|today|this|next|every|then|please|sharp|"
_AFTER_AT += rf"{_WEEKDAYS}|{_MONTHS})\b)"
def _day_offset(word: str) -> int:
    lowered = word.lower()
    if re.fullmatch(_TOMORROW, lowered):
        return 1
    return {"today": 0, "yesterday": -1}.get(lowered, 2)


_DUR_NUM = rf"(?:\d+(?:\.\d+)?|half\s+an?|an?|{_EN_WORDS})"
_DUR_UNIT = r"(?:minutes?|mins?|hours?|hrs?|h|days?|weeks?)\b"
_DUR_ONE = rf"{_DUR_NUM}\s*-?\s*{_DUR_UNIT}(?:\s+and\s+a\s+half)?"
_DUR = rf"{_DUR_ONE}(?:\s*(?:,|and)\s*{_DUR_ONE})*"
_DUR_PIECE = re.compile(rf"\b(?P<n>{_DUR_NUM})\s*-?\s*(?P<u>{_DUR_UNIT})(?P<half>\s+and\s+a\s+half)?", re.I)
_UNIT_MINUTES = {"m": 1, "h": 60, "d": 24 * 60, "w": 7 * 24 * 60}

# what may stand between two pieces of one expression ("tomorrow at 9am", "明天的下午3点")
_GLUE = re.compile(r"(?:\s|,|，|、|的|\bat\b|\bon\b|\bin\s+the\b)*", re.I)
# a preposition just before an expression belongs to it, so cutting the span leaves the task
_LEAD = re.compile(r"(?:\b(?:at|on)\s+|在|(?<![关關对對])[于於])$", re.I)
_BLANK = re.compile(r"[\s.,;:!?。，；：！？、]*")
# "我有三点建议", "快一点": 点 that counts points or means "a bit", not o'clock
_NOT_CLOCK_AFTER = re.compile(r"[点點儿兒]|建议|意见|看法|想法|理由|原因|要求|注意|问题|内容|好处|区别|不同")
_A_BIT_BEFORE = set("有快多慢早晚差好大小高低少些再稍")
_FULLWIDTH = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}

#: a timestamp as a program writes one, "2026-12-06 10:00" or "2026/12/06T10:00": its clock is 24-hour
_TIMESTAMP = re.compile(r"\s*\d{4}[-/]\d{1,2}[-/]\d{1,2}(?:T|\s+)\d{1,2}:\d{2}\s*")


@dataclass(frozen=True)
class _Clock:
    hour: int
    minute: int = 0
    meridiem: str | None = None  # "am" / "pm"
    exact: bool = False  # 24-hour form ("08:00") or a word (noon): one reading only
    text: str = ""


@dataclass(frozen=True)
class _Day:
    offset: int | None = None  # today 0, tomorrow 1
    weekday: int | None = None  # Monday 0
    week: int | None = None  # None: the next such weekday; 0 this week, 1 next week
    month: int | None = None
    day: int | None = None
    year: int | None = None
    months: int | None = None  # with `day`: months from this one ("下个月3号": 1, "这个月20号": 0)
    said_weekday: int | None = None  # with a date, the weekday said beside it ("6月5号礼拜二"): which year, or a question


@dataclass
class _Expr:
    """One piece, or a run of adjacent pieces, of a time expression in the text."""

    start: int
    end: int
    slots: dict[str, object] = field(default_factory=dict)  # delay, clock, period, day, repeat


def _number(s: str) -> float:
    s = s.lower()
    if s.startswith("half"):
        return 0.5
    if s in ("a", "an"):
        return 1
    if s in _EN_NUMBERS:
        return _EN_NUMBERS[s]
    try:
        return float(s)  # digits of any script ("３", "٣"); past about 300 digits, inf
    except ValueError:
        return zh_int(s)


def _meridiem(m: re.Match[str]) -> str | None:
    return m["ap"].lower() + "m" if m["ap"] else None


def _en_delay(m: re.Match[str], text: str) -> dict:
    minutes = 0.0
    for piece in _DUR_PIECE.finditer(m["d"] or m["d2"]):
        amount = _number(piece["n"]) + (0.5 if piece["half"] else 0)
        minutes += amount * _UNIT_MINUTES[piece["u"][0].lower()]
    days = minutes / _UNIT_MINUTES["d"]
    if 1 <= days <= _MAX_DELAY_MINUTES / (24 * 60) and days.is_integer() and _EN_HOUR_AFTER.match(text, m.end()):
        # "in 3 days at 8pm": the day three days on, at 8pm (not 72 hours from now)
        return {"day": _Day(offset=int(days))}
    return {"delay": minutes}  # a number, not a timedelta yet: it may be too large for one


#: a time of day right after a delay in days: "in 3 days at 8pm", "a week from now, 9 in the morning"
_EN_HOUR_AFTER = re.compile(r"[\s,]*(?:at\s+)?(?:\d{1,2}(?::\d{2})?\s*(?:[ap]\.?m\b|o'?clock\b)|\d{1,2}:\d{2}\b|noon\b"
                            r"|midnight\b|in the (?:morning|afternoon|evening)\b)", re.I)


def _en_past_to(m: re.Match[str], text: str) -> dict | None:
    n, hour = m["n"].lower(), int(_number(m["h"]))
    minute = 30 if n == "half" else 15 if "quarter" in n else int(_number(n.split()[0]))
    if hour > 12:
        return None
    if m["dir"].lower() == "to" and minute < 60:
        minute, hour = 60 - minute, (hour - 1) or 12
    return {"clock": _Clock(hour, minute, _meridiem(m), text=m[0])}


def _en_at(m: re.Match[str], text: str) -> dict | None:
    hour = int(m["h"])  # "at 18" is more often an age than a time: bare "at" reads 1-12 only
    return {"clock": _Clock(hour, text=m[0])} if 1 <= hour <= 12 else None


def _en_period(m: re.Match[str], text: str) -> dict:
    if m["t"]:
        return {"period": ("evening", m["t"]), "day": _Day(offset=-1 if m["t"][0] in "lL" else 0)}
    slots: dict[str, object] = {"period": (m["w"].lower(), m["w"])}
    if m["this"]:
        slots["day"] = _Day(offset=0)
    return slots


def _en_repeat(m: re.Match[str], text: str) -> dict:
    if m["wd"]:
        return {"repeat": "weekly", "day": _Day(weekday=_EN_WEEKDAYS.index(m["wd"].lower()))}
    return {"repeat": "daily"} | ({"period": (m["p"].lower(), m["p"])} if m["p"] else {})


def _zh_delay(m: re.Match[str], text: str) -> dict:
    minutes: float
    if m["half"]:
        minutes = 30
    elif m["h"]:
        minutes = _number(m["h"]) * 60 + (30 if m["hh"] else 0) + (_number(m["hm"]) if m["hm"] else 0)
    elif m["m"]:
        minutes = _number(m["m"])
    else:
        days = _number(m["d"]) * (1 if m["du"] == "天" else 7)
        if _ZH_HOUR_AFTER.match(text, m.end()) and float(days).is_integer() and days * 24 * 60 <= _MAX_DELAY_MINUTES:
            # "三天后晚上8点": the day three days on, at 8pm (not 72 hours from now)
            return {"day": _Day(offset=int(days))}
        minutes = days * _UNIT_MINUTES["d"]
    return {"delay": minutes}


#: a time of day right after a delay in days: "三天后晚上8点", "两周后的下午三点"
_ZH_HOUR_AFTER = re.compile(r"[\s,，的]*(?:早上|早晨|清晨|上午|中午|下午|傍晚|晚上|夜里|凌晨|[早晚](?=\s*[0-9零〇一二两三四五六七八九十]+\s*[点點])"
                            r"|[0-9零〇一二两三四五六七八九十]+\s*[点點:：])")


def _zh_clock(m: re.Match[str], text: str) -> dict | None:
    hour, minute_text = zh_int(m["h"]), m["m"]
    spoken_minute = minute_text and (minute_text[0] in "零〇" or "十" in minute_text)
    if minute_text and not (m["fen"] or minute_text.isascii() or spoken_minute):
        return None  # "两点一线", "三点五": not how a clock time is said
    if not (m["q"] or minute_text or m["tail"]):
        before = text[m.start() - 1:m.start()]
        if (before == "有" or _NOT_CLOCK_AFTER.match(text, m.end())
                or (m["h"] == "一" and before in _A_BIT_BEFORE)):
            return None
    if hour > 24:
        return None
    quarter = {"半": 30, "一刻": 15, "1刻": 15, "三刻": 45, "3刻": 45}
    minute = quarter[m["q"]] if m["q"] else zh_int(minute_text) if minute_text else 0
    return {"clock": _Clock(hour, minute, exact=m["h"][:1] == "0" and len(m["h"]) == 2, text=m[0])}


def _zh_day(m: re.Match[str], text: str) -> dict:
    if m["w"]:
        return {"day": _Day(offset=_ZH_DAYS[m["w"]])}
    return {"day": _Day(offset=_ZH_DAYS[m["d"]]), "period": (_PERIOD_NAMES[m["p"]], m[0])}


def _zh_repeat(m: re.Match[str], text: str) -> dict:
    if m["wd"]:
        return {"repeat": "weekly", "day": _Day(weekday=_ZH_WEEKDAYS[m["wd"]])}
    return {"repeat": "daily"} | ({"period": (_PERIOD_NAMES[m["p"]], m[0])} if m["p"] else {})


def _date(m: re.Match[str], month: int) -> dict:
    year = zh_int(m["y"]) if m["y"] else None
    return {"day": _Day(month=month, day=zh_int(m["d"]), year=year)}


_Builder = Callable[[re.Match[str], str], "dict | None"]
# Each rule finds one piece: a delay, a clock time, a day, a period of the day or a repeat.
# Where pieces overlap, the one starting first (then the longest) wins.
#: a wait in Chinese: "40分钟", "两个半小时", "1小时20分", "半小时", "三天"
_ZH_DELAY = (rf"(?P<h>{_ZD})\s*[个個]?\s*(?P<hh>半)?\s*(?:小时|小時|钟头|鐘頭)(?:\s*(?P<hm>{_ZD})\s*分钟?)?"
             rf"|(?P<half>半)\s*[个個]?\s*(?:小时|小時|钟头|鐘頭)|(?P<m>{_ZD})\s*分钟"
             rf"|(?P<d>{_ZD})\s*[个個]?\s*(?P<du>天|周|星期|礼拜)")

_RULES: list[tuple[str, _Builder]] = [
    # English
    (rf"\bin\s+(?P<d>{_DUR})|\b(?P<d2>{_DUR})\s+from\s+now\b", _en_delay),
    (r"\b(?:12\s*)?(?P<w>noon|midday|midnight)\b",
     lambda m, t: {"clock": _Clock(24 if m["w"].lower() == "midnight" else 12, exact=True, text=m[0])}),
    (rf"\b(?P<n>half|(?:a\s+)?quarter|(?:\d{{1,2}}|{_EN_WORDS})\s+minutes?|(?<=\bat\s)\d{{1,2}})"
     rf"\s+(?P<dir>past|after|to)\s+"
     rf"(?P<h>{_HOUR})\b(?:\s*{_AMPM})?", _en_past_to),
    (rf"(?<![\d:.])(?P<h>\d{{1,2}}):(?P<m>\d{{2}})(?![\d:])(?:\s*{_AMPM})?",
     lambda m, t: {"clock": _Clock(int(m["h"]), int(m["m"]), _meridiem(m),
                                   exact=m["h"][0] == "0" and len(m["h"]) == 2 or _TIMESTAMP.fullmatch(t) is not None,
                                   text=m[0])}),
    (rf"(?<![\d:.])(?P<h>{_HOUR})\s*{_AMPM}",
     lambda m, t: {"clock": _Clock(int(_number(m["h"])), 0, _meridiem(m), text=m[0])}),
    (rf"(?<![\d:.])(?P<h>{_HOUR})\s*o['’]?clock\b",
     lambda m, t: {"clock": _Clock(int(_number(m["h"])), text=m[0])}),
    (rf"\bat\s+(?P<h>\d{{1,2}})(?![\d:%°]|[.,]\d|\s*(?:[ap]\.?\s?m\b|o['’]?clock)"
     rf"|\s+(?!{_AFTER_AT})[a-z]|\s+(?:past|to)\s+\d)", _en_at),
    (rf"\b(?P<w>(?:the\s+)?day\s+after\s+tomorrow|{_TOMORROW}|today|yesterday)\b",
     lambda m, t: {"day": _Day(offset=_day_offset(m["w"]))}),
    (r"\b(?:(?P<this>this)\s+)?(?P<w>morning|afternoon|evening|night)\b|\b(?P<t>tonight|last\s+night)\b",
     _en_period),
    (rf"\b(?:(?P<q>next|this|coming)\s+)?(?P<w>{_WEEKDAYS})\b",
     lambda m, t: {"day": _Day(weekday=_EN_WEEKDAYS.index(m["w"].lower()),
                               week=1 if (m["q"] or "").lower() == "next" else None)}),
    # the week said apart from its day: "wednesday next week", "monday of next week", "next week on friday" (as
    # 下周三: the weekday of the next week; round 37's spent set set "wednesday next week at 3pm" for today)
    (rf"\b(?P<w>{_WEEKDAYS})\s*,?\s+(?:of\s+)?(?P<q>next|this)\s+week\b"
     rf"|\b(?P<q2>next|this)\s+week(?:['’]s)?(?:\s*,?\s*on)?\s+(?P<w2>{_WEEKDAYS})\b",
     lambda m, t: {"day": _Day(weekday=_EN_WEEKDAYS.index((m["w"] or m["w2"]).lower()),
                               week=1 if (m["q"] or m["q2"]).lower() == "next" else 0)}),
    (r"(?<![\d-])(?P<y>\d{4})[-/](?P<mo>\d{1,2})[-/](?P<d>\d{1,2})(?![\d-])(?:T(?=\d))?",
     lambda m, t: _date(m, int(m["mo"]))),
    (rf"\b(?P<mo>{_MONTHS})\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b(?!:)(?:,?\s+(?P<y>\d{{4}})\b)?",
     lambda m, t: _date(m, _EN_MONTHS[m["mo"].lower()])),
    # "on the 26th at 6 pm": a day of this month, or the next if it has passed (as "26号"; round 32's spent set)
    (r"\b(?:on\s+)?the\s+(?P<d>[1-9]|[12]\d|3[01])(?:st|nd|rd|th)\b(?!\s*(?:of\b|-|/))",
     lambda m, t: {"day": _Day(day=int(m["d"]))}),
    (r"\b(?:the\s+)?(?P<d>\d{1,2})(?:st|nd|rd|th)\s+of\s+(?P<q>next|this)\s+month\b"
     r"|\b(?P<q2>next|this)\s+month\s+on\s+the\s+(?P<d2>\d{1,2})(?:st|nd|rd|th)?\b",
     lambda m, t: {"day": _Day(day=int(m["d"] or m["d2"]),
                               months=1 if (m["q"] or m["q2"]).lower() == "next" else 0)}),
    (rf"\b(?:the\s+)?(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mo>{_MONTHS})\b\.?"
     rf"(?:,?\s+(?P<y>\d{{4}})\b)?",
     lambda m, t: _date(m, _EN_MONTHS[m["mo"].lower()])),
    (_HOLIDAY, lambda m, t: _holiday(m)),
    (rf"\b(?:(?:every|each)\s*day|daily)\b|\b(?:every|each)\s+(?:(?P<p>morning|afternoon|evening|night)|"
     rf"(?P<wd>{_WEEKDAYS}))\b", _en_repeat),
    # Chinese
    (rf"(?:{_ZH_DELAY})\s*(?:以后|之后|以後|之後|后|後)", _zh_delay),
    # "过40分钟提醒我收衣服", "再过两小时": the wait said before it (round 32's spent set)
    # (after the start, a mark, 等, 我 or 你 only: not "超过两个小时没动了", "错过", "睡过", "每过一小时")
    (rf"(?:^|(?<=[\s，,。！!？?、；;：:等我你]))(?:再)?过\s*(?:{_ZH_DELAY})", _zh_delay),
    (rf"(?<![第\d.])(?P<h>{_ZN})\s*(?:点|點|时(?![间候])|時(?![間候]))"
     rf"(?:\s*(?P<q>半|一刻|1刻|三刻|3刻)|\s*(?P<m>(?!一[起下些样樣直定会會块塊共边邊般切同道律概向旦]){_ZN})\s*(?P<fen>分)?)?"
     rf"(?P<tail>钟|鐘|整)?", _zh_clock),  # (not the 一 of a word after it: "中午12点一起吃饭")
    (rf"(?:(?P<y>\d{{4}}|[零〇一二三四五六七八九]{{4}})\s*年\s*)?"
     rf"(?P<mo>{_ZN})\s*月\s*(?P<d>{_ZN})\s*[日号號]",
     lambda m, t: _date(m, zh_int(m["mo"]))),
    (rf"(?P<q>下下个|下下個|下个|下個|这个|這個|本)\s*月\s*(?P<d>{_ZN})\s*[日号號]",
     lambda m, t: {"day": _Day(day=zh_int(m["d"]), months=_ZH_MONTHS_AHEAD[m["q"]])}),
    (rf"(?<![月\d])(?P<d>{_ZN})\s*[号號]", lambda m, t: {"day": _Day(day=zh_int(m["d"]))}),
    (r"(?P<w>大后天|大後天|后天|後天|今天|今日|明天|明日|昨天|前天)|(?P<d>[今明昨])(?P<p>早|晚|夜)", _zh_day),
    (rf"(?P<w>早上|早晨|清晨|上午|中午|正午|下午|傍晚|晚上|夜里|夜裡|夜间|半夜|深夜|凌晨"
     rf"|[早晚](?=\s*{_ZN}\s*[点點]))",
     lambda m, t: {"period": (_PERIOD_NAMES[m["w"]], m["w"])}),
    (rf"(?P<q>下下|下个|下個|下|这个|這個|这|這|本|上个|上個|上)?\s*{_ZH_WEEKDAY}",
     lambda m, t: {"day": _Day(weekday=_ZH_WEEKDAYS[m["wd"]], week=_ZH_WEEK.get(m["q"] or ""))}),
    (rf"(?P<daily>每天|每日|天天)|每(?P<p>晚|早|夜)|每\s*[个個]?\s*{_ZH_WEEKDAY}", _zh_repeat),
]
_COMPILED = [(re.compile(pattern, re.I), build) for pattern, build in _RULES]

# --- finding ----------------------------------------------------------------------------------


def _pieces(text: str) -> list[_Expr]:
    found = []
    for pattern, build in _COMPILED:
        for m in pattern.finditer(text):
            slots = build(m, text)
            if slots:
                found.append(_Expr(m.start(), m.end(), slots))
    found.sort(key=lambda p: (p.start, p.start - p.end))  # earliest first, then longest
    kept: list[_Expr] = []
    for piece in found:
        if not kept or piece.start >= kept[-1].end:
            kept.append(piece)
    return kept


def _dated_weekday(first: object, second: object) -> _Day | None:
    """A date and a weekday said side by side ("6月5号礼拜二", "thursday may 24"): the date, with its weekday to check."""
    if not (isinstance(first, _Day) and isinstance(second, _Day)):
        return None
    for date_, weekday in ((first, second), (second, first)):
        if (date_.day is not None and date_.months is None and date_.said_weekday is None
                and weekday.weekday is not None and weekday.week in (None, 0) and weekday.day is None):
            return _Day(month=date_.month, day=date_.day, year=date_.year, said_weekday=weekday.weekday)
    return None


def _expressions(text: str) -> list[_Expr]:
    """Adjacent pieces that fill different slots join into one expression (and a date with its weekday)."""
    exprs: list[_Expr] = []
    for piece in _pieces(text):
        last = exprs[-1] if exprs else None
        both = last and _dated_weekday(last.slots.get("day"), piece.slots.get("day"))
        if (last and both and not (last.slots.keys() & piece.slots.keys()) - {"day"}
                and _GLUE.fullmatch(text, last.end, piece.start)):
            last.end = piece.end
            last.slots.update(piece.slots)
            last.slots["day"] = both
        elif (last and not last.slots.keys() & piece.slots.keys()
                and "delay" not in last.slots and "delay" not in piece.slots
                and _GLUE.fullmatch(text, last.end, piece.start)):
            last.end = piece.end
            last.slots.update(piece.slots)
        else:
            exprs.append(_Expr(piece.start, piece.end, dict(piece.slots)))
    for expr in exprs:
        lead = _LEAD.search(text, 0, expr.start)
        if lead:
            expr.start = lead.start()
    return exprs


def _in_zone(now: datetime, zone: tzinfo) -> datetime:
    if now.tzinfo is None or now.utcoffset() is None:
        raise ValueError("`now` must be timezone-aware")
    return now.astimezone(zone)


def _says(zh: bool, en: str, zh_text: str) -> str:
    return zh_text if zh else en


def find_when(text: str, now: datetime, zone: tzinfo) -> When | None:
    """Find and read the first time expression in a sentence; None when there is none.

    Raises a TimeProblem when the expression is invalid, ambiguous or past. `span` lets the
    caller cut the time out of the sentence to leave the task. An hour with no day of its own
    takes a day to come said a few words before it ("下周六…，下午三点开始，提醒我"); its span
    stays the hour's.
    """
    now, text = _in_zone(now, zone), text.translate(_FULLWIDTH)
    exprs = _expressions(text)
    for at, expr in enumerate(exprs):
        if "clock" in expr.slots or "delay" in expr.slots:
            day = next((other for other in reversed(exprs[:at]) if _to_come(other.slots.get("day"), False)
                        and not other.slots.keys() & {"clock", "delay", "repeat"}), None)
            if "clock" in expr.slots and "day" not in expr.slots and "repeat" not in expr.slots and day is not None and (
                    _close(text, day.end, expr.start)):
                # the day said a few words before the hour: "下周六我表姐结婚，下午三点开始，提醒我" is next Saturday at 15:00
                # (the span stays the hour's: the day's words stay in what to be reminded of)
                return _resolve(_Expr(expr.start, expr.end, {**day.slots, **expr.slots}), text, now, zone)
            return _resolve(expr, text, now, zone)
    return None


def dated(text: str) -> bool:
    """The text names one moment to come, a day and a clock time that happen
    once ("dentist tomorrow at 9am", "明天下午三点面试", "saturday 6am flight"):
    not a habit ("every tuesday at 8", "每周二晚上"), nor a day gone by
    ("yesterday at 3pm", "born March 3 at 5am", "June 5, 2019 at 3pm"). The
    day and the hour may sit a few words apart ("我朋友下周六结婚，下午五点开始"),
    and a date with its month counts unless a birth is told ("Hana's wedding is
    march 14 at 4pm")."""
    norm = text.translate(_FULLWIDTH)
    exprs = [expr for expr in _expressions(norm) if "repeat" not in expr.slots]  # (a habit's time is no plan's)
    born = _BORN.search(norm) is not None
    days = [expr for expr in exprs if _to_come(expr.slots.get("day"), born)]
    for expr in days:
        if "clock" in expr.slots:
            return True
    hours = [expr for expr in exprs if "clock" in expr.slots and "day" not in expr.slots]
    return any(_close(norm, day.end, hour.start) or _close(norm, hour.end, day.start) for day in days for hour in hours)


#: the most words (a Chinese character, or an English word, is one) between a day and its hour said apart ("下周六结婚，
#: 下午五点", "next saturday my cousin gets married, it starts at 3pm")
APART = 8


def _close(text: str, start: int, end: int) -> bool:
    """Whether `text[start:end]` is a gap of APART words at most (and no gap backwards)."""
    if end < start:
        return False
    between = text[start:end]
    return len(re.findall(r"[\u4e00-\u9fff]|[^\W\d_\u4e00-\u9fff]+", between)) <= APART


#: a birth told: its date and hour are no plan ("my daughter was born March 3 at 5am", "…早上五点生的")
_BORN = re.compile(r"\bborn\b|出生|生于|出世|生的", re.IGNORECASE)


def _to_come(day: object, born: bool) -> bool:
    """A day that may be to come: not one gone by ("yesterday", "June 5, 2019"), nor a date of birth."""
    if not isinstance(day, _Day) or day.offset is not None and day.offset < 0:
        return False
    if day.year is not None and day.year < date.today().year:
        return False
    return day.month is None or not born


def spans(text: str) -> list[tuple[int, int, bool, bool]]:
    """Where each time expression of `text` sits, unread: (start, end, names a day, names a clock time)."""
    return [(expr.start, expr.end, "day" in expr.slots, "clock" in expr.slots)
            for expr in _expressions(text.translate(_FULLWIDTH))]


def day_without_hour(text: str) -> tuple[int, int] | None:
    """Where `text` names a day but no clock time or delay ("remind me tomorrow to…", "明天提醒我…",
    "on dec 9"): a reminder still needs its hour. None when there is no such day."""
    for expr in _expressions(text.translate(_FULLWIDTH)):
        if "day" in expr.slots and not expr.slots.keys() & {"clock", "delay"}:
            return expr.start, expr.end
    return None


def parse_when(text: str, now: datetime, zone: tzinfo) -> When:
    """Read `text` that is, as a whole, a time ("in 20 minutes", "明天早上8点", "2026-12-01 14:00")."""
    now, norm = _in_zone(now, zone), text.translate(_FULLWIDTH)
    exprs = _expressions(norm)
    if len(exprs) != 1 or not _BLANK.fullmatch(norm[:exprs[0].start] + norm[exprs[0].end:]):
        raise InvalidTime(_says(
            detect_language(text) == "zh",
            f"I can't read '{text.strip()}' as a time; try 'in 20 minutes' or 'tomorrow at 9am'",
            f"我看不懂“{text.strip()}”是什么时间；可以说“20分钟后”或“明天早上8点”。"))
    return _resolve(exprs[0], norm, now, zone)


# --- resolving --------------------------------------------------------------------------------


def _resolve(expr: _Expr, text: str, now: datetime, zone: tzinfo) -> When:
    said = text[expr.start:expr.end]
    # the language of the time as said ("明天9点", "at 9"), else of the whole sentence ("提醒我 9:00 …")
    zh = detect_language(said, default=detect_language(text)) == "zh"
    span, slots = (expr.start, expr.end), expr.slots
    if "delay" in slots:
        minutes = slots["delay"]
        assert isinstance(minutes, (int, float))
        if minutes > _MAX_DELAY_MINUTES:
            raise InvalidTime(_says(zh, "That is too far away: a reminder can be at most a year ahead. "
                                        "When within a year should it be?",
                                    "这个时间太远了：提醒最多只能设在一年之内。改成一年内的什么时候？"))
        if not minutes > 0:
            raise InvalidTime(_says(zh, "A reminder delay must be more than zero, like 'in 20 minutes'.",
                                    "提醒的时间间隔要大于0，比如“20分钟后”。"))
        delay = timedelta(minutes=minutes)
        return When((now.astimezone(timezone.utc) + delay).astimezone(zone), "none", span)
    if "clock" not in slots:
        raise AmbiguousTime(_says(zh, "At what time? For example 'tomorrow at 9am'.",
                                  "几点呢？比如“明天早上8点”。"))
    clock = slots["clock"]
    assert isinstance(clock, _Clock)
    repeat = str(slots.get("repeat", "none"))
    hours, ask = _hours(clock, slots.get("period"), zh)  # type: ignore[arg-type]
    if not ask:
        return When(_place(slots, hours[0], clock.minute, now, zone, zh), repeat, span)
    options: list[When] = []
    passed: PastTime | None = None
    for hour in hours:
        try:
            options.append(When(_place(slots, hour, clock.minute, now, zone, zh), repeat, span))
        except PastTime as past:  # a passed reading is offered at its next occurrence, if any
            passed = past
            options += [When(o.at, repeat, span) for o in past.options]
    if not options and passed:
        raise passed
    # a repeating reminder has no "today or tomorrow": offer its readings by time of day
    options.sort(key=lambda w: w.at.time() if repeat != "none" else w.at.replace(tzinfo=None))
    phrases = [_phrase(o, now, zh) for o in options]
    if zh:
        question = f"是指{phrases[0]}吗？" if len(phrases) == 1 else f"是{'还是'.join(phrases)}？"
    else:
        question = f"Do you mean {' or '.join(phrases)}?"
    raise AmbiguousTime(question, tuple(options))


def _hours(clock: _Clock, period: tuple[str, str] | None, zh: bool) -> tuple[list[int], bool]:
    """The 24-hour readings of a clock time (24 = midnight at the end of the day), and whether to ask."""
    hour, minute = clock.hour, clock.minute
    if minute > 59:
        raise InvalidTime(_says(zh, f"There is no minute {minute} — minutes run from 0 to 59.",
                                f"没有{minute}分——分钟只能是0到59。"))
    if clock.meridiem:
        if not 1 <= hour <= 12:
            raise InvalidTime(_says(zh, f"'{clock.text}' isn't a time — with am/pm the hour is 1 to 12.",
                                    f"“{clock.text}”不是有效时间：上午/下午的钟点只有1到12。"))
        hours = [hour % 12 + (12 if clock.meridiem == "pm" else 0)]
    elif hour > 24 or (hour == 24 and minute):
        raise InvalidTime(_says(zh, f"There is no hour {hour} — use 0 to 23, or 1 to 12 with am/pm.",
                                f"没有{hour}点——钟点只能是0到23。"))
    elif clock.exact or hour == 0 or hour > 12:
        hours = [hour]
    else:
        hours = [hour % 12, hour % 12 + 12]
    if period is None:
        return hours, len(hours) > 1
    name, word = period
    fits = [h for h in hours if h in _PERIODS[name]]
    if fits:
        return fits, len(fits) > 1
    if hour == 12 and not clock.meridiem and not clock.exact:  # 晚上12点 is likely midnight; ask anyway
        return ([24] if name in _LATE_PERIODS else [0, 12]), True
    raise InvalidTime(_says(
        zh, f"{clock.text.strip()} doesn't fit '{word}' — say it with am/pm or as 24-hour time, like 20:00.",
        f"“{word}{clock.text.strip()}”对不上——请换个说法，比如“晚上8点”或“20:00”。"))


def _place(slots: dict[str, object], hour: int, minute: int,
           now: datetime, zone: tzinfo, zh: bool) -> datetime:
    """The fire time on the day the expression names; PastTime (with the next occurrence) if passed."""
    day = slots.get("day")
    assert day is None or isinstance(day, _Day)
    dates, silent = _dates(day, slots.get("repeat") == "daily", now.date(), zh)
    first = _local(dates[0], hour, minute, zone, zh)
    if first > now:
        return first
    later = _local(dates[1], hour, minute, zone, zh) if len(dates) > 1 else None
    if later and silent:
        return later
    gone = _phrase(When(first), now, zh)
    if later is None:
        raise PastTime(_says(zh, f"{gone} is already in the past — when should it be instead?",
                             f"{gone}已经过去了——换个时间好吗？"))
    offer = _phrase(When(later), now, zh)
    raise PastTime(_says(zh, f"{gone} has passed — do you mean {offer}?", f"{gone}已经过了——是指{offer}吗？"),
                   (When(later, str(slots.get("repeat", "none"))),))


def _dates(day: _Day | None, daily: bool, today: date, zh: bool) -> tuple[list[date], bool]:
    """Candidate dates in order, and whether moving on to the second one needs no question."""
    if day is None:
        return [today, today + _DAY], daily
    if day.offset is not None:
        named = today + timedelta(days=day.offset)
        return ([named, named + _DAY] if day.offset == 0 else [named]), False
    if day.weekday is not None:
        if day.week is None:  # "Friday": the next Friday, today if the time is still ahead
            named = today + timedelta(days=(day.weekday - today.weekday()) % 7)
            return [named, named + _WEEK], True
        named = today + timedelta(days=day.weekday - today.weekday() + 7 * day.week)
        return ([named, named + _WEEK] if day.week == 0 else [named]), False
    assert day.day is not None
    if day.months is not None:  # "下个月3号", "the 3rd of next month"
        year, month = divmod(today.month - 1 + day.months, 12)
        try:
            return [date(today.year + year, month + 1, day.day)], False
        except ValueError:
            raise InvalidTime(_says(zh, f"{_MONTH_NAMES[month]} has no day {day.day}.",
                                    f"{month + 1}月没有{day.day}日。")) from None
    if day.month is not None and not 1 <= day.month <= 12:
        raise InvalidTime(_says(zh, f"There is no month {day.month}.", f"没有{day.month}月。"))
    if not 1 <= day.day <= (_MONTH_DAYS[day.month - 1] if day.month else 31):
        raise InvalidTime(_says(
            zh, f"{_MONTH_NAMES[day.month - 1] + ' has' if day.month else 'A month has'} no day {day.day}.",
            f"{f'{day.month}月' if day.month else '一个月里'}没有{day.day}日。"))
    if day.year is not None:
        try:
            return _on_weekday([date(day.year, day.month or 1, day.day)], day, zh), False
        except ValueError:
            raise InvalidTime(_says(zh, f"{day.year}-{day.month:02}-{day.day:02} doesn't exist.",
                                    f"{day.year}年没有{day.month}月{day.day}日。")) from None
    found = []
    for ahead in range(12 * 9):  # far enough to reach the next February 29
        year, month = divmod(today.month - 1 + ahead, 12)
        if day.month in (None, month + 1):
            try:
                found.append(date(today.year + year, month + 1, day.day))
            except ValueError:
                continue
            if found[-1] < today:
                found.pop()
            elif len(found) == 2:
                break
    return _on_weekday(found, day, zh), False


def _on_weekday(found: list[date], day: _Day, zh: bool) -> list[date]:
    """The date said with its weekday ("6月5号礼拜二"), once: the two do not mean two days. A date said with
    another weekday is a question, not a guess (nor next year's June 5, which is that weekday)."""
    if day.said_weekday is None or not found:
        return found
    first = found[0]
    if first.weekday() == day.said_weekday:
        return [first]
    raise InvalidTime(_says(
        zh, f"{first:%B} {first.day} is a {_EN_WEEKDAYS[first.weekday()].title()}, not a "
            f"{_EN_WEEKDAYS[day.said_weekday].title()}: which day do you mean?",
        f"{first.month}月{first.day}日是周{_ZH_WD[first.weekday()]}，不是周{_ZH_WD[day.said_weekday]}，你说的是哪天？"))


def _local(day: date, hour: int, minute: int, zone: tzinfo, zh: bool) -> datetime:
    """Wall-clock time in `zone`; InvalidTime if daylight saving skips it."""
    if hour == 24:
        if day == date.max:
            raise InvalidTime(_says(zh, "That is too far away; give a time before the year 9999 ends.",
                                    "这个时间太远了；请给一个9999年结束之前的时间。"))
        day, hour = day + _DAY, 0
    wall = datetime(day.year, day.month, day.day, hour, minute)
    at = wall.replace(tzinfo=zone)
    shifted = at.astimezone(timezone.utc).astimezone(zone)
    if shifted.replace(tzinfo=None) != wall:
        zone_name = getattr(zone, "key", None) or str(zone)
        raise InvalidTime(_says(
            zh, f"{wall:%Y-%m-%d %H:%M} doesn't exist in {zone_name}: the clocks jump forward over it "
                f"(daylight saving). Would {shifted:%H:%M} work?",
            f"{wall:%Y-%m-%d %H:%M}在{zone_name}不存在：那晚时钟拨快跳过了这段时间（夏令时）。"
            f"改成{shifted:%H:%M}可以吗？"))
    return at


# --- wording ----------------------------------------------------------------------------------


def _day_label(at: datetime, now: datetime, zh: bool) -> str:
    now = now.astimezone(at.tzinfo)
    days = (at.date() - now.date()).days
    if days in (0, 1):
        return (("今天", "明天") if zh else ("today", "tomorrow"))[days]
    if zh:
        year = "" if at.year == now.year else f"{at.year}年"
        return f"{year}{at.month}月{at.day}日（周{_ZH_WD[at.weekday()]}）"
    return f"{_EN_WD_SHORT[at.weekday()]} {at:%Y-%m-%d}"


def describe(at: datetime, now: datetime, language: str) -> str:
    """How a confirmation quotes the fire time: "today 21:00", "Fri 2026-12-04 15:00", "明天 08:00"."""
    zh = language.lower().startswith("zh")
    label = _day_label(at, now, zh)
    return f"{label}{'' if label.endswith('）') else ' '}{at:%H:%M}"


def _phrase(when: When, now: datetime, zh: bool) -> str:
    """A fire time as a question quotes it: "today 20:00", "every day at 07:30", "明天早上8点"."""
    at = when.at
    if not zh:
        if when.repeat == "none":
            return describe(at, now, "en")
        every = "day" if when.repeat == "daily" else _EN_WEEKDAYS[at.weekday()].title()
        return f"every {every} at {at:%H:%M}"
    every_zh = {"daily": "每天", "weekly": f"每周{_ZH_WD[at.weekday()]}"}
    days = every_zh.get(when.repeat) or _day_label(at, now, True)
    period = next(word for end, word in [(5, "凌晨"), (9, "早上"), (12, "上午"), (13, "中午"), (18, "下午"),
                                         (24, "晚上")] if at.hour < end)
    minutes = "" if at.minute == 0 else "半" if at.minute == 30 else f"{at.minute}分"
    return f"{days}{period}{at.hour if at.hour <= 12 else at.hour - 12}点{minutes}"

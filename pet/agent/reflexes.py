"""Reflexes: precise bilingual sentence patterns for the core intents, and
/slash commands, answered by running the tool directly.

Precision first: a pattern is anchored to the whole message and fires only
when the intent is unambiguous; anything else goes to the model. A reflex
never guesses a time: an ambiguous or past time becomes a question.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, replace
from typing import Sequence

from pet.agent import arithmetic
from pet.agent.replycheck import asks_pet_name, sentences
from pet.events import ToolCall
from pet.text import NOT_AFTER_TITLE, cjk_count, detect_language, zh_int
from pet.tools.facts import (
    KEPT_IN,
    asks_deleting,
    declines_keeping,
    dismissal,
    memory_fact,
    only_pronoun,
    opens_with_request,
    unquote,
    without_chat_words,
)
from pet.tools.when import TimeProblem, dated, day_without_hour, find_when, parse_when, spans


@dataclass(frozen=True)
class Reflex:
    intent: str
    calls: tuple[ToolCall, ...] = ()
    #: a direct answer (help text, or a question when the request is unclear)
    reply: str | None = None
    #: "new" starts a new conversation; "undo" restores the memory forgotten
    #: last; "approve" accepts the pending memory whose id is `argument`;
    #: "yes" / "no" run or drop the tool calls waiting for the person's OK
    command: str | None = None
    argument: str = ""
    #: a reminder that waits for its time, (task, day said or ""): the reply asked "what time?"
    needs_time: tuple[str, str] | None = None


HELP = {
    "en": (
        "Commands: /remember TEXT · /forget ID-or-words · /recall WORDS · /remind WHEN TEXT · "
        "/undo (bring back what was forgotten last) · /approve ID (accept a pending memory) · "
        "/yes · /no (let the pet do what it asked leave for, or not) · "
        "/reminders · /cancel ID · /todo TEXT · /todos · /new (new conversation) · /help"
    ),
    "zh": (
        "命令：/remember 内容（记住）· /forget 编号或关键词（忘掉）· /recall 关键词（回想）· "
        "/undo（撤销上一次忘记）· /approve 编号（确认待定记忆）· "
        "/yes · /no（同意或拒绝等你确认的事）· "
        "/remind 时间 内容（提醒）· /reminders（提醒列表）· /cancel 编号（取消提醒）· "
        "/todo 内容（加待办）· /todos（待办列表）· /new（新对话）· /help"
    ),
}

_I = re.IGNORECASE
_POLITE_EN = r"(?:(?:hey|ok|okay|so|and)[,\s]+)?(?:(?:please|pls|can you|could you|would you)\s+)?"
_POLITE_ZH = r"(?:请|麻烦)?(?:你)?(?:帮我|给我)?"
_END = r"[\s.!。！~～]*"
_QUESTION_END = re.compile(r"(?:[?？]|吗|么|呢)\s*$")
#: a question about how two things differ ("what's the diff between reminders and alarms", "提醒事项和闹钟有啥区别"):
#: talk about the tools, not a use of one. Asked as a question only: "记住：我和我妹最大的区别是她爱吃辣" asks to keep it
_COMPARES = re.compile(
    r"^(?:so |ok |hey,? )?(?:what(?:['’]s| is|s)|whats) (?:the |a )?(?:real )?diff(?:erence)? (?:between|of)\b"
    r"|^(?:so |ok |hey,? )?how (?:is|are|does|do) .{1,40}\b(?:differ|different)\b"
    r"|^(?:so |ok |hey,? )?(?:is|are) (?:a |an |the )?.{1,30}\bthe same (?:thing )?as\b"
    r"|(?:有|是)(?:什么|啥|哪些)(?:区别|不同|不一样|差别)|区别(?:是什么|是啥|在哪)|差别(?:是什么|是啥|在哪)",
    re.IGNORECASE)


def _call(name: str, **arguments: object) -> tuple[ToolCall, ...]:
    return (ToolCall(name=name, arguments=dict(arguments)),)


def _clean(content: str) -> str:
    return content.strip().strip("，,。.!！~～:：").strip()


# --- the patterns ----------------------------------------------------------------

#: where a fact is kept, said after "note that": "note that down in your memory: my locker is 77" (round 48's spent set
#: kept "down in your memory" as the memory)
_KEPT_WHERE = re.compile(rf"^(?:down|away)\b(?:\s+{KEPT_IN})?\s*(?:[:：,，]\s*|$)", _I)

_REMEMBER = [
    re.compile(
        rf"^{_POLITE_EN}(?:remember|note|make a (?:mental )?note|memori[sz]e|keep in mind|don't forget|do not forget)"
        r"(?:\s+instead)?(?:\s+that|\s*:|\s*,)"
        rf"\s*(?P<x>.+?){_END}$",
        _I,
    ),
    re.compile(rf"^{_POLITE_EN}remember\s+(?P<x>(?:my|i|i'm|i am|i've|we|our|mom's|dad's)\b.+?){_END}$", _I),
    re.compile(rf"^(?:please|pls)\s+remember\s+(?P<x>.+?){_END}$", _I),
    re.compile(rf"^{_POLITE_ZH}(?:记住|记一下|记下来|记下|记着|记好|(?:改)?记成(?![^，,。]*了)(?!.*(?:其实|不好意思|搞错|记错|弄错)))(?:一下)?(?:吧|哈|啊|呀|哦|嘛)?[：:，,\s]*(?P<x>.+?){_END}$"),
    re.compile(rf"^(?:please\s+)?(?:save|add|put|store|keep) (?:this|that|it)? ?(?:to|in|into) (?:your )?memory"
               rf"\s*[:：,]\s*(?P<x>.+?){_END}$", _I),
    re.compile(r"^(?P<x>[^?？]+?)\s+(?:[\U0001F300-\U0001FAFF\u2600-\u27BF]+\s*)?(?:please\s+)?"
               r"(?:don't|do not|dont) forget (?:it|that|this)[\s.!]*$", _I),
    re.compile(r"^(?P<x>[^?？]+?)\s*[.!,;…—-]+\s*(?:rememebr|remeber|remembr|rember) (?:that|this|it)\b.{0,8}$", _I),
    re.compile(r"^(?P<x>[^?？]+?)\s*[，,。！!]+\s*(?:你)?把(?:这个|这|它|这些|这件事)(?:存到|存进|记到|放到|记在|存在)"
               r"(?:你的)?(?:记忆|脑子|小本本|心)(?:里|中)?[。！!~～\s]*$"),
    re.compile(r"^(?P<x>[^?？]+?)\s*[，,。！!]+\s*(?:请)?(?:一定)?(?:要)?(?:记住|记好)(?:了|哦|啊|呀)?[。！!~～\s]*$"),
    # "以后叫我小鱼就行，记住了吗？" (the fact must not itself be a question)
    _REMEMBER_ASKED := re.compile(r"^(?P<x>(?:(?!什么|来着|谁|哪|怎么|多少|吗|呢)[^?？]){2,}?)\s*[，,。！!]+\s*(?:你)?(?:记住|记下)(?:了)?(?:吗|没|没有)[？?]?$"),
    re.compile(rf"^别忘了[：:，,\s]*(?P<x>.+?){_END}$"),
    # The fact first, then the request: "My locker is 327. Remember that!", "我搬到杭州了，记一下"
    _REMEMBER_AFTER := re.compile(
        r"^(?P<x>[^?？]+?)\s*[.!,;。！，；]\s*(?:please\s+|pls\s+|plz\s+|so\s+)?(?:(?:can|could|would|will) you\s+(?:please\s+)?)?"
        r"(?:remember|note|memori[sz]e|save|keep) (?:that|this|it)(?: in mind)?(?: for me)?(?:,? please)?[\s.!?？]*$",
        _I,
    ),
    re.compile(
        r"^(?P<x>[^?？]+?)\s*[.!,;]\s*(?:please\s+)?(?:don't|do not|dont) forget (?:that|this|it)[\s.!]*$", _I
    ),
    re.compile(
        r"^(?P<x>[^?？]+?)\s*[，,。！!]\s*(?:请|帮我|你)?(?:要)?(?:记一下|记住|记下来|记下|记着|记好|别忘了)"
        r"(?:了|啦|哦|啊|吧|呀|哈|喔)?[。！!~～\s]*$"
    ),
    # a fact of the person's, then to keep it from now on: "我不吃香菜的，以后记住啊" (round 39's spent set); not the person
    # telling themselves ("又忘带钥匙了，下次一定要记住啊": 要, and no 我), nor someone else's ("老师说…以后要记住")
    re.compile(r"^(?P<x>[^?？]*我[^?？]+?)\s*[，,。！!]\s*(?:你)?(?:以后|下次|今后)(?:记一下|记住|记着|记好)"
               r"(?:了|啦|哦|啊|吧|呀|哈|喔)?[。！!~～\s]*$"),
    re.compile(r"^(?:以后|今后)?(?:要)?记得(?P<x>我.+?)$"),
]
_FORGET = [
    re.compile(rf"^{_POLITE_EN}forget\s+(?:about\s+|that\s+)?(?P<x>.+?){_END}$", _I),
    re.compile(rf"^[^?？]+?[.!,;]\s*{_POLITE_EN}forget\s+(?:about\s+|that\s+)?(?P<x>.+?){_END}$", _I),
    re.compile(
        rf"^{_POLITE_EN}(?:forget|erase|delete|remove) (?:what|everything|anything) you (?:know|remember) about "
        rf"(?P<x>.+?){_END}$",
        _I,
    ),
    re.compile(rf"^{_POLITE_ZH}把(?P<x>.+?)(?:给)?(?:忘掉|忘了|忘记|删掉|删了|删除)(?:吧|啦)?{_END}$"),
    re.compile(rf"^(?P<x>[^?？]+?)[，,。]\s*{_POLITE_ZH}把(?:这条|这个|它|这件事|这事)(?:给)?(?:忘掉|忘了|删掉|删了|删除)(?:吧|啦)?{_END}$"),
    re.compile(rf"^忘记(?P<x>.+?)(?:这件事|的事|这条记忆|的记忆){_END}$"),
    re.compile(rf"^{_POLITE_EN}(?:delete|remove|erase)\s+(?:the\s+)?memor(?:y|ies)\s+(?:about\s+|of\s+)?(?P<x>.+?){_END}$", _I),
    re.compile(rf"^{_POLITE_ZH}(?:忘掉|删掉|删除|抹掉)(?:记忆)?(?:关于)?[：:，,\s]*(?P<x>.+?)(?:这件事|这条记忆|的记忆|这个记忆)?{_END}$"),
    re.compile(rf"^(?:请|麻烦)(?:你)?(?:帮我)?忘记(?:关于)?[：:，,\s]*(?P<x>.+?)(?:这件事|这条记忆|的记忆)?{_END}$"),
]
_FORGET.extend([
    re.compile(r"^(?P<x>[^，,。？?]+)[，,。]\s*(?:把)?(?:那条|这条|那个|这个)(?:记录|记忆|信息)?(?:你)?(?:就)?(?:给)?"
               r"(?:忘了|忘掉|删了|删掉|删除|抹掉)(?:吧|啦)?[。！!]*$"),
    re.compile(
        r"^(?:.*?[.!?;,]\s*)?(?:so\s+)?(?:wipe|scrap|clear|ditch|bin|nuke|yeet|toss|trash)\s+(?:the\s+)?"
        r"(?:note|memory|thing|bit|info|stuff)\s+(?:about|that says|saying|on)\s+(?P<x>[^?.!;]+)",
        _I,
    ),
    # "yeet the trumpet lessons thing", "ditch the old-flat one"
    re.compile(r"^(?:pls |please |just )?(?:wipe|scrap|ditch|bin|nuke|yeet|toss|trash)\s+the\s+(?P<x>[^?.!;]+?)\s+"
               r"(?:thing|bit|one|memory|note)[\s.!~]*$", _I),
    # "瑜伽馆那条别记了", "前任那条不用记了" (not "考试成绩那个作废了", news)
    re.compile(r"^(?:关于)?(?P<x>[^，,。？?]+?)(?:的)?(?:那条|这条)(?:记录|记忆|信息)?(?:你)?(?:就)?"
               r"(?:别记了|别记着了|不用记了|不要记了|别存了|不用存了)(?:吧|啦)?[。！!]*$"),
    re.compile(
        r"^(?:that|the) (?:memory|note) (?:about|that says|saying) (?P<x>.+?) (?:is wrong|is outdated|isn't true|is old)"
        r"[^a-z]*(?:pls |please )?(?:remove|delete|forget|wipe|drop|erase) it\b.*$",
        _I,
    ),
    re.compile(
        r"^(?:.*?[.!?;,]\s*)?(?:forget|delete|erase|remove|drop)\s+(?:the\s+|that\s+)?(?:note|memory|thing|stuff|bit|part|info)"
        r"\s+(?:about|on|of|regarding)\s+(?P<x>[^?.!;]+)",
        _I,
    ),
    re.compile(r"^(?:.*?[，,。])?\s*(?:关于|把)?(?P<x>[^，,。？?]+?)(?:那条|那个|这条|这个|的那条|的事|的记忆)(?:记忆)?(?:你)?(?:都)?(?:给)?"
               r"(?:忘了|忘掉|删掉|删了|删除|抹掉)"),
    re.compile(r"^(?:.*?[，,。])?\s*把(?P<x>[^，,。？?]+?)(?:的事|那条|这条)?(?:都)?(?:给)?(?:忘了|忘掉|删掉|删了|删除|抹掉|清掉|清除)"),
    # pointed at before it: "那个wifi密码你删掉吧，已经换了", "关于豆豆的事都清掉吧，它上周走了" (round 30's spent set;
    # not "那个视频我删了", news, nor "那个app你删了吗", a question)
    # (the fillers are stripped first: "那个" may be gone, then "你" says who is asked)
    # (asked of the pet, 你, and as a request, 吧: not "这个单词又忘了", "今天的约会你忘了啦！", "你忘了吧" (a guess))
    re.compile(r"^(?:那个|那条|这个|这条)?(?P<x>[^，,。？?我你]{1,20}?)你(?:就|也|都)*(?:给)?"
               r"(?:忘掉|删掉|删了|删除|抹掉|清掉|清除)(?![吗没])吧(?:[，,。！!~～\s]|$)"),
    # ...or let go of: "它的名字你可以忘了" (round 32's spent set noted it)
    # (what it points at, 它/那/这, and 可以 alone: "结婚纪念日你都能忘了！" is a complaint, "过去的事你可以忘了" advice)
    re.compile(r"^(?P<x>(?:它|他|她|那|这)[^，,。？?我你]{1,20}?)你(?:就)?可以(?:把它)?(?:给)?"
               r"(?:忘了|忘掉了?|删了|删掉了?|不用记了)(?![吗没])(?:吧|啦|哦)?[。！!~～\s]*$"),
    re.compile(r"^关于(?P<x>[^，,。？?我]{1,20}?)的(?:事|记忆|那些)(?:你)?(?:就|也|都)*(?:给)?"
               r"(?:忘掉|删掉|删了|删除|抹掉|清掉|清除|清空)(?![吗没])(?:吧|啦)?(?:[，,。！!~～\s]|$)"),
    # what it is about, then let go of all of it, after a reason or alone: "仓鼠送人了，关于糯米的都忘了吧",
    # "有关旺财的都别记了" (round 39's spent set); "…都忘了" only with 吧 (`_ASKED_TO_LET_GO`): "毕业十年了，有关大学的都忘了" is news
    _FORGET_ALL_ABOUT := re.compile(
        r"^(?:[^，,。？?]+[，,。！!]\s*)?(?:关于|有关)(?P<x>[^，,。？?我]{1,20}?)的(?:事|记忆|那些|一切)?(?:你)?(?:就|也|都|全)+"
        r"(?:(?:忘了|忘掉|删了|删掉|清掉)(?![吗没])(?:吧|啦)?|别记了|别记着了|不用记了|不要记了|别存了|不用存了)"
        r"[。！!~～\s]*$"),
    # not to keep it any more: "我戒咖啡了，别再记着我爱喝美式了", "不用再记着我的旧地址了"; something the pet keeps
    # (two characters at least: not "别再记着他了", nor "别记着了" alone)
    re.compile(r"^(?:[^，,。？?]+[，,。！!]\s*)?(?:你)?(?:就)?(?:别|不要|不用|甭)再?(?:记着|记住|记得|存着)(?P<x>[^，,。？?]{2,30}?)了"
               r"(?:吧|啊|哦|哈)?[。！!~～\s]*$"),
    # "i'm vegan now, you can forget the bit about steak", "just forget the part about my ex"
    re.compile(
        r"^(?:.*?[.!?;,]\s*)?(?:(?:you|u) can |(?:you|u) may |just |feel free to |go ahead and )(?:forget|delete|erase|drop|wipe)"
        r"\s+(?:the\s+|that\s+)?(?:note|memory|thing|stuff|bit|part|info)\s+(?:about|on|of|regarding)\s+(?P<x>[^?.!;]+)",
        _I,
    ),
    # "stop remembering that i like jazz, i'm over it", "you don't have to remember the gym code anymore" (said first, to
    # the pet: not "ugh brain, stop remembering…", nor "the test got cancelled, no need to remember the formulas")
    re.compile(r"^(?:pls |please |just |u can |you can )?stop remembering(?: that| about)?\s+(?P<x>[^?.!;,]+)", _I),
    re.compile(r"^(?:.*?[.!?;,]\s*)?(?:you|u) (?:don't|dont|do not) (?:need|have) to remember\s+(?P<x>[^?.!;,]+?)\s+"
               r"(?:anymore|any more)\b", _I),
])
#: one of the reminders just listed, let go with a word of letting go: "show me my reminders and then kill the one about
#: the car wash" (round 39's spent set; read only right after a clause that lists them: not "which movie should i see?
#: drop the one about the war")
_LET_GO_OF_THE_ONE = re.compile(r"^(?:and\s+)?(?:then\s+)?(?:pls |please |just )?(?:kill|nuke|ditch|scrap|nix|axe|bin|drop|delete"
                                r"|remove|cancel)\s+the\s+one\s+(?:about|for|with|on)\s+(?P<x>[^?.!;,]+?)[\s.!]*$", _I)
#: the forgets in other words (round 39's spent set), which someone else's words are not: "老师说，…", "朋友劝我，…",
#: "i told my brother, you can forget…", "…, she told me"
_FORGET_IN_OTHER_WORDS = frozenset(_FORGET[_FORGET.index(_FORGET_ALL_ABOUT):])
_SOMEONE_SAID = re.compile(r"\b(?:told|tells|tell|said|says|say|asked|asks)\b|说|劝|告诉|让我|叫我|问我", re.IGNORECASE)
#: ...and "…都忘了" asks only with a word that asks: "关于糯米的都忘了吧" (not "关于高数的都忘了", news)
_ASKED_TO_LET_GO = re.compile(r"(?:忘了|忘掉|删了|删掉|清掉)(?:吧|啦)|别记|不用记|不要记|别存|不用存|你")
#: the person forgot, or deleted, a thing themselves: "结果我把这个忘了", "wifi密码 我把它忘了", "我把那个删了" (news, not a request)
_I_FORGOT = re.compile(r"(?<![帮给替让叫请])我(?:已经|又|总是?|老是?|都|竟然|居然|早就)?把[^，,。？?]{0,12}?(?:给)?"
                       r"(?:忘(?:了|掉了|记了)|删了|删掉了)(?![吧啊呀])")
#: a forget's words that name a reminder ("把那个提醒删了吧", "delete the dentist reminder"): cancelling it is
#: no memory's business, so the router (cancel_reminder) decides
_A_REMINDER = re.compile(r"提醒|闹钟|(?<![a-z])(?:reminders?|alarms?)(?![a-z])", _I)  # "reminder列表" too
#: ...and words of a memory, which make it one after all ("提醒我的那条记忆删了")
_A_MEMORY = re.compile(r"记忆|记录|\bmemor(?:y|ies)\b|\bnotes?\b", _I)


def names_a_reminder(text: str) -> bool:
    """Whether a request to delete speaks of a reminder, not a memory ("把那个提醒删了吧")."""
    return bool(_A_REMINDER.search(text)) and not _A_MEMORY.search(text)


#: a reminder let go by what it is for: "取护照那个不用提醒了", "周五的会就别提醒我了", "no need to remind me
#: about the dentist anymore" (the words before or after name it)
#: "don't remind", asked as a plea
_PLEA_EN = r"^(?:(?:ok(?:ay)?|so|and|also|oh|btw|nah|no),?\s+)?(?:pls |please )?(?:don'?t|do not|dont) remind"
_NO_MORE_REMINDING = [
    # the reminder is pointed at ("…那个", "…就"): "哎呀别提醒我了" and "你以后不用再提醒我了" point at none
    re.compile(r"^(?P<x>[^，,。.!！?？]{2,24}?)(?:那个|那条|这个|这条|的那个|的那条|的事|就|也)(?:就|也)?(?:不用|不必|不需要|别|甭)再?"
               r"提醒(?:我|你)?(?:了|啦|啊|哈)"),
    # the thing named after it: "不用提醒我给妈打电话了，刚打过" (round 30's spent set)
    re.compile(r"^(?:你)?(?:以后|明天|今天|今晚)?(?:就)?(?:不用|不必|不需要|别|甭)再?提醒我(?:去|要)?"
               r"(?P<x>[^，,。.!！?？]{2,24}?)(?:了|啦)(?:[，,。.!！~～\s]|$)"),
    re.compile(r"^(?:(?:ok(?:ay)?|so|and|also|oh|btw),?\s+)?(?:there'?s )?(?:no need to|(?:you )?(?:don'?t|do not) (?:need|have) to)"
               r" remind me (?:about|of|to) (?P<x>.{2,60}?)(?: any ?more| now)?[.!]?$"
               r"|^(?:(?:ok(?:ay)?|so|and|also|oh|btw),?\s+)?(?:pls |please )?stop reminding me (?:about|of|to) (?P<x2>.{2,60}?)[.!]?$", _I),
    # "don't remind me about yoga tomorrow, the class got cancelled" (round 47's spent set): as a plea ("don't remind me
    # about my exam"), so only of a pending reminder (`keeps_coming`)
    re.compile(rf"{_PLEA_EN} me (?:about|of|to)"
               r" (?P<x>.{2,60}?)(?:\s+(?:any ?more|now|today|tonight|tomorrow|tmr|tmrw))?[.!]?$", _I),
]
#: the plea of the last of _NO_MORE_REMINDING
_PLEA = re.compile(_PLEA_EN, _I)
_REMINDING = re.compile(r"提醒|remind", _I)


def lets_a_reminder_go(text: str, keeps_coming: bool = False) -> str | None:
    """What a message lets go of a reminder for ("取护照那个不用提醒了" → "取护照"), or None. "别提醒我下周要考试了"
    asks not to bring up what is coming, unless (`keeps_coming`) a reminder of it is pending."""
    if not _REMINDING.search(text):
        return None
    for clause in clauses(text):
        if len(clause) > 120:
            continue  # a long clause is no such request (and the patterns stay linear)
        for pattern in _NO_MORE_REMINDING:
            found = pattern.search(clause.strip())
            if found:
                what = _clean(next(g for g in found.groups() if g)).strip("，, ")
                if (_BRING_UP.search(found.group()) and _COMING.search(what) or _PLEA.match(found.group())) and (
                        not keeps_coming):
                    continue  # "别提醒我下周要考试了": don't bring up what is coming, no reminder named
                if what and not _vague(what) and not _HEARD.search(what) and not re.search(
                        r"\b(?:lol|lmao|haha)\b|^(?:你|我|他|她)(?:以后|之后|再|就|也)?$", what, _I):
                    return what
    return None


#: "don't" said as a plea ("别提醒我…了"), not as "no need" ("不用提醒我…了")
_BRING_UP = re.compile(r"(?:别|甭)再?提醒我")
#: what is coming at a time, said as a statement ("下周要考试", "明天有早会"): no reminder's task
_COMING = re.compile(r"^(?:下(?:个)?(?:周|星期|礼拜|月)[一二三四五六日天]?|明天|后天|今天|今晚|这(?:个)?(?:周|星期|礼拜)[一二三四五六日天]?"
                     r"|周[一二三四五六日天]|星期[一二三四五六日天]|礼拜[一二三四五六日天])(?:就|还|又)?(?:要|得|有|会)")


#: words of having heard, not the thing to let go: "知道了，不用提醒了", "ok got it, don't remind me about it"
_HEARD = re.compile(r"知道|明白|晓得|好的|收到|记住了|\bgot it\b|\bok(?:ay)?\b", _I)


#: words of the to-do list
_A_TODO = re.compile(r"待办|代办|清单|(?<![a-z])(?:to-?dos?|tasks?|checklist|shopping list)(?![a-z])", _I)


def lists_the_other(intent: str, text: str) -> str | None:
    """The list a request to see one names, when the router heard the other: "把我的reminder列表给我瞅瞅"
    is near "把待办列表给我看看" but names reminders. None when it names both, or neither."""
    reminders, todos = bool(_A_REMINDER.search(text)) and not _REMIND_ME.search(text), bool(_A_TODO.search(text))
    if intent == "list_todos" and reminders and not todos:
        return "list_reminders"
    if intent == "list_reminders" and todos and not reminders:
        return "list_todos"
    return None


#: the words of one list joined to the other's: "my todos and my reminders", "提醒和待办", "reminders + tasks"
_BOTH_LISTS = re.compile(
    r"(?:to-?dos?|to do(?: list)?|tasks?|todo list|待办(?:清单|列表|事项)?)\s*(?:and|&|\+|和|跟|与|还有|以及|、)\s*"
    r"(?:(?:my|the|all|our)\s+)*(?:reminders?|提醒)"
    r"|(?:reminders?|提醒)\s*(?:and|&|\+|和|跟|与|还有|以及|、)\s*(?:(?:my|the|all|our)\s+)*(?:to-?dos?|to do|tasks?|待办)", _I)
#: ...asked to be seen, now: the request opens with it ("show me…", "can you list…", "what's on…"), or asks which there
#: are ("…有哪些", "列出来"); not a habit or an item ("I check my todos and reminders every morning", "我每天都看看待办和提醒",
#: "add 'check todos and reminders' to my list": the review of 2026-12-07)
_SHOWS = re.compile(r"^\W*(?:(?:hey|ok|so|pls|please|(?:can|could|would) (?:you|u))\W+)*(?:show|list|what(?:'s| is| are)?|whats|see"
                    r"|check|pull up|go over|read)\b|列出|列一下|列个|列给|有哪些|有什么|有啥|给我看|给我瞅|查看", _I)
#: ...not to be done away with, added to, or shown every day ("wipe my reminders and my todo list too": the review of
#: 2026-12-06; "以后每天早上给我看看待办和提醒" asks for a reminder)
_UNDOES = re.compile(r"\b(?:wipe|clear|delete|remove|erase|cancel|drop|scrap|empty|add|put|stick|jot|every)\b|清空|删|取消|清掉"
                     r"|不要了|加一|加个|添|记一|每天|每周|每晚|以后", _I)


#: asks to be reminded: "提醒我…", "remind me to…" (whatever is to be deleted then, it is no reminder now)
_REMIND_ME = re.compile(r"提醒(?:我|你|咱|他|她)|叫(?:我|醒我)|\bremind (?:me|us|him|her)\b|\bwake me\b", _I)


#: a new reminder in place of the old: "把7点的闹钟删了，换成8点的", "the 7am alarm can go, set one for 8 instead"
_IN_ITS_PLACE = re.compile(r"换成|改成|改到|换到|重新定|再定|\binstead\b|\bset (?:one|a new|another|it)\b|\bnew (?:reminder|alarm)\b"
                           r"|\bmove\b|\bchange\b|\breschedule\b|\bpush\b", _I)


def replaces(text: str) -> bool:
    """Whether a message puts something new in the place of what it lets go ("换成8点的", "instead")."""
    return _IN_ITS_PLACE.search(text) is not None


def deletes_a_reminder(text: str) -> bool:
    """Whether a message with a word of deleting speaks of a reminder as a thing ("看牙那个提醒不要了",
    "kill the 7am alarm"), not one that asks to be reminded ("提醒我明天把闹钟删了") or puts a new one in its place
    ("把7点的闹钟删了，换成8点的")."""
    return names_a_reminder(text) and not _REMIND_ME.search(text) and not _IN_ITS_PLACE.search(text)


_FORGET_VAGUE = {"it", "about it", "that", "this", "everything", "吧", "它", "了", "这个", "那个", "一切", "所有",
                 "把", "那条", "这条", "that one", "this one"}  # (x of "…，把那条删了": "把")
_CLAUSE_MARK = re.compile(r"[,，.。!！;；…?？~～]")


def asks_for_a_tool(text: str) -> bool:
    """The message asks the pet to do something in its words: "remind me…", "can you nudge me tonight at 9", "叫我一声",
    "帮我…", "add …" (not "how do reminders even work?")."""
    text = " ".join(text.split())
    return bool(_REMIND_ME.search(text) or _REMIND_ANYWHERE_EN.search(text) or _REMIND_ZH.search(text)) or any(
        request_form(clause) for clause in clauses(text)[:MOST_CLAUSES])


#: the most clauses of a message read one by one for a request among them (each may be routed: ~1 ms a clause)
MOST_CLAUSES = 16


def vague_target(target: str) -> bool:
    """A forget that names nothing ("it", "that")."""
    return _vague(target)


#: news that something no longer holds, which names what to forget: "我现在不喝美式了" (not "我搬家了": which memory it
#: changes, its words do not say)
_NO_LONGER = re.compile(r"不再|再也不|不(?:喝|吃|抽|玩|养|学|做|干|用|练|打|看|听|开|骑|追|去)[^，,。！!？?]{0,10}?了|戒了|戒掉了"
                        r"|\bno longer\b|\bnot\b.{1,30}\bany ?more\b|\b(?:quit|stopped|gave up)\b", _I)


def _forgets_it(clause: str) -> bool:
    """The clause asks to forget and names nothing: "把那条删了", "delete that"."""
    if _QUESTION_END.search(clause) or _I_FORGOT.search(clause) or _A_REMINDER.search(clause):
        return False
    found = _first(_FORGET, clause)
    return found is not None and _vague(found.group("x"))


def _vague(target: str) -> bool:
    """A forget that names nothing: "it", and "it, never mind" (its first clause is all that counts)."""
    first = _CLAUSE_MARK.split(target, maxsplit=1)[0]
    return _clean(first).lower() in _FORGET_VAGUE or _clean(target).lower() in _FORGET_VAGUE
#: what points at a memory or softens the request, not a word of it: "我喜欢咖啡那条", "my old address"
_FORGET_POINTER = re.compile(r"(?:的那条|的那个|那条|这条|那个|这个|的事|那件事|这件事|的记忆|那段)?(?:吧|啦|了)?$")
_FORGET_OLD = re.compile(r"^(?:my\s+)?(?:old|previous|outdated|former)\s+", re.I)


#: a clause that gives what replaces the memory let go: "my new one is 12 Harbor Street", "新的叫铁馆"
_NEW_ONE = re.compile(r"\bnew one(?:'s| is| will be)\s+\S|\bnow (?:it'?s|it is)\s+\S"
                      r"|新的(?:叫|是|在)|现在(?:叫|是|在|住)|换成了?", _I)


def _new_value(text: str, target: str) -> str | None:
    """What a forget says replaces the memory ("forget my old address on Birchwood Ave, my new one is 12
    Harbor Street" → "my new address is 12 Harbor Street"; "我换健身房了，把力行健身那条忘了吧，新的叫铁馆"
    → "我换健身房了，新的叫铁馆"): the message without its clause of forgetting, when a clause of it
    gives the new one; None else."""
    kept = [clause.strip() for clause in re.split(r"[,，。;；!！]|\.(?=\s|$)", text)]
    kept = [clause for clause in kept if clause and _first(_FORGET, clause) is None]
    if not any(_NEW_ONE.search(clause) for clause in kept):
        return None
    # what the memory was, up to where it says which one: "address on Birchwood Ave" → "address"
    head = re.split(r"\s+(?:on|at|in|of|from|with|for|that|which|is|was)\b", target, maxsplit=1, flags=_I)[0]
    noun = head if re.fullmatch(r"[a-z]+(?: [a-z]+){0,2}", head, _I) else head.split()[-1] if re.fullmatch(
        r"[a-z' ]+", head, _I) and head.split() else ""
    said = ("，" if detect_language(text) == "zh" else ", ").join(kept)
    owner = re.match(r"(?:my\s+)?[a-z]+['’]s\b", head, _I)
    if noun and owner and re.search(r"\b(?:her|his|their|its)\s+new one\b", said, _I):
        # "forget my wife's number, her new one is 555-0142" keeps "my wife's new number is 555-0142"
        said = re.sub(r"\b(?:her|his|their|its)\s+new one\b", f"{owner.group()} new {noun}", said, flags=_I)
    elif noun and re.search(r"\bnew one\b", said, _I):
        said = re.sub(r"\bnew one\b", f"new {noun}", said, flags=_I)
    elif re.match(r"(?:now|it|it's|its|her|his|their|she|he|they)\b", said, _I) and detect_language(text) != "zh":
        said = f"{target}: {said}"  # "forget my favorite color, now it's green" keeps "favorite color: now it's green"
    return _clean(said) or None


def _forget_target(target: str) -> str:
    """The words of a forget that name the memory: its first clause (what
    follows is a reason: "我住朝阳那条吧，那个不准", "my old address, it's
    outdated now"), without words that only point at it."""
    first = _clean(_CLAUSE_MARK.split(target, maxsplit=1)[0]) or _clean(target)
    named = _clean(_FORGET_POINTER.sub("", first))
    named = _FORGET_OLD.sub("", named) if re.search(r"[a-z]", named, re.I) else named
    return named if len(named) >= 2 else first


_RECALL = [
    re.compile(r"^what do you (?:remember|know|recall) about\s+(?P<x>.+?)\s*[?？]?$", _I),
    re.compile(r"^(?P<x>[^?？]+?)\s*[?？.,]\s*(?:please\s+)?(?:check|search|look in) your memory(?: for me)?[.!?\s]*$", _I),
    re.compile(r"^(?:please\s+)?(?:search|check|look in) your memory (?:for\s+)?(?:anything\s+)?(?:about\s+)?(?P<x>.+?)\s*[.?]?$", _I),
    re.compile(r"^(?P<x>我.+?)来着[？?]?$"),
    re.compile(r"^(?:翻翻|查查|看看|搜搜|翻一下|查一下)你的记忆[，,\s]*(?P<x>.+?)[？?]?$"),
    re.compile(r"^what did i tell you about\s+(?P<x>.+?)\s*[?？]?$", _I),
    re.compile(r"^(?:what|who|where|when)(?:'s| is| was| are| were)\s+(?P<x>my\b.+?)\s+again\s*[?？]?$", _I),
    re.compile(r"^(?:whats|wats)\s+(?P<x>my\b.+?)\s+again\s*[?？]?$", _I),
    re.compile(r"^did i (?:ever )?(?:tell|mention to) you (?:about |what |who |where |when |how )?(?P<x>.+?)\s*[?？]?$", _I),
    re.compile(r"^do you (?:still )?(?:remember|recall) (?:anything )?about (?P<x>.+?)\s*[?？]?$", _I),
    re.compile(r"^我(?:之前|以前)?(?:有)?(?:跟|和|对)你(?:说|讲|提)过(?P<x>.+?)(?:吗|没有|没)[？?]?$"),
    re.compile(r"^你(?:还)?记得(?P<x>我.+?)吗[？?]?$"),
    re.compile(r"^do (?:you|u|ya) (?:still )?(?:remember|recall|know) (?:what|who|where|when|how|which) (?P<x>my\b.+?)\s*[?？]?$",
               _I),
    # "you remember where im from?": the question word stays, it says what is asked (round 25's spent chat set)
    re.compile(r"^(?:do )?(?:you|u|ya) (?:still )?(?:remember|recall|know) (?P<x>(?:what|who|where|when|how|which) "
               r"(?:i'?m|i)\b.+?)\s*[?？]?$", _I),
    # ...and with no "you", asked: "remember what i'm scared of?" (round 35's spent chat set)
    re.compile(r"^(?:remember|recall) (?P<x>(?:what|who|where|when|how|which) (?:i'?m|i)\b.+?)\s*[?？]$", _I),
    # "do you remember my fav band", "u remember my sister's name?" (round 25's spent chat set: the model named a band)
    re.compile(r"^(?:do )?(?:you|u|ya) (?:still )?(?:remember|recall) (?P<x>my\b.+?)\s*[?？]?$", _I),
    re.compile(r"^remind me (?:what|who|where|when|how|which) (?P<x>my\b.+?)(?: was| is| were| are)?(?:[,.].*)?$", _I),
    re.compile(r"^(?:.*?[，,。]\s*)?(?P<x>我的?[^，,。？?]+?)(?:是)?(?:多少|什么|啥|哪|几)?(?:来着)[？?]?$"),
    re.compile(r"^关于(?P<x>.+?)[，,\s]*你(?:还)?(?:记得|知道)(?:些)?(?:什么|哪些)[？?]?$"),
    re.compile(r"^你(?:还)?(?:记得|知道)(?:关于)?(?P<x>.+?)的(?:什么|哪些)(?:事|事情)?[？?]?$"),
    re.compile(r"^我(?:跟|和|对)你说过(?:关于)?(?P<x>.+?)的(?:什么|哪些)(?:事|事情)?(?:吗)?[？?]?$"),
]
#: "提醒我一下家里wifi密码是多少": reminded of a thing kept, not at a time
_REMIND_ME_OF = re.compile(r"^(?:你)?(?:再)?提醒(?:我)?(?:一下)?[,，:：\s]*(?P<x>[^，,。？?]{2,}?)(?:是)?(?:多少|什么|啥|哪里|哪儿|哪天|几号)"
                           r"(?:来着)?[？?]?$")
_REMIND_WHAT = re.compile(r"^remind me,?\s+(?P<asked>)(?:what|who|which)(?:'?s)?\b", _I)
_REMIND_VERBS_EN = (r"remind me|ping me|nudge me|alert me|buzz me|text me|wake me(?: up)?"
                    r"|give me a (?:heads[- ]up|shout|nudge|ping)|let me know")
_REMIND_EN = re.compile(rf"^{_POLITE_EN}(?:remind me|set (?:a|an) (?:reminder|alarm))\b\s*(?P<rest>.+?){_END}$", _I)
_REMIND_ANYWHERE_EN = re.compile(rf"[,\s]*\b(?:{_REMIND_VERBS_EN}|set (?:a|an|the) (?:reminder|alarm))\b", _I)
#: someone else who calls the person, in a story: "小时候我外婆每天下午四点准时喊我回家吃饭，好怀念啊" (round 32's spent set set
#: a daily reminder), "我妈每天早上七点叫我起床"; the pet is asked by 提醒 or 你叫我
_CALLED_IN_A_STORY = re.compile(r"^(?!.*(?:提醒|闹钟|reminder|alarm))(?:.*(?:小时候|以前|那时候?|当年|从前)"
                                r"|.*(?<!你)(?:他|她|妈|爸|婆|公|奶|爷|姥|老板|老师|同事|朋友|室友|舍友|对象|老婆|老公)"
                                r"[^，,。！!？?]{0,14}(?:叫我|喊我|叫醒我))", re.IGNORECASE)
def called_in_a_story(text: str) -> bool:
    """Whether `text` tells of someone else calling the person ("我妈每天早上七点叫我起床，烦死了"), or of a time long
    past, and asks no reminder by name: no request to the pet."""
    return _CALLED_IN_A_STORY.search(text) is not None


_REMIND_ZH = re.compile(r"(?:提醒我|提醒一下我|叫我|喊我|叫醒我|设(?:个|一个)?提醒|定(?:个|一个)?(?:提醒|闹钟)"
                        # chat Chinese borrows the English words: "帮我set个reminder"
                        r"|(?:set|设|定)\s*(?:个|一个)\s*(?:reminder|alarm)(?![a-z]))", re.IGNORECASE)
_LIST_REMINDERS = [
    re.compile(r"^(?:(?:and|also|plus)\s+)?(?:all\s+)?(?:my|the)\s+(?:upcoming\s+)?reminders"
               r"(?:\s+too|\s+as well|\s+also)?\s*[?？]?$", _I),
    re.compile(r"^(?:还有|以及|和)(?:我的)?提醒(?:也(?:看看|列一下|列出来)?)?[？?]?$"),
    re.compile(r"^(?:list|show|what are)(?: me)?(?: my| all| the)? (?:upcoming )?reminders\s*[?？]?$", _I),
    re.compile(r"^what reminders do i have\s*[?？]?$", _I),
    re.compile(r"^(?:did i set|do i have) any reminders(?: for .{1,30})?\s*[?？]?$", _I),
    re.compile(r"^(?:把)?(?:我的|所有)?(?:的)?提醒(?:都)?列出来$"),
    re.compile(r"^(?:今天|明天|后天|这周|下周)?(?:我)?有(?:什么|哪些)提醒(?:吗)?[？?]?$"),
    re.compile(r"^(?:我)?(?:有)?(?:哪些|什么)提醒[？?]?$"),
    re.compile(r"^(?:查看|列出|看看)(?:我的|所有)?(?:的)?提醒$"),
    re.compile(r"^我的提醒(?:有哪些|有什么)?[？?]?$"),
    re.compile(r"^(?:what|which|any|list|show|see|check)\b[^.?!]{0,30}\breminders\b[^.?!]{0,30}[?？]?$", _I),
    re.compile(r"^[^提]{0,12}(?:哪些|什么|啥)提醒[^提]{0,8}[？?]?$"),
    re.compile(r"^(?:看看|查看|查查|列出)[^提]{0,8}提醒[^提]{0,8}$"),
    re.compile(r"^(?:show|list|tell)(?: me)? (?:everything|all|what) you(?:'re| are)? (?:supposed|going|meant) to "
               r"remind me (?:about|of)\b.{0,10}$", _I),
    re.compile(r"^[^提]{0,6}提醒(?:都)?列出来.{0,10}$"),
]
_CANCEL_REMINDER = [
    re.compile(rf"^{_POLITE_EN}(?:cancel|delete|remove) reminder\s*(?P<n>#?\s*\d+){_END}$", _I),
    re.compile(rf"^{_POLITE_EN}(?:cancel|delete|remove) (?:the|my) reminder (?:about|for|to) (?P<n>.+?){_END}$", _I),
    # ("kill the waffles reminder": round 48's spent set; the verbs of letting a memory go, line 1110)
    re.compile(rf"^{_POLITE_EN}(?:cancel|delete|remove|drop|scrap|kill|ditch|nix|axe|bin|nuke|trash)\s+(?:the|my|that)\s+"
               rf"(?P<n>.{{2,40}}?) reminder{_END}$", _I),
    re.compile(rf"^{_POLITE_ZH}(?:取消|删除|删掉)(?P<n>(?:第)?\s*#?\s*\d+)\s*(?:号|个)?提醒{_END}$"),
    re.compile(rf"^{_POLITE_ZH}(?:取消|删除|删掉)提醒\s*(?P<n>#?\s*\d+){_END}$"),
    re.compile(rf"^{_POLITE_ZH}(?:取消|删除|删掉)(?:关于)?(?P<n>.+?)的(?:那个|那条)?提醒{_END}$"),
    # "把周会那个取消掉" (round 30's spent set, after "看看我有哪些提醒"): only a reminder is cancelled (one deleted, the router
    # decides: "把牙医的提醒删了")
    # (not "把订阅取消了", news as often as a request)
    re.compile(rf"^{_POLITE_ZH}把(?:关于)?(?P<n>[^，,。？?]{{1,20}}?)(?:个|条)?(?:的)?(?:那个|那条)?(?:提醒)?(?:给)?取消"
               rf"(?:掉(?:吧|啦)?|吧){_END}$"),
]
_TODO = [
    re.compile(
        rf"^(?:i need to |i want to |i'd like to )?{_POLITE_EN}(?:add|put|throw|stick|pop|jot|write)\s+(?P<x>.+?)\s+(?:to|on(?:to)?)\s+(?:my\s+|the\s+)?"
        # ("stick 'descale the kettle' on my to-dos", round 47's spent set)
        rf"(?:(?:todos?|to-dos?|to dos?|tasks|task list|shopping|grocery)(?:\s+list)?|(?<=my )list){_END}$",
        _I,
    ),
    re.compile(rf"^(?:todo|to-do)\s*[:：]\s*(?P<x>.+?){_END}$", _I),
    # "add a todo: send the weekly report", "new task: call the bank"
    re.compile(rf"^{_POLITE_EN}(?:(?:add|make|create|put)\s+(?:a\s+|an\s+|one\s+|another\s+)?(?:new\s+)?|new\s+)"
               rf"(?:todo|to-do|to do|task)(?:\s+item)?\s*[:：]\s*(?P<x>.+?){_END}$", _I),
    # "add two things to my todo: renew car insurance, and buy stamps" (the things after the colon)
    re.compile(rf"^{_POLITE_EN}(?:add|put)\s+(?:these|this|the following|(?:a few|some|a couple of|both|all|\w+)\s+"
               rf"(?:things|items|tasks|todos))\s+(?:to|on(?:to)?|in(?:to)?)\s+(?:my\s+|the\s+)?(?:todo|to-do|to do|task)"
               rf"(?:\s+list)?\s*[:：]\s*(?P<x>.+?){_END}$", _I),
    # "帮我加个待办：…", also named in English ("先帮我加个to-do：订搬家公司")
    re.compile(rf"^{_POLITE_ZH}(?:添加|加|记)(?:[一两二三四五几]|[0-9]+)?[个条项件]?\s?(?:待办(?:事项)?|to-?do|todo)"
               rf"(?!\s*(?:list|清单|列表))[：:，,\s]*(?P<x>.+?){_END}$", _I),
    # (the list named in English too: "todo 加一个：给妈妈打电话", round 37's spent set)
    re.compile(rf"^(?:待办|to-?do\s*)(?:事项|清单)?(?:里)?(?:加|添加)(?:一[条个项]|个(?![人税体性案子头]))[：:，,\s]*(?P<x>.+?){_END}$", _I),
    # (also after a first request: "…，再把交钢琴学费加到todo", round 34's spent set)
    re.compile(rf"^(?:再|然后|顺便|另外|还要|还有)?{_POLITE_ZH}把(?P<x>.+?)(?:加到|加入|加进|添加到|添加进|放进|放到|写进|写到|记到|记进)"
               rf"(?:我的)?(?:待办|(?<![a-z])to-?do(?![a-z]))(?:事项|清单|列表|\s?list)?(?:里|中)?{_END}$", _I),
    re.compile(rf"^(?:待办|to-?do)[：:]\s*(?P<x>[^a-z\s].*?){_END}$", _I),
    # "帮我记到待办里：给房东转账" (the thing after the list named; round 32's spent set)
    re.compile(rf"^{_POLITE_ZH}(?:记到|记进|加到|加进|放到|放进|写到|写进|添加到)(?:我的)?(?:待办|to-?do)(?:事项|清单|列表)?"
               rf"(?:里|中|上)?[：:]\s*(?P<x>.+?){_END}$", _I),
    # "在待办里加…", "todo里加个…"; not "待办加起来有二十多条了", "我的todo清单上加了一个新任务" (news)
    re.compile(r"^(?:记得)?(?:帮我)?(?:(?:在|往)(?:我的)?(?:待办|(?<![a-z])(?:todo|to-do)(?: ?list)?)(?:清单|列表|事项)?(?:里|中|上)?"
               r"|(?:待办|(?<![a-z])(?:todo|to-do)(?: ?list)?)(?:清单|列表|事项)?(?:里|中))"
               r"(?:加上|加|添上|添加|写上|记上|记一下|记下|记个)(?!了|起来|过|上了)(?>一[条个项件](?:事情?[：:，,]\s*)?|个(?![人税体性案子头]))?"
               r"[“\"'「]?(?P<x>.+?)[”\"'」]?[。！!~～]*$"),
    re.compile(r"^(?P<x>[^?？]+?)\s*(?:\.\.+|[.,;!…])\s*(?:can you |could you |pls |please )?"
               r"(?:stick|put|add|throw|pop|write) (?:it|that|this) (?:on|to|in(?:to)?) (?:my|the) "
               r"(?:todo |to-do |to do |task )?list\s*[?？.!]*$", _I),
]
_LIST_TODOS = [
    # a list named after another asked for: "show me all my reminders and my todo list too", "…，还有待办"
    re.compile(r"^(?:(?:and|also|plus)\s+)?(?:all\s+)?(?:my|the)\s+(?:todo|to-do|to do|task)s?(?:\s+list)?"
               r"(?:\s+too|\s+as well|\s+also)?\s*[?？]?$", _I),
    re.compile(r"^(?:还有|以及|和)(?:我的)?待办(?:清单|列表|事项)?(?:也(?:看看|列一下|列出来)?)?[？?]?$"),
    re.compile(r"^(?:show|list|what's on|what is on)(?: me)? (?:my |the )?(?:todo|to-do)(?: list)?\s*[?？]?$", _I),
    re.compile(r"^(?:我的)?待办(?:清单|列表|事项)?(?:上|里)?(?:有(?:哪些|什么)(?:事)?)?[？?]?$"),
    re.compile(r"^(?:查看|看看|列出)(?:我的)?待办(?:清单|列表|事项)?$"),
    re.compile(r"^(?:我的)?待办(?:清单|列表|事项)?(?:上|里)?(?:还)?有(?:哪些|什么|啥)(?:事)?[？?]?$"),
    # ("anything left on my to-dos?", round 32's spent set)
    re.compile(r"^(?:what(?:'s| is| else is)?|whats|(?:is there )?anything) (?:left |still |else )?on my (?:todo|to-do|to do|task)s?"
               r"(?: list)?\s*[?？]?$", _I),
]
_TIME = [
    re.compile(
        r"^(?:hey,?\s+|so,?\s+)?(?:(?:do you know|can you tell me|could you tell me)\s+)?"
        r"(?:what(?:'s| is) the (?:time|date)|what time it is|what time is it|the time|tell me the time"
        r"|what(?:'s| is) the date today|what day (?:is it|it is)(?: today)?|what day of the week (?:is it|it is)"
        r"|what(?:'s| is) today's date|check the clock(?: for me)?)"
        r"(?: now| right now| today)?(?:,? please)?\s*[?？.]?$",
        _I,
    ),
    re.compile(r"^(?:帮我)?(?:看看|查查|查一下|看一下)?(?:现在)?(?:是)?(?:几点(?:钟)?|什么时间|什么时候)(?:了|啦)?(?:呀|啊)?[？?]?$"),
    re.compile(r"^今天(?:是)?(?:几号|几月几号|星期几|周几|礼拜几)(?:呀|啊)?[？?]?$"),
    re.compile(r"^[^.!?]*[.!?]\s*(?:please\s+)?check the clock(?: for me)?[.!\s]*$", _I),
    re.compile(r"^(?:you know |do you know |got )?(?:what time (?:it is|is it)|the time)(?: now)?\s*[?？]?$", _I),
    re.compile(r"^(?:帮我)?(?:看下|看看|查下|看一下)?(?:现在|今天|今儿)?(?:是)?(?:几点(?:了|钟|啦)?|几号|星期几|周几)"
               r"(?:了|啦)?(?:来着)?[？?]?(?:[，,].{0,20})?$"),
    # the clock asked in a word after a remark: "quick q before i hop in the shower: time?" (round 32's spent set)
    # (not "should i go full-time?", "is my app up-to-date?": a colon or a dash with spaces around it before it)
    re.compile(r"^(?=.{0,80}$)(?:[^?？]{0,60}(?:[:：]|\s[—–-]+)\s*)?(?:the\s+)?(?:time|date)\s*(?:pls|please|rn|now)?\s*[?？]+\s*$",
               _I),
    # asked in English with Chinese around it: "what time了现在？手机没电了" (round 30's spent set)
    re.compile(r"^(?:现在)?(?:what time|what day|what date)(?:\s*(?:is it|it is))?\s*(?:了|啦|呀|啊)\s*(?:现在|今天)?\s*"
               r"(?:[？?！!。，,]\s*.{0,20})?$", _I),
    # Keywords in a short message: "how late is it rn", "tell me the current time"
    re.compile(
        # (not a remark on not knowing it: "the best part of vacation is not knowing what day it is", round 32's spent set)
        r"^(?=.{0,80}$)(?:(?!\b(?:remind|alarm|do|does|did|will|should|usually|open|close|not knowing|without knowing"
        r"|lost track|lose track|losing track|who cares|don'?t care)\b).)*?"
        r"\b(?:what time is it|what time it is|(?:the )?current time|how late is it|what day (?:is it|it is)"
        r"|what(?:'s| is) (?:the )?date(?: today)?|today's date|the date today|what date is it)\b[^.?!]*[?？.!]?$",
        _I,
    ),
    re.compile(
        r"^(?=.{0,40}$)[^提醒闹]*?(?:现在|今天|今儿|此刻)?(?:是)?"
        r"(?:几点几分|几点(?:了|钟|啦)?|几号|星期几|周几|礼拜几|几月几[号日]|什么时间(?:了|啦)?)"
        r"(?=[，,。？?！!~～\s]|了|啦|呀|啊|呢|吗|来着|$)[^提醒闹]*$"
    ),
    # today's date or weekday checked against a guess: "wait is today the 30th or the 31st?? lost track" (round 29's
    # spent set), "is it friday today?", "今天是30号还是31号", "今天周四吗"
    re.compile(
        r"^(?=.{0,80}$)(?:[a-z]+[,\s]+){0,2}?(?:is today (?:the )?(?:[0-9]{1,2}(?:st|nd|rd|th)|(?:mon|tues|wednes|thurs|fri"
        r"|satur|sun)day)|is it (?:the )?(?:[0-9]{1,2}(?:st|nd|rd|th)|(?:mon|tues|wednes|thurs|fri|satur|sun)day) today|today(?:'s| is) (?:the )?(?:[0-9]{1,2}(?:st|nd|rd|th)|(?:mon|tues|wednes|thurs|fri|satur"
        r"|sun)day),? (?:right|yeah|yes|correct)\b)"
        r"(?:\s+or\s+(?:the )?(?:[0-9]{1,2}(?:st|nd|rd|th)|(?:mon|tues|wednes|thurs|fri|satur|sun)day))?"
        r"[\s?？!.]*(?:[,\s]+(?:[a-z']+\s*){0,4}[?？!.]*)?$",
        _I,
    ),
    re.compile(r"^(?:今天|今儿)(?:是)?(?:[0-9]{1,2}|[一二三四五六七八九十]{1,3})[号日](?:还是(?:[0-9]{1,2}|[一二三四五六七八九十]{1,3})[号日])?"
               r"(?:吗|么|啊|呀|来着)?[？?]*$"
               r"|^(?:今天|今儿)(?:是)?(?:周|星期|礼拜)[一二三四五六日天](?:还是(?:周|星期|礼拜)?[一二三四五六日天])?(?:吗|么|啊|呀)?[？?]*$"),
]

def _first(patterns: list[re.Pattern[str]], text: str) -> re.Match[str] | None:
    for pattern in patterns:
        match = pattern.match(text)
        if match:
            return match
    return None


# --- intents -----------------------------------------------------------------------


_TASK_WITHOUT_TIME = re.compile(
    r"^(?:(?:pls|please|plz|hey|ok|okay),? )?(?:remind me|set (?:a|an) reminder) (?:to|about) (?P<x>[^?？]+?)"
    r"(?:,? (?:k|ok|okay|pls|plz|please|thx|thanks|ty))?[.!]*$"
    r"|^(?:请|麻烦你?|帮我|记得|记着|别忘了|到时候?|回头)*(?:提醒我|提醒一下我)(?:一下)?(?:要|去)?"
    r"(?!一下[哈啊呀哦喔噢啦吧嘛。！!~～]*$)(?P<x2>[^？?吗呢来着多少什么]{2,30}?)"
    r"[哈啊呀哦喔噢啦吧嘛]*[。！!~～]*$",
    re.IGNORECASE,
)


def _says_when(text: str, now: dt.datetime, zone: dt.tzinfo) -> bool:
    """Whether `text` names a time (a bad one too) or a day."""
    try:
        return find_when(text, now, zone) is not None or day_without_hour(text) is not None
    except TimeProblem:
        return True


#: a reminder said not to be wanted: "明天下午3点别remind我吃药了", "明天早上8点别提醒我了" (the review of 2026-12-07)
_NOT_REMINDED = re.compile(r"(?:别|不用|不要|不必|甭)(?:再)?提醒|(?<![a-z])(?:don'?t|do not|dont|no need to|stop|quit|never)"
                           r"\s+(?:re?mind(?:ing)?|bug(?:ging)?|nag(?:ging)?)\s+me\b", _I)


#: a note to self with its time first: "day after tomorrow 2:15pm - call grandma ruth", "后天下午2点 — 去取快递"
_TIMED_MEMO = re.compile(r"^\s*(?P<when>[^,，。!?？]{3,40}?)(?:\s+[-–—]+|\s*[–—]+|(?<!\d)[:：]|[:：](?!\d))\s*"
                         r"(?P<task>[^\n]{2,80}?)[.!。！]*\s*$")
#: ...but not one told of the person ("tomorrow 9am - i have a meeting"), nor one asked
_MEMO_TOLD = re.compile(r"^(?:i|i'm|im|we|we're|my|our|it|it's|that|this|he|she|they|ok(?:ay)?|yes|yeah|no|nope|sure|cool"
                        r"|fine|thanks|lol|exhausted|tired)\b|^(?:我|我们|他|她|它|这|那|好|行|嗯|哦)|[?？]"
                        # (a thing done, not to do: "today 8am - woke up late", "周六10点：跑了5公里")
                        r"|^(?!(?:need|feed|seed|speed|bleed|breed|shed|wed|red)\b)[a-z]+ed\b"
                        r"|^(?:woke|went|had|was|were|got|did|ran|ate|slept|made|met|saw|came|left|felt|took)\b|了", _I)


def timed_memo(text: str) -> bool:
    """Whether `text` is a note to self with its time first, a dash and what to do: as people write a reminder
    without its verb (round 47's spent set: "day after tomorrow 2:15pm - call grandma ruth", no tool). The time is
    a day and an hour to come (when.dated); what follows tells nothing of the person."""
    found = _TIMED_MEMO.match(" ".join(text.split()))
    if found is None or _MEMO_TOLD.search(found.group("task").strip()):
        return False
    when = found.group("when")
    return dated(when) and re.search(r"\d|[一二三四五六七八九十两]", when) is not None


def not_reminded(text: str) -> bool:
    """The message says it wants no reminder ("明天早上8点别提醒我了", "别remind我了")."""
    return _NOT_REMINDED.search(_REMIND_IN_ZH.sub("提醒", text)) is not None


_REMIND_IN_ZH = re.compile(r"(?<![A-Za-z])remind\s*(?=我)", _I)


def _remind(text: str, rest: str, now: dt.datetime, zone: dt.tzinfo, zh: bool) -> Reflex | None:
    """A reminder fires only when the sentence holds a time; a bad time is a question, and so is a
    day without its hour ("remind me tomorrow to text Gabriela": what time tomorrow?)."""
    if zh and "提醒" not in rest:  # the English verb in a Chinese request: "…你那天上午11点remind我一下" (round 34's spent set)
        rest = _REMIND_IN_ZH.sub("提醒", rest, count=1)
    same = _on_that_day(rest, now, zone, zh)
    if same is not None:
        return same
    try:
        when = find_when(rest, now, zone)
    except TimeProblem as problem:
        return Reflex("remind", reply=str(problem))
    if when is None:
        day = day_without_hour(rest)
        if day is not None and _day_of_the_task(rest, day):
            day = None  # "prepare for tomorrow's exam", "准备明天的考试": the task's day, not the reminder's
        if day is not None:
            task, said = _task(rest, day, zh), rest[day[0]:day[1]].strip()
            glue = _GLUE.match((rest[: day[0]] + " " + rest[day[1]:]).strip())
            if task:
                return Reflex("remind", reply=f"{said}几点提醒你{_yours_zh(task)}？" if zh else
                              f"What time {said} should I remind you {_yours(task, glue.group(1) if glue else '')}?",
                              needs_time=(task, said))
        # "remind me to call the dentist": a clear request missing its time.
        asked = _TASK_WITHOUT_TIME.match(text)
        if asked:
            what = _clean(asked.group("x") or asked.group("x2"))
            return Reflex("remind", reply=f"什么时候提醒你{_yours_zh(what)}？" if zh else
                          f"When should I remind you {_yours(what)}?", needs_time=(what, ""))
        return None
    corrected = _CORRECTED_TIME.search(rest, when.span[1])
    if corrected is not None:
        # "remind me to call mom at 7pm... wait no, 8pm", "明早八点提醒我，不对，九点": a second time after a
        # correction; which day it keeps is not said, so the pet asks, naming both
        after = rest[corrected.end():]
        try:
            again = find_when(after, now, zone)
            second = after[again.span[0]:again.span[1]] if again is not None else ""
        except TimeProblem:  # "九点": this morning or tonight? the question below asks anyway
            second = _CLAUSE_END.split(after, maxsplit=1)[0]
        if second.strip():
            first = _SAID_TIME.sub("", rest[when.span[0]:when.span[1]])
            second = _SAID_TIME.sub("", second)
            what = _task(rest[: corrected.start()], when.span, zh)
            if what:
                return Reflex("remind", reply=(f"你先说{first}，又说{second}——到底几点提醒你{_yours_zh(what)}？" if zh else
                                               f"You said {first}, then {second}: what time should I remind you "
                                               f"{_yours(what)}?"), needs_time=(what, ""))
    # (read in the whole message, where the asking verb still is; cut from `rest`, which may be without it)
    early = _EARLY.search(text)
    lead = (early["lead"] or early["elead"]) if early is not None else ""
    at_lead = rest.find(lead) if lead else -1
    if at_lead >= 0 and (at_lead + len(lead) <= when.span[0] or at_lead >= when.span[1]) and (
            when.repeat == "none") and not any(day and not clock and (end <= when.span[0] or start >= when.span[1])
                                              for start, end, day, clock in spans(rest)):
        assert early is not None
        # "1月8号下午两点半有个 interview，…提前半小时提醒我", "remind me 15 minutes before the 3pm meeting": the hour
        # said is the event's, the reminder comes that much sooner (round 36's spent set set it at the event's own
        # hour). Not of a habit, nor when another day is said apart from the hour ("…my 11am meeting tomorrow")
        minutes = _lead_minutes(early)
        if minutes is None:  # "提前一两个小时": how long is not one number
            return Reflex("remind", reply="要提前多久提醒你？" if zh else "How long before should I remind you?")
        at = when.at - dt.timedelta(minutes=minutes)
        if at <= now:
            return Reflex("remind", reply="那时候已经过了，要换个时间吗？" if zh else
                          "That would be in the past: what time should I remind you?")
        blank = rest[:at_lead] + " " * len(lead) + rest[at_lead + len(lead):]
        task = _task(blank, when.span, zh)
        if task:
            return Reflex("remind", _call("set_reminder", text=task, when=at.astimezone(zone).strftime("%Y-%m-%d %H:%M")))
    task = _task(rest, when.span, zh)
    if not task:
        return Reflex("remind", reply="要提醒你做什么呢？" if zh else "What should I remind you about?")
    said = rest[when.span[0] : when.span[1]]
    try:
        alone = parse_when(said, now, zone).at
    except TimeProblem:
        alone = None
    if alone != when.at:
        # the day was said a few words before the hour ("下周六我表姐结婚，下午三点开始，记得提醒我"): the time as read
        said = when.at.astimezone(zone).strftime("%Y-%m-%d %H:%M")
    return Reflex("remind", _call("set_reminder", text=task, when=said))


#: a reminder asked for some time before the hour said, next to the asking: "提前半小时提醒我", "提前20分钟叫我",
#: "remind me 15 minutes before", "remind me an hour early" (not "leave 15 minutes early", "提前两小时到机场")
_LEAD_EN = (r"(?:(?<![\w.-])(?P<en>[0-9]+(?:\.[0-9]+)?|an?|one|two|three|five|ten|fifteen|twenty|thirty|forty-five)"
            r"\s*(?P<eu>min(?:ute)?s?|hours?|hrs?)|(?P<ehalf>half an hour))")
_EARLY = re.compile(
    r"(?P<lead>提前\s*(?:(?P<zn>[0-9]+|[一二两三四五六七八九十]+)\s*[个個]?\s*(?P<zu>分钟|分|小时|小時|钟头)"
    r"|(?P<zhalf>半)\s*[个個]?\s*(?:小时|小時|钟头)|(?P<zq>一刻钟?)))\s*(?:[的地])?(?=提醒|叫|喊|通知|remind)"
    rf"|\b(?:remind|ping|tell|alert|text)\s+me\s+(?P<elead>{_LEAD_EN}\s+(?:before(?:hand)?|early|earlier|ahead|in advance"
    r"|prior))\b", re.IGNORECASE)
_EN_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "five": 5, "ten": 10, "fifteen": 15, "twenty": 20,
              "thirty": 30, "forty-five": 45}


def _lead_minutes(early: re.Match[str]) -> int | None:
    """The minutes an `_EARLY` match says; None when they are no one number ("一两个小时", "两三分钟")."""
    if early["zhalf"] or early["ehalf"]:
        return 30
    if early["zq"]:
        return 15
    count = early["zn"] or early["en"]
    if early["zn"] and len(count) > 1 and "十" not in count and not count.isdecimal():
        return None  # two numerals side by side: a guess between them
    try:
        number = float(count) if count[0].isdigit() else float(_EN_COUNTS.get(count.lower()) or zh_int(count))
    except ValueError:
        return None  # "十十"
    unit = (early["zu"] or early["eu"]).lower()
    return round(number * (1 if unit.startswith(("分", "min")) else 60))


#: a day said again as "that day", with the reminder's own hour beside it: "…is aug 2 at 10:15am, remind me that
#: morning at 8am", "…next tuesday, remind me at 8:30am that day…", "面试是下周三下午两点，那天早上八点提醒我"
_THAT_DAY = re.compile(r"\b(?:that|the same|on that|on the same)\s+(?:day|(?P<part>morning|afternoon|evening|night))\b"
                       r"|(?:那天|当天|那一天)(?!的)(?P<zpart>早上|上午|中午|下午|晚上)?", _I)
#: where the task said after the reminder's hour ends: a sentence's end ("…to call Dr. Smith about the results", "…to
#: grab ice, cups and plates"); in Chinese a comma too
_TASK_END = re.compile(rf"[!！?？。；;]|\.{NOT_AFTER_TITLE}(?=\s|$)")
_TASK_END_ZH = re.compile(r"[!！?？。；;，,]")
#: where the clause holding the event's own time ends
_EVENT_CLAUSE = re.compile(r"\s+[—–-]+\s+|[—–]+|[,，;；。!！?？]|\.(?:\s|$)")


def _on_that_day(rest: str, now: dt.datetime, zone: dt.tzinfo, zh: bool) -> Reflex | None:
    """A reminder at the hour said beside "that day", on the day of the event said before it: for the task
    said after the hour ("…remind me the same day at noon to pack"), else for the event as said. None when
    the message says no such thing."""
    that = _THAT_DAY.search(rest)
    if that is None:
        return None
    found = spans(rest)
    # the reminder's hour: a clock time right after "that day" (or holding its words), or right before it
    hour = next((s for s in found if that.start() < s[1] and not rest[that.end(): s[0]].strip()), None) or next(
        (s for s in found if s[1] <= that.start() and not rest[s[1]: that.start()].strip()), None)
    if hour is None or not hour[3]:
        return None
    part = that.group("part") or that.group("zpart") or ""
    clock = rest[hour[0]: hour[1]] if hour[0] < that.end() else part + " " + rest[hour[0]: hour[1]]
    event = hour if hour[2] else next((s for s in reversed(found) if s[1] <= min(hour[0], that.start()) and s[2]),
                                      None)
    if event is None or event is hour and hour[1] > that.start():
        return None  # "remind me at 7pm to call mom, that day is her birthday"
    said = rest[event[0]: event[1]]
    try:
        if event is hour:  # the day and the hour ran together once "remind me" was cut ("…next tuesday, remind
            at = parse_when(said, now, zone).at  # me at 8:30am that day…")
        elif event[3]:  # the event's own time: the hour on its day
            day = parse_when(said, now, zone).at.replace(hour=0, minute=0, second=0, microsecond=0)
            at = parse_when(clock, day, zone).at
        else:
            at = parse_when(said + " " + clock, now, zone).at
    except TimeProblem:
        return None
    begins = max((m.end() for m in _EVENT_CLAUSE.finditer(rest, 0, event[0])), default=0)
    # (a time's span may hold the full stop after it: "…april 3 at 10:45am. remind me at 10am the same day")
    ends = _EVENT_CLAUSE.search(rest, event[1] - 1 if rest[event[1] - 1: event[1]] in (".", "。") else event[1])
    told = _clean(rest[begins: ends.start() if ends is not None and ends.start() < that.start() else that.start()])
    after = (_TASK_END_ZH if zh else _TASK_END).split(rest[max(that.end(), hour[1]):], maxsplit=1)[0]
    task = _task(after, (0, 0), zh) if zh else (
        _clean(glued.group(1)) if (glued := re.match(r"\s*(?:to|and)\s+(.+)", after, _I)) else "")
    if not task and (event is hour or not told):
        return None  # the task is the usual reading's to find
    return Reflex("remind", _call("set_reminder", text=task or told, when=at.strftime("%Y-%m-%d %H:%M")))


#: what a time is said with, not shown back: "at 7pm." is "7pm"
_SAID_TIME = re.compile(r"^\s*(?:at|on)\s+|[\s.。,，!！?？]+$", _I)
_CLAUSE_END = re.compile(r"[,，.。!！?？;；]")
#: a correction after a reminder's time, before another time ("… wait no, 8pm", "…，不对，九点")
_CORRECTED_TIME = re.compile(
    r"(?:\.{2,}|…+|[,，.。!！;；—-])\s*(?:(?:oh|um|uh|sorry|hmm)[\s,，]*)?"
    r"(?:wait,? no|no,? wait|actually,? no|actually|sorry|i mean|i meant|make (?:it|that)|no,"
    r"|不对(?:不对)?|哦不|我是说|说错了|应该是|改成)[\s,，]*(?:是|at\s)?", _I)


#: what may stand beside a time that answers "what time?" ("at 9am please", "下午三点吧")
_ANSWER_FILLER = re.compile(
    r"(?:\s|[，,。.!！?？~～]|\b(?:at|on|around|about|like|maybe|please|pls|then|ok(?:ay)?|sure|yes|yeah|actually|make it|let's say|thanks|thank you|thx)\b"
    r"|嗯|好的?|吧|就|那就|大概|左右|的时候|呀|啊|哦|行|谢谢|谢啦)*", _I)


def answered_time(needs: tuple[str, str], answer: str, now: dt.datetime, zone: dt.tzinfo) -> Reflex | None:
    """The reminder the pet asked the time of ("What time tomorrow should I remind you to text
    Gabriela?"), set when `answer` is that time and little else ("9am", "下午三点吧"); None when
    the answer is about something else. The day asked about goes first ("tomorrow" + "9am"),
    unless the answer names its own ("friday at 3pm"); an unclear hour is asked about again."""
    task, day = needs
    answer = _strip_fillers(" ".join(answer.split()))
    for said in ([f"{day} {answer}", answer] if day else [answer]):
        try:
            when = find_when(said, now, zone)
        except TimeProblem as problem:
            return Reflex("remind", reply=str(problem), needs_time=needs)
        if when is None:
            return None
        rest = said[: when.span[0]] + " " + said[when.span[1]:]
        if said is not answer:
            rest = rest.replace(day, " ", 1)
        if _ANSWER_FILLER.fullmatch(rest):
            return Reflex("remind", _call("set_reminder", text=task, when=said[when.span[0]:when.span[1]]))
    return None


_TASK_DAY_BEFORE = re.compile(r"\b(?:the|for|by|before|until|till|after|on)\s*$|[把的给为准备]\s*$", _I)
_TASK_DAY_AFTER = re.compile(r"^\s*(?:'s|’s|的)", _I)


def _day_of_the_task(rest: str, day: tuple[int, int]) -> bool:
    """Whether the day belongs to the task ("buy a cake for sunday", "the friday report",
    "把周五的报告发给老板") rather than saying when to remind."""
    before, after = rest[: day[0]], rest[day[1]:]
    if _TASK_DAY_AFTER.match(after):
        return True
    # ("set a reminder for the day after tomorrow to email…": the reminder's day, round 32's spent set)
    return _TASK_DAY_BEFORE.search(before) is not None and not re.search(r"\bremind me\s+on\s*$|^\s*for\s*$", before, _I)


def _task(rest: str, span: tuple[int, int], zh: bool) -> str:
    """What a reminder is for: the request without its time and the words of asking."""
    task = rest[: span[0]] + " " + rest[span[1] :]
    if zh:
        task = re.sub(r"(?:请|麻烦你|麻烦|帮我|提醒一下我|提醒我们|提醒我|叫醒我|叫我|喊我|设(?:个|一个)?提醒|"
                      r"定(?:个|一个)?(?:提醒|闹钟)|(?:set|设|定)\s*(?:个|一个)\s*(?:reminder|alarm)(?![a-z])|一下|的时候|记得)",
                      " ", task, flags=_I)
        # "喊我一声 要给我妈打电话": the call's 一声 is no part of the task
        task = re.sub(r"^[\s，,]*一声", " ", task)
        task = re.sub(r"^[\s，,在要去]+", "", task)
    # the asking words after the task: "dentist on friday at 3pm, don't let me forget" (not the task "dentist , don't…")
    task = re.sub(r"[\s,.;:!—–-]*\b(?:(?:and|so|pls|please|just|ok)\s+)*(?:don'?t|do not) (?:let me )?forget"
                  r"(?:\s+(?:it|that|this))?(?:\s+(?:pls|please|ok))?\W*$", "", task, flags=_I)
    # English glue goes in either language: "提醒我 at 5pm to buy milk"
    task = re.sub(r"^[\s,:]*(?:(?:to|that|about|of|for)\s+)+", "", task.strip(), flags=_I)  # ("for … to call mom")
    task = re.sub(r"^\s*(?:[-–—]+|[:：])\s*", "", task)  # a note's dash: "后天下午两点 — 去邮局取包裹"
    task = re.sub(r"\s+(?:to|that|about|then)\s*$", "", task, flags=_I)
    # (no space left beside Chinese punctuation where the asking words were: "…还没交，去递材料", not "…还没交， 去递材料")
    return _clean(re.sub(r"\s*([，。！？；：、])\s*", r"\1", " ".join(task.split())))


_MINE = {"my": "your", "me": "you", "myself": "yourself", "mine": "yours", "i": "you", "i'm": "you're",
         "i am": "you are", "i was": "you were", "i've": "you've", "i'll": "you'll", "am i": "are you"}
# lower-case "me" and "my" only ("Despicable Me" stays); "I" and "i" as a word of their own
_MY_WORDS = re.compile(r"\b(?:(?i:i am|i was|i'm|i've|i'll|am i)|[Ii]|my|me|myself|mine)\b")
_GLUE = re.compile(r"^[\s,:]*(?:(?:to|that|about|of|for)\s+)*?(to|that|about|of|for)\s+(?=\S)(?!(?:to|that|about|of|for)\s)", _I)


def _yours(task: str, glue: str = "") -> str:
    """The person's task said back to them after "remind you": "renew my books" -> "to renew your
    books", "the meeting" -> "about the meeting", "I have a dentist appointment" -> "that you have a
    dentist appointment"; `glue` is the word the person put before it ("that the rent is due")."""
    flipped = _MY_WORDS.sub(lambda m: _MINE[m.group().lower()], task)
    glue = glue.lower()
    if glue in ("to", "that", "about"):
        return f"{glue} {flipped}"
    if glue in ("of", "for"):
        return f"about {flipped}"
    if re.match(r"(?:i|i'm|i've|i'll|i am|we|it|it's|there)\b", task, _I):
        return "that " + flipped
    # a thing, not a deed: "about the meeting", "about your passport"
    return ("about " if re.match(r"(?:the|a|an|my|our|this|that|these|those)\b", task, _I) else "to ") + flipped


def _yours_zh(task: str) -> str:
    """The same in Chinese: "给我妈打电话" -> "给你妈打电话" (我们 -> 你们)."""
    return task.replace("我", "你")


def _slash(text: str, now: dt.datetime, zone: dt.tzinfo, language: str) -> Reflex:
    command, _, rest = text[1:].partition(" ")
    command, rest = command.lower(), rest.strip()
    zh = detect_language(rest, default=language) == "zh"
    lang = "zh" if zh else "en"
    if command == "help":
        return Reflex("help", reply=HELP[lang])
    if command == "new":
        return Reflex("new", command="new")
    if command == "undo":
        return Reflex("undo", command="undo")
    if command == "approve" and rest:
        return Reflex("approve", command="approve", argument=rest)
    if command in ("yes", "no") and not rest:
        return Reflex(command, command=command)
    if command == "reminders":
        return Reflex("list_reminders", _call("list_reminders"))
    if command in ("todos", "todo") and not rest:
        return Reflex("list_todos", _call("list_todos"))
    if command == "cancel" and rest:
        return Reflex("cancel_reminder", _call("cancel_reminder", which=rest.lstrip("#")))
    tools = {"remember": ("remember", "content"), "forget": ("forget", "what"), "recall": ("recall", "query"),
             "todo": ("add_todo", "text")}
    if command in tools and rest:
        name, argument = tools[command]
        return Reflex(command, _call(name, **{argument: rest}))
    if command == "remind" and rest:
        reflex = _remind(text, rest, now, zone, zh)
        return reflex or Reflex("remind", reply="什么时候提醒你？比如 /remind 20分钟后 喝水" if zh else
                                "When? For example: /remind in 20 minutes drink water")
    if detect_language(text, default=language) == "zh":
        return Reflex("help", reply=(f"命令 /{command} 不认识或不完整。" if command else "") + HELP["zh"])
    return Reflex("help", reply=(f"Unknown or incomplete command /{command}. " if command else "") + HELP["en"])


# Clause boundaries where a second request may start ("…, and remind me…",
# "…；再…", "…？顺便…").
_CLAUSES = re.compile(
    # a point after a title ("Mr. Petrakis", "Dr. Wu") ends nothing
    # (a dash with spaces around it, not between numbers: "forget that i live in Leeds - moved to Bristol…", round 33)
    r"\s*(?:,?\s+(?:and|then|also)\s+(?:then\s+|also\s+)?|[,;]\s+|[?!]\s+|(?<![\d)）])\s+[-–—]+\s+(?![\d(（]|[a-z]+\()"
    rf"|\.{NOT_AFTER_TITLE}\s+)"
    # (a comma between thousands is no clause mark: "what's 17% of 3,400?" was cut before 400, round 37's spent set)
    r"|\s*(?:[，；;。？?！!]|,(?!(?<=\d,)\d{3}(?!\d)))\s*(?:并且?|再(?!见)|然后|还有|顺便|同时|另外)?\s*"
    # chat Chinese leaves out the comma ("几点了 顺便…"): after a space only the plain connectors, not 再 or
    # 还有 ("明天早上 再提醒我", "距离放假 还有几天" are one request)
    r"|(?<=\S)\s+(?:并且|然后|顺便|另外)\s*"
    # an ellipsis after Chinese words is a pause like a comma ("周末要搬家，一堆事……先帮我加个to-do：订搬家公司",
    # "到门口了…wifi密码是啥来着")
    r"|(?<=[\u4e00-\u9fff])\s*(?:…+|\.{3,})\s*(?=[\u4e00-\u9fffA-Za-z0-9])"
    # ...nor before a turn of subject ("你帮我记着点 以后好打招呼 话说你们小龙虾搬家吗"), which stays with what follows
    r"|(?<=[\u4e00-\u9fff])\s+(?=(?:话说|对了)(?![的是]))",
    re.IGNORECASE,
)
#: …and where it uses a space for a comma: between two Chinese words ("我跟你说 我女朋友不吃香菜 这个你记住哈")
_ZH_SPACE = re.compile(r"(?<=[\u4e00-\u9fff0-9])\s+(?=[\u4e00-\u9fff])")


#: a list of requests announced ("帮我三件事：", "can you do three things for me:") and numbered ("1. … 2. …")
_ANNOUNCED = re.compile(r"^(?:(?:hey|ok|okay|so)[,\s]+)?(?:(?:can|could) (?:you|u) |pls |please )?(?:do|help me with|i need) "
                        r"(?:two|three|four|a few|a couple of|[2-9]) things(?: for me)?\s*[:：]\s*"
                        r"|^(?:请|麻烦你?)?(?:帮我|帮忙)?(?:做|办)?[两二三四五几2-9]件事(?:情)?[哈啊呀]?\s*[:：]\s*", _I)
_NUMBERED = re.compile(r"(?:^|(?<=\s)|(?<=[:：]))(?P<n>[1-9])(?:[.)]\s+|、\s*)")


def _unnumbered(text: str) -> str:
    """A numbered list of requests with its numbers as clause marks: "1. 记住… 2. 提醒我…" → "记住…; 提醒我…"; the
    text as it is unless it numbers 1 and 2 in order."""
    marks = list(_NUMBERED.finditer(text))
    numbers = [int(m.group("n")) for m in marks]
    if numbers[:2] != [1, 2] or numbers != list(range(1, len(numbers) + 1)):
        return text
    out, at = [], 0
    for m in marks:
        out.append(text[at:m.start()].rstrip())
        at = m.end()
    out.append(text[at:])
    return "; ".join(part for part in out if part.strip())


_AGAIN = re.compile(r"^再(?=给我看|帮我|加个|加一|列)")


def _split(text: str) -> list[str]:
    """The clauses of `text` (spaces already single): split at _CLAUSES, and at a space between Chinese words
    unless what stands before it asks for something, not by pointing back, and what follows does not: then
    what follows is what it asks for ("帮我在待办清单里记一下 整理发票", "帮我set个reminder 12月1号下午3点 去银行办卡";
    not "你帮我记住吧 快递老填错")."""
    out: list[str] = []
    announced = _ANNOUNCED.match(text)
    if announced:
        text = _unnumbered(text[announced.end():])
    for piece in _CLAUSES.split(text):
        if not piece or not piece.strip():
            continue
        parts = _ZH_SPACE.split(piece.strip())
        if len(parts) == 1:
            out.append(parts[0])
            continue
        # (each part read once, what a group asks by its first part: a long message stays linear)
        asks = [request_form(part) for part in parts]
        current, opens = parts[0], asks[0] and not points_back(parts[0])
        for part, asking in zip(parts[1:], asks[1:]):
            if opens and not asking:
                current += " " + part
            else:
                out.append(current)
                # a 再 that opens the request is its connector, as after a comma ("加个待办 买打印纸 再给我看看整个清单")
                current, opens = _AGAIN.sub("", part) if asking else part, asking and not points_back(part)
        out.append(current)
    return out


# A connector that starts a second request ("…, and also tell me…", "…，顺便…").
_SECOND_REQUEST = re.compile(
    r",?\s+(?:and\s+)?(?:also|then|plus|and)\s+(?:please\s+)?(?:tell|give|show|remind|remember|forget|add|set|what"
    r"|what'?s|how|cancel|list|make|find|sing|write|calculate|check)\b"
    r"|[，,；;。？?！!]\s*(?:并且?|再(?!见)|然后|还有|顺便|同时|另外)"
    r"|(?<=\S)\s+(?:并且|然后|顺便|另外)"
    # a 再 after a space, before another request ("加个待办 买打印纸 再给我看看整个清单"; not "明天早上 再提醒我")
    r"|(?<=\S)\s+再(?=给我看|帮我|加个|加一|列)",  # not "提醒我明天下午3点 再把PPT改一遍": 再 is "once more" there
    re.IGNORECASE,
)


_LOOKS_LIKE_REQUEST = re.compile(
    r"^(?:(?:please|pls|and|then|also|oh|can you|could you)\s+)*(?:remember|forget|remind|add|set|tell|cancel|list"
    r"|show|put|save|store|note|delete|remove|calculate|check|give|make|write|send|find|look)\b"
    r"|^(?:请|帮我|再|然后|顺便|还要|也)*(?:把|记|忘|提醒|加|删|算(?!了)|设|定|告诉|列|给我|查)",
    re.IGNORECASE,
)

#: a deletion that points back at one of a list without naming it: "把取药那个删了", "delete the dentist one"
_POINTS_AT_ONE = re.compile(r"那个|那一个|那条|这个|这条|\b(?:that|the \w+) one\b|\bthe one (?:about|for|with|on)\b", re.IGNORECASE)
_NAMES_A_MEMORY = re.compile(r"记忆|记住的|\bmemor(?:y|ies)\b|\bremember", re.IGNORECASE)


#: a reminder's task that points at the todos just listed: "…to actually do them", "…把这些做完"
_THE_LISTED = re.compile(r"\b(?:them|those|these|all of it)(?:\s+(?:lol|lmao|pls|please|ok|now|today|tonight|already|too))*"
                         r"\W*$|(?:这些|那些|它们)(?:都)?(?:做完|弄完|搞定|处理掉|完成|做了)", _I)


def of_the_list(steps: Sequence[tuple[str, Sequence[ToolCall]]]) -> list[tuple[str, Sequence[ToolCall]]]:
    """The steps, where a reminder right after the todo list is shown and whose task points back at it names the list:
    "show me my todos and then remind me tomorrow at 6pm to actually do them" reminds of "actually do them (my
    todos)" (round 32's spent set: "actually do them lol" alone, at 6pm tomorrow, says nothing)."""
    out = list(steps)
    for k in range(1, len(out)):
        (_, before), (clause, calls) = out[k - 1], out[k]
        if [c.name for c in before] == ["list_todos"] and [c.name for c in calls] == ["set_reminder"]:
            task = str(calls[0].arguments.get("text", ""))
            if _THE_LISTED.search(task) and not re.search(r"todo|to-do|to do|待办", task, _I):
                zh = detect_language(clause) == "zh"
                text = f"{task}（待办）" if zh else f"{task} (my todos)"
                out[k] = (clause, (replace(calls[0], arguments={**calls[0].arguments, "text": text}),))
    return out


def reminders_deleted(steps: Sequence[tuple[str, Sequence[ToolCall]]]) -> list[ToolCall]:
    """The calls of several requests, (clause, its calls) in order; a deletion that points back at one
    ("那个", "the dentist one") right after the reminders are listed deletes a reminder, not a memory:
    "先看看我有哪些提醒，然后把取药那个删了" lists them and cancels the one about 取药 (the words alone read
    as forgetting). Not a deletion that names a memory ("…把取药那条记忆删了"), nor one after a reminder
    set in the same message ("remind me at 5pm to call mom, and forget my mom's birthday")."""
    out: list[ToolCall] = []
    for clause, calls in steps:
        for call in calls:
            if (call.name == "forget" and out and out[-1].name == "list_reminders" and call.arguments.get("what")
                    and _POINTS_AT_ONE.search(clause) and not _NAMES_A_MEMORY.search(clause)):
                call = replace(call, name="cancel_reminder", arguments={"which": call.arguments["what"]})
            out.append(call)
    return out



#: a reminder let go and a new one in its place: "把买狗粮那个提醒删了，改成后天上午10点20提醒我去宠物店", "把7点的闹钟删了，换成8点的",
#: "把周五那个开会的提醒取消 改成下周二上午九点"; or moved: "把开会的提醒改到下周二上午九点", "move the yoga reminder to nov 6 at 7pm",
#: "cancel the yoga reminder and set a new one for nov 6 at 7pm, same thing"
_LET_GO_THEN_NEW = [
    re.compile(r"^(?:帮我)?(?:把|将)(?P<x>[^，,。]+?)(?:那个|那条|的)?(?:提醒|闹钟)(?:给我)?(?:删了|删掉|删除|取消了?|不要了)"
               r"[，,。\s]*(?:然后|再)?(?:改成|换成|改到|换到|重新定)(?:了|成)?\s*(?P<rest>.+)$"),
    re.compile(r"^(?:帮我)?(?:把|将)(?P<x>[^，,。]+?)(?:那个|那条|的)?(?:提醒|闹钟)(?:给我)?(?:改到|挪到|推到|推迟到|延到|延后到|调到|提前到)"
               r"\s*(?P<rest>.+)$"),
    re.compile(rf"^{_POLITE_EN}(?:move|push|reschedule|shift|bump|change)\s+(?:the|my)\s+(?P<x>.+?)\s+(?:reminder|alarm)"
               r"\s+(?:to|for|till|until)\s+(?P<rest>.+?)(?:,?\s+instead)?[.!]*$", _I),
    re.compile(rf"^{_POLITE_EN}(?:cancel|delete|remove|drop|scrap|kill)\s+(?:the|my)\s+(?P<x>.+?)\s+(?:reminder|alarm),?\s+"
               r"(?:and\s+)?(?:then\s+)?(?:set|make|add|create|put in)\s+(?:a new one|another(?: one)?|a new (?:reminder|alarm)|one)"
               r"\s+(?:for|at|on)\s+(?P<rest>.+?)(?:,?\s+(?:same (?:thing|task|text|words)|instead))?[.!]*$", _I),
]
_POINTERS_AROUND = re.compile(r"^(?:那个|那条|的|\s)+|(?:那个|那条|的|\s)+$")
_NAMED_BY_HOUR = re.compile(r"[0-9一二三四五六七八九十两]+\s*(?:点|am\b|pm\b|:[0-9]{2})|\bnoon\b|\bmidnight\b", _I)


def _replaced_reminder(text: str, now: dt.datetime, zone: dt.tzinfo) -> Reflex | None:
    """The reminder let go cancelled and a new one set at the new time ("move": the loop gives the new one the
    words of the one cancelled, and sets nothing when nothing was cancelled); None when the message is no such
    change, or its new time cannot be read whole."""
    found = _first(_LET_GO_THEN_NEW, text)
    if not found:
        return None
    which, rest = _clean(found.group("x")), found.group("rest")
    if _says_when(which, now, zone) and not _NAMED_BY_HOUR.search(which):
        # named by its day and its words ("周五那个开会的"): by its words
        for start, end, _, _ in reversed(spans(which)):
            which = which[:start] + " " + which[end:]
        which = _clean(_POINTERS_AROUND.sub("", which))
    if not which or _says_when(which, now, zone) or _NAMED_BY_HOUR.search(which):
        return None  # "把7点的闹钟删了，换成8点的": the reminder is named by its time, not its words
    at = spans(rest)
    if len(at) == 1 and (at[0][2] or at[0][3]) and not _clean(_MOVE_FILLER.sub(" ", rest[:at[0][0]] + " " + rest[at[0][1]:])):
        # a time alone: moved, on the reminder's own day unless it names one (the loop reads it)
        return Reflex("move", _call("cancel_reminder", which=which) + _call("set_reminder", text=which,
                                                                             when=rest[at[0][0]:at[0][1]].strip()))
    if detect_language(text) != "zh" or not _REMIND_ZH.search(rest):
        return None  # a new task in other words ("change my gym reminder to yoga at 7pm"): the model's
    # a new task said as a reminder: "把买狗粮那个提醒删了，改成后天上午10点20提醒我去宠物店"
    new = _single(rest, now, zone)
    if new is None or [c.name for c in new.calls] != ["set_reminder"]:
        return None
    return Reflex("multi", _call("cancel_reminder", which=which) + new.calls)


#: what may stand beside the new time of a reminder moved: "…for nov 6 at 7pm, same thing", "…换成周五下午3点的"
_MOVE_FILLER = re.compile(r"\b(?:same (?:thing|task|text|words)|instead|please|pls|thanks|pm|am)\b|的|吧|了|哈|啊|呀|[,.!?，。！？~～]",
                          re.IGNORECASE)


#: words in quotation marks, and the words of a request
_QUOTED = re.compile(r"“[^”]*”|「[^」]*」|『[^』]*』|\"[^\"]*\"")
#: ...also in single quotes that stand apart from words ("my grandpa used to say 'remember, …'", not the apostrophes of
#: "don't forget it's…"), when someone is said to say them
_QUOTED_SINGLE = re.compile(rf"{_QUOTED.pattern}|(?<![A-Za-z])'[^']+'(?![A-Za-z])|‘[^’]*’")
_SAYING = re.compile(r"\b(?:says?|said|saying|used to say|always says?|told me|tells me|quote|motto|advice|like to say)\b"
                     r"|常说|老说|总说|总是说|经常说|说过|常讲|老讲|名言|座右铭|口头禅", _I)
_REQUEST_VERB = re.compile(r"\b(?:remember|remind|forget|note|save|add|delete|cancel)\b|记住|记得|记一下|记下|提醒|忘|删|加到|加个"
                           r"|待办|取消", _I)


def quoted_saying(text: str) -> bool:
    """Whether every word of a request in `text` is inside quotation marks, single ones too, and someone is said to say
    them ("lol my grandpa used to say 'remember, the early bird…'", "'forget the plan, trust the vibes' - best advice"):
    not the person's request."""
    return (bool(_REQUEST_VERB.search(text)) and not _REQUEST_VERB.search(_QUOTED_SINGLE.sub(" ", text))
            and _SAYING.search(_QUOTED_SINGLE.sub(" ", text)) is not None)


def quoted_request(text: str) -> bool:
    """Whether every word of a request in `text` is inside quotation marks: someone's words quoted
    ("我妈老说“你给我记住了”"), not the person's request."""
    return bool(_REQUEST_VERB.search(text)) and not _REQUEST_VERB.search(_QUOTED.sub(" ", text))


def match(text: str, now: dt.datetime, zone: dt.tzinfo, language: str = "en") -> Reflex | None:
    """The reflex for this message, or None to let the model answer.
    `language`: the conversation's, for a /command with no words of its own."""
    reflex = _match(text, now, zone, language)
    if (reflex is not None and any(c.name == "forget" for c in reflex.calls) and _SOMEONE_SAID.search(text)
            and any(_forgets_in_other_words(part) for part in (text, *_split(text)))):
        return None  # someone else's words: "老师说，关于这道题的都别记了", "朋友劝我，别再记着前任了"
    return reflex


def _forgets_in_other_words(text: str) -> bool:
    found = _first(_FORGET, _strip_fillers(text))
    return found is not None and found.re in _FORGET_IN_OTHER_WORDS


def _match(text: str, now: dt.datetime, zone: dt.tzinfo, language: str = "en") -> Reflex | None:
    text = " ".join(text.split())
    if not text:
        return None
    if text.startswith("/"):
        return _slash(text, now, zone, language)
    if quoted_request(text):
        return None  # "我妈老说“吃亏是福，你给我记住了”": someone's words, not a request (kept "了”")
    if _COMPARES.search(text) and not getattr(arithmetic.read(text), "expression", ""):
        return None  # (but a sum: "what's the difference between 45 and 17")
    # "Forget it, …", "算了，…": the subject is dropped. What follows may be a
    # request of its own, but never one to forget.
    rest = dismissal(text)
    if rest is not None:
        reflex = match(rest, now, zone, language) if rest else None
        return None if reflex is None or any(c.name == "forget" for c in reflex.calls) else reflex
    replaced = _replaced_reminder(text, now, zone)
    if replaced is not None:
        return replaced
    # Several requests in one message: each clause must be a request on its
    # own, else the whole message is the model's (one reflex must not
    # swallow two requests into one call).
    # (a clause of filler alone is no clause: "whats on my todo list? oh and add call the plumber")
    parted = _split(text)
    clauses = [c for c in parted if _clean(_strip_fillers(c)) or _TOPIC_SHIFT.search(c)]
    if len(clauses) == 1 and len(parted) > 1:
        return _single(clauses[0], now, zone)  # "嗯。记住我喜欢吃辣", "yo. add milk to my todo list. ok"
    if len(clauses) > 1:
        whole = _single(text, now, zone)
        if whole is not None and len(whole.calls) > 1 and all(c.name == "add_todo" for c in whole.calls):
            return whole  # "add two things to my todo list: call the bank and cancel the card"
        found = [_single(clause, now, zone) or todo_said_before(clause, text) for clause in clauses]
        for k in range(1, len(clauses)):
            let_go = _LET_GO_OF_THE_ONE.match(_strip_fillers(clauses[k]).strip())
            before = found[k - 1]
            if found[k] is None and let_go and before is not None and before.intent == "list_reminders":
                found[k] = Reflex("cancel_reminder", _call("cancel_reminder", which=_clean(let_go.group("x"))))
        found = _todo_of_the_need(clauses, found)
        clauses, found = _value_goes_on(clauses, found)
        clauses, found = _read_together(clauses, found, now, zone)
        listing = any(f is not None and f.intent in ("list_reminders", "list_todos") and not _NAMES_A_LIST.match(c)
                      for c, f in zip(clauses, found))
        # a list named alone is what the talk is about, not a request ("我的待办 太多了 根本做不完"); "…and my todo list
        # too" asks for it beside another list asked for ("wipe my reminders and my todo list too" does not)
        found = [None if f is not None and _NAMES_A_LIST.match(c) and not listing else f for c, f in zip(clauses, found)]
        requests = [f for f in found if f is not None]
        others = [c for c, f in zip(clauses, found) if f is None]
        several = len(requests) > 1 or _SECOND_REQUEST.search(text)
        if several and (not others or len(requests) > 1 and all(aside(c, most=6) for c in others)) and all(
                r.calls for r in requests):
            # (with a short remark between them: "forget that i work at Brightline, i quit. remember instead…")
            steps = [(c, f.calls) for c, f in zip(clauses, found) if f is not None]
            return Reflex("multi", tuple(reminders_deleted(of_the_list(steps))))
        if (not several and len(requests) == 1 and found[-1] is not None and found[-1].calls and found[-1].intent != "calc"
                and not _POINTER.search(clauses[-1]) and any(_TOPIC_SHIFT.search(c) for c in others)
                and not any(_LOOKS_LIKE_REQUEST.match(c.strip()) or _says_when(c, now, zone) for c in others)):
            # one request after talk and a turn of subject ("最近事情好多 脑子不够用 对了 帮我set个reminder 12月1号下午3点
            # 去银行办卡"): the talk before it is no part of it (but "猫粮快没了 提醒我明天早上8点去买" says what to buy; so
            # does a time: "flight is on dec 20 at 6pm, remind me the same day at noon to pack"; and "我不学吉他了 把这条
            # 删了吧" points at it)
            return found[-1]
        if whole is not None and (not several or whole.intent == "calc"):
            return whole  # one request, or one sum read whole ("1250 / 5, 再加12")
        if len(requests) == 1 and requests[0].intent == "calc" and any(
                arithmetic.conversion(c) is not None for c, f in zip(clauses, found) if f is requests[0]):
            return requests[0]  # a conversion says all it needs: "I ran 5 miles today, what's 5 miles in km?"
        if any(r.intent == "calc" for r in requests) and any(arithmetic.has_numbers(c) for c in others):
            # "12 times 4, and then divide it by 3": never the sum of one part
            return Reflex("calc", reply=arithmetic.partial(text))
        if several and len(requests) == 1 and others and found[-1] is requests[0] and (
                [c.name for c in requests[0].calls] == ["set_reminder"]) and _POINTING_TASK.search(
                str(requests[0].calls[0].arguments.get("text", ""))) and not any(
                request_form(c) or _QUESTION_END.search(c) or _NAMES_A_LIST.match(c) or declines_keeping(c)
                or points_back(c) for c in others):
            # a reminder after what it is about ("作业下周三交，再提醒我后天晚上七点去交"): the task, which points back at it,
            # with its context (not "今天好累，然后提醒我晚上十点睡觉", nor after another request: "帮我订个餐厅，然后…")
            return _with_context(requests[0], others)
        if several or not requests:
            return None
        # One request among clauses of context ("actually cancel the rent
        # reminder, I already paid it"), unless another clause is a request
        # of its own that no reflex understood.
        if any(_LOOKS_LIKE_REQUEST.match(c.strip()) for c in others):
            return None
        labelled = _labelled(requests[0], clauses, found)
        if labelled is None and [c.name for c in requests[0].calls] == ["remember"] and _OWNED_BY_PRONOUN.fullmatch(
                _clean(str(requests[0].calls[0].arguments.get("content", "")))):
            return None  # "remember her name pls" after what was said of her: never "her name" alone
        return labelled or requests[0]
    return _single(text, now, zone)


#: what follows a time that makes it another reminder's: a task ("to unpack", "去接孩子", "接孩子"), not a remark about the
#: time ("is too late for her", "works too", "I'm off work", "的飞机", "太晚了")
_TASK_AFTER_TIME = re.compile(r"\s*(?:,\s*)?(?:to\s+\w|remind me\b)|\s*(?:提醒我|叫我|喊我)?(?![的是就太也才还都比更很挺有没不左右以之前后])"
                              r"[\u4e00-\u9fff]", re.IGNORECASE)
#: a fact said before in so many words: "I told you my mechanic is Luis, remember that?" asks whether the pet does
_TOLD_BEFORE = re.compile(r"\b(?:i|i've|i have) (?:told|said)\b|我(?:跟你)?说过|告诉过你", re.IGNORECASE)


def _read_together(clauses: list[str], found: list[Reflex | None], now: dt.datetime,
                   zone: dt.tzinfo) -> tuple[list[str], list[Reflex | None]]:
    """The requests of several clauses, where a clause means something only beside the one before it: a request to
    keep that points back keeps the fact said just before it, beside another request ("my mechanic is called Luis,
    remember that. and remind me…"; the fact's clause then asks nothing itself; alone, the agent finds the fact by its
    reading); a time with a task after a reminder is another reminder ("remind me june 28 at 8am to pack and then
    july 2 at 7pm to unpack"); and a reminder whose task points back is about what the request or the news just
    before it names ("待办加一个“交水费”，再提醒我后天晚上七点去交")."""
    out, said = list(found), set()
    for i in range(1, len(clauses)):
        clause, before = clauses[i], clauses[i - 1]
        if out[i] is None and out[i - 1] is None and points_back(clause) and any(
                f is not None for j, f in enumerate(out) if j not in (i, i - 1)) and not (
                request_form(before) or _QUESTION_END.search(before) or _QUESTION_END.search(clause)
                or _TOLD_BEFORE.search(before)):
            fact = _after_topic_shift(_clean(unpadded(before)))
            let_go = [str(c.arguments.get("what", "")) for f in out[:i - 1] if f is not None for c in f.calls
                      if c.name == "forget"]
            if len(let_go) == 1 and re.match(r"(?:now\s+)?(?:it'?s|it is|its)\b", fact, _I):
                # "forget that my favorite color is yellow, it's green now. remember that instead": what "it" is
                head = re.split(r"\s+(?:is|was|are|were)\b", let_go[0], maxsplit=1, flags=_I)[0].strip()
                fact = f"{head}: {fact}" if head else fact
            if len(fact) >= 2:
                out[i] = Reflex("remember", _call("remember", content=fact))
                said.add(i - 1)
        elif (previous := out[i]) is not None and out[i - 1] is None and [c.name for c in previous.calls] == [
                "forget"] and re.match(r"(?:它|他|她)(?:们)?(?:的|$)|(?:its|his|her|their)\b", str(
                previous.calls[0].arguments.get("what", "")), _I) and not (
                request_form(before) or _QUESTION_END.search(before) or asks_deleting(before)):
            # whose it is, said just before: "我那只仓鼠送人了，它的名字你可以忘了" forgets the hamster's name
            what = str(previous.calls[0].arguments.get("what", ""))
            zh = detect_language(clause) == "zh"
            out[i] = Reflex("forget", _call("forget", what=f"{_clean(unpadded(before))}{'，' if zh else ', '}{what}"))
            said.add(i - 1)
        elif out[i] is None and out[i - 1] is None and _forgets_it(clause) and _NO_LONGER.search(before) and any(
                f is not None for j, f in enumerate(out) if j not in (i, i - 1)) and not (
                request_form(before) or _QUESTION_END.search(before) or asks_deleting(before)):
            # a forget that points at the news just before it, beside another request: "我现在不喝美式了，把那条删了，
            # 记成我喜欢喝拿铁" (round 32's spent set forgot "把"), "i'm not vegan anymore, delete that, remember i eat fish"
            out[i] = Reflex("forget", _call("forget", what=_clean(unpadded(before))))
            said.add(i - 1)
        elif out[i] is None and (previous := out[i - 1]) is not None and [c.name for c in previous.calls] == [
                "set_reminder"]:
            at = spans(clause)
            # its own day, or none said before ("…tomorrow at 8am to call mom and at 5pm to call dad" is the model's),
            # and a task after the time ("10pm is too late for her", "明早六点的飞机" are remarks)
            if at and at[0][0] == 0 and at[0][3] and (at[0][2] or not any(
                    d for _, _, d, _ in spans(str(previous.calls[0].arguments.get("when", ""))))) and (
                    _TASK_AFTER_TIME.match(clause[at[0][1]:])):
                zh = detect_language(clause) == "zh"
                again = _single(("提醒我" if zh else "remind me ") + clause, now, zone)
                if again is not None and [c.name for c in again.calls] == ["set_reminder"]:
                    out[i] = again
        if (previous := out[i - 1]) is not None and [c.name for c in previous.calls] == ["set_reminder"] and (
                (mine := out[i]) is None or [c.name for c in mine.calls] == ["set_reminder"]):
            # (also where the clause read as a reminder of its own: "晚上8点再提醒我一次" set "再 一次")
            out[i] = _again(clause, previous, now, zone) or out[i]
        current, previous = out[i], out[i - 1]
        if current is not None and previous is not None and [c.name for c in current.calls] == ["set_reminder"] and (
                _POINTING_AT_SOMEONE.search(str(current.calls[0].arguments.get("text", "")))):
            # a reminder about the thing the request before it names: "待办加一个“交水费”，再提醒我后天晚上七点去交",
            # "put 'pick up dry cleaning' on my list and remind me tomorrow at 5pm to actually go get it"
            named = [str(c.arguments.get("text") or c.arguments.get("content") or "") for c in previous.calls
                     if c.name in ("add_todo", "remember")]
            if len(named) == 1 and named[0]:
                out[i] = _with_context(current, [named[0]])
        elif current is not None and previous is None and i - 1 not in said and [c.name for c in current.calls] == [
                "set_reminder"] and _POINTING_AT_SOMEONE.search(str(current.calls[0].arguments.get("text", ""))) and any(
                f is not None for j, f in enumerate(out) if j not in (i, i - 1)) and not (
                request_form(before) or _QUESTION_END.search(before) or declines_keeping(before)
                or points_back(before)):
            # ...or the news said just before it, beside other requests: "我侄子叫乐乐，你记一下。下周一是他生日，下周一
            # 早上九点提醒我给他发红包"
            out[i] = _with_context(current, [before])
            said.add(i - 1)
    kept = [i for i in range(len(clauses)) if i not in said]
    return [clauses[i] for i in kept], [out[i] for i in kept]


#: what a clause says beside a time to ask for the reminder before it once more: "and again at 8pm tmrw", "晚上8点再提醒一次"
_AGAIN_ONLY = re.compile(r"^\W*(?:(?:and|also|then|plus|at|on)\s+)*(?:(?:remind me\s+)?again|once more|one more time"
                         r"|(?:and\s+)?at\s+\S.*?\s+(?:again|too)|再(?:提醒|叫|喊)(?:我)?(?:一次|一遍|一下)?|(?:也|再)(?:提醒|叫|喊)我?一(?:次|下|遍))"
                         r"\s*(?:at|on)?(?:[\s,]+(?:please|pls|plz|thanks|thx|ok|okay))?\W*$", re.IGNORECASE)


def _again(clause: str, previous: Reflex, now: dt.datetime, zone: dt.tzinfo) -> Reflex | None:
    """The reminder before a clause set once more at the clause's time, when the clause says no more than that time
    and "again": "remind me at 8am tmrw to take my meds and again at 8pm tmrw"; "明天早上8点提醒我吃药，晚上8点再提醒
    一次" (a time with no day of its own is on the first one's day). None otherwise."""
    at = spans(clause)
    if len(at) != 1 or not at[0][3]:
        return None
    start, end, has_day, _ = at[0]
    if not _AGAIN_ONLY.match(f"{clause[:start]} {clause[end:]}".strip()):
        return None
    first = previous.calls[0]
    said = clause[start:end].strip()
    try:
        before = parse_when(str(first.arguments.get("when", "")), now, zone).at
        when = said if has_day else (
            parse_when(said, before.replace(hour=0, minute=0, second=0, microsecond=0), zone).at.strftime("%Y-%m-%d %H:%M"))
        if not has_day and parse_when(when, now, zone).at <= before:
            return None  # "…8pm tomorrow, and again at 8am": which day is not said
    except TimeProblem:
        return None
    return Reflex("remind", _call("set_reminder", text=first.arguments.get("text", ""), when=when))


#: a task that points back at what was said before it: "(去)交", "去拿", "go get it", "call him"
_POINTING_TASK = re.compile(r"^去?[\u4e00-\u9fff]$|^去[\u4e00-\u9fff]{1,2}$|[它那这]个|\b(?:it|that|there|those|these)\b",
                            re.IGNORECASE)


#: ...or at someone named before it: "给他发红包", "call her" (beside other requests only: "今天好累，然后提醒我晚上十点给他回电话"
#: says nothing of him)
_POINTING_AT_SOMEONE = re.compile(rf"{_POINTING_TASK.pattern}|[他她]们?|\b(?:him|her|them)\b", re.IGNORECASE)


def _with_context(request: Reflex, context: list[str]) -> Reflex:
    """A reminder whose task is said with what it is about ("去交" about "作业下周三交")."""
    call = request.calls[0]
    task, said = str(call.arguments.get("text", "")), _clean(" ".join(context))
    if not said or said in task:
        return request
    zh = detect_language(task + said) == "zh"
    # ("交" of "交水费" is "交水费")
    text = said if task.removeprefix("去") in said else f"{task}（{said}）" if zh else f"{task} ({said})"
    return replace(request, calls=(replace(call, arguments={**call.arguments, "text": text}),))


_LEADING_FILLER = re.compile(
    r"^(?:(?:hey|hi|hello|ok|okay|so|um|uh|well|yo|oh|fyi|btw|heads up|actually|also|anyway|anyways|by the way|wait|hmm|quick one|quick question|quick q"
    r"|buddy|dude|pal"
    r"|xiaoqian|qianqian)\b[\s,:：!！~～.。-]*|(?:小钳|钳钳|喂|嘿|那个|嗯|好的|对了|另外|顺便|顺带)[\s,，:：!！~～]*"
    # the first of several requests: "first remember …, then add …", "先记住…，再加个待办…"
    r"|(?:first(?: of all)?|firstly)\b[\s,]*(?=(?:pls |please )?(?:remember|save|note|add|put|set|remind|forget|delete"
    r"|check|cancel|calculate|work out|list|show)\s+\w)"
    r"|(?:先|首先)(?=(?:帮我|给我|记住|记一下|提醒我|加|添|设|定|查|算|删|忘掉|把)[^，,。！!？?\s]))+",
    _I,
)
_POLITE_START = re.compile(r"^(?:(?:can|could|would|will) (?:you|u)|please|pls|plz)\s+(?:please\s+|pls\s+)?", _I)
_POLITE_START_ZH = re.compile(r"^(?:请你?|麻烦你?|你能不能|你可以|能不能|可以)\s*")
_TRAILING_FILLER = re.compile(
    r"(?:[\s,，]*(?:\b(?:pls|plz|please|thanks|thank you|thx|ty|for me|rn|right now|asap|real quick|ok|okay"
    r"|before i forget|so i don'?t forget"
    # "…to my list so i dont ignore it for another month" (round 32's spent set)
    r"|so (?:that )?i (?:don'?t|dont|do not|won'?t|wont) (?:forget|ignore|miss|lose|put off|skip)(?: (?:it|this|that|them))?"
    r"(?: (?:again|for another (?:day|week|month|year)|for once))?)\b"
    r"|谢谢|谢啦|多谢|哦|哟|呀|啊|哈|嘛|吧|[~～!！.。]|[\U0001F300-\U0001FAFF\u2600-\u27BF]))+$",
    _I,
)


def _strip_fillers(text: str) -> str:
    """Drop greetings, politeness and trailing noise around a request:
    "hey buddy, can you work out 15% of 240 for me pls" → "work out 15% of 240".
    A polite question ("could you remind me …?") becomes a request."""
    text = _LEADING_FILLER.sub("", text).strip()
    polite = _POLITE_START.match(text) or _POLITE_START_ZH.match(text)
    if polite:
        text = text[polite.end():].strip()
        text = re.sub(r"\s*(?:吗)?\s*[?？]$", "", text)
    question = text.endswith(("?", "？"))
    core = _TRAILING_FILLER.sub("", text.rstrip("?？ ")).strip()
    return (core + ("?" if question else "")) if core else text


def request_words(text: str) -> str:
    """The message without greetings, politeness and trailing noise: the
    words a tool that finds by words (recall, forget) is given."""
    return _strip_fillers(" ".join(text.split())).rstrip("?？ ")


_CLOCK_WORDS = re.compile(
    # (a word inside a hyphenated one is not the clock: "full-time", "up-to-date", "time-consuming"; one after
    # Chinese is: "帮我看下现在的time", round 34's spent set)
    r"(?<![A-Za-z0-9_'-])(?:time|clock|date|o'?clock|weekday|hour|(?:what|wat|wut|wht|which) day(?!\s+(?:are|r|do|does|did|can|could|will|would|should|works?|suits?)\b)"
    r"|day is it|day of the (?:week|month)"
    r"|how late|(?:what|wat|wut|which) year is it(?! in\b)"
    r"|is it (?:still |already )?(?:mon|tues|wednes|thurs|fri|satur|sun)day"
    r"|is it (?:still |already )?(?:january|february|march|april|may|june|july|august|september|october|november"
    # (the word may run into Chinese: "现在what time啊", round 47's spent set)
    r"|december)|what month)(?![A-Za-z0-9_]|-\w)|几点|几号|星期几|周几|礼拜几|日期|时间|几月|钟|哪天",
    _I)


#: a question of how or why something is so ("how do time zones even work", "为什么有闰年"): it asks to be told
#: about the calendar, not what the clock says
_HOW_IT_IS = re.compile(r"\b(?:how|why)\s+(?:do|does|did|come|are|were)\b|为什么|为啥|原理|怎么回事|怎么来的"
                        # what time itself is: "你说时间到底是个什么东西啊" (round 32's spent set read the clock)
                        r"|\bwhat (?:even )?is time\b|(?:到底)?是(?:个)?(?:什么|啥)(?:东西|玩意)", _I)


def names_the_clock(text: str) -> bool:
    """Whether `text` names the clock or the calendar ("how late is it?", "今天几号"), and does not ask how
    it works: a message the router reads as asking the time must, or it is talk about a day ("long day at
    work today") or a question about time itself ("how do time zones even work")."""
    return _CLOCK_WORDS.search(text) is not None and _HOW_IT_IS.search(text) is None


def guessing_game(text: str) -> bool:
    """Whether `text` asks the pet to guess ("你猜我今天几点起的？中午十二点！", "guess what time i got home"): a
    game about the person's day, not a question for the clock or a memory. Not "你猜怎么着" ("guess what"), which
    opens news, nor a message that asks something besides ("guess who forgot the gate code again lol. what was
    it?")."""
    parts = sentences(" ".join(text.split()))
    if not parts or _GUESS.search(parts[0]) is None:
        return False
    return not any(_QUESTION_END.search(part) or "来着" in part for part in parts[1:])


_GUESS = re.compile(r"^\W*(?:(?:哈哈+|嘿嘿|诶|欸|哎)[，,\s]*)?(?:你猜|猜猜|猜一下|你来猜)(?!怎么着|怎么了|咋着|咋了|啥事)"
                    r"|^\W*(?:(?:lol|haha|ok|so)[,\s]+)?(?:guess (?:what time|when|how (?:long|many|much|late|early|old|far))"
                    r"|bet (?:you|u) can'?t guess)\b",
                    re.IGNORECASE)


def wishes_it_could(text: str) -> bool:
    """Whether `text` wishes for what cannot be done ("如果可以删掉一段记忆，我想删掉高考那天哈哈", "if i could forget
    one day of my life…"): a clause opens with the wish and no other clause is a request. "如果可以的话，帮我记一下…",
    "如果可以，把我车牌号记一下" and "if you could remind me…" are polite requests, "i wish i had more time. add call
    the bank to my todo list" a wish beside one."""
    parts = clauses(text)
    wishing = [part for part in parts if _IF_I_COULD.search(part)]
    return bool(wishing) and not any(request_form(part) for part in parts if part not in wishing)


_IF_I_COULD = re.compile(r"^\W*(?:(?:哈哈+|唉|哎)[，,\s]*)?(?:如果|要是|假如|假设|真希望)(?:我)?(?:可以|能够|能)"
                         r"(?![，,、。\s]|$|的话|帮|请|提醒我|记|把)"
                         r"|^\W*(?:(?:lol|haha|honestly|tbh|man|ugh)[,\s]+)?(?:if (?:only )?i could|i wish i could"
                         # "imagine if u could just delete memories like in that jim carrey movie" (round 32's spent set)
                         r"|imagine (?:if )?(?:i|u|you|we|people) could)\b"
                         r"(?! get (?:you|u)\b)", re.IGNORECASE)


#: 撒 typed for 啥 (the same pinyin, sa): "我的待办清单有撒", "是撒来着" (not 撒谎, 撒娇, 撒盐)
_SA = r"(?:有|是|干|些|做|为)撒(?=$|[\s?？!！。，,~～]|子|呀|啊|来着|呢)"
#: a message asks for something: a question, or words that ask to see, tell or do
_ASKS = re.compile(
    r"[?？]|\b(?:what|whats|wat|wht|wut|whut|which|when|where|who|how|any|anything|do i|did i|have i|is there|are there"
    r"|do you|can you|can u|could you|remember|recall|again|bring up|everything|all my|please|pls|plz"
    r"|i'd like|i want|i need|gimme|upcoming|coming up)\b"
    r"|(?:^|[,.;!]\s*)(?:(?:please|pls|plz|and|so|ok|okay|can you|could you|would you)\s+)*"
    r"(?:show|list|tell|check|read|give|see|look|let me|lemme|remind me what|pull up|go over|go through|run through)\b"
    r"|\b(?:need|want|wanna|like) (?:to )?(?:see|know|check|hear)\b"
    r"|吗|呢|什么|啥|哪|几|多少|有没有|是不是|看看|看下|看一下|想看|要看|查|列|告诉|给我|说说|念|读|有哪些|" + _SA + (
    r"|记得|回忆|来着|全部|所有|一下"),
    re.IGNORECASE,
)
#: the most words (Chinese characters count half a word each) of a message that asks without saying so:
#: "todos", "my reminders pls", "提醒列表"
_ASKS_WORDS = 4


def asks_something(text: str) -> bool:
    """Whether `text` asks for something, as a request to list or recall must: a question, words of
    seeing or telling, or a few words alone ("reminders", "待办清单"). A remark ("my todo list is so
    long it's depressing", "我的待办清单永远清不完") asks nothing."""
    text = " ".join(text.split())
    if _ASKS.search(text):
        return True
    return len(re.findall(r"[A-Za-z']+", text)) + cjk_count(text) / 2 <= _ASKS_WORDS


#: words that ask for a list: seeing, which, how many, all ("what's on my todo list", "提醒都列出来", "show一下我的提醒")
_ASKS_A_LIST = re.compile(
    _SA + r"|哪些|什么|啥|几[个条件项]|多少|列出|列一下|列个|列给|看|瞅|查|有没有|都有|全部|所有|有吗|有哪|念|读一下|报一下|说说|发我|发一下"
    r"|(?:提醒|待办|清单|列表|事项)呢"
    # "list" the verb, not the name ("list my reminders", not "my todo list is so long")
    r"|(?<![a-z])(?:(?<!todo )(?<!to-do )(?<!to do )(?<!task )(?<!shopping )(?<!grocery )(?<!reminder )list|lsit|show"
    r"|display|gimme|what|whats|wat|wats|waht|wht|wut|whut|which|any|anything|all|upcoming|coming up|do i (?:still )?hav(?:e)?|check|see"
    r"|how many|got|pull up"
    r"|tell me|read|queued|remaining|left|pending|open)(?![a-z])"
    # the list named alone: "reminders??", "my todos?"
    r"|^\W*(?:my\s+|我的)?(?:\w{0,3}remi\w*|todos?|to-?dos?|todo list|提醒(?:列表)?|待办(?:清单|事项|列表)?)"
    r"(?:\s*(?:pls|plz|please))?\W*$",
    re.IGNORECASE)


def asks_a_list(text: str) -> bool:
    """Whether `text` asks to see a list, as a request to list reminders or todos must: a word of seeing, which or
    how many, or the list named alone. "你会设提醒吗？", "提醒一下你哦，你是小龙虾不是螃蟹" and "你的名字我又忘了，
    提醒我一下？" are near "我有哪些提醒" to the router, but ask for no list."""
    text = " ".join(text.split())
    if _CAN_YOU_LIST.search(text) and not any(_ASKS_A_LIST.search(part) for part in re.split(
            r"(?<=[.!?。！？])\s*", text) if _CAN_YOU_LIST.search(part)):
        return False  # "你能帮我做什么呀？会设提醒吗" asks what the pet can do (round 34's spent set listed the reminders)
    return _ASKS_A_LIST.search(text) is not None and not _WHAT_IF_YOU.search(text) and not _WHAT_FOR.search(text)


#: a question whether the pet keeps such a list at all: "会设提醒吗", "你能加待办吗", "can you set reminders?"
_CAN_YOU_LIST = re.compile(r"(?:会|能|可以)(?:帮我)?(?:设|定|建|加|记|做|弄)?(?:个)?(?:提醒|闹钟|待办)(?:吗|么|不|嘛)"
                           r"|\b(?:can|could|do) (?:you|u) (?:even )?(?:set|do|make|handle|add|keep)"
                           r" (?:reminders?|alarms?|todos?|to-?dos?|todo lists?)\b", re.IGNORECASE)


#: what lists are good for, asked of no list: "what's the point of todo lists if i never finish them 😩", "列清单有啥用，
#: 反正我也不会照着做😂" (round 30's spent set listed the todos for both)
_WHAT_FOR = re.compile(r"\bwhat(?:'s|s| is) the (?:point|use) of\b|\bwhy (?:do|should|would) (?:i|anyone|people) even\b"
                       r"|(?:有|还有)?(?:啥|什么|甚么)(?:用|意义|必要)|有用吗|何必", re.IGNORECASE)


#: a question of what the pet would do if it could: "如果你能提醒全世界一件事 你会提醒啥" (round 29's spent set listed the reminders)
_WHAT_IF_YOU = re.compile(r"(?:如果|要是|假如|假设)(?:你|您)|\bif (?:you|u) (?:could|can|were|had|got)\b", re.IGNORECASE)


#: a question for one thing the person has ("工号多少？", "房东叫啥来着", "备用钥匙我塞哪儿了？", "who did i tell
#: you my favourite author was?", "passport?"): one the pet may know, if a memory holds its words
_ASKS_VALUE_ZH = re.compile(r"多少|叫啥|叫什么|是啥|是什么|是哪|哪儿|哪里|在哪|[放搁塞丢停藏收]哪|几号|哪天|啥时候|什么时候|几月|几岁")
_ASKS_VALUE_EN = re.compile(
    r"\b(?:what(?:'s|s| is| was| are| were)|where(?:'s|'d| is| are| was| did| do)|who(?:'s| is| was| did)"
    r"|when(?:'s| is| was)|which|how old is)\b.*\b(?:my|i|mine)\b|\b(?:my|i)\b.*\b(?:where|who|what|when|which)\b.*[?？]"
    # someone's, asked to be told again: "whats her wifi pw again" (round 34's spent set)
    r"|\b(?:what(?:'s|s| is| was)|where(?:'s| is| was)|who(?:'s| is| was))\s+(?:her|his|their)\b.*\bagain\b",
    re.IGNORECASE)
#: ...not of the pet ("你叫啥", "what's your name", "你是怎么记住的"), but "did i tell you" is the person's
_OF_THE_PET = re.compile(r"^\W*你|你(?:是|叫|觉得|会|能|喜欢|多大|几岁|在哪)|\byour\b|\byou(?!\s+(?:my|that|about))\b"
                         r"(?<!tell you)(?<!told you)(?<!gave you)", re.IGNORECASE)
#: a few words and a question mark: "passport?", "wifi password?"
_BARE_QUESTION = re.compile(r"^\W*[A-Za-z][A-Za-z' -]{0,30}[?？]+\s*$"
                            r"|^\W*(?:[A-Za-z0-9]{1,12}\s*)?[\u4e00-\u9fff]{2,6}[?？]+\s*$")  # "wifi密码？"
#: an English question by its first words, with or without its mark ("where did i put my passport")
_OPENS_A_QUESTION = re.compile(r"^\W*(?:what|where|who|when|which)(?:'s|s|'d| is| was| did| do)\s+(?:i|my)\b", re.IGNORECASE)
#: words asking to keep something: "…nvm it's 5521 now, please remember", "…lobster2027, save it"
_KEEPING = re.compile(r"\b(?:remember|save|note|store|keep|jot)\b|[,，]\s*(?:don'?t|do not) let me forget (?:that|this|it)\b"
                      r"|记住|记下|记一下|存", re.IGNORECASE)


def opens_a_question(text: str) -> bool:
    """Whether `text` is worded as an English question for a thing of the person's from its first words
    ("where did i put my passport", "what's my locker code"), not advice ("what's a good name for my goldfish")."""
    return _OPENS_A_QUESTION.match(text) is not None


def asks_keeping(text: str) -> bool:
    """Whether `text` has a word asking to keep something."""
    return _KEEPING.search(text) is not None


_OF_THE_DAY = re.compile(r"\b(?:today|tonight|tomorrow|this (?:morning|afternoon|evening|week|weekend))\b"
                         r"|今天|今晚|明天|今早|这周|周末|吃什么", re.IGNORECASE)


def asks_kept_value(text: str) -> bool:
    """Whether `text` asks for one thing of the person's ("工号多少？", "房东叫啥来着", "who did i tell you my
    favourite author was?", "passport?"), not of the pet ("你叫啥来着", "what's your favourite food?"):
    the memories answer it when one holds its words."""
    text = " ".join(text.split())
    if _OF_THE_PET.search(text) and not re.search(r"\b(?:tell|told|gave) you\b", text, re.IGNORECASE):
        return False
    if len(text) > 80:
        return False
    if _BARE_QUESTION.match(text) and len(re.findall(r"[A-Za-z']+", text)) <= 3 and not re.match(
            r"\W*(?:what|who|where|when|why|how|is|are|do|does|can|lol|haha|really|ok|okay|huh|and|so)\b", text, re.I):
        return not _OF_THE_DAY.search(text)
    asks = _ASKS_VALUE_ZH if cjk_count(text) else _ASKS_VALUE_EN
    if not asks.search(text):
        return False
    # "what's my plan for today?" is the calendar's and the model's; a day said in another clause than the
    # question is the reason for it ("明天要出国，我的passport放哪儿了你还记得不", "gonna visit grandma this weekend,
    # whats her wifi pw again": round 34's spent set)
    # (a day said alone before it is the question's: "tomorrow, what's my plan?")
    parts = re.split(r"(?<=[,，;；。!！?？])\s*", text)
    asking = [part for part in parts if asks.search(part) or _OF_THE_DAY.fullmatch(re.sub(r"[\W_]+", "", part))] or [text]
    return not any(_OF_THE_DAY.search(part) for part in asking)


def asks_time(text: str) -> bool:
    """Whether the message asks the current time, date or weekday."""
    return _first(_TIME, _strip_fillers(" ".join(text.split()))) is not None


def _single(text: str, now: dt.datetime, zone: dt.tzinfo) -> Reflex | None:
    said = text  # (with its fillers: 吧 asks)
    text = _strip_fillers(text)

    # Reminders first: "remind me" must not be read as "remember". The verb's
    # language picks the pattern, whatever language the task is in
    # ("ping me at 5pm to buy 豆腐", "提醒我 at 5pm to buy milk").
    remind = _REMIND_EN.match(text)
    if remind:
        reflex = _remind(text, remind.group("rest"), now, zone, zh=False)
        # ("remind me when my laundry is done" asks for a reminder, not what was kept)
        reminded = _REMIND_WHAT.match(text) if reflex is None else None
        if reminded and _first(_LIST_TODOS, text[reminded.end("asked"):]):
            # "remind me what's left on my to do list" asks for the list, not a reminder (round 34's spent set)
            return Reflex("list_todos", _call("list_todos"))
        recalled = _first(_RECALL, text) if reminded else None
        if recalled and _clean(recalled.group("x")) and not asks_pet_name(text):
            # "remind me what my wifi password was": a thing kept, not a reminder
            return Reflex("recall", _call("recall", query=_clean(recalled.group("x"))))
        return reflex
    if _REMIND_ANYWHERE_EN.search(text) and not _QUESTION_END.search(text) and not not_reminded(text):
        # (not "don't remind me about yoga tomorrow, the class got cancelled": round 47's spent set asked what time)
        reflex = _remind(text, _REMIND_ANYWHERE_EN.sub(" ", text), now, zone, zh=False)
        if reflex:
            return reflex
    kept = _REMIND_ME_OF.match(text)
    if kept and not asks_pet_name(text) and not _says_when(text, now, zone):
        # "提醒我一下我妈生日是哪天": reminded of a thing kept, not at a time
        return Reflex("recall", _call("recall", query=_clean(kept.group("x"))))
    # (the English verb in a Chinese sentence: "上次那个 visa 材料还没交，11月2号下午2点 remind 我一下去递材料", round 45's
    # spent set, which the router's reading missed as a whole)
    worded = _REMIND_IN_ZH.sub("提醒", text, count=1) if detect_language(text) == "zh" else text
    if _REMIND_ZH.search(worded) and not _QUESTION_END.search(text) and not _CALLED_IN_A_STORY.search(text) and not (
            not_reminded(text)):
        reflex = _remind(text, worded, now, zone, zh=True)
        if reflex:
            return reflex

    if _BOTH_LISTS.search(text) and _SHOWS.search(text) and not _REMIND_ME.search(text) and not _UNDOES.search(text):
        # "show me my todos and my reminders": both lists (round 49's spent set showed the reminders alone)
        return Reflex("list_reminders", _call("list_reminders") + _call("list_todos"))
    found = _first(_LIST_REMINDERS, text)
    if found:
        return Reflex("list_reminders", _call("list_reminders"))
    found = _first(_CANCEL_REMINDER, text)
    if found:
        which = re.sub(r"^(?:第|#)\s*", "", _clean(found.group("n")))
        return Reflex("cancel_reminder", _call("cancel_reminder", which=which))
    found = _first(_LIST_TODOS, text)
    if found:
        return Reflex("list_todos", _call("list_todos"))
    found = _first(_TODO, text)
    if found and _clean(found.group("x")):
        item = _clean(found.group("x"))
        if only_pronoun(item) or re.fullmatch(r"一?[条个项件]", item):
            # "add that to my todo list", "在待办里加一条" name no item ("that" was added once)
            zh = detect_language(text) == "zh"
            return Reflex("todo", reply="要把什么加到待办里呢？" if zh else "What should I add to your todo list?")
        items = todo_items(item, text[: max(0, text.find(item))])
        return Reflex("todo" if len(items) == 1 else "multi",
                      tuple(call for one in items for call in _call("add_todo", text=unquote(one))))

    labelled = _first(_LABEL_THEN_KEEP, text)
    if labelled and len(_clean(labelled.group("v"))) >= 2 and not re.fullmatch(
            r"(?:请|麻烦|你|帮我|给我|帮忙|顺便|对了|另外|还有|一下|再)+", _clean(labelled.group("l"))) and not _NOT_A_LABEL.search(
            labelled.group("l")):
        # "新家地址你帮我记下来：朝阳区望京西园三区 7 号楼 1203" (round 32's spent set noted the story before it)
        zh = detect_language(text) == "zh"
        return Reflex("remember", _call("remember", content=f"{_clean(labelled.group('l'))}{'：' if zh else ': '}"
                                                             f"{_clean(labelled.group('v'))}"))
    found = _first(_REMEMBER, text)
    fact = without_chat_words(_after_topic_shift(_clean(memory_fact(_KEPT_WHERE.sub("", found.group("x")))))) if found else ""
    # A question is not a request to remember, except "…, could you remember that?"
    if found and len(fact) >= 2 and (
        not _QUESTION_END.search(text) or found.re in (_REMEMBER_AFTER, _REMEMBER_ASKED)
    ):
        return Reflex("remember", _call("remember", content=fact))
    asked = kept_fact(text) if opens_with_request(text) else None
    if asked is not None:  # "save this about me: …", "帮我存一下：…", "jot this down, …"
        return Reflex("remember", _call("remember", content=asked))
    if not _QUESTION_END.search(text):
        found = _first(_FORGET, text) if not _I_FORGOT.search(text) else None
        if found and found.re is _FORGET_ALL_ABOUT and not _ASKED_TO_LET_GO.search(said):
            found = None  # "喝断片了，关于昨晚的全忘了": news
        if found and not _vague(found.group("x")) and not _A_REMINDER.search(found.group("x")):
            target = _forget_target(found.group("x"))
            said_before = re.sub(r"[，,。;；\s]*(?:关于|把)?$", "", text[: found.start("x")])
            if re.fullmatch(r"(?:它|他|她)(?:们)?", target) and len(_clean(said_before)) >= 2:
                # whom "她" is, said before it: "我跟小雨分手了，把她忘了吧" (round 31's spent set forgot "她")
                target = f"{_clean(said_before)}，{target}"
            elif re.fullmatch(r"him|her|them", target, _I):
                # …or in a sentence before it: "Jonah and I broke up. please forget about him" (round 34's spent set)
                # (the sentence just before it, not every one: "my sister's wedding is in june. Tom keeps texting me.
                # forget about him" is about Tom)
                ends = [0] + [m.end() for m in re.finditer(r"[.!?;]\s+", text[: found.start("x")])]
                said_before = _clean(text[ends[-2]: ends[-1]]) if len(ends) > 1 else ""
                if len(said_before) >= 2:
                    target = f"{said_before}, {target}"
            new = _new_value(text, target)
            return Reflex("forget", _call("forget", what=target) + (_call("remember", content=new) if new else ()))

    found = _first(_RECALL, text)
    if found and _clean(found.group("x")) and not asks_pet_name(text):  # "…你叫啥来着" asks the pet's name
        query = _clean(found.group("x"))
        if asks_a_list(text) and not _A_MEMORY.search(query) and (
                bool(_A_TODO.search(query)) != bool(_A_REMINDER.search(query))):
            # "我清单上都有什么来着" asks for the list it names, not a memory (round 47's spent set)
            listed = "list_todos" if _A_TODO.search(query) else "list_reminders"
            return Reflex(listed, _call(listed))
        return Reflex("recall", _call("recall", query=query))
    if _first(_TIME, text):
        return Reflex("time", _call("get_current_time"))

    reading = arithmetic.read(text)
    if reading is None:
        return None
    if reading.question:
        return Reflex("calc", reply=reading.question)
    return Reflex("calc", _call("calculate", expression=reading.expression))


#: the message says it adds several things: "add two things to my todo: …", "帮我加两个待办：…"
_SEVERAL_ITEMS = re.compile(r"\b(?:two|three|four|five|[2-9]|a few|several|a couple of|couple of|both)\s+"
                            r"(?:things|items|tasks|todos|to-?dos)\b|[两二三四五几2-9]\s*(?:件事|个事|样|项|条|个|件)", _I)
#: where one thing ends and the next starts in a list of them; with `_SEVERAL_ITEMS` said, plain commas and "and"
#: too ("renew car insurance, and buy stamps")
_ITEMS_SPLIT = re.compile(r"\s*(?:\s还有\s|，还有|,\s*还有)\s*")
_ITEMS_SPLIT_COUNTED = re.compile(r"\s*(?:[、；;，]|,\s*(?:and\s+)?|\s+and\s+(?:also\s+)?|\s*还有\s*|\s*以及\s*)\s*", _I)


def todo_items(item: str, asking: str) -> list[str]:
    """The things of a todo request: one, or several when listed ("买洗衣液 还有 交电话费") or said to be several
    in the words that ask (`asking`: "add two things to my todo: renew car insurance, and buy stamps", "帮我加两个待办：
    买菜、交水费"; not "帮我加个待办 买3个西瓜，要甜的"); never an empty one."""
    split = _ITEMS_SPLIT_COUNTED if _SEVERAL_ITEMS.search(asking) else _ITEMS_SPLIT
    items = [_clean(part) for part in split.split(item)]
    items = [part for part in items if part and not only_pronoun(part)]
    return items if len(items) > 1 else [item]


#: words that make what stands before "记下来：" no name of a thing: someone's telling, or how hard to keep it ("老板让我记下来：
#: …", "千万记住：…", "my mom always said, remember this: …")
_NOT_A_LABEL = re.compile(r"说|让|叫|告诉|希望|一定|务必|千万|永远|必须|总是|老是|要|得|请|\b(?:told|tell|said|says|say|always|wants?"
                          r"|asked)\b", _I)
#: what a thing is named, a request to keep it, then the thing after a colon: "新家地址你帮我记下来：朝阳区…", "my new
#: address, note it down: 12 Oak Lane"
_LABEL_THEN_KEEP = [
    re.compile(r"^(?P<l>[^，,。：:？?！!\d]{2,12}?)[，,\s]*(?:你)?(?:帮我|给我)?(?:记下来|记一下|记住|记下|记着|存一下|存下来)"
               r"(?:哈|哦|吧|啊)?\s*[：:]\s*(?P<v>\S.*)$"),
    re.compile(r"^(?P<l>(?:my|our)\b[^,:.?!\d]{2,40}?)\s*[,—–-]?\s*(?:(?:pls|please|can you|could you)\s+)?"
               r"(?:note (?:it|this|that) down|remember (?:it|this|that)|save (?:it|this|that)|write (?:it|this|that) down"
               r"|keep (?:it|this|that))\s*[:：]\s*(?P<v>\S.*)$", _I),
]


def _labelled(request: Reflex, clauses: list[str], found: list[Reflex | None]) -> Reflex | None:
    """A request to keep what names a thing said before it ("我老婆生日是3月5号 帮我记住她的生日", "房东姓王 电话
    13911112222 帮我记住房东电话"): the clauses before it are what to keep; None for any other request."""
    if [c.name for c in request.calls] != ["remember"]:
        return None
    content = str(request.calls[0].arguments.get("content", ""))
    at = next(i for i, f in enumerate(found) if f is request)
    # a number or many words say a fact of its own, unless they only give the reason for asking ("…cuz i forget it like
    # 3 times a week")
    says_its_own = re.search(r"\d", content) or cjk_count(content) > 6 or len(content.split()) > 3 or (
        # ...and so does the person as its subject ("我不在西湖区住了，记住我现在住滨江", round 50's spent set kept the clause
        # before; not "记住我的生日", which names a thing)
        content.startswith("我") and not content.startswith(("我的", "我家")))
    if at == 0 or (says_its_own and not only_a_reason(content)):
        return None
    before = _after_topic_shift(_clean(" ".join(clauses[:at])))
    if not re.search(r"\d", before) and not re.search(r"[是叫姓在]|\b(?:is|are|was|called|named)\b", before, _I):
        return None  # no value said before ("今天好累 帮我记住这个感觉")
    return Reflex("remember", _call("remember", content=before))


#: a clause that only names a list ("我的待办", "and my todo list too", "还有待办")
_NAMES_A_LIST = re.compile(r"^(?:(?:and|also|plus)\s+)?(?:all\s+)?(?:my|the)\s+(?:upcoming\s+)?(?:todo|to-do|to do|task|reminder)s?"
                           r"(?:\s+list)?(?:\s+too|\s+as well|\s+also)?\s*[?？]?$"
                           r"|^(?:还有|以及|和)?(?:我的)?(?:待办|提醒)(?:清单|列表|事项)?(?:也(?:看看|列一下|列出来)?)?[？?]?$", _I)
#: one more of a list said in the same message: "看看我的待办 然后加一条 给奶奶寄明信片"
_ONE_MORE = re.compile(r"^(?:再|然后|还要)?(?:帮我)?(?:加|添|添加)(?:一|1)?[条个项件](?:上)?[：:，,\s]*(?P<x>\S.*)$"
                       # "whats on my todo list? oh and add call the plumber"
                       r"|^(?:(?:and|also|then|plus|oh)\s+)*(?:(?:pls|please|can you|could you)\s+)?add"
                       r"\s+(?!(?:it|that|this|them|one|another|to|on|me|us|him|her)\b)(?P<en>\w.*?)"
                       r"(?:\s+(?:to|on(?:to)?)\s+(?:it|that|there|the list|the end))?$", re.IGNORECASE)


#: a clause that says what the person needs to do: "i need to return the library books before they fine me again",
#: "我得去交水电费"
_NEED_TO = re.compile(
    r"^(?:(?:ugh|oh|ok|okay|so|also|and|man|welp)[,\s]+)?(?:(?:i|we)\s+)?(?:really\s+|still\s+|seriously\s+|def\s+)?"
    r"(?:need to|have to|gotta|got to|['’]ve got to|have got to|['’]ve gotta)\s+(?P<x>[^?？]*[^?？\s])$"
    # (not "我得到了…", "我得了重感冒", "我该怎么办啊", "我需要你帮我想想": a review)
    r"|^(?:我|咱)(?:还|真的|一定|明天|今天|这周|周末)?(?:得(?![了到知罪奖分意])|需要(?!你)|必须|该(?!怎么|咋|如何|不该|死))"
    r"(?:去)?(?P<z>[^?？吗呢]*[^?？吗呢\s])$", _I)


#: a request to add to the todo list that names nothing, in Chinese: "帮我加到待办里"
_ADD_IT_ZH = re.compile(r"^(?:帮我|请|麻烦你?|你)?(?:把它|把这个|把这事)?(?:加到|加进|放到|放进|记到|写到|添加到|添到)(?:我的)?"
                        r"(?:待办|todo|to-?do)(?:清单|列表|事项)?(?:里|里面|上)?(?:吧|哈|呗|呀|啊)?[。！!~～]*$", _I)


def _todo_of_the_need(clauses: list[str], found: list[Reflex | None]) -> list[Reflex | None]:
    """A request to put "that" on the todo list right after what the person needs to do: that task ("i need to
    return the library books before they fine me again, can u throw that on my list", round 33's spent set, asked
    what to add); the clause of the need then asks nothing of its own."""
    found = list(found)
    for at in range(1, len(clauses)):
        asked, before = found[at], found[at - 1]
        need = _NEED_TO.match(_strip_fillers(clauses[at - 1]))
        unnamed = asked is not None and asked.intent == "todo" and not asked.calls or (
            asked is None and _ADD_IT_ZH.match(_strip_fillers(clauses[at])) is not None)
        if not unnamed or before is not None or need is None:
            continue
        task = _clean(need.group("x") or need.group("z"))
        if len(task) >= 2 and not only_pronoun(task):
            found[at] = Reflex("todo", _call("add_todo", text=unquote(task)))
    return found


#: a clause that goes on with the value of a fact just kept: "尾号3379", "ends in 3379", "room 5B", "密码是0420" (a figure,
#: a few words, nothing asked)
_GOES_ON_WORDS = 5
#: ...not a count of time ("还有2天", "in 3 days": the review)
_TIME_COUNT = re.compile(r"还有|还剩|再过|\d+\s*(?:days?|weeks?|months?|hours?|minutes?)\b|\d+\s*(?:天|周|个?月|小时|分钟)", _I)


def _value_goes_on(clauses: list[str], found: list[Reflex | None]) -> tuple[list[str], list[Reflex | None]]:
    """A fact to keep whose value is in the clause after it, before another request ("记住我换了新手机号，尾号3379，另外
    提醒我明天下午5点去营业厅办副卡", round 46's spent tools set: two requests and no tool, the figure's clause asking
    nothing): the fact kept with it. Only a short clause with a figure in it that asks nothing, right before a request."""
    clauses, found = list(clauses), list(found)
    at = 1
    while at < len(clauses) - 1:
        before, clause = found[at - 1], clauses[at].strip()
        words = len(re.findall(r"[A-Za-z']+", clause)) + cjk_count(clause) / 2
        if (found[at] is None and found[at + 1] is not None and before is not None and before.intent == "remember"
                and len(before.calls) == 1 and re.search(r"\d", clause) and 0 < words <= _GOES_ON_WORDS
                and not request_form(clause) and not _ASKS.search(clause) and not asks_deleting(clause)
                and not _TOPIC_SHIFT.search(clause) and not _TIME_COUNT.search(clause)):
            call = before.calls[0]
            content = str(call.arguments.get("content", ""))
            joint = "，" if cjk_count(content + clause) else ", "
            found[at - 1] = Reflex("remember", _call("remember", content=content + joint + _clean(clause)))
            del clauses[at], found[at]
            continue
        at += 1
    return clauses, found


def todo_said_before(clause: str, text: str) -> Reflex | None:
    """A clause that adds one more with no list named, in a message that names the todo list: a todo."""
    found = _ONE_MORE.match(_strip_fillers(clause))
    if found is None or _A_TODO.search(clause) or not _A_TODO.search(text) or _A_REMINDER.search(text):
        return None
    return Reflex("todo", _call("add_todo", text=unquote(_clean(found.group("x") or found.group("en")))))


#: a turn to another subject within a message: what was said before it is no part of what follows
_TOPIC_SHIFT = re.compile(r"(?:^|(?<=[\s,，.。!！~～…]))(?:对了|话说|顺便说一下|顺便说下|(?:算了)?不说了|btw|by the way|anyway"
                          r"|anyways|oh and)"
                          r"(?=[\s,，:：!！~～]|$)[\s,，:：!！~～]*", _I)


#: words that open what the person is about to tell: "我跟你说 我女朋友不吃香菜"
_OPENER = re.compile(r"^(?:我跟你说|跟你说|我告诉你|告诉你|你知道吗|说真的|listen|guess what|you know what|fun fact)"
                     r"[\s,，:：!！~～]+(?=\S)", _I)


def _after_topic_shift(fact: str) -> str:
    """A fact to keep without the talk before a turn to it ("今天好累啊 上了一整天班 对了 我搬家了 新地址是…" → "我搬家了
    新地址是…"), nor the words that open it ("我跟你说 …"); as it is without one, or when nothing follows it."""
    opened = _OPENER.match(fact)
    if opened and len(_clean(fact[opened.end():])) >= 2:
        fact = _clean(fact[opened.end():])
    shifts = list(_TOPIC_SHIFT.finditer(fact))
    if not shifts or shifts[-1].start() == 0:
        return fact
    rest = _clean(fact[shifts[-1].end():])
    return rest if len(rest) >= 2 else fact


def unpadded(text: str) -> str:
    """`text` without the greeting or filler it opens with ("heads up, I can't eat shellfish" → "I can't eat
    shellfish")."""
    return _LEADING_FILLER.sub("", text).strip() or text


def points_back(clause: str) -> bool:
    """The clause asks to keep what was said before it, and says nothing itself ("anyway make a note of
    it", "你要记住哦"): its fact is elsewhere in the message."""
    clause = _strip_fillers(" ".join(clause.split()))
    fact = memory_fact(clause)
    return fact != clause and (not _clean(fact) or only_pronoun(_clean(fact)) or only_a_reason(fact))


#: what follows a request to keep that gives its reason, not the fact: "the wifi password is tulip99, remember that CUZ I
#: LOSE IT all the time", "车位是A-33，记一下不然我又找不到" (round 40's spent set kept the reason)
_REASON = re.compile(r"(?:down\s+)?(?:cuz|coz|'cause|because(?!\s+of\b)|b/c|bc(?=\s+(?:i|u|you|it|that|my|we|then)\b)"
                     r"|so (?:that|i|u)\b|or else|otherwise|in case i)\b"
                     r"|免得|省得|省的|不然|要不然|要不(?!要)|否则|以免|以防|别让我(?:又|再|忘)|好让我", _I)
#: ...unless a fact follows it after a break: "remember cuz i keep forgetting: my locker is 221", "remember in case i'm
#: late, my spare key is under the mat" (the review of 2026-12-06)
_THEN_A_FACT = re.compile(r"[:：,，;；]\s*\S")


def without_reason(text: str) -> str:
    """A request without the reason that follows it ("老板刚说月底前要交PPT，加到我的todo里吧，不然我肯定忘", "…can u stick it
    on my to-do list so i actually do it": round 50's spent set, where the reason's words of forgetting left the router
    torn); `text` as it was when nothing comes before a reason, or a request follows it."""
    for found in _REASON.finditer(text):
        at = found.start()
        if at == 0 or not (text[at - 1].isspace() or text[at - 1] in ",，;；"):
            continue
        head = text[:at].rstrip(" ,，;；")
        if len(head) >= 4 and not any(request_form(part) for part in clauses(text[at:])):
            return head
    return text


#: words that say not to do it: "别提醒我了", "don't add it"
_NOT_DOING = re.compile(r"别|不要|不用|甭|\b(?:don'?t|do not|stop|no need|never)\b", _I)


def asks_plainly(text: str) -> bool:
    """A clause of `text` is worded as a request, and none says not to do it nor asks whether to ("别提醒我了", "should I
    set a reminder": the review of 2026-12-08 found them routed once their reason was cut off)."""
    parts = clauses(text)
    return any(request_form(part) for part in parts) and not _NOT_DOING.search(text) and not opens_a_question(text)


def only_a_reason(fact: str) -> bool:
    """What is left of a request to keep after its asking words is only why it is asked ("cuz i lose it all the time",
    "别让我又找半天"): the fact was said before it."""
    rest = _clean(fact)
    return _REASON.match(rest) is not None and not _THEN_A_FACT.search(rest)


def names_by_pronoun(clause: str) -> bool:
    """The clause asks to keep something of someone named before it, by a pronoun ("remember her name pls")."""
    rest = _clean(_strip_fillers(_clean(memory_fact(_strip_fillers(" ".join(clause.split()))))))
    return _OWNED_BY_PRONOUN.fullmatch(rest) is not None


#: something of someone named before, by a pronoun: "remember HER NAME pls" after "shes called Pickle!!" (round 34's
#: spent set), "记住它的名字"
_OWNED_BY_PRONOUN = re.compile(r"(?:her|his|their|its)\s+(?:full\s+|real\s+|new\s+)?(?:name|names|birthday|bday|number|phone number"
                               r"|address|email|age)|(?:她|他|它)们?的(?:全名|名字|大名|生日|电话|号码|电话号码|地址|邮箱|年龄)", _I)


#: words that point at something said before: "keep THAT in your noggin", "把这个记牢"
_POINTER = re.compile(r"\b(?:that|this|it|those|these|them)\b|这个|那个|这些|那些|这事|这件事|这点|这条", _I)


#: a clause about remembering that does not ask: negated, past telling, a question, a worry ("我跟你说过这个吧",
#: "don't bother remembering that", "这个没必要记", "I keep forgetting it")
_NOT_ASKING_TO_KEEP = re.compile(
    r"\b(?:don'?t|do not|not|no need|never|no point|told|said|knew|know|forget(?:ting)?|can'?t|won'?t|bother)\b"
    r"|没必要|不用|不要|别|无所谓|不必|记不住|记不记|说过|讲过|知道|吗|吧|[?？]", _I)


def points_at_one(clause: str) -> bool:
    """The clause points at one of a list without a number: "把取药那个删了", "delete the dentist one"."""
    return _POINTS_AT_ONE.search(clause) is not None


def points_at(clause: str) -> bool:
    """The clause points at something said before, with no number of its own, and asks ("keep that in your
    noggin", "lock that in", "把这个刻进你的小脑瓜"): of a clause the router reads as a request to remember, its fact
    is elsewhere in the message, in whatever words it asks (points_back knows only the usual ones)."""
    return (_POINTER.search(clause) is not None and not re.search(r"[0-9]", clause)
            and not _NOT_ASKING_TO_KEEP.search(clause))


def looks_like_request(clause: str) -> bool:
    """The clause asks for something in its form: "add …", "给我定个闹钟", "帮我记一下…"."""
    return _LOOKS_LIKE_REQUEST.match(_strip_fillers(" ".join(clause.split()))) is not None


#: words that ask for something done, wherever they stand in a Chinese clause ("帮我在todo里加个…")
_ASKING_ZH = re.compile(r"帮我|帮忙|麻烦你|请你")


#: a remark that takes back or corrects what was said before it: not an aside ("记住我喜欢猫，不对，提醒我…")
_CORRECTS = re.compile(r"不对|不是|错了|等等|等一下|算了|\b(?:wait|no|nope|nah|actually|scratch that|nvm|never ?mind|jk|kidding)\b",
                       re.IGNORECASE)


#: a clause that says what something is or tells news of the person: content, not an aside ("it's bluefish", "我怀孕了")
_STATES = re.compile(r"\b(?:it'?s|it is|that'?s|is|are|was|were|i'?m|i am|im|i'?ve|named|called)\b|是|叫|我", re.IGNORECASE)


#: how a statement starts, not a request: "need to mail her a card", "she's moving", "因为她下周生日"
_STATEMENT_START = re.compile(r"(?:i|i'm|im|i've|i'll|i'd|need|needs|gotta|have to|it|it's|its|she|she's|he|he's|we|we're"
                              r"|they|they're|that|that's|this|because|bc|since|cuz|cause|so|my|her|his|our|their)\b"
                              r"|我|因为|所以|她|他|它", _I)


def aside(clause: str, most: int = 4) -> bool:
    """A short remark beside requests that asks nothing: "i quit", "好开心", "company moved buildings" (no number, no
    question, no request in its form, no word of deleting); beside two requests or more, up to `most` = 6 words: "need
    to mail her a card" (round 32's spent set)."""
    words = len(re.findall(r"[A-Za-z']+", clause)) + cjk_count(clause) / 2
    if words > 4 and not _STATEMENT_START.match(clause.strip()):
        return False  # ("also pick up the dry cleaning" between two requests is a third one)
    return (0 < words <= most and not re.search(r"\d", clause) and not request_form(clause) and not _CORRECTS.search(clause)
            and not _STATES.search(clause)
            and not _ASKS.search(clause) and not asks_deleting(clause) and not _QUESTION_END.search(clause))


def request_form(clause: str) -> bool:
    """The clause is worded as a request ("can you remember that…", "帮我在todo里加个…"), not as news
    ("we're flying to Osaka on jan 28") or a question about something ("do you think I set too many
    reminders?")."""
    return looks_like_request(clause) or _ASKING_ZH.search(clause) is not None


def clauses(text: str) -> list[str]:
    """The clauses of a message, split where a second request may start."""
    return [c.strip() for c in _split(" ".join(text.split()))]


def asks_beside(text: str) -> bool:
    """Whether a message of a few clauses asks a question in one of them and a request in another ("when is Jonah's
    birthday again? and put 'get Jonah a gift' on my todos"): several requests, if the question is one."""
    parts = clauses(text)
    asked = _ASKED_BEFORE_MORE.search(text) is not None or any(_QUESTION_END.search(part) for part in parts[:-1])
    return 1 < len(parts) <= MOST_CLAUSES and asked and any(request_form(part) for part in parts)


#: a question mark with more words after it
_ASKED_BEFORE_MORE = re.compile(r"[?？]+\s*(?=\S)")


def one_request(text: str) -> bool:
    """Whether a message may be read as one request: it neither drops the
    subject ("forget it, …") nor strings a second request on ("…, and then …")."""
    return dismissal(text) is None and _SECOND_REQUEST.search(" ".join(text.split())) is None


def slots(intent: str, tool: str, source: str, text: str, now: dt.datetime, zone: dt.tzinfo) -> Reflex | None:
    """The call for an intent the router picked (pet.agent.intents), its
    arguments filled in code from `source`: "none", "arithmetic" (the
    calculator's reader), "when" (the time parser, through the reminder
    code) or "fact" (a request to remember, without its wording). None when
    the words do not give them: the model then decides."""
    text = _strip_fillers(" ".join(text.split()))
    if source == "none":
        return Reflex(intent, _call(tool))
    if source == "arithmetic" and tool == "calculate":
        reading = arithmetic.read(text)
        if reading is None:
            # the sum inside more words: "帮我calculate一下 1500 乘 1.035 的平方"
            expression = arithmetic.expression_in(text)
            return Reflex(intent, _call(tool, expression=expression)) if expression else None
        return Reflex(intent, reply=reading.question) if reading.question else Reflex(
            intent, _call(tool, expression=reading.expression))
    if source == "when" and tool == "set_reminder":
        zh = detect_language(text) == "zh"
        return _remind(text, text if zh else _REMIND_ANYWHERE_EN.sub(" ", text), now, zone, zh)
    if source == "fact":
        fact = kept_fact(text)
        # only a message that asks to keep something: a bare fact is noted, not "remembered"
        return Reflex(intent, _call(tool, content=fact)) if fact is not None else None
    return None


#: what a "remember …" left over may be instead of a fact: a thing to do ("remember to call mom"), how
#: or when something was ("remember how we met")
_TO_DO = re.compile(r"^(?:to|how|when|what|where|why|if|whether)\b|^(?:要|去)(?!年)", _I)
#: …or the rest of a sentence about remembering, cut where the verb was: "I can't", "do you", "我会", "我得"
_CUT_SHORT = re.compile(
    r"\b(?:i|you|we|he|she|they|can|can't|cant|cannot|could|couldn't|do|don't|does|did|will|won't|would|"
    r"should|shall|may|might|must|i'll|i'd|you'll|always|never|ever|just|to|that|it|this|(?<!\bto )me|so|sure|ok|okay)$"
    r"|(?:我|你|他|她|我们|会|得|要|能|可以|都|也|就|一定|把\S{0,6}|在)$",
    _I,
)
#: the fewest words (Chinese characters count half a word each) a kept fact has
_FACT_WORDS = 2


def kept_fact(text: str) -> str | None:
    """The fact a message asks the pet to keep, without the asking ("pls remember im lactose
    intolerant", "我工号是A-30918，记着点"); None when it asks for none: a bare fact, a question,
    a thing to do ("remember to call mom"), or words about remembering ("I can't remember",
    "我会记一下，到时候再说": what is left is no fact)."""
    text = " ".join(text.split())
    fact = _clean(memory_fact(text))
    if len(fact) < 2 or fact == _clean(text) or _TO_DO.match(fact) or _QUESTION_END.search(fact) or only_a_reason(fact):
        return None
    if _OWNED_BY_PRONOUN.fullmatch(_clean(_strip_fillers(fact))):
        return None  # "remember her name pls": what was said before it is the fact
    if _CUT_SHORT.search(fact) or len(re.findall(r"[A-Za-z0-9']+", fact)) + cjk_count(fact) / 2 < _FACT_WORDS:
        return None
    if len(parts := clauses(fact)) > 1 and any(request_form(part) for part in parts):
        return None  # a request among it is no fact: "把我之前那家公司忘了吧，我跳槽了，现在在星河科技上班，记一下"
    return without_chat_words(_after_topic_shift(fact))

"""The agent loop: one turn of conversation as a stream of events."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import inspect
import json
import logging
import re
import threading
import time
import unicodedata
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Generator, Iterator, Protocol, Sequence

from pet.agent import arithmetic, capture, confirm, figures, intents, reflexes, replycheck, spelling
from pet.agent.context import (
    HistorySource,
    HistorySummarizer,
    MemorySource,
    build_context,
    fold_history,
)
from pet.agent.guards import (
    RepeatGuard,
    claimed_actions,
    clean_text,
    correction,
    fallback_line,
    first_unsupported_claim,
    honest_notice,
    wrap_observation,
)
from pet.agent.trace import TraceSink, TurnTrace, step_finished, step_paused, step_started
from pet.brain import nocopy
from pet.brain.base import ChatModel, Preempted, complete_within, should_yield, yielding
from pet.brain.parse import extract_tool_calls, looks_like_tool_call_start
from pet.errors import BrainError, BrainUnavailable
from pet.events import (
    Completion,
    ConversationStarted,
    Event,
    MemoryRecord,
    Message,
    Notice,
    Reply,
    TextDelta,
    ToolCall,
    ToolFinished,
    ToolResult,
    ToolStarted,
    new_call_id,
)
from pet.logs import fields as log_fields
from pet.logs import in_context
from pet.logs import set_fields as set_log_fields
from pet.memory import concepts
from pet.memory.recall import about_the_person, best_matches, read_id, stem
from pet.memory.recall import words as recall_words
from pet.persona import replies
from pet.persona.greeting import first_of_day, greeting
from pet.persona.growth import days_together
from pet.persona.messages import say
from pet.persona.model import Persona
from pet.text import NOT_AFTER_TITLE, cjk_count, detect_language, simplified_chars
from pet.tools.facts import (
    asks_deleting,
    declines_keeping,
    no_longer_kept,
    retracted,
    told_as_asked,
    without_chat_words,
)
from pet.tools.registry import ArgumentProblem, ToolContext, ToolRegistry, validate_arguments
from pet.tools.reminders import ReminderStoreLike
from pet.tools.when import TimeProblem, parse_when, spans

log = logging.getLogger(__name__)

#: how many of the newest memories the day's greeting may pick one from
GREETING_MEMORIES = 200
#: intents that look something up for the person, which a message must ask for (reflexes.asks_something)
_LOOKING_UP = frozenset({"list_todos", "list_reminders", "recall"})
#: a kept fact that states one thing: a statement ("the spare key is under the blue flowerpot", "my dentist is dr.
#: Okonkwo", "我的车停在 B2 层"), not a question's words ("which day my dentist appointment is", "the name of that
#: restaurant", "stuff between chats", "me when i'm gone") nor two sentences ("I can't eat shellfish. yeah yeah, …")
_STATES_ONE_THING = re.compile(
    r"^(?!(?:which|whose|what|who|when|where|why|how|if|whether|me|you|this|that|the name|stuff|things?)\b)"
    r"(?!.*(?<!\bdr)(?<!\bmr)(?<!\bms)(?<!\bst)(?<!\bmrs)[.!?。！？]+\s*\S)"
    r".*(?:\b(?:is|are|was|were|am|has|have|had|lives?|works?)\b|'s\b|'m\b|'re\b|\d|是|在|叫|有)", re.IGNORECASE)
#: intents that change what the pet keeps
_DOING = frozenset({"remember", "forget", "remind", "cancel_reminder", "add_todo"})
#: words of a question for something said before ("what was that restaurant called?", "密码是多少来着", "what's the
#: gate code?"): recall's, memory or not
_ASKS_BACK = re.compile(r"来着|上次|之前|以前|\bagain\b|\bthat\b|\bwhat was\b"
                        r"|\bwhat(?:'s| is) (?:the|my|our) (?:\w+ )?(?:code|password|pin|number|name|address)\b"
                        r"|密码|号码|地址", re.IGNORECASE)
#: a question in what is left of a message beside its one request
_ASKS_TOO = re.compile(r"[?？]|[吗呢](?=[\s，,。！!~～]*$)|问(?:下|一下|你)|\b(?:how's|how is|what do you|do you|are you)\b",
                       re.IGNORECASE)
#: how near in meaning a memory must be to a question that does not speak of the person for it to look the
#: memory up ("房东叫啥来着" and "landlord is Mr. Pereira": 0.35; "what's the capital of Canada?" and "Has a corgi
#: named Turnip": 0.07)
NEAR_MEMORY = 0.25
#: tools that act on what the person's words ask, which words someone else said ask nothing of
_ON_WORDS = ("remember", "forget", "recall", "set_reminder", "cancel_reminder", "add_todo")
#: the person says the message asks for nothing: "don't save anything, i'm just venting: …", "我只是吐槽一下"
_JUST_VENTING = re.compile(r"\b(?:i'?m |im )?just (?:venting|ranting)\b|\bnot asking for anything\b"
                           r"|只是(?:想)?(?:吐槽|发泄|说说|随便说说|抱怨)", re.IGNORECASE)
#: talk of the past that names remembering or reminding and asks for neither: "remember when you told me crayfish can
#: regrow their claws?", "remind me why i thought adopting two kittens at once was a good idea"
_REMINISCING = re.compile(r"^\W*(?:(?:do )?(?:you|u) )?remember when (?:you|we|i|u)\b|^\W*remind me why\b", re.IGNORECASE)
#: what the log says a reply asked for without tools failed by, when the model called one again
STRAY_CALL = "a call to a tool not offered"
#: ...and how close for a question for a thing of the person's that shares no word with any memory: "which
#: night do i play basketball?" and "每周四晚上打篮球" (0.61), not "which gym should i join?" and "I go to the gym
#: three times a week" (0.47; advice, which _ADVICE keeps off this path too, though the router may still read
#: it as recall)
CLOSE_MEMORY = 0.5
#: other words asking to keep something ("write it down, concert this saturday!!", "别忘了…", "备忘")
_WRITE_IT_DOWN = re.compile(r"\b(?:write|mark|jot|put|note|take)\s+(?:it|that|this)\s+down\b|\blog\s+(?:it|this|that)\b"
                            r"|\bdon'?t (?:let me )?forget\b|别忘|记得|备忘|记一下|记下|记着|存一下", re.IGNORECASE)
#: the least cosine to a topic's nearest example for its line to stand in for a reply the model could not give
#: (pet.persona.replies.FLOOR is the bar for answering before the model): on the spent chat set of round 34, the
#: messages whose replies the guard refused twice were at 0.35-0.67; below 0.5 the topics were wrong
#: ("今天同事把咖啡倒进了打印机的纸盒里" is "angry" at 0.35, "my grandma's in hospital…" a trip at 0.47)
LOOSE_TOPIC = 0.5
#: ...and by how much it must beat every other topic's (none of the wrong ones a review found led by more)
LOOSE_LEAD = 0.03
#: the least cosine between a message, or a clause of it, that asks for something and an example that asks too for
#: that example's topic to give it, however near another topic is: "给我讲个笑话吧" is 0.89 near a joke and 0.88 near a
#: pun, so it missed the lead and went to the model, as did 35 messages of the spent chat sets (all asking for a joke)
ASKED_FLOOR = 0.8
#: the tools that keep the person's words: a thing to keep, set or add, or to let go
_KEEPS_WORDS = frozenset({"remember", "set_reminder", "add_todo", "forget"})
#: words of keeping: "what's my new wifi password? lobster2027, save it" keeps a new value (the review)
_KEEP_WORDS = re.compile(r"\b(?:remember|save|keep|note|store|write (?:it|that) down|jot)\b|记|存", re.IGNORECASE)
#: a message that opens by asking to delete: "scrub the thing about me hating olives", "pls wipe my old address"
_OPENS_DELETING = re.compile(r"^\W*(?:(?:pls|please|can you|could you|u can|you can)\s+)?(?:forget|delete|remove|erase|wipe"
                             r"|scrub|scrap|bin|drop|ditch|purge|nuke|get rid of|toss|lose)\b", re.IGNORECASE)
#: a clause that deletes what the message names, pointing back: "toss it", "just bin that one", "那条清掉吧", "删了吧"
_DELETES_IT = re.compile(r"(?:^\W*|\bso\s+(?=(?:you|u)\s+can\b))(?:(?:pls|please|just|so|and|ok|okay|u can|you can)\s+)*(?:toss|bin|ditch|scrap|drop|delete|remove"
                         r"|erase|forget|wipe|scrub|nuke|trash|dump|lose|get rid of|throw (?:out|away))\s+(?:it|that|this|them)"
                         r"(?:\s+one)?(?:\s+(?:out|away|pls|please))?\W*$"
                         # (not "我把它忘了", "结果我把这个忘了": the person forgot; nor "我把那个删了": done already)
    r"|(?<!把)(?:那条|这条|那个|这个|它)(?:也)?(?:给我|帮我)?(?:清掉|删掉|删了|删除|去掉|划掉|扔掉|丢掉)(?:吧|啦|了|哈)*\W*$"
    # "忘了这个吧", "你把它忘掉吧", "这条忘了吧": with 吧 (not "我把这个忘了", "这个忘了": the person forgot)
    r"|^\W*(?:你)?(?:就)?(?:把)?(?:忘了|忘掉|忘记)(?:这个|那个|这条|那条|它)(?:吧|哈)+\W*$"
    r"|^\W*(?:你)?(?:就)?(?:把)?(?:这个|那个|这条|那条|它)(?:也)?(?:忘了|忘掉)(?:吧|哈)+\W*$",
                         re.IGNORECASE)


def _as_sentence(clause: str) -> str:
    """A clause cut from a message, with the end mark of its language when it has none."""
    clause = clause.strip()
    if not clause or clause[-1] in ".。!！?？~～…":
        return clause
    return clause + ("。" if cjk_count(clause) else ".")


def _pointing(clause: str, message: str) -> bool:
    """The clause asks to keep what was said before it: in the usual words (reflexes.points_back), or something of
    someone named before by a pronoun ("remember her name pls"), not asked as a question ("remember his name?")."""
    return reflexes.points_back(clause) or reflexes.names_by_pronoun(clause) and not (
        _ASKS_IF_REMEMBERED.search(clause) or message.rstrip().endswith(("?", "？")))


#: a message's opening part before its first colon or comma, and the rest ("lock this away for me: …")
_OPENING = re.compile(r"^\s*(?P<head>[^:：,，;；。.!！?？]{2,40}?)\s*[:：,，;；]\s*(?P<rest>\S.*)$", re.DOTALL)
#: words naming something of the person's ("my passport number, keep it: E123…" names what the figure is)
_NAMES_THEIRS = re.compile(r"\b(?:my|our|mine)\b|我的|我们的|我家|我妈|我爸", re.IGNORECASE)
#: a forget tool's line on what it forgot (pet.tools.memory): "Forgot memory #1: favorite band is Khruangbin (/undo
#: brings it back)", "已忘掉 #2：住在滨江区（/undo 可以找回）"
_FORGOT = re.compile(r"#\d+\s*[:：]\s*(?P<content>.+?)\s*[(（]/undo")
#: a clause that gives only the new value, its subject the memory forgotten: "it's hiatus kaiyote now", "现在是韩医生"
_VALUE_ONLY = re.compile(r"^\W*(?:but\s+|and\s+)?(?:now\s+)?(?:it['’]?s|its|it is|they['’]re)\s+(?:now\s+)?(?P<en>.+?)"
                         r"(?:\s+now)?(?:\s+instead)?\W*$"
                         r"|^\W*(?:现在|新的)(?:是|叫|换成了?|改成了?)(?P<zh>.+?)了?\W*$", re.IGNORECASE)
#: a clause asking to keep the new one: "记新的", "remember the new one"
_KEEP_NEW = re.compile(r"记(?:住|下|上)?新的|\b(?:remember|save|keep|note)\s+(?:the\s+)?new\s+(?:one|value)\b", re.IGNORECASE)
#: a word that says what is so now
_NOW = re.compile(r"\bnow\b|现在|如今|目前", re.IGNORECASE)
#: ...which says only that the old one is no more: "it's over now", "it's changed now", "it's not him anymore" (the
#: review of 2026-12-06)
_NOT_A_VALUE = re.compile(r"(?:not|no|over|done|changed|different|gone|old|outdated|wrong|a mess|messed|broken|cancell?ed"
                          r"|finished|dead|expired|invalid|history|irrelevant|moot|new|another|something else|someone else"
                          r"|somewhere else)\b|别的|其他|新的|不一样|不是|没了|变了|过期|作废", re.IGNORECASE)
#: the verb before a memory's value: "favorite band is Khruangbin", "牙医是周医生"
_BEFORE_VALUE = re.compile(r"^(?P<head>.*?\b(?:is|are)\s+|.*?(?:是|叫))\S", re.IGNORECASE)


def _new_value(message: str, calls: Sequence[ToolCall], results: Sequence[ToolResult]) -> ToolCall | None:
    """A memory forgotten in code, when the message also says what is true now and asks nothing else ("forget my old
    address on Elm Street, I live at 14 Birch Lane now", "我搬到西湖区了，把滨江那条删了，记新的"; round 35's spent
    tools set): a remember call of the fact said in another clause, or of the new value in the old memory's words
    ("forget that my fav band is khruangbin, it's hiatus kaiyote now" → "favorite band is hiatus kaiyote"). None else."""
    if not calls or any(call.name != "forget" for call in calls) or not all(result.ok for result in results):
        return None
    reader = capture.reader()
    forgotten = [m.group("content") for m in (_FORGOT.search(r.content) for r in results) if m]
    if reader is None or len(forgotten) != 1:
        return None
    named = [str(call.arguments.get("what", "")) for call in calls]
    rest = [part for part in reflexes.clauses(message)
            if not asks_deleting(part) and not any(what and what in part for what in named)]
    head = _BEFORE_VALUE.match(forgotten[0])
    # a fact said beside is the new value when it says it is now so, or the message asks to keep the new one
    # ("记新的"); not the reason for deleting ("我戒咖啡了 之前说爱喝美式那条清掉吧", "我那只仓鼠送人了，它的名字你可以忘了")
    keeps_new = any(reflexes.points_back(part) or reflexes.points_at(part) or _KEEP_NEW.search(part) for part in rest)
    for part in rest:
        value = _VALUE_ONLY.match(part)
        said = value and (value.group("en") or value.group("zh"))
        if said and head and not _NOT_A_VALUE.match(said):
            return ToolCall("remember", {"content": head.group("head") + said})
        facts = [fact for fact, _, kind in reader.facts(part) if kind not in capture.PASSING]
        if facts and not value and (keeps_new or _NOW.search(part)):
            return ToolCall("remember", {"content": without_chat_words(facts[0])})
    return None


def _asking(text: str) -> str:
    """The sentences of `text` that end in a question mark, when it has others too; else all of it."""
    said = capture.sentences(text)
    asking = [sentence for sentence in said if sentence.rstrip().endswith(("?", "？"))]
    return " ".join(asking) if asking and len(asking) < len(said) else text


def _keeps_what_came_before(text: str) -> bool:
    """The message ends by asking to keep what it said before, and asks nothing ("my dog is called Rex. remember
    his name pls", "我家狗叫旺财，记住它的名字哦")."""
    parts = reflexes.clauses(text)
    # (not after a question for what was kept: "what am i training for, remember?", round 35's spent chat set)
    return len(parts) > 1 and _pointing(parts[-1], text) and not _ASKS_IF_REMEMBERED.search(parts[-1]) and not (
        text.rstrip().endswith(("?", "？")) and _QUESTION_WORD.search(" ".join(parts[:-1])))


#: a question whether the pet remembers, not a request to: "can you remember its name", "你还记得它的名字吗"
#: a question whether the pet remembers something of the person's: "remember what i'm scared of?", "do you remember
#: where i parked?"
_REMEMBER_WHAT = re.compile(r"^\W*(?:(?:hey|so|and|ok|wait)\W+)*(?:(?:do|did|can|d['’]?)\s*(?:you|u|ya)\s+(?:still\s+)?)?"
                            r"(?:remember|recall)\s+(?:what|who|where|when|which|how)\b.*[?？]\W*$", re.IGNORECASE)
#: a question word: "what am i training for", "我在哪上班"
_QUESTION_WORD = re.compile(r"^\W*(?:what|where|who|when|which|how)\b|什么|啥|哪|谁|几|多少", re.IGNORECASE)
_ASKS_IF_REMEMBERED = re.compile(r"^\W*(?:can|could|do|did|will|would|d'?you)\s+(?:you|u|ya)\b|(?:吗|么|不|没)\W*$|还记得|记得吗",
                                 re.IGNORECASE)


def _named_for_dropping(text: str) -> str:
    """What a message cancels when one clause drops a reminder it points at ("drop that reminder", "那个提醒删了吧"): the
    words said before it ("nvm about the dentist one, they moved it, drop that reminder" → the dentist one); "" when no
    clause does, or nothing is said before it."""
    parts = reflexes.clauses(text)
    for i, part in enumerate(parts):
        if _DROPS_THAT_REMINDER.search(part):
            return reflexes.request_words(" ".join(parts[:i]))
    return ""


def _named_for_deleting(text: str) -> str:
    """What a message deletes when one clause deletes what it names, pointing back (_DELETES_IT): the words before
    the deleting in its clause ("之前说爱喝美式那条清掉吧"), else the clause before it ("that office address u have for
    me, toss it, …"); "" when no clause does."""
    parts = reflexes.clauses(text)
    for i, part in enumerate(parts):
        found = _DELETES_IT.search(part)
        if found:
            own = part[:found.start()].strip()
            return reflexes.request_words(own or (parts[i - 1] if i else ""))
    return ""


#: a clause that drops a reminder it points at: "drop that reminder", "cancel that one", "那个提醒删了吧"
_DROPS_THAT_REMINDER = re.compile(
    r"^\W*(?:(?:pls|please|just|so|and|ok|okay|u can|you can)\s+)*(?:drop|delete|remove|cancel|kill|scrap|ditch|bin|clear"
    r"|nuke|get rid of)\s+(?:that|this|the|it)(?:\s+one)?\s*(?:reminder|alarm)\W*$"
    r"|^\W*(?:那个|这个|那条|这条)(?:提醒|闹钟)(?:也)?(?:给我|帮我)?(?:删了|删掉|删除|取消|取消掉|不要了)(?:吧|啦|了|哈)*\W*$",
    re.IGNORECASE)
#: the person points at what they told ("what are some things i told you i like?")
#: words of looking something up
_CHECKS = re.compile(r"(?<![a-z])(?:check|look up|look at|find|pull up|read)(?![a-z])|查|看看|看一下|看下|找", re.IGNORECASE)
#: a question only whether something was told, which points at what the words before it name: "…the form wants his
#: birthday... did I ever tell you?" (round 47's spent set: noted as a plan; used as a person would with nothing kept,
#: the model made up "It was my birthday this morning…": what the pet does not hold, it says so)
_WHETHER_TOLD = re.compile(r"\W*(?:(?:so|and|but|hmm|um)\s+)?(?:did i (?:ever )?(?:tell|mention)(?: (?:it|that|this))?(?: to)?"
                           r"|have i (?:ever )?(?:told|mentioned)(?: (?:it|that|this))?(?: to)?) (?:you|u)(?: that| before| yet)?\W*"
                           r"|\W*我(?:是不是|有没有)(?:跟你|和你|给你)?(?:说过|提过)(?:吗|啊|来着)?\W*", re.IGNORECASE)
_TOLD = re.compile(r"\b(?:i|i've|i have) (?:told|tell) (?:you|u)\b|\bi (?:said|mentioned)\b|我(?:跟你)?说过|告诉过你"
                   r"|我(?:之前|以前|上次|那天)(?:跟你|和你)?(?:说|提)的", re.IGNORECASE)
#: an argument of figures only: a date, an hour ("2033-07-14 10:15"), not an id ("#2")
#: the words of a reminder cancel_reminder cancelled, from its result ("Cancelled reminder #3: do yoga", "已取消提醒 #3：开会")
_CANCELLED_WORDS = re.compile(r"#\d+\s*[:：]\s*(?P<text>.+)$", re.S)
_SENTENCE_END = re.compile(rf"[。!！?？]|\.{NOT_AFTER_TITLE}(?=\s|$)")
_ONLY_FIGURES = re.compile(r"\d[\d\s:./,-]*")  # (or a run of them: "10.25.2319 - 17:36-48, 2023-02-17-1", tiny's todo)
#: animals people keep, and the word pet
_OTHER_PETS = re.compile(r"\b(?:my|our|a|an|have|has|got|adopted)\s+(?:\w+\s+){0,2}(?:cats?|kittens?|dogs?|pupp(?:y|ies)"
                         r"|hamsters?|rabbits?|bunn(?:y|ies)|parrots?|budgies?|goldfish|turtles?|tortoises?|snakes?|lizards?"
                         r"|geckos?|guinea pigs?|ferrets?|shrimps?|pets?)\b"
                         r"|(?:养|我家|我们家)[^，。,.]{0,6}(?:猫|狗|仓鼠|兔|鹦鹉|鸟|鱼|龟|蛇|蜥蜴|豚鼠|虾|宠物)", re.IGNORECASE)
#: where a clause ends in writing
_CLAUSE_MARK = re.compile(rf"[,，。!！?？;；…~～]|\.{NOT_AFTER_TITLE}(?=\s|$)")
#: a question that asks for advice or a choice, not for what the person told
_ADVICE = re.compile(r"\b(?:should|shall) (?:i|we)\b|\b(?:recommend|suggest|any good|is it worth)\b"
                     r"|\bwhat are some\b|\bany (?:good )?ideas\b|\bideas for\b"
                     r"|\bwhat to (?:get|buy|give|wear|cook|eat|say)\b"
                     # (what to give, buy or wear: "我男朋友下周一 birthday，不知道送啥", round 45's spent set got "没有找到对得上的记忆")
                     r"|我该|该不该|比较好|推荐|建议|好不好|怎么办|不知道.{0,4}(?:送|买|穿|吃|选)|(?:送|买|穿|吃)(?:什么|啥)好", re.IGNORECASE)
#: a question or a request anywhere in a message: a server model keeps its tools for it (see "likely chat")
_ASKS_ANYTHING = re.compile(
    r"[?？]|(?:^|[.!,;。！，；…]\s*)(?:(?:ugh|so|ok|okay|and|hey|btw|also|wait)\s+)*(?:what|whats|what's|wat|which|when|where|who"
    r"|how|is there|are there|do i|did i|have i|can you|can u|could you|would you)\b|吗|什么|啥|几[点号个天时]|多少|哪",
    re.IGNORECASE)
#: a name asked of the pet, in so many words: "do you have a name or …" (not "my new kitten doesn't have a name
#: yet", nor "who are you rooting for")
_TO_PET = re.compile(r"\b(?:you|your|u|ur)\b.*\b(?:name|called|call|address)\b|\b(?:name|call)\b.*\b(?:you|u|your|ur)\b"
                     r"|\b(?:how (?:do|would|will|should|did) (?:you|u)|can (?:you|u)|could (?:you|u)) introduce (?:yourself|urself)\b"
                     r"|(?:你|您).*(?:名字|叫|称呼|名牌|铭牌)|(?:名字|称呼|名牌|铭牌).*(?:你|您)"
                     r"|(?:你|您)(?:会|要|打算|平时)?(?:跟[^，,。？?]{1,8})?怎么(?:做)?自我介绍", re.IGNORECASE)
#: tools whose result is an answer that may stand in for a reply that fails its checks
ANSWERING = frozenset({"calculate", "get_current_time"})
#: the pet's last replies, and the person's messages, a new reply must not say again (replycheck.REPEAT): as many as
#: the model may copy from (used as a person would, 2026-12-07: a note's confirmation five replies back came again,
#: garbled, as the reply to "just made dumplings from scratch, they look terrible lol"; three were checked)
SAID_CHECKED = 8
#: how long the answer to "what time should I remind you?" is waited for
NEEDS_TIME_FOR = dt.timedelta(minutes=30)

_MARKER_PREFIXES = ("```", "<tool_call>", "Action:")


#: words of calling off (a reminder): "取消", "撤掉", "cancel"
_CANCELS = re.compile(r"取消|撤(?:掉|了|销)|\bcancel|\bcall (?:it )?off\b", re.IGNORECASE)
#: a question asked for effect, which no memory answers: "who even eats peanuts anymore?", "why am I allergic to
#: everything?", "难道我又忘了？" (not "do you even remember my sister's name?", "why am I allergic to peanuts again?")
_RHETORICAL = re.compile(r"^\s*(?:but\s+|and\s+)?why\b(?!.*\bagain\b)|^\s*who\s+even\b|为什么|为啥|凭什么|难道|怎么可能",
                         re.IGNORECASE)
#: ...not asked: kept ("看牙医那个别取消", "先不要取消") or asked about ("取消了吗？"); not what someone else did ("医生说取消了，
#: 把看牙医的提醒删掉吧" asks it) nor a polite question ("能帮我取消看牙医那个提醒吗？")
_NOT_CANCELLING = re.compile(r"(?:别|不用|不要|先不要?)(?:再)?(?:取消|撤)|(?:取消|撤掉?)了(?:吗|没有?)[?？]?$"
                             r"|\b(?:don'?t|do not|never)\s+cancel\b", re.IGNORECASE)
#: the persona's topics of sad news (a death, a setback): their lines answer a message that tells one in so many
#: words (replycheck.sad_kind; the model said "I'm glad you're feeling real!" to a death), never by meaning alone
_SAD_TOPICS = frozenset({"loss", "setback"})
#: a word that says something did not happen: "my coworker got promoted and i didn't"
_DENIES = re.compile(r"\b(?:(?:is|are|was|were|do|does|did|has|have|had|wo|ca|could|would)n['’]?t|not|never|no)\b|没|不",
                     re.IGNORECASE)
#: the persona's topic of someone else's good news: only for news that names who it is about
FOR_SOMEONE_TOPIC = "happy_for_someone"
#: the persona's topic of the person's good news: its lines answer a message that tells one in so many words
#: (replycheck.good_news)
GOOD_NEWS_TOPIC = "good_news"
#: a thing done at last, however dreaded: "finally finished the project I've been dreading for weeks" is good news
_AT_LAST = re.compile(r"\b(?:finally|at last)\b|终于", re.IGNORECASE)
#: a message that speaks to the pet ("do your claws hurt when you pinch stuff?")
_TO_THE_PET = re.compile(r"\b(?:you|your|yours|u|ur)\b|你|您", re.IGNORECASE)
#: the persona's topics that may answer a message of sad news they are nearest (a low mood, an illness, worry, anger);
#: no other's line does, unless the message speaks to the pet ("我外公今天走了" is no time for a joke)
_LOW_TOPICS = frozenset({"sad", "sick", "lonely", "anxious", "stressed", "tired", "angry"})


def _examples(topic: replies.Replies) -> list[str]:
    """A reply topic's examples, every language's."""
    return [example for examples in topic.when.values() for example in examples]


class ConversationWriter(HistorySource, Protocol):
    def append(self, conversation_id: int, message: Message, status: str = "ok",
               at: dt.datetime | None = None) -> int: ...
    def create(self, pet_id: int, title: str = "") -> int: ...
    def last_said(self, pet_id: int, before_message_id: int | None = None) -> dt.datetime | None: ...


@dataclass(frozen=True)
class AgentConfig:
    max_model_calls: int = 8
    max_message_chars: int = 16_000
    history_messages: int = 20
    recall_limit: int = 12
    #: estimated tokens of pinned and recalled memories in the prompt
    memory_tokens: int = 600
    reflexes: bool = True
    #: how long a reflex's plain result waits for the model's wording in
    #: character; a later wording is dropped and stopped; 0: no wording (the
    #: embedded brain: on 2 cores its wording was always late, and its prompt,
    #: without the tools, pushed the conversation's out of llama.cpp's cache)
    wording_seconds: float = 1.5
    #: the first message of a local day gets a greeting first
    greeting: bool = True
    #: facts the person states about themselves are noted without "remember" (pet.agent.capture)
    notes: bool = True
    #: small talk near one of the persona's `[[replies]]` topics is answered with its own lines,
    #: not the model's (pet.persona.replies): on for a small model, which is poor at it
    canned: bool = False
    #: a reply in prose ends after this many sentences (0: no limit), or after
    #: the first to end past `reply_letters` letters (a Chinese character counts
    #: three): a pet talks briefly, and a small model otherwise writes essays
    reply_sentences: int = 4
    reply_letters: int = 280
    #: every side-effect call the model makes waits for the person's /yes
    #: (confirm_tools "always", or "lan" on the network); with it off, calls
    #: made while a tool's output is in view still wait (pet.agent.confirm)
    confirm_side_effects: bool = False


@dataclass(frozen=True)
class PetIdentity:
    id: int
    adopted_on: dt.date


def _asked(part: str, text: str) -> str:
    """A clause of `text` with the question mark that ended it there ("when's Arlo's birthday?" of "when's
    Arlo's birthday? also add …"): the router hears a question in it."""
    at = text.find(part)
    after = text[at + len(part):].lstrip() if at >= 0 else ""
    return part + after[0] if after[:1] in ("?", "？") and not part.endswith(("?", "？")) else part


@dataclass
class _Turn:
    """What one turn carries from step to step."""

    conversation_id: int
    language: str
    messages: list[Message]
    tool_context: ToolContext
    trace: TurnTrace
    #: the actions (`Tool.claim`) that calls which succeeded made true
    done: set[str] = field(default_factory=set)
    #: said before the answer (the day's greeting), part of the stored reply
    prefix: str = ""
    #: the question asking leave for calls that wait for the person's /yes;
    #: set, it ends the turn
    asking: str = ""
    #: what succeeding tool calls of this turn returned (the figures a reply may state)
    results: list[str] = field(default_factory=list)
    #: what the calculator and the clock answered this turn: a reply that fails its checks gives way to it
    answers: list[str] = field(default_factory=list)
    #: the figure the message asks for (a sum, the time), checked in the reply
    asked: figures.Asked | None = None
    #: the router heard a sum the calculator's reader cannot read (figures.Asked.unread)
    unread_sum: bool = False
    #: the contents of the memories recalled into the prompt (a reply must not recite them unasked)
    memories: tuple[str, ...] = ()

    def figure_check(self) -> figures.Check | None:
        if self.asked is None:
            return None
        return figures.check(self.asked, self.tool_context.message, self.results)

    def hold_at(self, text: str) -> int | None:
        """Where the stream stops: a claim of an action not done, or a figure no tool gave."""
        check = self.figure_check()
        holds = [first_unsupported_claim(text, self.done), check.first_unsupported(text) if check else None]
        return min((at for at in holds if at is not None), default=None)


def _after_shown(shown: str) -> str:
    """What goes between the start of a reply the person already saw and the retry that follows it: a broken-off
    start stays visibly broken off ("Noted! I sav… ok"), a whole sentence is followed by a space (none after Chinese
    marks). Sent as it is stored, so the chat shows what a reload shows (it showed "Noted! I savok", stored as
    "Noted! I sav ok")."""
    if not shown.strip():
        return ""
    core = shown.rstrip()
    chinese = _CHINESE_RUN.search(core[-1]) is not None or core[-1] in "。！？；…～，、"
    if replycheck.ends_sentence(core):
        return "" if chinese or core != shown else " "
    return "…" if chinese else "… "


class _StreamGate:
    """Lets prose through as it streams but holds back anything that may be a
    tool call written as text, and any sentence claiming an action that did
    not happen, until the model's answer is complete."""

    def __init__(
        self, find_claim: Callable[[str], int | None] = lambda _text: None, text_calls: bool = True
    ) -> None:
        self.text = ""
        self._text_calls = text_calls
        self.emitted = 0
        self.hold_at: int | None = None
        self.claim_at: int | None = None
        self._find_claim = find_claim

    def feed(self, delta: str) -> str:
        self.text += delta
        if self.hold_at is None and self._text_calls:
            self.hold_at = looks_like_tool_call_start(self.text)
        # Found afresh each time: a held unfinished sentence may end harmlessly.
        self.claim_at = self._find_claim(self.text)
        holds = [at for at in (self.hold_at, self.claim_at) if at is not None]
        limit = min(holds) if holds else len(self.text)
        if not holds and self._text_calls:
            # A marker may be split across deltas ("Act" + "ion:"): keep back a
            # trailing line that could still grow into one.
            line_start = self.text.rfind("\n", 0, limit) + 1
            tail = self.text[line_start:limit].lstrip()
            if tail and any(m.startswith(tail) for m in _MARKER_PREFIXES):
                limit = line_start
        return self._release(limit)

    def flush(self) -> str:
        return self._release(len(self.text))

    def _release(self, limit: int) -> str:
        if limit <= self.emitted:
            return ""
        out = self.text[self.emitted : limit]
        self.emitted = limit
        return out


class MemoryBook(MemorySource, Protocol):
    """What the agent needs of long-term memory: recall for the context, and
    the person's /undo and /approve."""

    def restore(self, pet_id: int, memory_id: int | None = None) -> MemoryRecord | None: ...
    def forget(self, pet_id: int, memory_id: int) -> MemoryRecord | None: ...
    def approve(self, pet_id: int, memory_id: int) -> MemoryRecord | None: ...
    def listing(self, pet_id: int, *, status: str | None = None, forgotten: bool = False,
                limit: int = 500) -> list[MemoryRecord]: ...


_WORD = re.compile(r"[a-z]{3,}")
_CHINESE_RUN = re.compile(r"[\u4e00-\u9fff]+")


#: the keys of a JSON schema: arguments of nothing else are the schema copied
_SCHEMA_KEYS = frozenset({"type", "properties", "required", "additionalProperties", "description", "title"})


#: how near in meaning a message must be to a tool's own example for a call of it to stand ("call mom" and "过二十分钟喊我
#: 一声 要给我妈打电话" 0.45; "刚才那个提醒响了，谢啦" 0.18, "你除了提醒还能干嘛" 0.08)
EXAMPLE_MEANT = 0.35


def _example_copied(value: str, schema: str, said: Sequence[str]) -> bool:
    """Whether a tool argument is an example the tool's schema quotes ("call mom", "buy milk") sharing no word with
    anything said, in whatever language ("codes after 11pm" for "remember that I code after 11pm" stands), nor near
    the message (`said[0]`) in meaning (a request in Chinese to call one's mother may be set as "call mom")."""
    quoted = value.strip().strip("\"'").casefold()
    if len(quoted) < 3 or f'\\"{quoted}\\"' not in schema.casefold() or not invented(value, said):
        return False
    reader = capture.reader()
    if reader is None or not said:
        return True
    try:
        return float(reader.vector(value) @ reader.vector(said[0])) < EXAMPLE_MEANT
    except Exception as exc:  # the encoder failed: the words alone decide
        log.warning("encoding failed: %s", exc)
        return True


def _descriptions(schema: Any) -> Iterator[str]:
    """Every "description" a JSON schema holds, at any depth."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "description" and isinstance(value, str):
                yield value
            else:
                yield from _descriptions(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _descriptions(value)


#: words that only ask to delete or cancel, naming nothing: "删掉", "delete it", "forget that one"
_ONLY_ASKING = re.compile(
    r"(?:(?:please|pls|just|delete|forget|remove|erase|wipe|cancel|drop|clear|scrap|it|that|this|them|those|one"
    r"|删掉|删除|删了|删|忘掉|忘了|忘记|取消|清掉|去掉|请|帮我|把|这个|那个|这条|那条|它|吧|了)[\s,，.。!！~]*)+",
    re.IGNORECASE)


#: a clause that only asks to look up what the question before it asked: "帮我查一下", "look it up"
_LOOK_IT_UP = re.compile(r"(?:(?:please|pls|can you|could you|and)\s+)*(?:look (?:it|that) up|check(?: for me| that| it)?"
                         r"|find out)(?:\s+(?:for me|please|pls))*[\s.!,，。！]*"
                         r"|(?:请|麻烦)?(?:你)?(?:帮我|给我)?(?:查|找|看)(?:一下|一查|查|找|看)?(?:吧|呗)?[\s，,。！!~]*", re.IGNORECASE)


#: a quoted example in a schema's description
_QUOTED = re.compile(r'"[^"]*"|“[^”]*”|「[^」]*」')


def _asked_about_forgetting(messages: Sequence[Message]) -> bool:
    """The pet's last line asked something about letting a memory go ("Which one should I forget?")."""
    before = next((m.content for m in reversed(messages) if m.role == "assistant" and m.content), "")
    return asks_deleting(before) and "?" in before.replace("？", "?")


#: words that ask for a todo, in some form: all 429 todos asked in the spent tools sets (rounds 5 to 46 and the shipped
#: sets) have one. A fact told without one, which only the router's linear reading takes for a todo, asks for none (used
#: as a person would, 2026-12-07: "门禁卡放在玄关鞋柜上" was added as the todo "出门卡放在玄关鞋柜上，出门时需要到营业厅办理副
#: 卡。" by the small model); the nearest examples' reading stays ("buy milk")
_ASKS_A_TODO = re.compile(r"todo|to-do|to do|list|task|待办|清单|任务|事项|加|添|记|写|放进|塞|列|要|得|该|别忘"
                          r"|(?<![a-z])(?:add|put|jot|mark|note|write|stick|throw|toss|slap|pop|need to|needs to|have to"
                          r"|has to|gotta|must|should|remind|don'?t forget)(?![a-z])", re.IGNORECASE)


def _asked_about_a_reminder(messages: Sequence[Message]) -> bool:
    """The pet's last line asked something about a reminder ("What time should I remind you?")."""
    before = next((m.content for m in reversed(messages) if m.role == "assistant" and m.content), "")
    return bool(_ASKS_REMINDING.search(before)) and "?" in before.replace("？", "?")


def description_copied(value: str, schema: Any, message: str) -> bool:
    """Whether a tool argument is (part of) the schema's own description of an argument, not the person's words:
    "i quit the cello, you can wipe that from memory" filled as forget "the memory's id, or words from it" (round
    38's spent set, the small model). Two words or more (or four Chinese characters), in no way said in the message."""
    quoted = " ".join(value.strip().strip("\"'“”‘’.。").casefold().split())
    if len(re.findall(r"[a-z0-9']+", quoted)) < 3 and cjk_count(quoted) < 4:
        return False
    if quoted in " ".join(message.casefold().split()):
        return False
    # (an example the description quotes may be meant: "call mom" for a request to call one's mother, `_example_copied`)
    return any(quoted in " ".join(_QUOTED.sub(" ", text).casefold().split()) for text in _descriptions(schema))


#: figures a sum in words may need that nobody says, each allowed by the words that call for it: a unit's parts (60
#: minutes, 24 hours, 7 days, 12 months, 52 weeks, 365 days, 3,600 seconds), 100 for a percent, 1,000 for a kilo-, the
#: small numbers of a root or a power
UNIT_FIGURES: tuple[tuple[frozenset[float], re.Pattern[str]], ...] = tuple(
    (frozenset(figures), re.compile(words, re.IGNORECASE)) for figures, words in (
        ({60.0}, r"\b(?:minute|min|second|sec|hour|hr)s?\b|分钟|秒|小时|钟头"),
        ({24.0}, r"\b(?:day|hour|hr)s?\b|天|小时|日"),
        ({7.0}, r"\b(?:week|wk)s?\b|周|星期|礼拜"),
        ({12.0}, r"\b(?:month|year|yr)s?\b|月|年"),
        ({52.0}, r"\b(?:week|year)s?\b|周|年"),
        ({365.0}, r"\b(?:year|yr)s?\b|年"),
        ({3600.0}, r"\b(?:second|sec)s?\b|秒"),
        ({100.0}, r"%|percent|per cent|百分|成|折"),
        ({1000.0}, r"\b(?:kilo\w*|thousand|km|kg|k)\b|千|公里|公斤"),
        ({1.0, 2.0, 3.0}, r"\b(?:square|squared|cube|cubed|root|power)\b|平方|立方|开方|次方|根号"),
    ))
#: a message that asks a result in so many words, not a sum told in passing ("the bill was 90 and we were going to
#: split it 3 ways, but my friend paid. so nice of her right?", the review of 2026-12-06)
_ASKS_A_RESULT = re.compile(
    r"\bhow (?:much|many|long|far|old)\b|\bwhat(?:'s| is| was| are| do| does| did)?\b.{0,30}\b(?:total|sum|average|percent|"
    r"each|per|cost|left|make|earn|save|come to)\b|\bby what\b|\b(?:calculat\w*|work out|compute|figure out)\b|"
    r"\b(?:each|apiece|per (?:person|head)|average|altogether|in total)\s*[?？]|多少|几(?:个|天|次|小时|分钟|块|元|年|月|周|倍)|"
    r"算|平均|一共|总共|每人|平摊|百分之几", re.IGNORECASE)


def sum_of_said(expression: Any, message: str) -> bool:
    """Whether the model's expression for a sum in words is made of the message's figures and those its units call
    for (`UNIT_FIGURES`), one of the message's at least: "(3 * 74 + 39) / 4" for "a van for 3 days at 74 a day plus 39
    for insurance, split between 4 of us", "40 * 52" for "how many hours do i work in a year if it's 40 a week?",
    never a figure of its own making."""
    if not isinstance(expression, str):
        return False
    said = arithmetic.said_numbers(message)
    written = [float(figure) for figure in re.findall(r"[0-9]+(?:\.[0-9]+)?", expression.replace(",", ""))]
    # ...and every figure the message says is in it, as itself or as a share: a figure left out is a sum misread
    # ("(74 + 39) * 4" for the van, its 3 days left out; "(45 + 38) * 2 / 3" for the average of 45, 38 and 52: round
    # 38's and 36's spent sets, the small model)
    used = all(any(abs(figure - value) < 1e-9 for figure in written
                   for value in (given, given / 100, 1 + given / 100, 1 - given / 100))
               for given in arithmetic.figures_in(message))
    units = frozenset().union(*(figures for figures, words in UNIT_FIGURES if words.search(message)))
    return used and len(written) >= 2 and any(figure in said for figure in written) and all(
        figure in said or figure in units for figure in written)


#: what may stand around a sentence: spaces and marks
_PUNCTUATION = " \t\n.,;:!?…~。，；：！？、～—–-\"'“”‘’"


def _keeps_the_asking(reflex: reflexes.Reflex, sentence: str) -> bool:
    """Whether a remember reflex's fact holds the words that ask to keep it, said in `sentence` before the fact
    ("今天搬家累死了，箱子堆了一屋子。对了你帮我记住新家门禁密码是7203" kept whole): its reading went wrong."""
    fact = reflexes.kept_fact(sentence) or ""
    at = sentence.find(fact) if fact else -1
    asking = sentence[:at].strip(_PUNCTUATION) if at > 0 else ""
    return bool(asking) and any(asking in str(call.arguments.get("content", "")) for call in reflex.calls)


def _kept_sentence(text: str, now: dt.datetime, zone: dt.tzinfo) -> str | None:
    """The one sentence of a message of several that asks to keep a fact, when the others ask for nothing ("long day.
    oh and before i forget, my niece Priyanka turns six on june 14 — keep that in mind. anyway what's new with you");
    None for a message of one sentence, of two such, or with another request in it."""
    parts = capture.sentences(text)
    if len(parts) < 2:
        return None
    kept = [part for part in parts if (fact := reflexes.kept_fact(part)) is not None and (
        fact.strip(_PUNCTUATION) != part.strip(_PUNCTUATION))]  # (a fact kept whole is a bare fact: "My dad is a fisherman;")
    if len(kept) != 1 or any(
            reflexes.asks_for_a_tool(part) or (found := reflexes.match(part, now, zone)) is not None and found.calls
            or any(reflexes.request_form(clause) for clause in reflexes.clauses(part))
            for part in parts if part is not kept[0]):
        return None  # ("我侄子叫乐乐，你记一下。下周一是他生日，下周一早上九点提醒我给他发红包": two requests)
    reader = capture.reader()
    if reader is None or any(reader.facts(part) for part in parts if part is not kept[0]):
        return None  # another fact beside it is the person's too: "remember my gym locker is 214. it's on the second floor"
    fact = reflexes.kept_fact(kept[0]) or ""
    if re.match(r"(?:this|that|these|those)\b|[这那]", fact, re.IGNORECASE) or not reader.facts(fact):
        # a fact about the person, as the noting reads them: not a saying told to keep ("今天失恋了。记住，男人都不是好东西。
        # 哈哈哈", "today was ok. remember, you're my best friend": the review of 2026-12-06 found them kept), nor a
        # moment pointed at ("wow ok. remember this moment, i finally beat the boss level!!!")
        return None
    return kept[0]


def _shows_number(line: str, number: int) -> bool:
    """`line` says `number` in digits of any script ("#12", "１２", "١٢")."""
    wanted = str(number)
    for found in re.finditer(r"\d+", line):
        digits = found.group()
        if len(digits) < len(wanted):
            continue
        ascii_digits = digits if digits.isascii() else "".join(str(unicodedata.decimal(c, 0)) for c in digits)
        if (ascii_digits.lstrip("0") or "0") == wanted:
            return True
    return False


#: words that ask to be reminded, in some form: of 617 reminders asked in the spent tools sets (rounds 5 to 44) all but
#: four had one, and those four a typo now here ("remnd me…"). A plan told without one asks nothing (used as a person
#: would, 2026-12-07: "下周六我表姐结婚，下午三点开始，好激动" set a reminder for 15:00 that day, by the router alone)
_ASKS_REMINDING = re.compile(
    r"提醒|提个醒|叫我|喊我|叫醒|记得|别忘|别让我忘|闹钟|告诉我|通知我|催我|戳我|提示我|叫一下|喊一下"
    r"|(?<![a-z])(?:remind[a-z]*|re?mn?d|remid|ping|nudge|alert|alarm|reminder|wake me|poke me|buzz me|text me|tell me"
    r"|let me know|don'?t let me forget|set (?:a|an|me|it|one)|set个|shout at me|yell at me|give me a (?:heads|shout|nudge"
    r"|buzz)|hit me up)(?![a-z])",
    re.IGNORECASE)
#: forgetting told of, which asks to delete nothing: "我又忘带工牌了", "忘记交作业", "forgot my umbrella", "I always forget to
#: water the plants" (but "忘了开会那件事吧" asks to let it go: the review of 2026-12-07). A model's forget call on a message
#: without a word of deleting besides is not run ("我又忘带工牌了，被保安拦下来" called forget: round 45's spent set, the small
#: model; the tool refused it, shown as a failed step)
_FORGOT_TO = re.compile(r"忘(?:了|记)?(?:带|拿|关|锁|买|交|吃|喝|充|穿|存盘|保存|打卡)(?![^，。！？!?]*吧)|(?<![a-z])"
                        r"(?:(?:forgot|forgotten|forgets|forgetting)\s+(?:to|my|the|his|her|our|their|it|about it|where)"
                        r"|forget to)(?![a-z])", re.IGNORECASE)
#: a message that asks for something made or found for it (a film to watch, a recipe, a way to do something): no line of
#: the persona's small talk gives it
_BIDS = re.compile(r"\b(?:recommend|suggest|give me (?:a|an|some)|teach me|how (?:do|can|should) (?:i|we)|how to|any (?:tips|ideas"
                   r"|recs|suggestions)|what should i)\b|推荐|教我|教教我|(?:怎么|咋)(?:做|办|弄|才能|样才)|如何"
                   r"|有什么.{0,4}(?:建议|办法|推荐)|给我(?:一个|个|一份|份|列|写|做|找)(?!笑话|段子)", re.IGNORECASE)
#: the persona's topics of cheerful greetings: not to a message in a low mood (the review of 2026-12-07)
_CHEERFUL = frozenset({"hello", "good_morning", "good_evening", "back_home"})
#: the person tells a joke of their own rather than asking for one: "我给你讲个冷笑话：从前有个包子…", "讲个冷笑话：有一天…"
_TELLS_ONE = re.compile(r"[给跟和对]你(?:讲|说)|讲个.{0,6}[：:]|\bhere'?s (?:a|one)\b", re.IGNORECASE)
#: ...nor a request said with a "don't", nor for a joke told before: "don't tell me a joke, i'm serious", "别给我讲笑话",
#: "tell me the joke you told yesterday" (the review of 2026-12-07)
_NOT_ASKED = re.compile(r"\b(?:don'?t|do not|never|no more|stop)\b|别|不要|不用|甭|\b(?:the|that|your) (?:joke|one)\b|上次|昨天那个",
                        re.IGNORECASE)
#: the message ends by letting what it said go: "…, forget it", "never mind", "算了"
_LET_IT_GO = re.compile(r"\b(?:forget (?:it|that|about it)|never ?mind|nvm)\b[\s.!~]*$|(?:算了|当我没说|不说了)[\s。！!~～]*$",
                        re.IGNORECASE)
#: ...unless it asks to forget something before: "Tom and I broke up, please don't remember him anymore. forget it"
_ASKS_FORGETTING = re.compile(r"\b(?:forget|remember|delete|erase|remove|wipe)\b|忘|删|记", re.IGNORECASE)
#: a question by its mark or its last word
_ASKED = re.compile(r"[?？]|(?:吗|么|没|没有|呢|不)[\s。!！~～]*$")


def _copied(value: str, messages: Sequence[str]) -> bool:
    """Whether `value` is one of `messages`, or most of one, word for word."""
    mine = replycheck.letters(value)
    return bool(mine) and any(mine in replycheck.letters(m) and 2 * len(mine) >= len(replycheck.letters(m))
                              for m in messages)


def invented(value: str, said: Sequence[str]) -> bool:
    """Whether a tool argument the model wrote shares no word with anything
    said in the conversation (`said`: the message and what came before it):
    no word of three letters or more that is not a stopword, and no pair of
    Chinese characters. An argument with no such word (an id, a number, one
    Chinese character) is not judged here."""
    lowered = value.lower()
    words = set(_WORD.findall(lowered)) - replycheck.EN_STOPWORDS
    pairs = {run[i:i + 2] for run in _CHINESE_RUN.findall(lowered) for i in range(len(run) - 1)}
    if not words and not pairs:
        return False
    spoken = " ".join(said).lower()
    return not (words & set(_WORD.findall(spoken)) or any(pair in spoken for pair in pairs))


def mostly_new(value: str, said: Sequence[str]) -> bool:
    """Whether more than a third of a tool argument's words (as `invented`
    counts them) are nobody's: "add mail the rent check" filled as "Rent
    check due to the upcoming deadline" (one clause of a message, whose
    call runs with the others' without a second look); or it has no such
    word at all ("it")."""
    lowered = value.lower()
    words = set(_WORD.findall(lowered)) - replycheck.EN_STOPWORDS
    pairs = {run[i:i + 2] for run in _CHINESE_RUN.findall(lowered) for i in range(len(run) - 1)}
    spoken = " ".join(said).lower()
    if not words and not pairs:
        # figures alone are nobody's when most of them were not said ("10.25.2319 - 17:36-48, 2023-02-17-1" for "put
        # renew car insurance on my list", round 30's `tiny`)
        figures = re.findall(r"\d+", value)
        if figures:
            return sum(figure not in spoken for figure in figures) * 3 > len(figures)
        return not re.search(r"[\u4e00-\u9fff]", value)
    heard = set(_WORD.findall(spoken))
    new = len(words - heard) + sum(pair not in spoken for pair in pairs)
    return new * 3 > len(words) + len(pairs)


class ConversationLocks:
    """One lock per conversation: one turn at a time in each, and the work
    that follows a turn (folding the history into its summary, reading the
    next prompt ahead) in between. That work gives way to a turn: a turn
    that comes runs the work not begun first, as a waiting turn, so that
    both stop at their next check (`wanted`). The read-ahead stops for any
    turn (the turn reads on from where it stopped), and so does the fold:
    the turn shows the unfolded messages whole while they fit
    (HistorySummarizer.may_wait), and past that folds them in code itself,
    which is quicker than waiting for the model's summary and then reading
    the prompt after it anyway."""

    def __init__(self) -> None:
        self._locks: dict[int, threading.Lock] = {}
        self._guard = threading.Lock()
        self._after: list[threading.Thread] = []
        self._pending: dict[int, Callable[[], None]] = {}
        #: per conversation, the turns waiting for it
        self._waiting: dict[int, set[object]] = {}

    def of(self, conversation_id: int) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(conversation_id, threading.Lock())

    @contextlib.contextmanager
    def turn(self, conversation_id: int) -> Iterator[None]:
        """Hold the conversation for a turn. While it waits for the lock, and
        while what is left of the last turn's work runs first (its thread had
        not begun), that work is `wanted` to stop."""
        lock = self.of(conversation_id)
        token = object()
        with self._guard:
            self._waiting.setdefault(conversation_id, set()).add(token)
        try:
            if not lock.acquire(blocking=False):
                lock.acquire()
            try:
                self.run_pending(conversation_id)
            except BaseException:
                lock.release()
                raise
        finally:
            with self._guard:
                marks = self._waiting[conversation_id]
                marks.discard(token)
                if not marks:
                    del self._waiting[conversation_id]
        try:
            yield
        finally:
            lock.release()

    def wanted(self, conversation_id: int) -> bool:
        """Whether a turn waits for this conversation (its background work should give way)."""
        with self._guard:
            return bool(self._waiting.get(conversation_id))

    def after_turn(self, conversation_id: int, work: Callable[[], None], name: str) -> None:
        """Run `work` in the background under the conversation's lock, once
        the reply is out; a turn that comes before the thread begins runs it
        first (`turn`), so it is never skipped or done twice."""
        with self._guard:
            self._pending[conversation_id] = work

        def run() -> None:
            with self.of(conversation_id), log_fields(conversation=conversation_id):
                self.run_pending(conversation_id)

        thread = threading.Thread(target=run, name=name, daemon=True)
        with self._guard:
            self._after = [t for t in self._after if t.is_alive()] + [thread]
        thread.start()

    def run_pending(self, conversation_id: int) -> None:
        """Run the work left by the conversation's last turn, if it has not
        run yet, giving way once a turn wants the conversation
        (pet.brain.base.yielding). The caller holds the conversation's lock."""
        with self._guard:
            work = self._pending.pop(conversation_id, None)
        if work is None:
            return
        try:
            with yielding(lambda: self.wanted(conversation_id)):
                work()
        except Preempted as exc:  # a message came: the next turn's work does it
            log.info("the work after a turn gave way to a new message: %s", exc)
        except BrainUnavailable as exc:  # the pet is stopping (or the model is gone): nothing lost
            log.info("the work after a turn was left: %s", exc)
        except Exception:  # background work must not die silently, nor take a turn down
            log.exception("the work after a turn failed")

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait for the work started after turns; False if some still runs."""
        with self._guard:
            pending = list(self._after)
        deadline = None if timeout is None else time.monotonic() + timeout
        for thread in pending:
            thread.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
        return not any(thread.is_alive() for thread in pending)


class Agent:
    def __init__(
        self,
        *,
        brain: ChatModel,
        tools: ToolRegistry,
        conversations: ConversationWriter,
        memories: MemoryBook,
        persona: Persona,
        pet: PetIdentity,
        config: AgentConfig = AgentConfig(),
        clock: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.timezone.utc),
        summarizer: HistorySummarizer | None = None,
        locks: ConversationLocks | None = None,
        tracer: TraceSink | None = None,
        reminders: ReminderStoreLike | None = None,
    ):
        """`locks`: share one between agents that may answer the same
        conversations (a pet's agent is rebuilt when its persona is edited).
        `tracer` keeps each turn's trace (None: no traces)."""
        self.brain = brain
        self.tools = tools
        self.conversations = conversations
        self.memories = memories
        #: folds old messages into a running summary; None keeps only the last `history_messages`
        self.summarizer = summarizer
        self.persona = persona
        self.pet = pet
        self.config = config
        self.clock = clock
        self.locks = locks or ConversationLocks()
        self.tracer = tracer
        #: the reminders, for one moved (its day and how it repeats); None: a move sets the new time as said
        self.reminders = reminders
        #: per conversation, the reminder whose time the pet just asked for (reflexes.Reflex.needs_time)
        self._needs_time: dict[int, tuple[tuple[str, str], dt.datetime]] = {}

    def _lock(self, conversation_id: int) -> threading.Lock:
        return self.locks.of(conversation_id)

    def run(self, conversation_id: int, text: str) -> Iterator[Event]:
        """Answer one message. One turn at a time per conversation; other
        conversations run in parallel."""
        # every log line of the turn names its pet, conversation, turn and step (pet.logs)
        return in_context(self._run(conversation_id, text), pet=self.pet.id, conversation=conversation_id)

    def _run(self, conversation_id: int, text: str) -> Iterator[Event]:
        # the last turn's fold and read-ahead give way
        with self.locks.turn(conversation_id):
            trace = TurnTrace(self.tracer, self.pet.id, conversation_id)
            reply: Reply | None = None
            try:
                for event in self._turn(conversation_id, text, trace):
                    trace.observe(event)
                    if isinstance(event, Reply):
                        event = replace(event, trace_id=trace.finish(event.text, event.partial))
                        reply = event
                    yield event
            finally:
                if trace.active:  # the caller stopped listening, or something raised
                    trace.finish(reply.text if reply else "", True)
                if self.summarizer is not None:
                    self.summarizer.take_due(conversation_id)  # folded after this reply in any case
                if self.summarizer is not None or self._caches_prefix():
                    trace_id = reply.trace_id if reply is not None else None
                    self.locks.after_turn(conversation_id, lambda: self._after_reply(conversation_id, trace_id),
                                          name="after-reply")

    def _caches_prefix(self) -> bool:
        return callable(getattr(self.brain, "warm", None)) and getattr(self.brain, "reuses_prompt_prefix", False)

    def _after_reply(self, conversation_id: int, trace_id: int | None) -> None:
        """While the person reads the reply and writes the next message: fold
        what the next turn could not show into the summary (the history a
        turn shows is the one before its message, so this is the next turn's
        own check; the model's summary is slow on a small brain, and done in
        a pause it costs the next turn nothing), then let a brain that caches the prompt's prefix read the
        conversation up to the next message, so that the next turn reads
        only its own part. The turn's trace gets the fold's time. A message
        that comes meanwhile stops the read-ahead where it is, and the fold
        too (nothing stored; the fold is tried after its reply, and that
        turn shows the unfolded messages whole or folds them in code:
        ConversationLocks)."""
        if self.summarizer is not None:
            started = time.perf_counter()
            add_stages = getattr(self.tracer, "add_stages", None)
            try:
                with yielding(lambda: self.locks.wanted(conversation_id)):
                    method = fold_history(self.summarizer, self.conversations, conversation_id,
                                          self.config.history_messages)
            except Preempted:
                # nothing stored: the turn that came shows the unfolded messages whole (or,
                # past the limit, stores a summary made in code), and the fold is tried after its reply
                if trace_id is not None and callable(add_stages):
                    add_stages(trace_id, {"summary fold after the reply (gave way to the next message)":
                                          time.perf_counter() - started})
                raise
            if method and trace_id is not None and callable(add_stages):
                add_stages(trace_id, {f"summary fold after the reply ({method})": time.perf_counter() - started})
        self.warm(conversation_id)

    # -- the turn -----------------------------------------------------------

    def warm(self, conversation_id: int) -> int:
        """Let a brain that caches the prompt's prefix read this conversation's
        prompt, up to the new message, before the person writes. All but the
        turn's own note is the same whatever language the message comes in
        (build_context's `volatile_last`); the note is read as it will be for
        a message in the language last spoken that no memory fits, at this
        minute: when the message comes so, only its own words are left to
        read, else what follows the first change (at worst the whole note:
        the time, the memories that fit the message, the language). Returns
        the tokens read (0: nothing to do)."""
        if should_yield():
            return 0  # a turn waits: it reads its own prompt (see _after_reply)
        if self.config.canned:
            replies.bank(self.persona)  # the examples' vectors, read once, before the first small talk
        if not self._caches_prefix():
            return 0
        warm = self.brain.warm  # type: ignore[attr-defined]
        specs = self.tools.specs()
        context = build_context(
            persona=self.persona, pet_id=self.pet.id, adopted=self.pet.adopted_on,
            conversation_id=conversation_id, text="", language=self._last_language(conversation_id),
            now=self.clock().astimezone(self.persona.zone()), history=self.conversations,
            memories=self.memories, history_messages=self.config.history_messages,
            recall_limit=self.config.recall_limit, memory_tokens=self.config.memory_tokens,
            with_tools=bool(specs), summarizer=self.summarizer, volatile_last=True, keep_fold=False,
        )
        # the last is the message, not yet written; the first, the persona
        # and the tools, is the stable part
        return int(warm(context.messages[:-1], specs, stable=1))

    def _turn(self, conversation_id: int, raw_text: str, trace: TurnTrace) -> Iterator[Event]:
        text = clean_text(raw_text)
        language = self._language(conversation_id, text)
        if not text.strip():
            yield Notice(_says(language, "The message was empty. Type something for the pet to answer.",
                               "消息是空的，写点什么再发吧。"), "warning")
            return
        # the reminder whose time the pet asked for holds for the next message only, and not for long
        asked = self._needs_time.pop(conversation_id, None)
        needs_time = asked[0] if asked is not None and self.clock() - asked[1] <= NEEDS_TIME_FOR else None
        if len(text) > self.config.max_message_chars:
            # Kept in the history so nothing is lost, but never sent to the model.
            self.conversations.append(conversation_id, Message("user", text), status="rejected")
            limit = self.config.max_message_chars
            yield Notice(_says(
                language,
                f"That message is {len(text):,} characters long; the limit is {limit:,}. "
                "It is saved, but the pet did not read it. Send a shorter message or split it.",
                f"这条消息有 {len(text):,} 个字符，上限是 {limit:,}。消息已保存，但没有读它；请发短一点，或分几次发。",
            ), "warning")
            return

        now = self.clock().astimezone(self.persona.zone())
        specs = self.tools.specs()
        context = build_context(
            persona=self.persona,
            pet_id=self.pet.id,
            adopted=self.pet.adopted_on,
            conversation_id=conversation_id,
            text=text,
            language=language,
            now=now,
            history=self.conversations,
            memories=self.memories,
            history_messages=self.config.history_messages,
            recall_limit=self.config.recall_limit,
            memory_tokens=self.config.memory_tokens,
            with_tools=bool(specs),
            summarizer=self.summarizer,
            # a brain that caches the prompt's prefix gets the volatile part late
            volatile_last=getattr(self.brain, "reuses_prompt_prefix", False),
        )
        # stamped with the agent's clock: the day's greeting compares it
        if context.folded:
            trace.stages["summary fold in the turn (extractive: the fold after the last reply gave way)"] = context.folded
        user_message_id = self.conversations.append(conversation_id, Message("user", text), at=now)
        trace.begin(now, text, language, user_message_id)
        set_log_fields(turn=user_message_id)
        turn = _Turn(conversation_id, language, context.messages,
                     self._tool_context(conversation_id, user_message_id, language, text), trace,
                     memories=tuple(m.content for m in context.memories))
        # (no cheerful hello before sad news: "Hello! … nice to meet you!\n\nThat's a heavy thing to carry", seen on the page)
        hello = self._greeting(now, language, user_message_id) if self.config.greeting and not (
            replycheck.sad_kind(text)) else None
        if hello:
            turn.prefix = hello + "\n\n"
            yield TextDelta(turn.prefix)

        # Slash commands are the person's own commands: they work with reflexes off too.
        wanted = self.config.reflexes or text.startswith("/")
        if not text.startswith("/") and retracted(text):
            # "what's 2+2? jk", "帮我记一下…哎呀 不对 不用记 当我没说": taken back, so no request and no fact, and the pet
            # says so plainly (on the page the small model's answers to it failed their checks and got the stand-in)
            trace.reflex = "taken back"
            if reflexes.request_form(text):
                yield from self._finish(turn, fallback_line("taken_back", language, self.persona), streamed=False)
            else:
                yield from self._model_loop(turn, [])  # a question taken back: the model may play along
            return
        if self.config.reflexes and not text.startswith("/"):
            # "my remidners?" asks for the reminders (the message kept is as written; a command is the
            # person's own words)
            text = spelling.mend(text)
        reflex = reflexes.match(text, now, self.persona.zone(), language) if wanted else None
        if reflex is None and wanted and (unreasoned := reflexes.without_reason(text)) != text and (
                again := reflexes.match(unreasoned, now, self.persona.zone(), language)) is not None and again.calls:
            # the request without the reason after it ("…remind me at 9pm to call the vet, or else I'll forget"); not a
            # question back ("what should I add?") where the router and the model may still read "that" (the review)
            reflex = again
        if reflex is None and needs_time is not None and self.config.reflexes:
            # the answer to "what time should I remind you?": "9am"
            reflex = reflexes.answered_time(needs_time, text, now, self.persona.zone())
        if reflex is not None and reflex.intent == "remember" and self.config.reflexes and (
                kept := _kept_sentence(text, now, self.persona.zone())) is not None and (
                _keeps_the_asking(reflex, kept)) and (
                again := reflexes.match(kept, now, self.persona.zone(), language)) is not None and (
                again.intent == "remember"):
            # the request is one sentence among talk: its fact alone ("今天搬家累死了，箱子堆了一屋子。对了你帮我记住新家门禁密码是
            # 7203，别忘了" kept the whole message, seen on round 12's spent set)
            reflex = again
        if reflex is not None and len(reflex.calls) == 1 and reflex.calls[0].name in ("forget", "cancel_reminder") and (
                _ONLY_ASKING.fullmatch(str(next(iter(reflex.calls[0].arguments.values()), "")).strip())):
            # the asking read as what to delete ("我的网名别再记着了，删掉删掉" as forget "删掉"): the words before it say what
            reflex = None
        if reflex is not None and reflex.intent == "recall" and self._asks_name(text):
            reflex = None  # "我家小龙虾叫什么来着" asks the pet's own name, not a memory
        route_first = None
        if reflex is not None and reflex.intent == "time" and self.config.reflexes:
            # "我妈生日几号？" asks a date, but not today's: the meaning says it is about what the pet knows
            route_first = self._route(text)
            if route_first is not None and route_first.intent == "recall":
                reflex = None
        if reflex is not None and reflex.calls and reflex.intent != "multi" and self.config.reflexes and (
                reflexes.asks_beside(text)):
            # a question beside the one request a reflex read ("when is Jonah's birthday again? and put 'get Jonah a
            # gift' on my todos" added the todo and dropped the question, round 37's spent set): both, when the
            # question is one a memory answers
            handled = yield from self._several(turn, text, now)
            if handled:
                return
        if reflex is not None:
            if reflex.needs_time is not None:
                self._needs_time[conversation_id] = (reflex.needs_time, now)
            trace.reflex = reflex.intent
            yield from self._reflex(turn, reflex)
            return
        # Then intents by meaning (pet.agent.intents): a tool the router is sure
        # of, facts the person states (noted), or small talk; else the model decides.
        route = route_first or (self._route(text) if self.config.reflexes and not text.startswith("/") else None)
        one = reflexes.one_request(text)  # several requests, or "forget it, …": the model's
        dropped = reflexes.dismissal(text)
        if route is not None and dropped and _named_for_dropping(dropped):
            # "nvm about the dentist one, they moved it, drop that reminder" lets a reminder go, not the talk
            text, one = dropped, True
            route = dataclasses.replace(route, intent="cancel_reminder", tool="cancel_reminder", slots="message")
        if route is not None and route.intent in (None, intents.CHAT, intents.NOTE, "remember") and (
                reflexes.kept_fact(text) is None) and (kept := _kept_sentence(text, now, self.persona.zone())) is not None:
            # one sentence of several asks to keep a fact, the others are talk ("今天加班到九点累死了……对了你记着，我老板姓邱，
            # 下次我提他你别搞混。好了我去洗澡了", round 38's spent set): that sentence is the request
            text, one = kept, True
            route = dataclasses.replace(route, intent="remember", tool="remember", slots="fact")
        if route is not None and one and (route.intent == intents.NOTE or route.intent is None and route.nearest
                                          == "remember" or route.intent in (None, intents.CHAT) and (
                                              reflexes.asks_keeping(text)) and not reflexes.opens_a_question(text)
                                          and _STATES_ONE_THING.search(reflexes.kept_fact(text) or "")) and (
                reflexes.kept_fact(text)):
            # "pls remember im lactose intolerant" is near the facts, but it asks: remember it; so does a
            # request the router leans to but is not sure of ("…wifi密码是 lobster2027，帮我存一下"), or reads as
            # talk or a question ("can u remember the spare key is under the blue flowerpot", "my dentist is dr.
            # Okonkwo, don't let me forget that 🦷": round 32's spent set)
            route = dataclasses.replace(route, intent="remember", tool="remember", slots="fact")
        if route is not None and not one and reflexes.dismissal(text) is None:
            # several requests, each understood on its own: all of them run, in order
            handled = yield from self._several(turn, text, now)
            if handled:
                return
        worded_as_question = reflexes.opens_a_question(text) and not reflexes.asks_keeping(text)
        if route is not None and one and (route.intent in (None, intents.CHAT) or route.intent in (
                intents.NOTE, "remember") and (text.rstrip().endswith(("?", "？")) or worded_as_question) and (
                reflexes.kept_fact(text) is None)) and (
                reflexes.asks_kept_value(text)) and not _ADVICE.search(text) and (
                not self._asks_name(text)) and (self._known(text) or worded_as_question and self._near(text) or (
                text.rstrip().endswith(("?", "？")) and self._near(text, CLOSE_MEMORY))):
            # "工号多少？", "房东叫啥来着", "who did i tell you my favourite author was?" (near the facts, but a
            # question): a question for one thing of the person's that a memory holds the words of is for
            # recall, however unsure the router is; so is one worded as a question without its mark, when a
            # memory is near it in meaning in whichever language ("where did i put my passport" and
            # "护照放在书房的蓝色文件夹里", round 25's spent set), or with its mark when a memory is close in meaning
            # ("which night do i play basketball?" and "每周四晚上打篮球", round 26's)
            trace.reflex = "kept value"
            route = dataclasses.replace(route, intent="recall", tool="recall", slots="message")
        request = text
        if route is not None and (route.intent is None or (
                route.intent == "remember" and reflexes.kept_fact(text) is None)):
            # one request amid other talk ("今天开会被老板点名了，心累。帮我在todo里加个 准备季度汇报PPT"), or a request
            # to remember whose fact the whole does not give ("今天搬新工位了，…。顺便帮我记住：我的工位号是B-1207");
            # when it is the only clause that asks, the message is one request after all
            route, request = self._buried(text, route)
            # …unless the rest asks something too ("please remember my locker code is 4471, and how's your day?")
            one = one or request != text and not _ASKS_TOO.search(text.replace(request, " "))
        if route is not None and one and route.intent not in (None, intents.CHAT, intents.NOTE):
            trace.reflex = f"intent {route.intent}" + (" (linear)" if route.by == "linear" else "") + (
                " (in a clause)" if request != text else "")
            handled = yield from self._routed(turn, route, request, now, specs)
            if handled:
                return
        # what no routed tool handled may still state facts: "my passport number is E1234567" is near "remember
        # my passport number…" to the router, asks nothing, and is the person's to keep all the same
        if self.config.notes and not text.startswith("/"):
            noted = yield from self._note(turn, text)
            if noted:  # the pet may say it will keep it (a second copy by the model is not
                # kept: see ToolContext.noted); the tools stay as they were, so the
                # prompt's cached prefix still holds
                turn.done.add("remember")
        if route is not None and one and route.intent == intents.CHAT:
            trace.reflex = "intent chat"
            specs = []  # small talk: no tool, however it mentions time or memory
        elif route is not None and one and route.intent is None and route.nearest == intents.CHAT and not getattr(
                self.brain, "constrained_tool_calls", False) and not _ASKS_ANYTHING.search(text) and not any(
                reflexes.request_form(clause) for clause in reflexes.clauses(text)):
            # The router is unsure, but small talk is its likeliest reading: a server model shown every tool
            # calls one on most such messages (the 0.5B under llama_cpp.server: "🎵 remember me, though i have to
            # say goodbye 🎵 that movie makes me cry" → four remember calls), and the tools' specs lengthen its
            # prompt. Not a message that asks something ("ugh so bored. what's on my plate this week"). The
            # embedded brain, whose calls are held to a grammar, keeps them.
            trace.reflex = "likely chat"
            specs = []
        elif dropped is not None and not _ASKS_ANYTHING.search(dropped) and not any(
                reflexes.request_form(clause) for clause in reflexes.clauses(dropped)):
            # the subject dropped and nothing asked after it ("ok forget it, its not important"): no tool (the served
            # 0.5B, shown every tool, called eleven on it in round 34's set, and added a todo "do something")
            trace.reflex = "dropped"
            specs = []
        if self.config.canned and route is not None and one and route.intent in (None, intents.CHAT, intents.NOTE):
            own = self._own_line(turn, text)
            if own is not None:
                yield from self._finish(turn, own, streamed=False)
                return
        yield from self._model_loop(turn, specs)

    def _own_match(self, text: str, loose: bool = False) -> replies.Match | None:
        """The topic of the persona's own lines `text` is small talk of, when it is no question
        about the person (see _own_line); `loose`: the nearest topic at LOOSE_TOPIC and LOOSE_LEAD, for a
        reply the model could not give, when the message is no sad news; a death or a setback told in so many
        words, its topic (_SAD_TOPICS)."""
        # its own name asked "again" ("欸 你名字是啥来着 我又忘了", "wait remind me what im supposed to call
        # you") is its own line's business too: the model misspells it ("I'm Xiaoqians") or muddles whose
        # name it is ("你的名字是 Xiaoqian")
        # (or as "my pet", by one who keeps no other: "if my friend asks what my pet's called what do i tell her", round
        # 44's spent chat set got "If your friend wants to tell you what your pet is called, you…")
        by_kind = replycheck.asks_species_name(text, self.persona, short=not self._keeps_other_pets()) or (
            replycheck.asks_species_name(text, self.persona, as_a_pet=True) and not self._keeps_other_pets())
        naming = by_kind or replycheck.asks_pet_name(text)
        if not naming and (replycheck.asks_recall(text) or (_AGAIN.search(text) and capture.names_the_person(text))):
            return None  # "我不吃什么来着？", "What food do I hate again?": what it knows of them
        found = replies.bank(self.persona)
        sad = replycheck.sad_kind(text)
        topic = next((r for r in found.replies if r.topic == sad), None) if found is not None and sad else None
        if topic is not None:
            return replies.Match(topic, 1.0, 1.0)  # a death, a setback told in so many words
        glad = next((r for r in found.replies if r.topic == GOOD_NEWS_TOPIC), None) if found is not None else None
        if glad is not None and replycheck.good_news(text) and not _QUESTION.search(text):
            # the person's own good news in so many words ("I PASSED MY DRIVING TEST ON THE FOURTH TRY", near "failed my
            # driving test" to the encoder; "GOT THE PROMOTION!!!", which the small model answered twice with what the
            # checks refused, in round 42's spent chat set)
            return replies.Match(glad, 1.0, 1.0)
        fond = next((r for r in found.replies if r.topic == FOR_SOMEONE_TOPIC), None) if found is not None else None
        if fond is not None and replycheck.their_good_news(text) and not _QUESTION.search(text) and not _BIDS.search(text):
            return replies.Match(fond, 1.0, 1.0)  # "my little brother just got into med school!!" (0.56 near its topic)
        try:
            if loose and replycheck.sad_news(text):
                return None  # "my grandma's in hospital and i can't visit" is near "visiting my parents": no trip line
            match = (found.match(text, LOOSE_TOPIC, LOOSE_LEAD) if loose else found.match(text)) if found is not None else None
            if match is None and found is not None and not _TELLS_ONE.search(text):
                match = _asked_for(found, text)
        except Exception as exc:  # the encoder failed: the model answers, as without it
            log.warning("could not match the persona's replies: %s", exc)
            return None
        if (by_kind or naming and _TO_PET.search(text)) and (
                match is None or not any(replycheck.asks_pet_name(e) for e in _examples(match.replies))):
            # its name asked in other words ("朋友问我养的小龙虾叫什么，我该怎么说？"), or beside another topic ("do you
            # have a name or do i just keep calling you crayfish?" is near "being a crayfish"): the topic that answers it
            topic = next((r for r in found.replies if any(replycheck.asks_pet_name(e) for e in _examples(r))),
                         None) if found is not None else None
            match = replies.Match(topic, 1.0, 1.0) if topic is not None else match
        if match is None:
            return None
        if match.replies.topic in _SAD_TOPICS:
            return None  # "passed my driving test on the third try" is near "flunked my driving test"
        if match.replies.topic in _CHEERFUL and replies.mood(text) < 0:
            return None  # "back from work, worst day ever" is no time for "Welcome home! How was it out there?"
        if match.replies.topic == GOOD_NEWS_TOPIC and not replycheck.good_news(text) and (
                _DENIES.search(text) or replies.low_words(text) and not _AT_LAST.search(text)):
            # "my coworker got promoted and i didn't" is near "i got promoted"; "my boss yelled at me today, forget that,
            # let's talk about fun stuff" near "my boss praised me today" (used as a person would: "Look at you go!")
            return None
        if match.replies.topic not in _LOW_TOPICS and replycheck.sad_news(text) and not _TO_THE_PET.search(text):
            # round 38's chat set: "我外公今天走了" got "要不要听钳钳讲个笑话？" (bored); sad news told of someone is
            # no time for a joke (but "do your claws hurt when you pinch stuff?" asks the pet)
            return None
        if match.replies.topic == "plans_and_trips" and (_LET_IT_GO.search(text) or capture.gives_up(text)):
            return None  # "本来想周末去爬山的……算了，太累了" has no trip to wish well (seen using the page)
        if (not naming and _QUESTION.search(text)
                and capture.names_the_person(text) != capture.names_the_person(match.example)):
            return None  # "我喜欢吃什么" is near "你喜欢吃什么", but asks about the person, not the pet
        if match.replies.topic == FOR_SOMEONE_TOPIC and (_QUESTION.search(text) or not _tells_of_someone(text)
                                                         or _DENIES.search(text)):
            # "我升职了！！！" is the person's own news (good_news); "我表妹叫啥？" asks; "my best friend isn't getting
            # married after all", "我朋友结婚了，可惜我去不了" are no news to cheer
            return None
        if replycheck.requests(text) and _NOT_ASKED.search(text):
            return None  # "别给我讲笑话，我认真的" is near "给我讲个段子" (the review of 2026-12-07)
        if not naming and _BIDS.search(text) and not _BIDS.search(match.example):
            return None  # "推荐一部好看的电影吧" is near "刚看完一部好片", but wants a film, not a line about films
        return match

    def _asks_name(self, text: str) -> bool:
        """The message asks the pet's own name, as "you" or as the person's pet of its kind."""
        return replycheck.asks_pet_name(text) or replycheck.asks_species_name(text, self.persona) or (
            replycheck.asks_species_name(text, self.persona, as_a_pet=True) and not self._keeps_other_pets())

    def _keeps_other_pets(self) -> bool:
        """A memory of the newest 500 speaks of an animal the person keeps: "my pet" may be that one."""
        return any(_OTHER_PETS.search(record.content) for record in self.memories.listing(self.pet.id, limit=500))

    def _own_line(self, turn: _Turn, text: str, loose: bool = False) -> str | None:
        """The persona's own line for small talk it has one for (pet.persona.replies), not one
        it said lately; None when the message is no such small talk."""
        if replycheck.asks_pet_age(text) and not replycheck.asks_recall(text):
            days = days_together(self.pet.adopted_on, self.clock().astimezone(self.persona.zone()))
            turn.trace.reflex = "own age"
            span = f"{days}天" if self.persona.language(turn.language) == "zh" else f"{days} day{'s' if days != 1 else ''}"
            return say("own_age" if days else "own_age_new", turn.language, self.persona, span=span)
        match = self._own_match(text, loose)
        if match is None:
            return None
        said = [m.content for m in turn.messages if m.role == "assistant"]
        # a line that sounds like an action ("本钳记住啦") would claim one nobody ran
        # ...nor one that says the person's words back ("Good morning! Did you sleep well?" to "good morning!!
        # did you sleep ok", the spent chat set of round 19)
        own = replies.line(match.replies, turn.language, text, said, self.persona.display_name(turn.language),
                           fits=lambda candidate: not claimed_actions(candidate) - turn.done
                           and not replycheck.is_echo(candidate, text))
        if own is not None:
            turn.trace.reflex = f"own line {match.replies.topic} ({match.score:.2f}, +{match.lead:.2f})"
        return own

    # -- intents by meaning -------------------------------------------------------

    def _known(self, text: str) -> bool:
        """Whether a memory the recall tool would find for `text` holds one of its words as it stands."""
        if not isinstance(self.memories, capture.NoteBook):
            return False
        asked = reflexes.request_words(text)
        try:
            found = self.memories.search(self.pet.id, asked, limit=3)
        except Exception as exc:  # a failed search answers nothing: the model decides, as before
            log.warning("memory search failed: %s", exc)
            return False
        # one of its words as it stands, of two Chinese characters or three letters or more (the search
        # also matches single characters: "我到底哪里做错了" is no question for a memory of 我妈妈)
        terms = [t.casefold() for t in recall_words(asked)
                 if (len(t) >= 2 if cjk_count(t) else len(t) >= 3 and t.casefold() not in replycheck.EN_STOPWORDS)]
        if any(t in record.content.casefold() for record in found for t in terms):
            return True
        # ...or, for a word of the message in the other script than the message's ("我的passport放哪儿了"), that
        # word in the other language, as the concepts give it ("护照放在抽屉最下层的蓝色文件夹里", round 34's spent set)
        zh = detect_language(text) == "zh"
        return any(concepts.holds(record.content.casefold(), other) for record in found for t in terms
                   if zh != bool(cjk_count(t)) for other in concepts.translations(t if cjk_count(t) else stem(t))
                   if len(other) >= (2 if cjk_count(other) else 3))

    def _near(self, text: str, floor: float = NEAR_MEMORY) -> bool:
        """Whether a memory is near `text` in meaning (`floor`), in whichever language."""
        reader = capture.reader()
        if reader is None or not isinstance(self.memories, capture.NoteBook):
            return False
        try:
            found = self.memories.nearest(self.pet.id, text, count=3)
            asked = reader.vector(text)
            return any(float(reader.vector(record.content) @ asked) >= floor for record in found)
        except Exception as exc:  # a failed search answers nothing: the model decides, as before
            log.warning("memory search failed: %s", exc)
            return False

    def _route(self, text: str, whole: str = "") -> intents.Route | None:
        """The router's reading of `text`, with the rules on top; `whole`: the message `text` is a part of (a request
        to be reminded may sit in another part: "先看看我有哪些提醒，然后再加一个明天晚上9点吃药的")."""
        router = intents.router()
        if router is None:
            return None
        try:
            route = router.route(text)
            if route.intent is None and (asked := reflexes.without_reason(text)) != text and reflexes.asks_plainly(asked) and (
                    cut := router.route(asked)).tool:
                route = cut  # "…加到我的todo里吧，不然我肯定忘": the reason's words left the router torn
        except Exception as exc:  # the encoder failed: the model decides, as without it
            log.warning("intent routing failed: %s", exc)
            return None
        if route.intent not in (None, intents.CHAT, intents.NOTE) and replycheck.good_news(text) and not any(
                reflexes.request_form(part) for part in reflexes.clauses(text)):
            # the person's own good news asks for nothing ("拿到offer啦🎉" read as adding a todo by the linear reading)
            return dataclasses.replace(route, intent=intents.CHAT, tool=None, slots="none")
        if route.intent is None and _REMEMBER_WHAT.search(text) and capture.names_the_person(text):
            # "remember what i'm scared of?", "do you remember what i'm scared of?": the router was torn between small
            # talk and a question for a memory (round 35's spent chat set: answered without the memory)
            return dataclasses.replace(route, intent="recall", tool="recall", slots="message")
        if route.intent is None and _ASKS_AGAIN.search(text) and replycheck.asks_recall(text) and (
                capture.names_the_person(text)) and not _ADVICE.search(text) and (
                self._known(_asking(text)) or self._near(_asking(text)) or (
                    _WHETHER_TOLD.fullmatch(_asking(text).strip()) and _asking(text) != text)):
            # "我养了几只仓鼠你还记得不", "what do i do for work again? lol brain fog": the router torn, a memory near what
            # is asked, and the message says it asks what was told (round 45's spent chat set: answered without the
            # memory; not "what's my plan for today?" beside "My plan is to learn Spanish this year")
            return dataclasses.replace(route, intent="recall", tool="recall", slots="message")
        if route.intent == "recall" and _keeps_what_came_before(text):
            # "my dog is called Rex. remember his name" is near "what's my dog's name?" but tells it and asks to keep it
            return dataclasses.replace(route, intent="remember", tool="remember", slots="fact")
        if (route.intent in ("time", "recall") and reflexes.guessing_game(text)) or (
                route.intent == "remind" and (reflexes.called_in_a_story(text) or reflexes.not_reminded(text) and not self._lets_go(text)
                                              or not (_ASKS_REMINDING.search(whole or text) or reflexes.timed_memo(text)))) or (
                route.intent == "add_todo" and route.by == "linear" and not _ASKS_A_TODO.search(whole or text)) or (
                route.intent in _DOING and reflexes.wishes_it_could(text)) or (
                route.intent == "time" and not reflexes.names_the_clock(text)) or (
                route.intent in _LOOKING_UP and not reflexes.asks_something(text)) or (
                route.intent in ("list_reminders", "list_todos") and not reflexes.asks_a_list(text)) or (
                route.intent in ("recall", "list_reminders", "list_todos") and self._asks_name(text)) or (
                route.intent == "recall" and replycheck.asks_to_write(text) and not replycheck.asks_recall(text)):
            # "你猜我今天几点起的？" is a game, "如果可以删掉一段记忆…" a wish, "我妈每天早上七点叫我起床" a story;
            # "long day at work today" is like "what day is it today", "my todo list is so long it's
            # depressing" like "what's on my todo list", but they ask nothing; "你叫啥来着" asks the
            # pet's name, not what the pet remembers of the person; "write me a workout plan" asks for
            # something new
            return dataclasses.replace(route, intent=intents.CHAT, tool=None, slots="none")
        asked = _asking(text)
        if route.intent == "recall" and not capture.names_the_person(asked) and not replycheck.asks_recall(text) and (
                not _ASKS_BACK.search(text) and not self._known(asked) and not self._near(asked)):
            # "what's the capital of Canada?" is near questions for a memory, but asks nothing of the person's, and
            # no memory holds its words or is near it in meaning ("房东叫啥来着" is near "landlord is Mr. Pereira");
            # of a message of several sentences, the question's ("what do crayfish eat? i got you some pellets
            # from the shop", round 35's spent chat set: "No memories match that.")
            return dataclasses.replace(route, intent=intents.CHAT, tool=None, slots="none")
        if route.intent == "recall" and _ADVICE.search(text) and not replycheck.asks_recall(text) and not (
                _ASKS_AGAIN.search(text)) and not (
                _TOLD.search(text)) and not self._known(text):
            # "what are some snacks i can bring to the party" asks advice: near "I'm allergic to peanuts" in meaning,
            # but no memory holds a word of it ("which bus should i take to work?" and "I take the 42 bus" do)
            return dataclasses.replace(route, intent=intents.CHAT, tool=None, slots="none")
        if route.intent == "recall" and told_as_asked(text):
            # "dont let me forget who my new dentist is: dr. okafor" is near "who is my dentist?" but tells the answer
            # (round 31's spent set)
            return dataclasses.replace(route, intent="remember", tool="remember", slots="fact")
        if route.intent == "remember" and _TOLD.search(text) and _CHECKS.search(text) and (
                reflexes.kept_fact(text) is None) and not _KEEP_WORDS.search(text):
            # "check一下我之前说的护照号码" is near "帮我记一下护照号码", but looks up what was told (round 47's spent set)
            return dataclasses.replace(route, intent="recall", tool="recall", slots="message")
        if route.intent == "remember" and reflexes.opens_a_question(text) and (
                _TOLD.search(text) or not (reflexes.request_form(text) or _KEEP_WORDS.search(text))) and (
                reflexes.kept_fact(text) is None):
            # "what did i tell u my passport number ends with" is near "remember my passport number…" but asks what
            # was told (round 29's spent set); so does "where'd i put my passport", asking nothing kept (used as a
            # person would: "I'm a crayfish, not an assistant.")
            return dataclasses.replace(route, intent="recall", tool="recall", slots="message")
        if route.intent != "cancel_reminder" and _named_for_dropping(text) and not reflexes.replaces(text):
            # "小林婚礼我去不了了 那个提醒删了吧": a clause drops the reminder the words before it name (round 29's spent set)
            return dataclasses.replace(route, intent="cancel_reminder", tool="cancel_reminder", slots="message")
        if route.intent != "cancel_reminder" and self._lets_go(text) and not reflexes.replaces(text):
            # "取护照那个不用提醒了，明天我反正要路过" is near "帮我记一下…" but lets the passport reminder go
            return dataclasses.replace(route, intent="cancel_reminder", tool="cancel_reminder", slots="message")
        other = reflexes.lists_the_other(route.intent or "", text)
        if other is not None:
            return dataclasses.replace(route, intent=other, tool=other)
        if route.intent == "forget" and reflexes.names_a_reminder(text) and asks_deleting(text):
            # "把那个提醒删了吧" is near "把那条记忆删了" but deletes a reminder
            return dataclasses.replace(route, intent="cancel_reminder", tool="cancel_reminder", slots="message")
        if route.intent == "remind" and asks_deleting(text) and reflexes.deletes_a_reminder(text):
            # "看牙那个提醒不要了，医生那边改时间了" is near "下周一提醒我去看牙" but lets a reminder go
            return dataclasses.replace(route, intent="cancel_reminder", tool="cancel_reminder", slots="message")
        if route.intent == "forget" and not asks_deleting(text):
            # "门禁密码？" is near "忘掉密码" but has no word of deleting: the forget tool would refuse it, so
            # the router is not sure of it (a question for a kept value may still go to recall)
            return dataclasses.replace(route, intent=None, tool=None, by="")
        if route.intent in (None, "remember", intents.NOTE) and route.nearest in ("remember", "forget", intents.NOTE) and (
                no_longer_kept(text)) and self._known(text):
            # "got a new job so you don't need to keep my office parking spot anymore": between keeping and
            # forgetting to the router, but it lets a kept thing go (so does "we rehomed Biscuit 😢 no need to
            # remember his vet anymore", nearest the facts: round 25's spent set; "我已经不练吉他了，不用记着了", read as
            # a fact to note: round 47's)
            return dataclasses.replace(route, intent="forget", tool="forget", slots="message")
        if route.intent is None and route.nearest in ("remember", "forget", intents.NOTE) and (
                _OPENS_DELETING.match(text) or any(_DELETES_IT.search(part) for part in reflexes.clauses(text))) and (
                self._known(text)):
            # "scrub the thing about me hating olives": between keeping and forgetting to the router, but it opens with
            # a verb of deleting, and a memory holds its words
            return dataclasses.replace(route, intent="forget", tool="forget", slots="message")
        if route.intent in ("remember", intents.NOTE) and any(_DELETES_IT.search(part) for part in reflexes.clauses(text)) and (
                self._known(text)):
            # "that office address u have for me, toss it, company moved buildings", "我戒咖啡了 之前说爱喝美式那条清掉吧": a
            # clause deletes what another names, and a memory holds its words (not news to note)
            return dataclasses.replace(route, intent="forget", tool="forget", slots="message")
        if route.intent is None and capture.says_change(text) and any(
                _DELETES_IT.search(part) for part in reflexes.clauses(text)) and self._known(text):
            # "i quit brightwater last friday so you can drop that", "我早就不喝美式了，忘了这个吧": news that a kept
            # thing changed, and a clause that lets it go (round 46's spent set: no tool; the router torn)
            return dataclasses.replace(route, intent="forget", tool="forget", slots="message")
        if route.intent == "remember" and asks_deleting(text) and reflexes.kept_fact(text) is None:
            # "我鞋码那条不用留着了" is near "帮我存一下鞋码" but asks to let go of it, and nothing to keep
            return dataclasses.replace(route, intent=None, tool=None, by="")
        if route.intent == "cancel_reminder" and _NOT_CANCELLING.search(text):
            # "…，看牙医那个别取消", "看牙医那个取消了吗？": kept or asked about (the review of 2026-12-06: each cancelled it)
            return dataclasses.replace(route, intent=None, tool=None, by="")
        return route

    def _buried(self, text: str, route: intents.Route) -> tuple[intents.Route, str]:
        """A request in one clause of a message the router reads as nothing as a
        whole ("long day at the clinic, patients everywhere. anyway can you
        remember that…"): that clause's route and words, when it asks in its form
        (reflexes.request_form), no other clause asks for a tool and the whole
        message leans to no other; else `route` and the whole message."""
        found: list[tuple[intents.Route, str]] = []
        parts = reflexes.clauses(text)
        if len(parts) < 2 or len(parts) > reflexes.MOST_CLAUSES or retracted(text) or capture.joking(text):
            # "remind me to call Felix at noon... actually never mind"; a long message is the model's (each
            # clause would be routed)
            return route, text
        for part in parts:
            routed = self._route(part, whole=text)
            if _pointing(part, text):
                # "…. anyway make a note of it": keep what was said before (the router hears little in it)
                found.append((dataclasses.replace(route, intent="remember", tool="remember", slots="fact"), part))
            elif self._asks_kept(part, routed):
                # a question for one thing a memory holds, among talk ("到门口了…wifi密码是啥来着，我之前告诉过你的",
                # "…totally blanking — what was that ramen place i said i liked? the guy behind me is sighing lol")
                found.append((dataclasses.replace(route, intent="recall", tool="recall", slots="message"), part))
            elif routed is not None and routed.intent not in (None, intents.CHAT, intents.NOTE) and not (
                    routed.intent == "cancel_reminder" and not reflexes.names_a_reminder(part)
                    and not reflexes.request_form(part)):
                # (news that neither asks nor names a reminder cancels none: "the plumber finally showed up")
                found.append((routed, part))
            elif reflexes.request_form(part):
                return route, text  # a second request the router does not know: the model's
        if len(found) == 2 and found[0][0].intent == "remember" and _pointing(found[1][1], text) and (
                parts.index(found[1][1]) == parts.index(found[0][1]) + 1):
            # the fact, then the asking that points back at it: one request ("…my new office is room 1207 on floor 12,
            # keep that in mind for me ok? then i got home…", round 30's spent set)
            found = found[1:]
        if len(found) != 1 or not (reflexes.request_form(found[0][1]) or _pointing(found[0][1], text) or (
                found[0][0].intent == "recall" and self._asks_kept(found[0][1], None)) or (
                found[0][0].intent == "time" and _ASKS_ANYTHING.search(found[0][1]) and reflexes.names_the_clock(found[0][1]))):
            # (a question for the clock after talk is asked all the same: "lost track of the days since the trip. what
            # weekday are we on", round 47's spent set)
            return route, text  # (a clause that asks to keep what was said before it asks: "这个你记住哈")
        if route.nearest not in (found[0][0].intent, intents.CHAT, intents.NOTE) and not _pointing(found[0][1], text) and not (
                found[0][0].intent == "recall" and route.nearest == "remember"):
            # the whole leans to another request ("…, drop that reminder": cancel, not list); a clause that asks
            # to keep what was said before it says what it asks in its words ("我新老板姓钟，帮我记住 免得我又叫错"); a
            # question for a thing kept is near the facts it asks for ("到门口了…wifi密码是啥来着，我之前告诉过你的")
            return route, text
        return found[0]

    def _asks_kept(self, part: str, routed: intents.Route | None) -> bool:
        """A clause that asks for one thing of the person's that a memory holds the words of or is close to in
        meaning ("wifi密码是啥来着"), which the router does not read as another tool's request."""
        return (routed is None or routed.intent in (None, intents.CHAT, intents.NOTE, "remember", "recall")) and (
            reflexes.kept_fact(part) is None and reflexes.asks_kept_value(part) and not _ADVICE.search(part)
            and not self._asks_name(part) and (self._known(part) or self._near(part, CLOSE_MEMORY)))

    def _several(self, turn: _Turn, text: str, now: dt.datetime) -> Generator[Event, None, bool]:
        """Several requests in one message ("现在几点了 顺便帮我算下1280除以16",
        "what reminders do I have? and cancel the gym one"): when every clause is
        a request that a reflex reads or the router decides, with its arguments
        found in code or in the clause's own words, the calls run in the order
        asked. False when any clause is not (the model decides, as before)."""
        router = intents.router()
        parts = reflexes.clauses(text)
        if router is None or len(parts) < 2:
            return False
        steps: list[tuple[str, tuple[ToolCall, ...]]] = []
        asides = 0
        unfilled: list[int] = []  # the steps whose arguments the model is to find
        routed = False  # a call whose tool the router chose: the confirm_tools setting applies to it
        for part in parts:
            # ("再加一个：买电池" after "把我的待办列一下" adds to the list the message names: no model needed)
            reflex = reflexes.match(part, now, self.persona.zone(), turn.language) or reflexes.todo_said_before(part, text)
            if reflex is not None and reflex.calls and reflex.command is None:
                steps.append((part, tuple(reflex.calls)))
                continue
            routed = True
            route = self._route(_asked(part, text), whole=text)
            tool = self.tools.get(route.tool or "") if route is not None else None
            if (route is None or route.intent in (None, intents.CHAT, intents.NOTE)) and self.tools.get("recall") and (
                    not _RHETORICAL.search(part)) and (
                    self._asks_kept(part, route) or route is not None and route.intent is None and route.nearest == "recall"
                    and _AGAIN.search(part) and (self._known(part) or self._near(part, CLOSE_MEMORY))):
                # a question for one thing a memory holds ("when is Jonah's birthday again?"), beside a request (not
                # a rhetorical one: "who even eats peanuts anymore? add buy almonds to my todo")
                route, tool = intents.Route("recall", "recall", "message", 1.0, 1.0, "recall"), self.tools.get("recall")
            elif (route is not None and route.intent is None and steps and steps[-1][1][-1].name == "list_reminders"
                    and reflexes.points_at_one(part) and (asks_deleting(part) or _CANCELS.search(part))
                    and not _NOT_CANCELLING.search(part)):
                # one of the reminders just listed, let go ("帮我列一下提醒，然后把看牙医那个取消了": the router was torn
                # between forgetting and cancelling, round 37's spent set)
                route = intents.Route("cancel_reminder", "cancel_reminder", "message", 1.0, 1.0, "cancel_reminder")
                tool = self.tools.get("cancel_reminder")
            if steps and steps[-1][1][-1].name == "recall" and _LOOK_IT_UP.fullmatch(part.strip()):
                continue  # the question asked again as a request: "我房东叫啥？帮我查一下，再加个待办：…" (round 38's spent set)
            if (route is None or route.intent in (None, intents.CHAT, intents.NOTE)) and reflexes.aside(part, most=6):
                asides += 1  # a short reason between requests: "forget that i work at Brightline, i quit. remember…"
                continue
            if route is None or route.intent in (None, intents.CHAT, intents.NOTE) or tool is None:
                return False
            if route.intent == "recall" and _RHETORICAL.search(part):
                return False  # "who even eats peanuts anymore? add buy almonds to my todo": no question for a memory
            if route.slots == "model":
                # its arguments are the model's to find, from the clause alone ("show me my todos then add 'mail
                # the rent check'": add what?), once every clause is known to be a request
                steps.append((part, (ToolCall(tool.name, {}),)))
                unfilled.append(len(steps) - 1)
                continue
            if route.slots == "message":
                call = self._message_slots(tool, part)
                if call is None:
                    return False
                steps.append((part, (call,)))
                continue
            found = reflexes.slots(route.intent, tool.name, route.slots, part, now, self.persona.zone())
            if found is None or not found.calls:
                return False
            steps.append((part, tuple(found.calls)))
        if asides and len(steps) < 2:
            return False  # one request beside talk is not several
        for at in unfilled:
            clause, (empty,) = steps[at]
            filled = self._clause_slots(turn, self.tools.get(empty.name), clause)
            if filled is None:
                return False
            steps[at] = (clause, (filled,))
        calls = reflexes.reminders_deleted(reflexes.of_the_list(steps))
        turn.trace.reflex = "several: " + ", ".join(call.name for call in calls)
        # reflexes read the person's precise words, as a reflex alone does; a routed call waits for
        # an OK where the settings ask for one, as a routed request alone does
        results = yield from self._execute(turn, "", tuple(calls), person=not routed)
        if turn.asking:
            yield from self._finish(turn, turn.asking, streamed=False)
            return True
        yield from self._finish(turn, plain_lines(calls, results, turn.language), streamed=False)
        return True

    def _clause_slots(self, turn: _Turn, tool: Any, clause: str) -> ToolCall | None:
        """One clause's call with the arguments the model gives when asked of
        that clause alone, held to the tool's schema ("再加一个取快递" → 取快递); None
        when it gives none, or words nobody said (`_poor_fill`, `mostly_new`)."""
        spec = next((spec for spec in self.tools.specs() if spec.name == tool.name), None)
        last = max((i for i, m in enumerate(turn.messages) if m.role == "user"), default=None)
        if spec is None or last is None:
            return None
        messages = [*turn.messages[:last], Message("user", clause), *turn.messages[last + 1:]]
        alone = dataclasses.replace(turn, messages=messages)
        call = self._model_slots(alone, [spec])
        said = [clause, *(m.content for m in turn.messages if m.role == "user" and m.content)]
        if call is None or self._poor_fill(call, alone, clause) or any(
                isinstance(value, str) and mostly_new(value, said) for value in call.arguments.values()):
            return None
        return call

    def _routed(self, turn: _Turn, route: intents.Route, text: str, now: dt.datetime,
                specs: list) -> Generator[Event, None, bool]:
        """Run the routed intent's tool with its slots filled; False when they
        cannot be (the model then decides, with every tool)."""
        tool = self.tools.get(route.tool or "")
        if tool is None:
            return False
        if route.slots in ("model", "message"):
            if route.slots == "message" and (
                    tool.name == "recall" and about_the_person(reflexes.request_words(text))
                    or tool.name == "cancel_reminder" and _named_for_dropping(text)
                    or tool.name == "forget" and _named_for_deleting(text)):
                # "你记得我什么？": everything known about the person, no model needed (it would copy a topic); a clause
                # that drops or deletes what the words before it name ("小林婚礼我去不了了 那个提醒删了吧"): those words
                call = self._message_slots(tool, text)
            else:
                call = self._model_slots(turn, [spec for spec in specs if spec.name == tool.name])
            if (call is not None and self._poor_fill(call, turn, text)) or (call is None and route.slots == "message"):
                call = self._message_slots(tool, text)
            if call is None:
                return False
            results = list((yield from self._execute(turn, "", (call,))))
            if turn.asking:
                yield from self._finish(turn, turn.asking, streamed=False)
                return True
            new = _new_value(turn.tool_context.message, (call,), results)
            if new is not None:
                # the new value said beside ("scrap the note that my favorite tea is earl grey, it's jasmine now")
                results += yield from self._execute(turn, "", (new,), person=True)
            template = "\n".join(plain_result(r) for r in results)
            worded = self._word(turn, template) if all(r.ok for r in results) else None
            yield from self._finish(turn, worded or template, streamed=False)
            return True
        reflex = reflexes.slots(route.intent or "", tool.name, route.slots, text, now, self.persona.zone())
        if reflex is None and tool.name == "remember" and route.slots == "fact":
            reflex = self._kept_before(turn.tool_context.message, text) or self._kept_after(text)
        if reflex is None and tool.name == "calculate" and arithmetic.counted(text) >= 2 and arithmetic.asks_a_sum(text):
            # a sum in words the calculator's reader does not know: the model writes it for the calculator, held
            # to the tool's schema, when every figure of it is one the message says or a unit's own ("we rented a
            # van for 3 days at 74 a day plus 39 for insurance, split between 4 of us", round 38's spent set)
            call = self._model_slots(turn, [spec for spec in specs if spec.name == tool.name]) if (
                _ASKS_A_RESULT.search(text)) else None
            if call is not None and sum_of_said(call.arguments.get("expression"), turn.tool_context.message):
                results = list((yield from self._execute(turn, "", (call,))))
                if all(result.ok for result in results):
                    template = plain_lines((call,), results, turn.language)  # "(3 * 74 + 39) / 4 = 65.25"
                    yield from self._finish(turn, self._word(turn, template) or template, streamed=False)
                    return True
            # else the model answers, and a figure it
            # states that neither the message nor a tool gave is held (figures.Asked.unread); a question
            # of fact with one number or none ("how many ounces in a cup?") is the model's, and so is a sum
            # said with its result ("三乘七等于二十一，这个我还是会的哈哈" was asked to be written as a sum, seen
            # using the page)
            turn.unread_sum = True
        if reflex is None:
            return False
        yield from self._reflex(turn, reflex)
        return True

    @staticmethod
    def _kept_before(message: str, clause: str) -> reflexes.Reflex | None:
        """A request to remember that points back ("heads up, I can't eat shellfish. yeah yeah, awkward thing
        to tell a crayfish lol. anyway make a note of it"): the fact stated before it in the message, when one
        is; None else."""
        at = message.rfind(clause)
        if at <= 0 and clause.strip() == message.strip():
            # the router read the whole message as the request ("shoe size 43 btw. keep that in your
            # noggin"): its last clause may be the asking, pointing back
            # (or the last that points back, before talk: "…住我对门1902 你帮我记着点 以后好打招呼 话说你们小龙虾搬家吗")
            parts = reflexes.clauses(message)
            if len(parts) > 1:
                clause = next((part for part in reversed(parts[1:]) if _pointing(part, message)), parts[-1])
                at = message.rfind(clause)
        reader = capture.reader()
        if at <= 0 or reader is None:
            return None
        if not (_pointing(clause, message) or reflexes.points_at(clause) and not reader.facts(clause)):
            return None
        if reflexes.names_by_pronoun(clause) and message[at + len(clause):].strip(" .!。！~～"):
            # "remember his name?" asks; "remember her name, its Priya" gives the name after it
            return None
        # the fact nearest before it, of the clauses before it ("今天好累啊 上了一整天班 … 我搬家了 新地址是梧桐路88号
        # 3栋502 你帮我记住吧": the address), else of their sentences
        before = message[:at]
        told = [(part, fact) for part in reflexes.clauses(before) for fact in reader.facts(part)]
        found = [fact for _, fact in told][-1:] or reader.facts(before)
        if not found:
            # each clause read as the sentence it would be alone: the learned reading weighs the end mark ("对了新老板叫
            # 邵振宇" was no fact without it, round 47's spent set)
            told = [(part, fact) for part in reflexes.clauses(before) for fact in reader.facts(_as_sentence(part))]
            found = [fact for _, fact in told][-1:]
        if not found:
            return None
        fact = found[0][0]
        start = before.rfind(fact)
        if start >= 0:
            # what follows it up to a mark, while it gives a figure or a fact of its own ("我搬家了 新地址是…88号";
            # not "我对花生过敏 今天跟同事吃饭 差点出事")
            segment = _CLAUSE_MARK.split(before[start:], maxsplit=1)[0]
            parts = reflexes.clauses(segment)
            kept = parts[:1]
            if not told:
                # no clause states it alone, the clauses together do ("今天搬家累死了 新邻居人挺好的 叫王阿姨
                # 住我对门1902 你帮我记着点"): all of them but those telling of the day around them
                while len(parts) > 1 and capture.of_the_moment(parts[0]):
                    parts.pop(0)
                while len(parts) > 1 and capture.of_the_moment(parts[-1]):
                    parts.pop()
                kept = parts
                segment = segment[segment.find(parts[0]):]
                start = before.find(segment, start)
            for part in parts[len(kept):]:
                if not (re.search(r"\d", part) or reader.facts(part)):
                    break
                kept.append(part)
            end = start + (segment.rfind(kept[-1]) + len(kept[-1]) if kept else len(fact))
            if told and told[-1][1][0] == fact:
                # and the facts said just before it in the same sentence ("before i forget, his name is Gustavo and
                # his number is 555-0193, can you hold onto that for me")
                parts = reflexes.clauses(before[:start])
                while parts and reader.facts(parts[-1]) and not _SENTENCE_END.search(
                        before[before.rfind(parts[-1]):start]):
                    start = before.rfind(parts.pop())
            if reflexes.names_by_pronoun(clause):
                # whose name it is, said in the same sentence ("so we finally adopted a cat and shes called
                # Pickle!! remember her name pls", round 34's spent set)
                start = max((m.end() for m in _SENTENCE_END.finditer(before, 0, start)), default=0)
            fact = before[start:end]
        return reflexes.Reflex("remember", (ToolCall("remember", {"content": without_chat_words(reflexes.unpadded(fact))}),))

    @staticmethod
    def _kept_after(text: str) -> reflexes.Reflex | None:
        """A request to remember said first in words of its own, the fact after a colon or comma ("keep this in
        that crayfish head of yours: my locker is 42", "这个记在你小本本上：我妈生日是腊月初八", "hold onto this one, my
        landlord is called Mr Ferris"): the opening part names nothing of the person's and states nothing; what follows states a fact
        or a figure and asks for nothing else. None else (the model fills the slot)."""
        reader, router = capture.reader(), intents.router()
        split = _OPENING.match(text)
        if reader is None or router is None or split is None:
            return None
        head, rest = split.group("head"), split.group("rest").strip()
        if (re.search(r"\d", head) or _NAMES_THEIRS.search(head) or reader.facts(head)
                or rest.endswith(("?", "？")) or not (reader.facts(rest) or re.search(r"\d", rest))):
            return None
        if router.route(rest).intent not in (None, "remember", intents.NOTE, intents.CHAT):
            return None  # "记一下，明天九点提醒我开会": a request of its own after it
        return reflexes.Reflex("remember", (ToolCall("remember", {"content": without_chat_words(reflexes.unpadded(rest))}),))

    @staticmethod
    def _message_slots(tool: Any, text: str) -> ToolCall | None:
        """A call of a tool that finds what it needs by words (recall, forget,
        cancel_reminder) with the person's message as its one argument: "剪头发
        那个提醒取消掉" finds the haircut reminder. None for another kind of tool."""
        required = tool.parameters.get("required", [])
        properties = tool.parameters.get("properties", {})
        if len(required) != 1 or properties.get(required[0], {}).get("type") != "string":
            return None
        words = ((tool.name == "cancel_reminder" and (reflexes.lets_a_reminder_go(text, keeps_coming=True) or _named_for_dropping(text)))
                 or (tool.name == "forget" and _named_for_deleting(text)) or reflexes.request_words(text))
        return ToolCall(tool.name, {required[0]: words}) if words else None

    def _poor_fill(self, call: ToolCall, turn: _Turn, text: str) -> bool:
        """The model's arguments say less than the message: an id ("#2") that
        neither the message nor the conversation so far shows (a guess, not
        the person's choice), "me" (everything known about the person) for
        a question about one thing ("whats my dog's name?"), or words nobody
        said ("add laundry to my list" filled as "clean the closet")."""
        shown = [text, *(m.content for m in turn.messages if m.role in ("tool", "assistant") and m.content)]
        # what the person and the pet said so far ("add that to my list" takes its words from before)
        said = [*shown, *(m.content for m in turn.messages if m.role == "user" and m.content)]
        tool = self.tools.get(call.name)
        for value in call.arguments.values():
            if isinstance(value, str) and tool is not None and description_copied(value, tool.parameters, text):
                return True
            if isinstance(value, str) and call.name in ("forget", "cancel_reminder") and _ONLY_ASKING.fullmatch(
                    value.strip()):
                return True  # the asking, not what: "那个网名我早不用了，别再记着了，删掉删掉" filled as "删掉" (round 38's spent set)
            if isinstance(value, str) and about_the_person(value) and not about_the_person(text):
                return True
            if isinstance(value, str) and invented(value, said):
                return True
            if isinstance(value, str) and call.name == "recall" and invented(value, [text]) and _copied(
                    value, [m.content for m in turn.messages if m.role == "user" and m.content]):
                # a question looked up by an earlier message, copied ("我现在做什么工作你知道吗" filled as "今天好累啊，
                # 加班到九点": "no memories match", seen on the page); not a pronoun the model resolved ("Lily workplace"
                # for "do you remember where she works?" after "my sister Lily just got a new job": the review)
                return True
            if isinstance(value, str) and _ONLY_FIGURES.fullmatch(value.strip()) and not all(
                    any(number in line for line in said) for number in re.findall(r"\d+", value)):
                # a date and hour nobody said for which reminder to cancel ("去医院那个不用提醒了" filled as
                # "2033-07-14 10:15", the clock's: round 26's spent set)
                return True
            found = read_id(str(value)) if isinstance(value, str) else None
            if found is None:
                continue
            if not any(re.search(rf"(?<!\d){found}(?!\d)", line) for line in shown):
                return True
        return False

    def _model_slots(self, turn: _Turn, specs: list) -> ToolCall | None:
        """The tool's arguments from the model, held to the tool's JSON schema
        where the brain can (the embedded one); None if it gives no call."""
        if not specs:
            return None
        forced = "force_tool" in inspect.signature(self.brain.complete).parameters
        record = turn.trace.model_call(0, turn.messages, [spec.name for spec in specs], purpose="slots")
        offered, limits = self._shown_tools(specs)
        try:
            if forced:
                completion = self.brain.complete(turn.messages, offered, force_tool=True,  # type: ignore[call-arg]
                                                 **limits)
            else:
                completion = self.brain.complete(turn.messages, specs)
        except BrainError as exc:
            step_finished(record, None, str(exc))
            return None
        step_finished(record, completion)
        calls = [call for call in completion.tool_calls if call.name == specs[0].name and not call.error]
        return calls[0] if calls else None

    def _shown_tools(self, specs: list) -> tuple[list, dict[str, Any]]:
        """The tools to put in the prompt, and the keywords that let the model
        call only `specs` of them. A brain that caches its prompt's prefix and
        can withhold tools (the embedded one) is shown every tool every time:
        a turn offering fewer, or none, would otherwise change the prompt
        before the conversation's history and have it all read again (~1,500
        tokens, half a minute on a busy 2-core machine), twice."""
        if not getattr(self.brain, "withholds_tools", False):
            return specs, {}
        every = self.tools.specs()
        if [spec.name for spec in specs] == [spec.name for spec in every]:
            return every, {}
        return every, {"may_call": [spec.name for spec in specs]}

    def _note(self, turn: _Turn, text: str) -> Generator[Event, None, bool]:
        """Keep the facts the message states about the person, each shown as a
        "noted" step the person can take back with /undo."""
        if not isinstance(self.memories, capture.NoteBook):
            return False
        if any(_DELETES_IT.search(part) or _DROPS_THAT_REMINDER.search(part) for part in reflexes.clauses(text)):
            return False  # "我戒咖啡了 之前说爱喝美式那条清掉吧" with no such memory: it asks to delete, it tells nothing to keep
        started = time.perf_counter()
        try:
            noted = capture.note(self.memories, self.pet.id, text, source_message_id=turn.tool_context.message_id,
                                 conversation_id=turn.conversation_id)
        except Exception as exc:  # noting is an aid: the answer goes on
            log.warning("could not note the facts of the message: %s", exc)
            return False
        seconds = time.perf_counter() - started
        turn.tool_context.noted.extend(fact.record.content for fact in noted)
        for fact in noted:
            call = ToolCall(capture.STEP, {"content": fact.record.content})
            result = ToolResult(call.id, capture.STEP, True, capture.said(fact, turn.language))
            self.conversations.append(turn.conversation_id, Message("assistant", "", tool_calls=(call,)))
            self.conversations.append(turn.conversation_id, Message("tool", result.content, tool_call_id=call.id,
                                                                    name=capture.STEP))
            yield ToolStarted(call)
            yield ToolFinished(result, seconds / len(noted))
        return bool(noted)

    def _language(self, conversation_id: int, text: str) -> str:
        """The message's language. A /command speaks the language of its own
        words ("/remember 我喜欢猫"), else of the person's last message ("/undo")."""
        if not text.startswith("/"):
            return detect_language(text, default=self.persona.languages[0])
        return detect_language(_without_command(text), default=self._last_language(conversation_id))

    def _last_language(self, conversation_id: int) -> str:
        """The language of the person's last message here (before any: the
        pet's first language)."""
        recent = self.conversations.history(conversation_id, limit=self.config.history_messages)
        for stored in reversed(recent):
            words = _without_command(stored.message.content)
            if stored.message.role == "user" and detect_language(words, default="") in ("zh", "en"):
                return detect_language(words)
        return self.persona.languages[0]

    def _greeting(self, now: dt.datetime, language: str, message_id: int) -> str | None:
        """The day's greeting when this is the person's first message of the
        pet's local day (from pet.persona.greeting, deterministic per day)."""
        last = self.conversations.last_said(self.pet.id, before_message_id=message_id)
        if not first_of_day(self.persona, now, last):
            return None  # checked first: spare the memory read on every other message
        memories = self.memories.listing(self.pet.id, status="active", limit=GREETING_MEMORIES)
        return greeting(self.persona, now, self.pet.adopted_on, language, last, memories)

    def _outside_content(self, name: str | None, ok: bool) -> bool:
        """Whether a tool's result may hold outside content. A failed call of
        a tool that reads outside may quote what it read too (a shell program
        stopped at its timeout shows its output so far); the failure of a
        tool that does not exist is the framework's own words. A noted fact
        (capture.STEP) is the person's own words, kept."""
        if name == capture.STEP and self.tools.get(name) is None:
            return False  # (a plugin tool of that name is outside content like any other)
        if ok:
            return self.tools.reads_outside(name)
        tool = self.tools.get(name) if name else None
        return tool is not None and tool.reads_outside

    def _tool_context(self, conversation_id: int, message_id: int, language: str, text: str) -> ToolContext:
        """Who is asking, and where the facts of this turn came from: the
        person's recent words versus what tools returned lately."""
        recent = self.conversations.history(conversation_id, limit=self.config.history_messages)
        said = [m.message.content for m in recent if m.message.role == "user" and m.status != "rejected"]
        outputs = [m.message.content for m in recent
                   if m.message.role == "tool" and m.status in ("ok", "error")
                   and self._outside_content(m.message.name, m.status == "ok")]
        return ToolContext(self.pet.id, conversation_id, message_id, language,
                           person_words="\n".join(said), message=text, tool_output=outputs)

    def _model_loop(self, turn: _Turn, specs: list) -> Iterator[Event]:
        repeats = RepeatGuard()
        corrected = strayed = False
        shown_before = ""  # text the person already saw from a step that was corrected
        # A brain with constrained tool calls never writes a real call as prose.
        text_calls = not getattr(self.brain, "constrained_tool_calls", False)
        # a sum taken back ("what's 2+2? jk") asks for no figure to check
        asked = None if retracted(turn.tool_context.message) else figures.asked(turn.tool_context.message) or (
            figures.Asked(unread=True) if turn.unread_sum else None)
        if asked is not None and self.tools.get(asked.tool) is not None:
            turn.asked = asked
        # the pet's last replies, and the person's messages before this one (seen on the page: "I'm back!
        # what's my name?" came back as the reply to the next message)
        earlier = [m.content for m in turn.messages if m.role == "user" and m.content][:-1]
        said = tuple(m.content for m in turn.messages if m.role == "assistant" and m.content)[-SAID_CHECKED:]
        checks = replycheck.Checker(turn.tool_context.message, turn.language, self.persona, turn.memories,
                                    small=getattr(self.brain, "holds_replies", False), said=said,
                                    heard=tuple(earlier[-SAID_CHECKED:]))
        # a brain that can keep its reply from copying the message or its prompt is asked to
        avoids = getattr(self.brain, "avoids_copies", False)
        copies: dict[str, Any] = {"avoid_copies": True} if avoids else {}
        # a brain that can is held to begin its prose in the person's language
        steer: dict[str, Any] = {"reply_language": turn.language} if getattr(self.brain, "steers_language",
                                                                             False) else {}

        # A brain whose replies are short and quick but often fail the checks (the embedded
        # ladder's) shows none of a reply before it has passed them: a try that is retried
        # or stood in for is never left on the screen above the next.
        # So is the reply to a question taken back: a claim of something done gives way to a plain "never mind",
        # unseen (a request taken back is let go without the model).
        whole = getattr(self.brain, "holds_replies", False) or turn.trace.reflex == "taken back"

        def hold_at(text: str) -> int | None:
            if whole:
                return 0
            holds = [at for at in (turn.hold_at(text), checks.hold_at(text)) if at is not None]
            return min(holds, default=None)

        # A small model writes a traditional character now and then (乌龍茶): the
        # pet writes simplified Chinese, as its prompt says, and the reply shown
        # as it streams is the reply stored, character for character.
        written: Callable[[str], str] = simplified_chars if turn.language == "zh" else str

        for step in range(self.config.max_model_calls):
            set_log_fields(step=step)
            gate = _StreamGate(hold_at, text_calls)
            completion: Completion | None = None
            started = time.perf_counter()
            record = turn.trace.model_call(step, turn.messages, [spec.name for spec in specs])
            offered, limits = self._shown_tools(specs)
            stream = self.brain.stream(turn.messages, offered, **copies, **limits, **steer)
            try:
                for part in stream:
                    if isinstance(part, TextDelta):
                        step_started(record)
                        delta, ended = written(part.text), None
                        if self.config.reply_sentences and gate.hold_at is None:
                            ended = replycheck.end_of_sentences(gate.text + delta, self.config.reply_sentences,
                                                                self.config.reply_letters or None)
                            if ended is not None:
                                delta = (gate.text + delta)[len(gate.text):ended]
                        shown = gate.feed(delta)
                        if shown:
                            held = time.perf_counter()
                            yield TextDelta(shown)
                            step_paused(record, time.perf_counter() - held)
                        if ended is not None:  # enough said: the rest is not generated
                            getattr(stream, "close", lambda: None)()
                            completion = Completion(text=gate.text, finish_reason="stop")
                            break
                    else:
                        completion = replace(part, text=written(part.text)) if part.text else part
            except GeneratorExit:  # the person stopped the turn (or left): keep what they saw
                getattr(stream, "close", lambda: None)()
                self._store_cut(turn, shown_before + gate.text[: gate.emitted])
                raise
            except BrainError as exc:
                log.warning("model call failed at step %d: %s", step, exc)
                step_finished(record, completion, str(exc))
                yield from self._cut_short(turn, shown_before + gate.text[: gate.emitted], str(exc))
                return
            took = time.perf_counter() - started
            log.info("model call %d took %.3f s", step, took, extra={"duration": took})
            if completion is None:
                completion = Completion(text=gate.text)
            step_finished(record, completion)

            calls = completion.tool_calls
            prose = completion.text
            if not calls and gate.hold_at is not None:
                calls = tuple(extract_tool_calls(completion.text, self.tools.names()))
                if calls:
                    prose = completion.text[: gate.hold_at]
            if not calls:
                final = completion.text.strip()
                unsupported = claimed_actions(final) - turn.done
                if _LET_IT_GO.search(turn.tool_context.message) and not _ASKS_FORGETTING.search(
                        _LET_IT_GO.sub("", turn.tool_context.message)):
                    # "…nah the hills would kill me, forget it" lets the talk go: the model's "ok, forgotten!" plays
                    # along, no claim to correct with how forgetting works (seen using the page)
                    unsupported.discard("forget")
                if unsupported and not corrected and step + 1 < self.config.max_model_calls:
                    # Claim guard: the person never sees the false claim; ask once more.
                    log.info("claim guard: reply claims %s without a tool call; retrying", unsupported)
                    corrected = True
                    joint = _after_shown(gate.text[: gate.emitted])
                    if joint:
                        yield TextDelta(joint)
                    shown_before += gate.text[: gate.emitted] + joint
                    turn.messages.append(Message("assistant", final))
                    turn.messages.append(Message("user", correction(unsupported)))
                    continue
                if unsupported and turn.trace.reflex == "taken back" and not gate.emitted and not shown_before.strip():
                    # the person took the message back: nothing is done, and the pet says so plainly
                    yield from self._finish(turn, fallback_line("taken_back", turn.language, self.persona), streamed=False)
                    return
                if unsupported and unsupported <= {"remember"} and self.config.canned and not shown_before.strip() and not (
                        gate.emitted) and not reflexes.asks_keeping(turn.tool_context.message) and not (
                        _WRITE_IT_DOWN.search(turn.tool_context.message)):
                    # small talk nobody asked the pet to keep ("下个月想去青岛玩几天" → "好的，我记住了", seen using the
                    # page): its topic's own line, not a notice that nothing was kept
                    own = self._own_line(turn, turn.tool_context.message, loose=True)
                    if own is None and replycheck.asks_to_write(turn.tool_context.message):
                        # "帮我做一个考研复习计划吧" (round 35's spent chat set: "（其实我还没记下来…）")
                        own = say("off_script_writing", turn.language, self.persona)
                    if own is not None:
                        yield from self._finish(turn, own, streamed=False)
                        return
                if unsupported:
                    yield from self._end_with_line(
                        turn, shown_before, gate, honest_notice(unsupported, turn.language, self.persona),
                        _says(turn.language, "The pet claimed something it did not do; the claim was withheld.",
                              "宠物说了一件没做的事，这句话已拦下。"))
                    return
                check = turn.figure_check()
                if check is not None and check.unsupported(final):
                    yield from self._figures_in_code(turn, shown_before, gate, final)
                    return
                found = checks.problems(final, [m.content for m in turn.messages if m.role == "tool"]) if (
                    final) else replycheck.Found(())
                if found and not corrected and step + 1 < self.config.max_model_calls:
                    # One retry for all guards together: a narrow note, the bad reply unseen.
                    log.info("reply guard: %s; retrying", ", ".join(found.problems))
                    corrected = True
                    joint = _after_shown(gate.text[: gate.emitted])
                    if joint:
                        yield TextDelta(joint)
                    shown_before += gate.text[: gate.emitted] + joint
                    if avoids and replycheck.LANGUAGE not in found.problems:
                        # A small model copies a note into its reply; a brain that bans
                        # copies is asked again without one, and after an echo may not
                        # repeat two of the person's tokens in a row.
                        if replycheck.ECHO in found.problems:
                            copies = {"avoid_copies": True, "echo_run": nocopy.ECHO_RUN}
                    else:
                        turn.messages = _with_note(turn.messages, replycheck.correction(found, turn.language, self.persona))
                    continue
                if found:
                    yield from self._end_checked(turn, shown_before, gate, found)
                    return
                yield from self._finish(turn, shown_before + final, streamed=False, delta=gate.flush())
                return

            calls = _unique_ids(calls)  # results are matched to calls by id
            named = {spec.name for spec in specs}
            unfounded = {call.id for call in calls if call.name in named and self._unfounded(call, turn)}
            if unfounded:
                # …or calls an offered tool with what nobody said: its schema as the arguments, "call mom" for a
                # reminder when nobody spoke of calling anyone (the tool's own example), "it" to forget
                log.info("model called tools with unfounded arguments at step %d; not run", step)
                named = {call.name for call in calls if call.id not in unfounded and call.name in named}
            if any(call.name not in named for call in calls):
                # A model not held to a grammar names tools nobody offered it ("tip_barista",
                # "腿断了", a catchphrase), or calls one when none was: such a call is not run,
                # and none is shown as a failed step. With no offered call left, the reply is
                # asked for once more, without tools; a model that calls one again is stopped.
                dropped = [call for call in calls if call.name not in named]
                log.info("model called tools not offered at step %d: %s; not run", step,
                         ", ".join(call.name for call in dropped))
                calls = tuple(call for call in calls if call.name in named)
                if not calls and any(repeats.hit(call) for call in dropped):
                    yield from self._going_round(turn, prose, tuple(dropped))  # the same call a third time
                    return
                if not calls and not strayed and step + 1 < self.config.max_model_calls:
                    strayed, specs = True, []
                    continue
                if not calls:
                    yield from self._end_checked(turn, shown_before, gate, replycheck.Found((STRAY_CALL,)))
                    return
            if specs and all(repeats.seen(call) for call in calls):
                # Small models often ask again for the call they just made. Its
                # result is already in the messages: ask for the reply without tools.
                log.info("repeated tool call at step %d; asking for the reply without tools", step)
                repeats.hit(calls[0])
                specs = []
                continue
            if any(repeats.hit(call) for call in calls):
                yield from self._going_round(turn, prose, calls)
                return
            if whole and (rest := gate.flush()):
                yield TextDelta(rest)  # the words before the call, as a streamed reply shows them
            yield from self._execute(turn, prose, calls)
            if turn.asking:  # nothing more until the person answers
                yield from self._finish(turn, turn.asking, streamed=False)
                return

        most = self.config.max_model_calls
        yield Notice(_says(turn.language, f"Stopped after {most} model calls without a final answer.",
                           f"模型调用了 {most} 次仍没有给出回答，已停下。"), "warning")
        yield from self._finish(turn, fallback_line("turn_cap", turn.language, self.persona), streamed=False)

    def _unfounded(self, call: ToolCall, turn: _Turn) -> bool:
        """A call whose arguments nobody gave: its tool's JSON schema copied as the arguments; a thing to keep, set
        or add in words that share none with anything said in the conversation (in the same script as the message:
        a fact told in Chinese may be kept in English); a forget of nothing named ("it")."""
        arguments = call.arguments
        if {"type", "properties"} <= set(arguments) or {"type", "required"} <= set(arguments) or (
                arguments.get("type") == "object" and set(arguments) <= _SCHEMA_KEYS):
            return True
        message = turn.tool_context.message
        tool = self.tools.get(call.name)
        if tool is not None and any(isinstance(value, str) and description_copied(value, tool.parameters, message)
                                    for value in arguments.values()):
            return True  # the schema's description of the argument as the argument
        shown = [message, *(m.content for m in turn.messages if m.role in ("tool", "assistant") and m.content)]
        for key in ("what", "which"):
            found = read_id(arguments[key]) if isinstance(arguments.get(key), str) else None
            if found is not None and not any(_shows_number(line, found) for line in shown):
                return True  # an id nobody saw: "actually forget it, i don't need anything" as forget "#12"
        if call.name == "calculate" and isinstance(arguments.get("expression"), str) and not (
                arithmetic.asks_a_sum(message)):
            # a sum nobody asked, of figures nobody said ("so today was wild, like four meetings back to back…" as
            # "(14 + 9) * 4", round 30's spent set, the served model)
            said = [*shown, *(m.content for m in turn.messages if m.role == "user" and m.content)]
            heard = frozenset().union(*(arithmetic.said_numbers(line) for line in said))
            written = re.findall(r"[0-9]+(?:\.[0-9]+)?", arguments["expression"].replace(",", ""))
            if any(float(figure) not in heard for figure in written):
                return True
        if call.name in _ON_WORDS and (reflexes.quoted_saying(message) or declines_keeping(message)
                                       or _JUST_VENTING.search(message)) or (
                call.name in ("remember", "forget", "set_reminder") and _REMINISCING.search(message)):
            # someone's words quoted ("lol my grandpa used to say 'remember, the early bird…'", "我奶奶常说'记住，吃亏
            # 是福'"), "don't save anything, i'm just venting", "remember when you told me…?": round 33's set, the
            # served model, after its measurement
            return True
        if call.name == "set_reminder" and not _ASKS_REMINDING.search(message) and not turn.results and not (
                _asked_about_a_reminder(turn.messages[:-1])):
            # a plan told, nobody asking to be reminded of it ("下周六我表姐结婚，下午三点开始，好激动"); not the answer to the
            # pet's question about a reminder ("What time should I remind you?" → "3pm"). (After another tool ran, the
            # call may come from what it read: a document's instructions go to the person to confirm, as before)
            return True
        if call.name == "forget" and not asks_deleting(_FORGOT_TO.sub(" ", message)) and (
                not turn.results and not _asked_about_forgetting(turn.messages[:-1])):
            # "我又忘带工牌了，被保安拦下来", "forgot my umbrella again" tell of forgetting something; they ask nothing let go
            return True
        if call.name == "get_current_time" and not (
                reflexes.asks_time(message) or reflexes.names_the_clock(message) or reflexes.asks_for_a_tool(message)
                or re.search(r"[?？]|吗|呢|几|多少|多久|什么|啥|哪|还有|距离|离|对吧|农历|日子"
                             r"|\b(?:how|what|when|which|until|till|yet|left|whether|is it)\b", message, re.IGNORECASE)
                or reflexes.opens_a_question(message)):
            # the clock read for a story that asks nothing ("so today at work the printer jammed at like 9:40, then the
            # fire alarm went off at 11 … im not asking for anything", round 32's spent set, the small model)
            return True
        if call.name in ("list_reminders", "list_todos") and not (
                reflexes.asks_a_list(message) or reflexes.asks_for_a_tool(message) or _ASKED.search(message)
                or reflexes.opens_a_question(message)):
            # a list nobody asked to see, nor needed for a request or a question ("the reminders on my phone are so
            # annoying, they always go off at the worst moment", round 30's spent set, the served model; but "我是不是已经
            # 设过妈妈生日的提醒了？" needs it)
            return True
        if call.name not in _KEEPS_WORDS:
            return False  # (a file's content is the model's own writing)
        said = [message, *(m.content for m in turn.messages if m.role in ("user", "assistant", "tool") and m.content)]
        asked = reflexes.asks_for_a_tool(message)  # "can you nudge me tonight at 9" may be set as "take medication"
        tool = self.tools.get(call.name)
        for key in ("content", "text", "what"):
            value = arguments.get(key)
            if not isinstance(value, str):
                continue
            if tool is not None and _example_copied(value, json.dumps(tool.parameters, ensure_ascii=False), said):
                # the tool's own example ("call mom" for "刚才那个提醒响了，谢啦"), in whatever language
                return True
            if key == "what" and call.name == "forget" and reflexes.vague_target(value):
                return True
            if not asked and (cjk_count(value) > 0) == (cjk_count(message) > 0) and invented(value, said):
                return True
        return False

    def _going_round(self, turn: _Turn, prose: str, calls: tuple[ToolCall, ...]) -> Iterator[Event]:
        """The model asked for one tool call a third time: the turn stops with the pet's line."""
        self._record_calls(turn, prose, calls)
        yield Notice(_says(turn.language, "Stopped: the model asked for the same tool call three times.",
                           "已停下：模型把同一个工具调用要了三次。"), "warning")
        yield from self._finish(turn, fallback_line("repeat", turn.language, self.persona), streamed=False)

    def _end_checked(self, turn: _Turn, shown_before: str, gate: _StreamGate,
                     found: replycheck.Found) -> Iterator[Event]:
        """The reply failed its checks after the retry too: what the person
        already saw stands when it is a whole sentence or more, else the
        pet's own line follows it."""
        shown = (shown_before + gate.text[: gate.emitted]).strip()
        if replycheck.letters_in(shown) >= replycheck.LANGUAGE_LETTERS and replycheck.ends_sentence(shown):
            log.info("reply guard: %s again; the reply ends with what was shown", ", ".join(found.problems))
            yield from self._finish(turn, shown, streamed=True)
            return
        if turn.answers and not turn.done:
            # the calculator or the clock answered: its result is the reply, as for a reflex (not any
            # tool's output: a file or a command's is outside content, of any length)
            log.info("reply guard: %s again; the tool's result stands in", ", ".join(found.problems))
            line = "\n".join(turn.answers)
        elif turn.trace.reflex == "taken back":
            log.info("reply guard: %s again; the pet lets the taken-back message go", ", ".join(found.problems))
            line = fallback_line("taken_back", turn.language, self.persona)
        else:
            log.info("reply guard: %s again; the pet's own line stands in", ", ".join(found.problems))
            line = replycheck.stand_in(turn.language, self.persona, found, turn.tool_context.message,
                                       noted="remember" in turn.done, facts=turn.tool_context.noted)
            if line == fallback_line("off_script", turn.language, self.persona) and self.config.canned:
                # small talk nearer one topic of its own lines than the model's reply ever got ("下个月想去青岛玩几天"
                # said back as "下周我去青岛玩几天。"): that topic's line, not "not sure what to say" every time
                line = self._own_line(turn, turn.tool_context.message, loose=True) or line
        # a broken-off start stays visibly broken off; the pet's line is its own paragraph
        joint = "" if not shown else ("\n\n" if replycheck.ends_sentence(shown) else "…\n\n")
        yield from self._finish(turn, shown + joint + line, streamed=False, delta=joint + line)

    def _figures_in_code(
        self, turn: _Turn, shown_before: str, gate: _StreamGate, final: str
    ) -> Iterator[Event]:
        """The reply states a figure no tool of this turn gave ("128 * 7 =
        964"): compute it in code, as a tool call of this turn. The reply
        stands if that result bears out its figures; otherwise the person
        gets the code's figure after what they already saw."""
        asked, check = turn.asked, turn.figure_check()
        assert asked is not None and check is not None
        log.info("figure guard: reply states %s without a tool result", check.unsupported(final))
        if asked.unread:
            # the pet's own line says what happened and what to do: no warning bubble under it
            # (the log and the trace keep the guard's reason)
            yield from self._end_with_line(turn, shown_before, gate, figures.unread_line(turn.language), None)
            return
        arguments = {"expression": asked.expression} if asked.expression else {}
        [result] = yield from self._execute(turn, "", (ToolCall(asked.tool, arguments),), person=True)
        check = turn.figure_check()
        if result.ok and check is not None and not check.unsupported(final):
            yield from self._finish(turn, shown_before + final, streamed=False, delta=gate.flush())
            return
        ok_sum = asked.expression and result.ok
        line = f"{asked.expression} = {result.content}" if ok_sum else plain_result(result)
        yield from self._end_with_line(
            turn, shown_before, gate, line,
            _says(turn.language, "The pet stated a figure no tool gave; the program's own figure is shown.",
                  "宠物说的数字没有工具依据，已换成程序算出的结果。"))

    def _end_with_line(self, turn: _Turn, shown_before: str, gate: _StreamGate, line: str,
                       notice: str | None) -> Iterator[Event]:
        """A guard held the rest of the reply back: after what the person
        already saw comes the program's own `line`, with a warning notice
        when the line itself does not say why."""
        shown = gate.text[: gate.emitted].rstrip()
        yield from self._finish(turn, shown_before + (shown + " " if shown else "") + line, streamed=False,
                                delta=(" " if shown else "") + line, notices=[Notice(notice, "warning")] if notice else [])

    # -- reflexes -------------------------------------------------------------

    def _reflex(self, turn: _Turn, reflex: reflexes.Reflex) -> Iterator[Event]:
        log.info("reflex %s", reflex.intent)
        if reflex.command == "new":
            new_id = self.conversations.create(self.pet.id)
            yield ConversationStarted(new_id)
            line = "新的对话开始啦！之前的聊天都还在。" if turn.language == "zh" else (
                "A new conversation has started; the old one is kept.")
            yield from self._finish(turn, line, streamed=False)
            return
        if reflex.command in ("undo", "approve"):
            yield from self._finish(turn, self._memory_command(reflex, turn.language, turn.conversation_id),
                                    streamed=False)
            return
        if reflex.command in ("yes", "no"):
            yield from self._answer_waiting(turn, reflex.command == "yes")
            return
        if reflex.reply is not None:
            yield from self._finish(turn, reflex.reply, streamed=False)
            return
        if reflex.intent == "move":
            yield from self._move_reminder(turn, reflex)
            return
        # the person's own precise words: nothing to confirm
        calls, results = list(reflex.calls), list((yield from self._execute(turn, "", reflex.calls, person=True)))
        new = _new_value(turn.tool_context.message, calls, results)
        if new is not None:
            # the new value said beside ("forget that my fav band is khruangbin, it's hiatus kaiyote now")
            calls.append(new)
            results += yield from self._execute(turn, "", (new,), person=True)
        template = plain_lines(calls, results, turn.language)
        worded = self._word(turn, template) if all(r.ok for r in results) else None
        yield from self._finish(turn, worded or template, streamed=False)

    def _move_reminder(self, turn: _Turn, reflex: reflexes.Reflex) -> Iterator[Event]:
        """A reminder moved ("move the yoga reminder to friday at 7pm", "把开会的提醒改到下周二上午九点"): the one named
        is cancelled, then set again at the new time in its own words; when none is cancelled, nothing is set."""
        cancel, new = reflex.calls
        when, problem = self._moved_when(cancel, new, turn.language)
        if problem:
            yield from self._finish(turn, problem, streamed=False)
            return
        new = replace(new, arguments={**new.arguments, "when": when})
        calls, results = [cancel], (yield from self._execute(turn, "", (cancel,), person=True))
        if results[0].ok:
            words = _CANCELLED_WORDS.search(results[0].content)
            if words:
                new = replace(new, arguments={**new.arguments, "text": words.group("text")})
            calls.append(new)
            results += yield from self._execute(turn, "", (new,), person=True)
        template = plain_lines(calls, results, turn.language)
        worded = self._word(turn, template) if all(r.ok for r in results) else None
        yield from self._finish(turn, worded or template, streamed=False)

    def _lets_go(self, text: str) -> str | None:
        """What `text` lets go of a reminder for (reflexes.lets_a_reminder_go): "别提醒我下周要考试了" asks not to
        bring up what is coming, unless a pending reminder is of it."""
        what = reflexes.lets_a_reminder_go(text)
        if what is not None or self.reminders is None:
            return what
        coming = reflexes.lets_a_reminder_go(text, keeps_coming=True)
        if coming is None:
            return None
        try:
            pending = self.reminders.pending(self.pet.id)
        except Exception as exc:  # the reminders cannot be read: no reminder is named
            log.warning("reading the reminders failed: %s", exc)
            return None
        return coming if best_matches(coming, [(r, r.text) for r in pending]) else None

    def _moved_when(self, cancel: ToolCall, new: ToolCall, language: str) -> tuple[str, str]:
        """The new time of a reminder moved, and "" (or "" and why it cannot move): a time with no day of its own is on
        the reminder's own day ("push the yoga reminder to 7pm": tomorrow's stays tomorrow), and a reminder that repeats
        repeats at the new time ("move the meds reminder to 9pm" of a daily one). As said when the reminder is not
        the one pending reminder its words name (cancel_reminder then says which match) or no store is known."""
        said = str(new.arguments.get("when", ""))
        if self.reminders is None:
            return said, ""
        pending = self.reminders.pending(self.pet.id)
        which = str(cancel.arguments.get("which", ""))
        found = best_matches(which, [(r, r.text) for r in pending])
        if len(found) != 1:
            return said, ""
        record, zone = found[0], self.persona.zone()
        now = self.clock().astimezone(zone)
        try:
            at = spans(said)
            own_day = any(day for _, _, day, _ in at)
            if own_day:
                moved = parse_when(said, now, zone).at
            else:
                day = record.due_at.astimezone(zone).replace(hour=0, minute=0, second=0, microsecond=0)
                moved = parse_when(said, max(day, now), zone).at
        except TimeProblem as exc:
            return said, exc.worded(language)
        if moved <= now:
            return said, ("这个时间已经过了，换一个吧？" if language == "zh" else "That time has passed; pick another?")
        clock = moved.strftime("%H:%M")
        if record.repeat == "daily":
            return f"every day at {clock}", ""
        if record.repeat == "weekly":
            return f"every {moved.strftime('%A')} at {clock}", ""
        return moved.strftime("%Y-%m-%d %H:%M"), ""

    def _memory_command(self, reflex: reflexes.Reflex, language: str, conversation_id: int | None = None) -> str:
        """/undo and /approve: the person's own commands, never tools, so the
        model cannot approve what it read somewhere. /undo takes back the
        facts noted last, if nothing was forgotten or undone since."""
        zh = language == "zh"
        noted = self._last_noted(conversation_id) if reflex.command == "undo" else []
        if noted and isinstance(self.memories, capture.NoteBook):
            undone = [self.memories.unnote(self.pet.id, memory_id) for memory_id in noted]
            lines = [capture.unsaid(record, language) for record in undone if record is not None]
            if lines:
                return "\n".join(lines)
        if reflex.command == "undo":
            record = self.memories.restore(self.pet.id)
            if record is None:
                return "没有可以撤销的忘记。" if zh else "There is no forgotten memory to bring back."
            line = f"想起来了 #{record.id}：{record.content}" if zh else f"Restored memory #{record.id}: {record.content}"
            for kept_id in self._kept_instead(conversation_id, record.id):
                # the new value kept in its place goes with it ("forget that my fav band is khruangbin, it's hiatus
                # kaiyote now", then /undo: the review of 2026-12-06 found both bands kept)
                gone = self.memories.forget(self.pet.id, kept_id)
                if gone is not None:
                    line += f"\n已忘掉 #{gone.id}：{gone.content}" if zh else f"\nForgot memory #{gone.id}: {gone.content}"
            return line
        memory_id = read_id(reflex.argument)
        record = self.memories.approve(self.pet.id, memory_id) if memory_id is not None else None
        if record is None:
            return (f"没有编号为 {reflex.argument} 的记忆。" if zh
                    else f"There is no memory {reflex.argument}; the Memory tab lists the pending ones.")
        return f"好，#{record.id} 确认记下：{record.content}" if zh else f"Approved memory #{record.id}: {record.content}"

    def _kept_instead(self, conversation_id: int | None, restored: int) -> list[int]:
        """The memories the turn that forgot `restored` (the one this /undo brings back) kept in its place
        (_new_value)."""
        if conversation_id is None:
            return []
        recent = self.conversations.history(conversation_id, limit=self.config.history_messages)
        kept: list[int] = []
        forgot: list[int] = []
        for stored in reversed(recent[:-1]):  # the last is this /undo
            message = stored.message
            if message.role == "user":
                if forgot == [restored]:
                    return kept
                kept, forgot = [], []  # the turn before (a /undo may come a few turns after the deletion)
                continue
            if message.role == "tool" and stored.status == "ok" and message.name in ("remember", "forget"):
                found = re.search(r"#(\d+)", message.content)
                if found:
                    (kept if message.name == "remember" else forgot).append(int(found.group(1)))
        return kept if forgot == [restored] else []

    def _last_noted(self, conversation_id: int | None) -> list[int]:
        """The memories noted in the latest turn that noted any, unless a
        forget or another /undo came after them."""
        if conversation_id is None:
            return []
        recent = self.conversations.history(conversation_id, limit=self.config.history_messages)
        found: list[int] = []
        for stored in reversed(recent[:-1]):  # the last is this /undo
            message = stored.message
            if message.role == "tool" and message.name == capture.STEP and stored.status == "ok":
                found.extend(int(n) for n in re.findall(r"^#(\d+)", message.content))
            elif found and message.role == "user":
                break
            elif message.role == "tool" and message.name == "forget" and stored.status == "ok":
                break
            elif message.role == "user" and message.content.strip().lower().startswith("/undo"):
                break
        return found

    def _word(self, turn: _Turn, template: str) -> str | None:
        """The tool's true result, said in character by the model. None (so
        the plain result is shown) when the model is slower than
        `config.wording_seconds` (nobody waits for a nicety), fails, rambles, answers in
        another language, drops or invents a fact (a number, time or #id), or
        claims more than was done."""
        if "\n" in template or self.config.wording_seconds <= 0:  # lists read better as they are
            return None
        system = turn.messages[0].content + "\n\n" + WORDING_NOTE.format(result=template)
        # The person's words; the tool call and result were appended after them.
        asked = next(m for m in reversed(turn.messages) if m.role == "user")
        sent = [Message("system", system), asked]
        record = turn.trace.model_call(0, sent, [], purpose="wording")
        try:
            completion = complete_within(self.brain, sent, self.config.wording_seconds, max_tokens=120,
                                         name="reflex-wording")
        except Exception as exc:  # wording is a nicety: the tool already ran
            log.info("could not word the reflex reply: %s", exc)
            step_finished(record, None, str(exc))
            return None
        step_finished(record, completion)
        text = completion.text.strip()
        if not text or completion.tool_calls or "\n" in text or len(text) > max(80, 2 * len(template)):
            return None
        if detect_language(text, turn.language) != turn.language:
            return None
        if _facts(text) != _facts(template):
            return None
        if claimed_actions(text) - turn.done or looks_like_tool_call_start(text) is not None:
            return None
        return text

    # -- tools ----------------------------------------------------------------

    def _record_calls(self, turn: _Turn, prose: str, calls: Sequence[ToolCall]) -> None:
        message = Message("assistant", prose.strip(), tool_calls=tuple(calls))
        self.conversations.append(turn.conversation_id, message)
        turn.messages.append(message)

    def _execute(self, turn: _Turn, prose: str, calls: Sequence[ToolCall],
                 person: bool = False) -> Generator[Event, None, list[ToolResult]]:
        """Record the calls, run them, record the results. Returns the results.
        Side-effect calls that need the person's OK wait instead and set
        `turn.asking`, unless `person` (the person's own command)."""
        self._record_calls(turn, prose, calls)
        held = [] if person else self._needing_confirmation(turn, calls)
        if held:
            self._hold(turn, held)
            calls = [call for call in calls if call not in held]
        results: list[ToolResult] = []
        for event in self._run_tools(calls, turn.tool_context):
            if isinstance(event, ToolFinished):
                log.info("tool %s %s", event.result.name, "ok" if event.result.ok else "failed",
                         extra={"duration": event.seconds})
            if isinstance(event, ToolResult):
                # Stored as the tool said it; wrapped as untrusted data for the model.
                self.conversations.append(
                    turn.conversation_id,
                    Message("tool", event.content, tool_call_id=event.call_id, name=event.name),
                    status="ok" if event.ok else "error",
                )
                wrapped = wrap_observation(event.name, event.ok, event.content)
                turn.messages.append(Message("tool", wrapped, tool_call_id=event.call_id, name=event.name))
                if event.ok and (tool := self.tools.get(event.name)) is not None and tool.claim:
                    turn.done.add(tool.claim)
                if event.ok:
                    turn.results.append(event.content)
                    if event.name in ANSWERING:
                        turn.answers.append(event.content)
                if self._outside_content(event.name, event.ok):
                    turn.tool_context.tool_output.append(event.content)
                results.append(event)
            else:
                yield event
        return results

    # -- confirmation (pet.agent.confirm) -----------------------------------------

    def _needing_confirmation(self, turn: _Turn, calls: Sequence[ToolCall]) -> list[ToolCall]:
        """The side-effect calls that must wait for the person's /yes: every
        one when the setting says so, and every one while a tool's output is
        in view, whatever the setting (it may be a note speaking, not the
        person). A call that would fail its checks is not held: it fails and
        the model can correct it, with nothing done."""
        if not (self.config.confirm_side_effects or turn.tool_context.tool_output):
            return []
        held = []
        for call in calls:
            tool = self.tools.get(call.name)
            if tool is None or not tool.side_effect or call.error:
                continue
            try:
                validate_arguments(tool, call.arguments)
            except ArgumentProblem:
                continue
            held.append(call)
        return held

    def _hold(self, turn: _Turn, held: Sequence[ToolCall]) -> None:
        """Store the calls as waiting (in the conversation, so a restart keeps
        them) and word the question. An older request nobody answered is
        dropped: /yes only ever answers the question the person saw last."""
        recent = self.conversations.history(turn.conversation_id, limit=confirm.LOOKBACK_MESSAGES)
        for call in confirm.pending_calls(recent):
            self.conversations.append(
                turn.conversation_id,
                Message("tool", confirm.declined_text("replaced", turn.language), tool_call_id=call.id, name=call.name),
                status=confirm.DECLINED,
            )
        waiting = confirm.waiting_text(turn.language)
        for call in held:
            self.conversations.append(
                turn.conversation_id, Message("tool", waiting, tool_call_id=call.id, name=call.name),
                status=confirm.AWAITING,
            )
            turn.messages.append(Message("tool", wrap_observation(call.name, False, waiting),
                                         tool_call_id=call.id, name=call.name))
        log.info("waiting for the person's /yes: %s", ", ".join(call.name for call in held))
        turn.asking = confirm.question(held, turn.language, outside_content=bool(turn.tool_context.tool_output))

    def _answer_waiting(self, turn: _Turn, yes: bool) -> Iterator[Event]:
        """/yes runs the calls waiting in this conversation; /no drops them."""
        recent = self.conversations.history(turn.conversation_id, limit=confirm.LOOKBACK_MESSAGES)
        waiting = confirm.pending_calls(recent)
        turn.language = confirm.asked_in(recent, turn.language)  # answer in the question's language
        if not waiting:
            yield from self._finish(turn, confirm.nothing_waiting(turn.language), streamed=False)
            return
        if not yes:
            for call in waiting:
                self.conversations.append(
                    turn.conversation_id,
                    Message("tool", confirm.declined_text("no", turn.language), tool_call_id=call.id, name=call.name),
                    status=confirm.DECLINED,
                )
            yield from self._finish(turn, confirm.dropped(waiting, turn.language), streamed=False)
            return
        # The person read each call in the question and said yes: its words are theirs now.
        context = turn.tool_context
        turn.tool_context = replace(context, language=turn.language,
                                    person_words=context.person_words + "\n" + confirm.endorsed_words(waiting))
        results = yield from self._execute(turn, "", waiting, person=True)
        yield from self._finish(turn, "\n".join(plain_result(r) for r in results), streamed=False)

    def _run_tools(self, calls: Sequence[ToolCall], context: ToolContext) -> Iterator[Event | ToolResult]:
        """Yields ToolStarted/ToolFinished events, then the results in call order."""
        for call in calls:
            yield ToolStarted(call)
        results: dict[str, ToolResult] = {}

        def timed(call: ToolCall) -> tuple[ToolResult, float]:
            started = time.perf_counter()
            result = self.tools.execute(call, context)
            return result, time.perf_counter() - started

        parallel = len(calls) > 1 and all(
            (tool := self.tools.get(call.name)) is not None and not tool.side_effect for call in calls
        )
        if parallel:
            with ThreadPoolExecutor(max_workers=min(4, len(calls))) as pool:
                for future in as_completed([pool.submit(timed, call) for call in calls]):
                    result, seconds = future.result()
                    results[result.call_id] = result
                    yield ToolFinished(result, seconds)
        else:
            for call in calls:
                result, seconds = timed(call)
                results[result.call_id] = result
                yield ToolFinished(result, seconds)
        for call in calls:
            yield results[call.id]

    # -- endings --------------------------------------------------------------

    def _finish(self, turn: _Turn, text: str, streamed: bool = True, emit: bool = True, delta: str | None = None,
                notices: Sequence[Notice] = ()) -> Iterator[Event]:
        """Store and announce the final reply. `streamed`: the person already
        saw the text as deltas; otherwise it is sent now (unless `emit` is off),
        or only its end `delta`, then the `notices`."""
        if not text:
            yield Notice(_says(turn.language, "The model returned an empty reply.", "模型的回复是空的。"), "warning")
            text, streamed, delta = fallback_line("empty", turn.language, self.persona), False, None
        # stored before it is sent: a page that stops listening as the words arrive (it left, or was reloaded)
        # finds the answer when it comes back
        message_id = self.conversations.append(turn.conversation_id, Message("assistant", turn.prefix + text))
        if not streamed and emit and (delta is None or delta):
            yield TextDelta(text if delta is None else delta)
        yield from notices
        yield Reply(turn.prefix + text, message_id=message_id)

    def _store_cut(self, turn: _Turn, said: str) -> None:
        """Store the words shown before the person stopped the turn, marked "cut"."""
        text = (turn.prefix + said).strip()
        if text:
            self.conversations.append(turn.conversation_id, Message("assistant", text), status="cut")

    def _cut_short(self, turn: _Turn, partial: str, error: str) -> Iterator[Event]:
        """The model failed mid-turn: keep what was said, mark it, explain."""
        yield Notice(error, "error")
        text = (turn.prefix + partial).strip()
        if text:
            message_id = self.conversations.append(turn.conversation_id, Message("assistant", text), status="partial")
            yield Reply(text, partial=True, message_id=message_id)
        else:
            # kept too, so a reloaded chat shows the message was answered by a failure
            line = fallback_line("brain_down", turn.language, self.persona)
            message_id = self.conversations.append(turn.conversation_id, Message("assistant", line), status="partial")
            yield TextDelta(line)
            yield Reply(line, partial=True, message_id=message_id)


WORDING_NOTE = (
    "You have just done what the person asked. The result, which is true: \"{result}\". "
    "Tell the person in one or two short sentences, in character. Keep every number, time and #id "
    "exactly as written. Do not call tools."
)
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


#: "…again?", "…来着": asking back what was said before
_AGAIN = re.compile(r"来着|\bagain\b", re.IGNORECASE)
#: ...or a word of remembering: "你还记得不", "remember?", "u should know this"
_ASKS_AGAIN = re.compile(r"来着|记得|记不记|忘了|我(?:是不是|有没有)(?:跟你)?(?:说过|提过)|\b(?:again|remember|recall|forgot|should know"
                         # (whether it was told: "…the form wants his birthday... did I ever tell you?", round 47's spent set)
                         r"|did i (?:ever )?(?:tell|mention)|have i (?:ever )?(?:told|mentioned))\b", re.IGNORECASE)
#: a question, in either language
_QUESTION = re.compile(r"[?？]|吗|什么|啥|谁|哪|几|怎么|\b(?:what|who|where|when|how|which)\b"
                       r"|^\s*(?:do|does|am|is|are|can|could)\b", re.IGNORECASE)


def _without_command(text: str) -> str:
    """A message without its leading /command: "/remember 我喜欢猫" → "我喜欢猫"."""
    return text.partition(" ")[2] if text.startswith("/") else text


def _says(language: str, english: str, chinese: str) -> str:
    return chinese if language == "zh" else english


def _with_note(messages: list[Message], note: str) -> list[Message]:
    """The messages with `note` added to the system message nearest before
    the person's message (the volatile part, when it comes late), so that a
    model which caches the prompt's prefix re-reads only the end."""
    last_user = max((i for i, m in enumerate(messages) if m.role == "user"), default=len(messages))
    at = max((i for i, m in enumerate(messages[:last_user]) if m.role == "system"), default=None)
    if at is None:
        return [Message("system", note), *messages]
    return [*messages[:at], replace(messages[at], content=messages[at].content + "\n" + note), *messages[at + 1:]]


def _unique_ids(calls: Sequence[ToolCall]) -> tuple[ToolCall, ...]:
    """A model may give two calls of one reply the same id; the second gets a new one."""
    seen: set[str] = set()
    unique = []
    for call in calls:
        if call.id in seen:
            call = replace(call, id=new_call_id())
        seen.add(call.id)
        unique.append(call)
    return tuple(unique)


def _facts(text: str) -> set[str]:
    """The numbers in a text (ids, times, dates and amounts all contain some)."""
    return set(_NUMBER.findall(text))


#: the heading of a list shown beside other results, in English and Chinese, and the words that already name it
_LISTED = {"list_reminders": ("Reminders:", "提醒：", re.compile(r"reminder|提醒", re.IGNORECASE)),
           "list_todos": ("Todo list:", "待办：", re.compile(r"todo|待办", re.IGNORECASE))}


def plain_lines(calls: Sequence[ToolCall], results: Sequence[ToolResult], language: str) -> str:
    """Several results for the person, one after another; a list among them under its heading, unless its
    lines name it ("#1 Mon 08:00: 挪车" and "1. 整理发票" together read as one list)."""
    lines = []
    for call, result in zip(calls, results):
        line = plain_line(call, result)
        listed = _LISTED.get(call.name)
        if len(calls) > 1 and listed is not None and result.ok and not listed[2].search(line):
            line = f"{listed[1] if language == 'zh' else listed[0]}\n{line}"
        lines.append(line)
    # a blank line after a list: else the next result reads, in markdown, as part of its last item
    return "".join(line + ("\n\n" if _LIST_LINE.search(line) else "\n") for line in lines).rstrip("\n")


#: a list's last line: "1. 交水费", "- milk"
_LIST_LINE = re.compile(r"(?:^|\n)\s*(?:\d+[.)、]|[-*•])\s+[^\n]*$")


def plain_line(call: ToolCall, result: ToolResult) -> str:
    """A tool's result for the person, a sum with what was computed ("3 * 32 + 2.5 * 48 = 216": a word problem's
    bare "216" leaves them to guess what was added up)."""
    expression = str(call.arguments.get("expression", "")).strip() if call.name == "calculate" else ""
    if result.ok and expression and expression != result.content.strip():
        return f"{expression} = {result.content}"
    return plain_result(result)


def plain_result(result: ToolResult) -> str:
    """A tool result as a sentence for the person."""
    text = result.content
    if text.startswith("Error: "):
        text = text.removeprefix("Error: ")
        text = text[:1].upper() + text[1:]
    return text


def _asked_for(found: replies.Bank, text: str) -> replies.Match | None:
    """The topic of the pet's lines the message asks for, whole or in one clause ("好累，给我讲个笑话吧", "tell me a joke,
    im bored"): the nearest at ASKED_FLOOR, whatever its lead, when its nearest example asks as well; else None."""
    clauses = reflexes.clauses(text)
    for part in [text] + (clauses if len(clauses) > 1 else []):
        if not replycheck.requests(part) or _NOT_ASKED.search(part):
            continue
        match = found.match(part, ASKED_FLOOR, 0.0)
        if match is not None and replycheck.requests(match.example):
            return match
    return None


#: the person's gladness said before the news: "IM SO HAPPY my sister had her baby!!!", "太开心了！我姐生宝宝了"
_GLAD_FIRST = re.compile(r"^\W*(?:(?:omg|oh my god|wow|yay)\W+)*(?:i'?m|i am)?\s*(?:so+|really|super)\s+(?:happy|excited|glad"
                         r"|proud)\b\W*|^\W*(?:太|好|超)(?:开心|高兴|激动)了?[\W～~]*", re.IGNORECASE)


def _tells_of_someone(text: str) -> bool:
    """A clause of the message, gladness said first set aside, has someone else as its subject ("my little brother
    got into uni!!", "IM SO HAPPY my sister had her baby!!! im an aunt!!!": round 45's spent chat set got a noting
    line, as the subject read was the person's)."""
    text = _GLAD_FIRST.sub("", text, count=1)
    return any(capture.about(part) for part in [text, *reflexes.clauses(text)] if part.strip())

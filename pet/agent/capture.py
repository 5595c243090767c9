"""Facts the person states about themselves, kept without "remember".

"我叫小明，我是程序员", "I'm allergic to peanuts": each sentence of a message
is read on its own. It is noted when the intent router (pet.agent.intents)
finds it nearest the "note" examples, the fact-kind classifier
(pet.memory.kinds) does not take it for small talk, a passing event or a
mood, it speaks of the person (the `person` words of the data files'
[capture] table) or of no one else (no `others` word: chat leaves out the
"I"), and none of the `not_facts` words mark it as a request,
question, hypothetical, joke or somebody else's words.

Most facts are not worded as facts: "nurse life: 12 hour shift today and my
feet are done", "我的狗叫可乐，今天又把拖鞋叼走了". Where the word lists say no, a
learned reading (pet.memory.stated) decides, of the whole sentence or of one
of its clauses, unless its form rules a fact out (a question, a request, a
quote, a hypothetical or wish, an impression: the `unreal` words; fewer than
three words) or the router reads it as a request. A sentence with a clause
that asks for something ("…，给我定个明早7点的闹钟") is no fact either way.

A noted fact that says again what a memory of the same single-valued kind
(where someone lives, their name, job...) about the same person says
replaces that memory's text, and the old text stays in its history
(`MemoryStore.revise`): "I live in Beijing", then "I moved to Hangzhou". So
does a fact that says something changed (the `changes` words: "quit the gym,
doing yoga now") for the memory nearest it in meaning, of any kind.
"""

from __future__ import annotations

import logging
import re
import threading
import tomllib
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, Sequence, runtime_checkable

from pet.agent import arithmetic, intents, reflexes
from pet.events import MemoryRecord
from pet.memory import concepts, lexicon, names, replacing, stated
from pet.memory import kinds as fact_kinds
from pet.text import NOT_AFTER_TITLE, cjk_count, detect_language
from pet.tools.facts import declines_keeping, memory_fact, retracted
from pet.tools.when import dated, spans

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)

#: the name of the chat step that shows a noted fact (it is no tool the model may call)
STEP = "note"
#: the least router score of "note" for a sentence to be noted
NOTE_FLOOR = 0.28
#: how far "note" may score behind the best intent for a sentence worded as a fact
SLACK = 0.1
#: for a sentence that leaves its subject out ("switched to oat milk"), the least
#: "note" score, which must also be the best: without "I" the words say less
UNSAID_FLOOR = 0.33
#: the least probability pet.memory.stated gives a sentence the word lists let pass of stating a fact,
#: for it to be noted all the same
TOLD_FLOOR = 0.4
#: …and below which it overrules the router's reading of a sentence worded as a fact that leaves its subject out
#: ("昨天爬山走了两万三千步，腿都废了" is near the "note" examples: 0.007). Trained without round 21's sets, on
#: round 21 (applied to every sentence then): 2 of its 3 tool-set messages wrongly noted were no longer, memory
#: precision and recall unchanged (62/66, 62/67); at 0.1, "yesterday at 3pm I adopted a cat" (0.03) was lost.
#: 0.02 -> 0.025 when round 24 joined the learned reading (that sentence went from 0.016 to 0.0202); the memory
#: sets of rounds 5 to 24 read the same at both (1100/1158 precision, 1100/1220 recall); 0.025 -> 0.03 when round
#: 25 joined (0.026)
DENIED = 0.03
#: ...and of a sentence that names the person and says no change (news of a day: "my roommate flies to lisbon on
#: december 14 and she will not shut up about it" 0.07, "the guy ahead of me in line paid for 12 donuts with coins"
#: 0.03; round 42's spent tools set noted both). Over the 37 spent memory sets (a tuning figure): 19 fewer wrong
#: notes, 4 fewer right, updates 449 -> 448 of 938; 64 fewer of 3,552 spent chat messages noted. 0.05: 15 fewer wrong,
#: 2 fewer right, 47 fewer chat
DENIED_NAMED = 0.1
#: a value of the person's, with a figure in it: "my gate code is 5521", "我的工号是A3321"
_STATES_A_VALUE = re.compile(r"\bmy\s+[\w'’ -]{1,40}?\s+(?:is|are|was|=)\s+[^\s,.;!?]*\d"
                             r"|我的?[\u4e00-\u9fffA-Za-z]{1,12}(?:是|叫|为|[:：])\s*[^\s，,。；;！!？?]*\d", re.IGNORECASE)
#: ...and of a sentence that does not name the person ("Hello, little crayfish!" 0.63; "养的那只柯基叫土豆，
#: 今天又拆家了" 0.91)
UNSAID_TOLD_FLOOR = 0.7
#: the same for a clause of a sentence that does not read as a fact as a whole: a clause says less. (With round 28
#: in the learned reading, "我的猫叫豆腐" of "我的猫叫豆腐，今天又把杯子推下桌了" read 0.59; on the spent memory sets of
#: rounds 5 to 28, 0.55 rather than 0.6 notes one more fact and one more non-fact. With round 29 it reads 0.548 and
#: is no longer noted; 0.5 would note one more fact and three more non-facts of rounds 5 to 29, so the floor stays)
CLAUSE_FLOOR = 0.55
#: the least probability the learned reading gives a sentence beside a kept fact, not kept by itself, for it
#: to go into the same memory (news sentences of round 36's spent set: 0.65 to 0.94; "hi xiaoqian!" 0.29, "I did
#: it!" 0.27, "好开心！" 0.004)
BESIDE_FLOOR = 0.5
#: the fewest words of such a sentence (of two letters or more), or Chinese characters
TOLD_WORDS = 3
#: the kind of small talk, of no fact
CHAT = "chat"
#: kinds of sentence that are no lasting fact
PASSING = frozenset({CHAT, "event", "mood", "feelings"})
#: the kind of fears, dislikes and pet peeves
FEARS = "feelings"
#: kinds of fact a person has one of at a time: a new one replaces the old
SINGLE = frozenset({"name", "home", "hometown", "job", "workplace", "school", "contact", "vehicle",
                    "relationship", "love", "birthday"})
#: the least cosine between an old and a new fact of one single-valued kind for the new to replace the old
SAME_TOPIC = 0.30
#: the least probability the classifier gives an old memory (or one of its clauses: "我叫小明，我是程序员"
#: is a name and a job) of being of the new fact's kind; less when the new fact says something changed
#: ("so I finally quit nursing — I'm a UX designer now")
SAME_KIND, SAME_KIND_CHANGED = 0.5, 0.3
#: the least cosine between an old fact and a new one that says it changed ("quit the gym") for the new
#: to replace the old, of whatever kind
CHANGED_TOPIC = 0.40
#: ...or, when the old fact is of the new one's kind (SAME_KIND), this near: "done with chess …
#: he does fencing now" against "豆豆迷上国际象棋了" (another language: far apart, one kind). On the
#: spent memory sets of rounds 1 to 9: updates right 48 -> 53 of 124, facts that replaced a
#: memory though they said no change 11 -> 12 of 381
CHANGED_KIND_TOPIC = 0.15
#: ...or, when the two speak of one concept of pet.memory.concepts ("Sold the guzheng …" and
#: "我从小学古筝"), this near. On the spent memory sets (rounds 1 to 16, 264 contradictions, 598
#: facts that say no change): updates right 83 -> 93, facts that replaced a memory though they
#: said no change 19 -> 24 (at 0.15: 94 and 30)
SHARED_TOPIC = 0.25
#: ...or, when the fact opens with a name the memory says (pet.memory.names: "Tiedan has a new name:
#: Captain" and "我收养了一只流浪狗，叫铁蛋"), this near. With the link in `candidates` too, on the spent
#: memory sets (rounds 1 to 17, 289 contradictions, 614 facts that say no change): updates right
#: 101 -> 111, facts that replaced a memory though they said no change 27 -> 28
NAMED_TOPIC = 0.10
#: what a likeness between a fact and a memory in another language counts more when the memories that
#: may be replaced are ranked: the encoder reads a pair across languages as less alike than the same pair in
#: one ("I stopped drinking coffee and switched to green tea" replaced "I'm lactose intolerant, so no regular
#: milk for me" rather than "我每天早上都喝一杯美式，不加糖不加奶"). Only the ranking: whether a memory may be
#: replaced at all is unchanged.
#: On the spent memory sets (rounds 1 to 19, 339 contradictions, 689 facts that say no change): updates right
#: 140 -> 145 / 148 / 145 at 0.05 / 0.10 / 0.15, facts that replaced a memory though they said no change
#: 35 -> 36 at each
CROSS_LANGUAGE = 0.10
#: what the likeness of two facts' kinds (the sum over kinds of the product of how likely each is of it) counts
#: when the memories that may be replaced are ranked: "搬到扬州了…" replaced "My new flat in Xining is so dry my lips
#: crack…" (a complaint of the weather) rather than where the person lived. Only the ranking: whether a memory may be
#: replaced at all is unchanged. On the spent memory sets (shipped, rounds 1 and 5 to 28, 547 contradictions),
#: ranked offline over the memories each fact was compared with: updates right 253 -> 258 / 263 / 260 at 0.05 / 0.10
#: / 0.20; run through capture (rounds 5 to 28), 233 -> 246, facts that replaced a memory though they said no
#: change 53 -> 54 of 932, recall@5 of what capture kept 901 -> 911 of 1284
ALIKE_KINDS = 0.10
#: how sure the kind classifier must be of a new fact's single-valued kind, and of an old memory's, for a fact
#: that says it changed to replace the memory however far apart the encoder reads them (across languages)
SURE_KIND = 0.8
#: what pet.memory.replacing weighs of a (fact, memory) pair (`Reader.pair_features`); a change here is a new
#: replacing.FEATURES and a rebuild
PAIR_FEATURES = ("likeness", "likeness to the message", "across languages", "fact says a change", "single-valued kind",
                 "fact's kind sure", "memory of the fact's kind", "kinds alike", "concepts shared", "name shared",
                 "fact says also", "passing kind", "sure of one kind", "rules allow", "rules' rank",
                 "memory says a change", "change x likeness", "single x memory of kind", "across x likeness",
                 "change x kinds alike", "words shared across languages", "likeness below the best", "kinds alike below the best",
                 "memory of kind below the best", "rules' rank below the best", "words shared below the best")
#: where in PAIR_FEATURES the fact says a change, the memory is of its kind, a name is shared, the rules allow the pair
_CHANGED, _OF_KIND, _NAMED, _ALLOWED, _ACROSS_WORDS = 3, 6, 9, 13, 20
#: a new name given to a pet or a thing, which never renames the person ("We renamed the donkey Clementine" replaced
#: "大家都叫我穗子…": round 50's memory set, after "renamed" became a word of change)
_RENAMES_A_THING = re.compile(r"\brenamed (?:the|our|my|his|her|their)\s|(?<![\w'])(?!i\b)[a-z]+ (?:has|got|gets) a new name"
                              r"|\bgave (?:the|our|my|his|her|him|it)\b[^.!?]{0,20}\ba new name|给(?:那|这|我家)?(?:只|头|条|匹|个|盆)?[\u4e00-\u9fff]"
                              r"{1,4}改(?:了)?名|把(?:那|这|我家)?(?:只|头|条|匹|个|盆)?[\u4e00-\u9fff]{1,6}改名", re.IGNORECASE)
#: ...and the person's own name or nickname
#: someone else's name: "His name is Teng Chuan", "她叫小美" (never the person's own, which it must not replace: the review)
_SOMEONES_NAME = re.compile(r"\b(?:his|her|their|its)\s+name\b|\b(?:he'?s|she'?s|they'?re)\s+called\b|(?<![我])(?:他|她|它)叫",
                            re.IGNORECASE)
_OWN_NAME = re.compile(r"叫我|我叫(?![它他她])|我的(?:名字|外号|小名|网名|英文名)|\bcall me\b|\bmy (?:name|nickname)\b|\bi'?m called\b"
                       r"|\bi go by\b", re.IGNORECASE)
#: kinds of fact that change together: a new job is often told as a new workplace, a new partner as love
_RELATED = {"job": ("workplace",), "workplace": ("job",), "relationship": ("love",), "love": ("relationship",)}
#: memories nearest in meaning, and newest, compared with a new fact
NEAREST, RECENT = 20, 10
#: the longest sentence read as a fact
MAX_CHARS = 200

#: a sentence ends after its marks ("so...", "。。", "?!" end one sentence); a point before a digit ("6.8")
#: or after a title ("Mr. Petrakis", "Dr. Wu") ends none
_SENTENCES = re.compile(rf"(?:(?<=[!?。！？；;…])|(?<=\.){NOT_AFTER_TITLE})(?![!?。！？；;.…\d])\s*|\n+")
#: a letter, digit or character: a "sentence" without one is only marks
_SAYS = re.compile(r"\w")
_WORDS = re.compile(r"[a-z']+")
_CJK = re.compile(r"[\u4e00-\u9fff]")
#: closing quotes left at the start of the next piece by the splitter
_CLOSING = re.compile(r"[\"'”’」』)）]+(?=\s|$)")
#: marks that open somebody else's words
_QUOTES = ("'", '"', "“", "‘", "「", "『")
_CLAUSES = re.compile(r"[,，;；、]|\band\b")
#: a new fact said to come beside the old ones ("now I'm also picking up Spanish"), not instead
_ALSO = re.compile(r"\b(?:also|too|as well)\b|也", re.IGNORECASE)


#: where the person keeps a thing of theirs: "my spare key is under the blue flowerpot", "the passport is in the top
#: drawer", "我的护照放在书房的蓝色文件夹里", "备用钥匙藏在门口花盆底下": a thing put away for good, or any thing in a place
#: things are stored (not a moment, someone, or a time: "my lunch is in the fridge" is for now, "my birthday is in the
#: summer" no place, "my aunt is in the hospital" someone: the review of 2026-12-07)
_KEPT_PLACE_EN = re.compile(
    r"^\W*(?:(?:oh|btw|fyi|ok|okay|so|also|and|hi|hey|anyway|by the way)\W+)*(?:my|our|the)\s+(?P<thing>[a-z]+(?:[\s-][a-z]+){0,2}?)"
    r"(?:\s+(?:is|are|stays|lives|goes|sits|hangs)|'s)\s+(?:kept\s+|always\s+|usually\s+)?"
    r"(?:in|under|on top of|on|behind|inside|beside|next to|in the back of|at the back of|taped under|above|below)"
    r"\s+(?:the|my|a|our|that)\s+(?P<place>[a-z][a-z\s'-]{1,50})[.!]?$", re.IGNORECASE)
_KEPT_PLACE_ZH = re.compile(r"^(?:对了|哦对|顺便说一下|跟你说)?[，,]?(?:我的|我家的?)?(?P<thing>[^，,。！？!?\s把]{1,8}?)(?:一直|都|平时)?"
                            r"(?:放在|搁在|藏在|收在|锁在|挂在|塞在|压在)(?P<place>[^，,。！？!?了]{2,16})[。！!]?$")
#: things put away for good
_PUT_AWAY = re.compile(r"\b(?:spare|extra|keys?|passports?|cards?|documents|papers|certificates?|licen[cs]e|deeds?|will|warranty"
                       r"|manuals?|fuse box|stopcock|first aid kit|toolbox|tickets?|id|jewel(?:le)?ry|rings?|insurance|contracts?"
                       r"|receipts?|savings|cash|visa|permit|hard drive|usb|backup)\b"
                       r"|钥匙|护照|身份证|证件|证书|房产证|户口本|驾照|存折|合同|文件|发票|卡|备用|首饰|戒指|现金|保单|硬盘|U盘",
                       re.IGNORECASE)
#: places things are stored
_STORE = re.compile(r"\b(?:drawers?|cabinets?|cupboards?|closets?|wardrobes?|safes?|boxe?s?|folders?|flowerpots?|pots?|mats?"
                    r"|shelf|shelves|glove ?box|suitcases?|lockers?|envelopes?|binders?|bags?|tins?|jars?|chests?|desks?|attic"
                    r"|basement|garage|shed|storage)\b"
                    r"|抽屉|柜|文件夹|保险箱|盒|花盆|垫|架|箱|袋|包|信封|储物|车库|地下室|阁楼|书房|玄关", re.IGNORECASE)
#: things that are no things: people, animals, times, the body, feelings
_NO_THING = re.compile(r"\b(?:mum|mom|dad|mother|father|parents?|sister|brother|wife|husband|son|daughter|kid|kids|baby"
                       r"|friend|boss|aunt|uncle|cousin|niece|nephew|grand\w+|nan|granny|neighbou?r|cat|dog|kitten|puppy|bird"
                       r"|rabbit|bunny|hamster|fish|heart|head|mind|life|money|stuff|things|everything|phone number|family"
                       r"|boyfriend|girlfriend|partner|birthday|anniversary|meeting|exam|appointment|office|job|lunch|dinner"
                       r"|breakfast|food)\b"
                       r"|妈|爸|姐|哥|弟|妹|老婆|老公|孩子|儿子|女儿|朋友|猫|狗|心|钱|东西|时间|注意力|精力|饭|菜", re.IGNORECASE)
#: ...nor one lost, looked for, or moved this once
_NOT_KEPT = re.compile(r"\b(?:again|lol|still|can'?t|cant|somewhere|lost|missing|stuck|broken|today|tonight|now|right now"
                       r"|for repair|at the shop)\b|又|找不到|丢|忘|今天|刚|现在|[?？]", re.IGNORECASE)
#: the kind of a fact of where a thing is kept
PLACE = "place"
#: the kind of the person's name (kinds.txt)
NAME = "name"


def kept_place(sentence: str) -> bool:
    """Whether `sentence` says where the person keeps a thing of theirs (_KEPT_PLACE_EN, _KEPT_PLACE_ZH)."""
    sentence = " ".join(sentence.split())
    found = _KEPT_PLACE_EN.match(sentence) or _KEPT_PLACE_ZH.match(sentence)
    if found is None or _NO_THING.search(found.group("thing")) or _NOT_KEPT.search(sentence):
        return False
    return _PUT_AWAY.search(found.group("thing")) is not None or _STORE.search(found.group("place")) is not None


#: the fewest words a sentence that states a fact has (a Chinese character counts half a word: "我怕狗" states one)
FEWEST_WORDS = 1.5


def _few_words(sentence: str) -> bool:
    """Whether `sentence` has fewer than FEWEST_WORDS words: "tea", "咖啡", "43"."""
    latin = len(re.findall(r"[^\W\d_\u3400-\u9fff]+|\d+", sentence))
    return latin + cjk_count(sentence) / 2 < FEWEST_WORDS


@runtime_checkable
class NoteBook(Protocol):
    """What noting needs of long-term memory."""

    def remember(self, pet_id: int, content: str, *, tag: str = "", source_message_id: int | None = None,
                 conversation_id: int | None = None, asserted_by: str = "person",
                 pending: bool | None = None) -> tuple[MemoryRecord, bool]: ...
    def revise(self, pet_id: int, memory_id: int, content: str, *, source_message_id: int | None = None,
               conversation_id: int | None = None) -> MemoryRecord | None: ...
    def search(self, pet_id: int, text: str, limit: int = 10) -> list[MemoryRecord]: ...
    def recent(self, pet_id: int, limit: int = 10) -> list[MemoryRecord]: ...
    def nearest(self, pet_id: int, text: str, count: int = 20) -> list[MemoryRecord]: ...
    def unnote(self, pet_id: int, memory_id: int) -> MemoryRecord | None: ...


@dataclass(frozen=True)
class Words:
    person: frozenset[str]
    not_facts: tuple[str, ...]
    others: tuple[str, ...]
    #: first words that make a sentence a question
    questions: frozenset[str] = frozenset()
    #: words that say something changed
    changes: tuple[str, ...] = ()
    #: phrases holding a `not_facts` word that ask nothing ("好几年"), dropped before that check
    harmless: tuple[str, ...] = ()
    #: an `others` word -> whom it names, the same in every language ("妹", "sister": "sister")
    roles: dict[str, str] = field(default_factory=dict)
    #: words that make a whole message a joke ("讲个笑话：…"): none of its sentences is a fact
    jokes: tuple[str, ...] = ()
    #: what follows an `others` word to quote them ("我闺蜜说…"), where "says" is no word of its own
    quoting: tuple[str, ...] = ()
    #: words of a hypothetical, of somebody else's words, of an impression or of remembering: no sentence
    #: with one is taken for a fact the word lists missed ("要是中了彩票我就去里斯本住一年")
    unreal: tuple[str, ...] = ()
    #: `others` outside the person's family and friends (a landlord, the neighbour): a sentence that
    #: names one of them in its first clause, and not the person, is about them ("Lao Duan next door
    #: grows forty kinds of chillies"), however much it reads like a fact
    acquaintances: tuple[str, ...] = ()
    #: words of this day or this moment ("today", "今晚"): a clause with one tells how things are now (the
    #: weather, a long day, a mood), unless it says something changed ("handed in my notice today")
    moments: tuple[str, ...] = ()


@dataclass(frozen=True)
class Noted:
    record: MemoryRecord
    #: the memory's text before this fact replaced it; None for a new memory
    replaced: str | None = None
    #: the memory already said this
    again: bool = False


def _load_words(folder: Path) -> dict[str, Words]:
    words = {}
    for path in sorted(folder.glob("*.toml")):
        table = tomllib.loads(path.read_text(encoding="utf-8")).get(intents.CAPTURE, {})
        words[path.stem] = Words(frozenset(w.lower() for w in table.get("person", [])),
                                 tuple(w.lower() for w in table.get("not_facts", [])),
                                 tuple(w.lower() for w in table.get("others", [])),
                                 frozenset(w.lower() for w in table.get("questions", [])),
                                 tuple(w.lower() for w in table.get("changes", [])),
                                 tuple(w.lower() for w in table.get("harmless", [])),
                                 {w.lower(): role for role, said in table.get("roles", {}).items() for w in said},
                                 tuple(w.lower() for w in table.get("jokes", [])),
                                 tuple(w.lower() for w in table.get("quoting", [])),
                                 tuple(w.lower() for w in table.get("unreal", [])),
                                 tuple(w.lower() for w in table.get("acquaintances", [])),
                                 tuple(w.lower() for w in table.get("moments", [])))
    return words


_words: dict[str, Words] | None = None


def words() -> dict[str, Words]:
    global _words
    if _words is None:
        _words = _load_words(intents.FOLDER)
    return _words


def _has(text: str, phrase: str, language: str, possessive: bool = False) -> bool:
    """Whether `text` (lower case) holds `phrase`: a substring in Chinese, whole words otherwise; a person's word with
    its possessive (`possessive`: "my neighbor's kid learned to ride a bike today" is the neighbour's news, noted by
    round 46's spent set; but "today's my first day as a nurse" holds no "today")."""
    if language == "zh":
        return phrase in text
    owned = "(?:'s)?" if possessive else ""
    return re.search(rf"(?<![a-z']){re.escape(phrase)}{owned}(?![a-z'])", text) is not None


def sentences(text: str) -> list[str]:
    found: list[str] = []
    for piece in _SENTENCES.split(text):
        # a closing quote after the marks belongs to the sentence before: 'My motto is "be kind." I …'
        close = _CLOSING.match(piece)
        if close and found:
            found[-1] += close.group().strip()
            piece = piece[close.end():]
        if found and _INITIAL.search(found[-1]) and piece[:1].isupper():
            found[-1] += " " + piece.strip()  # a middle initial: "favourite author is Ursula K. Le Guin"
        elif piece and _SAYS.search(piece):
            found.append(piece.strip())
    return found


#: a sentence that opens with the person says something of its own, not more of the one before
_OPENS_WITH_THE_PERSON = re.compile(r"(?:i|i'm|i’m|im|i've|i’ve|i'd|i'll|my|me|mine)\b|我", re.IGNORECASE)
#: a name's middle initial ends a piece: "Ursula K." (round 36's spent set kept "favourite author is Ursula K"; not
#: "my blood type is O.", "I take vitamin D.": the word before is no name)
_INITIAL = re.compile(r"\b[A-Z][a-z]+ [A-Z]\.$")


def about(text: str, context: str = "") -> frozenset[str]:
    """Who a fact is about: the roles of the `others` words its subject names
    (none: the person). The subject is how the sentence opens: "Dad gave the
    pigeons away", "我妹妹在西安读建筑", "Two weeks ago my dad retired", "I heard my
    sister moved to York" are about them; "咖啡戒了，医生让我别喝了", "I'm learning
    Spanish to talk to Mateo's grandma", "在厦门被同事硬塞了一口榴莲" are the
    person's own, whoever else they name, as is "我和男朋友分手了" (the two of
    them: see `joint`). The longest word counts ("男朋友" names a partner, not a
    friend), and a role is the same in both languages ("我妹", "my sister"). A
    pet named by its kind ("my cat", "我家狗") is the person's own. A fact that
    names nobody but starts with "he"/"she"/"他"/"她" is about whom its
    `context` (the message it came in) names ("Dad retired. He teaches a
    dumpling class now"). (A name alone says nobody: "Doudou is done with
    chess. He does fencing now" stays the person's, as "豆豆迷上国际象棋了" is.)"""
    subject = _subject(text)
    found = _roles(subject)
    if not found and _THIRD_PERSON.match(subject):
        at = context.find(text)
        return _roles(context[:at] if at > 0 else "")  # whom the message named before it
    return found


def joint(text: str) -> frozenset[str]:
    """The roles of whom a fact names beside the person as its subject: "我和男朋友分手了",
    "My boyfriend and I broke up" (the person's and the partner's fact at once)."""
    rest = _opening(text)
    together = _JOINT.match(rest) or _JOINT_ZH.match(rest)
    return _roles(together.group("who")) if together else frozenset()


#: a sentence about somebody else, by its first word ("he", "she", "his", "her", "they", "their", 他, 她)
_THIRD_PERSON = re.compile(r"(?:he|she|his|her|they|their)\b|他|她", re.IGNORECASE)
#: a sentence that opens with somebody's "'s" ("Mum's still in Melbourne", "my sister's moving"): about them
_OPENS_POSSESSIVE = re.compile(r"^(?:my |our )?([a-z]+)['’]s\b")
#: words before a sentence's subject that are not it ("so", "big news:", "话说", "哈哈哈")
_FILLER = re.compile(
    r"^(?:\W|(?:so|and|also|oh|btw|well|ok|okay|anyway|update|news|big news|fun fact|fyi|guess what|ugh|yeah|yep"
    r"|lol|haha\w*|finally|actually|honestly|sadly|good news|bad news)\b)+"
    r"|^(?:[\W哈嗯唉诶哎呜啊哇]|对了|话说|跟你说|告诉你|好消息|坏消息|终于|其实|说真的)+", re.IGNORECASE)
#: ...or a time, or the person hearing or finding it out: "two weeks ago", "last Saturday", "I found out my
#: sister…", "上个星期六", "昨天晚上", "我听说我妹…"
_LEAD = re.compile(
    r"^(?:(?:(?:a|one|two|three|four|five|six|a few|several|\d+) )?(?:days?|weeks?|months?|years?) ago"
    r"|yesterday|today|tonight|recently|lately|the other day|this (?:morning|afternoon|evening|week|month|year)"
    r"|last (?:night|week|month|year|weekend|\w+day)|on \w+day)[,\s]+"
    r"|^i (?:just )?(?:think|heard|hear|found out|learned|learnt|guess|know|noticed|saw|realised|realized|read)"
    r" (?:that )?(?=(?:my|our) )"
    r"|^(?:(?:上|这|下)个?(?:星期|礼拜|周|月)[一二三四五六日天末]?|(?:昨|今|前)天(?:早上|上午|中午|下午|晚上)?|昨晚|今早"
    r"|最近|去年|今年|前几天|刚才|刚刚)[，,\s]*"
    r"|^我(?:听说|发现|才知道|知道|觉得|看到)了?(?=我)", re.IGNORECASE)
#: the person as a sentence's subject, alone or with someone ("Grandpa and I …"), in English ("我" is read
#: in _subject)
_PERSON_OPENS = re.compile(r"(?:(?:my |our )?[a-z]+ and )?(?:i|i'm|im|i've|i'd|i'll|me|myself|we|we're)\b",
                           re.IGNORECASE)
#: the person and someone as the subject: "my boyfriend and I", "我和男朋友", "我跟我妈"
_JOINT = re.compile(r"(?P<who>(?:my |our )?[a-z]+(?: [a-z]+)?) and (?:i|me)\b", re.IGNORECASE)
_JOINT_ZH = re.compile(r"我(?:和|跟|与)(?P<who>我?[\u4e00-\u9fff]{1,4})")
#: the opening words read for the subject: English words, Chinese characters
_SUBJECT_WORDS, _SUBJECT_CJK = 4, 5
#: roles that are the person's own pets: a fact about them is the person's
_PETS = frozenset({"cat", "dog"})


def _opening(text: str) -> str:
    """`text` from its subject on: fillers, times and "I heard" before it left out."""
    rest, before = text.strip(), None
    while rest != before:
        before = rest
        rest = _LEAD.sub("", _FILLER.sub("", rest))
    return rest


def _subject(text: str) -> str:
    """The opening of `text` that names its subject, after fillers; "" when
    the person is the subject ("I…", "我…" but not "我妈…")."""
    rest = _opening(text)
    if _PERSON_OPENS.match(rest):
        return ""
    if detect_language(rest) == "zh":
        if rest.startswith("我"):
            return rest[:8] if _roles_at(rest) else ""
        return rest[:_SUBJECT_CJK]
    return " ".join(rest.split()[:_SUBJECT_WORDS])


#: a Chinese sentence opening "我和…", "我把…", "我对…": the person acts, whoever else it names
_PERSON_ACTS = re.compile(r"我(?:和|跟|与|同|带|给|对|把|让|帮|陪|送|请|叫|被|替|为|向|教|约|也|都|还|就|一直|每)")


def _roles_at(text: str) -> bool:
    """A Chinese sentence opening "我妈…", "我同事…", "我对象…", "我的亲姐姐…", "我最好的朋友…":
    the person's someone is its subject (not "我和室友合租", "我对猫过敏")."""
    table = words().get("zh")
    if table is None:
        return False
    after = re.sub(r"^我(?:的|们家的?|家的?)?", "", text)
    if any(after.startswith(w) for w in table.others):
        return True
    if _PERSON_ACTS.match(text):
        return False
    head = re.split(r"[^\u4e00-\u9fffA-Za-z]", text[1:8])[0]
    return any(w in head for w in table.others)


def _roles(text: str, pets: bool = False) -> frozenset[str]:
    lowered, language = text.lower(), detect_language(text)
    table = words().get(language) or words().get("en")
    if table is None:
        return frozenset()
    found = set()
    for word in sorted(table.others, key=len, reverse=True):
        if _has(lowered, word, language):
            found.add(table.roles.get(word, word))
            if language == "zh":
                lowered = lowered.replace(word, " ")
    opening = _OPENS_POSSESSIVE.match(lowered.strip()) if language != "zh" else None
    if opening and opening.group(1) in table.others:  # not "I'm a doctor's receptionist"
        found.add(table.roles.get(opening.group(1), opening.group(1)))
    return frozenset(found if pets else found - _PETS)


#: a thing no longer done, said in Chinese with the thing between: "我不干纹身了" (round 38's spent set), "不当厨师了",
#: "半马不跑了", "周五晚上不去合唱团了" (not a plan dropped: "算了，不去了"; not "离不开咖啡了", "腰扛不住了")
_NO_LONGER_ZH = re.compile(r"(?<![离扛受挺顶忍撑禁靠舍用])不(?:再)?(?:(?:干|做|当|养|玩|学|跑|练|喝|吃|打(?![扰算])|弹|画|写|追|抽|骑|上|跳|考|飞|戴|穿|开|坐|吹|唱|爬|拉"
                           # habits let go: "我不咬指甲了" (round 49's spent memory set), "不熬夜了", "不化妆了", "不加班了", "不染头发了"
                           r"|咬|熬|化|加班|染)"
                           r"[\u4e00-\u9fff]{0,6}?|(?:去|用)[\u4e00-\u9fff]{1,6}?)了|转行|改行"
                           # since a thing stopped: "不上夜班以后作息正常多了", "不用上夜班以后，我每天晚上十点就睡" (rounds 44
                           # and 48's spent memory sets: no change was read in them)
                           r"|(?<![离扛受挺顶忍撑禁靠舍])不(?:用|再)?(?:上|干|做|当|去|跑|坐|住)[\u4e00-\u9fff]{1,5}?(?:以后|之后)")


#: ...for a while only: "今晚不练了，太累了", "这周三不上课了，教练请假" (the review of 2026-12-06)
_FOR_NOW_ZH = re.compile(r"今天|今晚|今儿|这周|这星期|这礼拜|这次|这回|明天|暂时|这几天|先不")


#: ...nor what would be, if: "如果不上学以后怎么办", "我不做这个以后会后悔的" (the review of 2026-12-07)
_IF_ZH = re.compile(r"如果|要是|假如|万一|的话|会后悔|怎么办")


def says_change(text: str) -> bool:
    """The words say something changed: "I quit the gym", "现在改坐地铁"."""
    lowered, language = text.lower(), detect_language(text)
    table = words().get(language)
    if language == "zh" and _NO_LONGER_ZH.search(lowered) and not _FOR_NOW_ZH.search(lowered) and not _IF_ZH.search(
            lowered):
        return True
    return table is not None and any(_has(lowered, w, language) for w in table.changes)


def _plain(text: str) -> str:
    return " ".join(text.split()).strip(" .,;:!?。，；：！？~～\"'“”").lower()


def names_the_person(sentence: str) -> bool:
    """Whether the sentence has one of the `person` words ("I", "my", "我")."""
    lowered, language = sentence.lower(), detect_language(sentence)
    table = words().get(language)
    if table is None:
        return False
    if language == "zh":
        return any(w in lowered for w in table.person)
    return bool(table.person & set(_WORDS.findall(lowered)))


#: a Chinese question by its last words, without its mark: "…叫什么来着", "…在学什么手艺", "…是谁", "生日几号", "蜕的时候疼不疼啊"
#: (round 38's spent set noted it; not "一动不动")
#: (not "没什么知觉", "走哪吹哪", "聊几句", "爬山骑行什么的": no fact of the spent sets ends so)
_ZH_ASKS = re.compile(r"(?:(?<!一)([\u4e00-\u9fff])[不没]\1(?:啊|呀|呢|哇|嘛)?|吗|来着|(?<![没不为])(?:什么|啥)(?!的)[\u4e00-\u9fff]{0,2}|哪儿|哪里|哪个|在哪|去哪|谁"
                      r"|多少[\u4e00-\u9fff]?|几(?:点|号|岁))[\s。.~～…]*$")


#: a sentence that opens with what someone else, or the news, says ("阿勇说…", "Joana说…", "新闻说…": round 30's spent
#: set noted both). Not the person's own words: "我说…", "跟你说个秘密：…", "不想多说"; not what is said of the person
#: ("医生说我有轻度贫血", "体检说血糖偏高"); not a word that ends in 说 ("老实说，…", "总的来说", "怎么说呢", "小说看多了"):
#: someone's words follow 说 straight, with no mark between
_SOMEONE_SAYS = re.compile(r"^(?!我|说|听说|据说|话说|虽说|再说|就是说|跟你|和你|给你|对你|老实|实话|讲真|说真|不|体检|检查|化验|报告)"
                           r"[^，,。！!？?\s我你]{1,8}?(?<![来的么呢白实小游解传听据演劝述如比么样句])说"
                           r"(?![话过了的拜再，,。：:！!？?\s])(?!我)")


def _may_state(sentence: str) -> Words | None:
    """The word table of the sentence's language when nothing in its form rules
    a fact out: not too long, no question, no quote, no request to remember,
    not somebody else's words ("我闺蜜说…"); else None."""
    if not sentence or len(sentence) > MAX_CHARS or sentence.rstrip().endswith(("?", "？")):
        return None
    if sentence.lstrip().startswith(_QUOTES):
        return None  # somebody's words: "'Winter is coming' — my roommate, every November"
    if _plain(memory_fact(sentence)) != _plain(sentence):
        return None  # it asks to be remembered: a request, for the remember tool
    lowered, language = sentence.lower(), detect_language(sentence)
    table = words().get(language)
    if table is None:
        return None
    tokens = _WORDS.findall(lowered)
    if language != "zh" and tokens and tokens[0] in table.questions:
        return None
    if language == "zh" and _ZH_ASKS.search(sentence):
        return None  # a question without its mark: "我最近在学什么手艺" (round 26's spent chat set noted it)
    if any(re.search(rf"{re.escape(who)}[\u4e00-\u9fff]{{0,3}}?{re.escape(said)}(?!话)", lowered)
           for who in table.others for said in table.quoting):
        return None  # somebody else's words: "我闺蜜说结婚就是…", "我同事老谢说…" (not "我妈说话很快")
    if language == "zh" and _SOMEONE_SAYS.match(sentence):
        return None  # words of someone named, or of the news: "阿勇说小龙虾养不过三个月…", "新闻说釜山今年台风特别多…"
    return table


def worded_as_fact(sentence: str) -> bool:
    """The words alone allow a fact about the person: it speaks of them, or
    of no one (chat leaves out "I": "switched to plain americano", "下周要去上海
    出差"), asks nothing, and no `not_facts` word is in it. Whether it states
    a fact is the router's and the classifier's to say (Reader.facts), more
    surely for a sentence that leaves its subject out."""
    table = _may_state(sentence)
    if table is None:
        return False
    lowered, language = sentence.lower(), detect_language(sentence)
    speaks_of_person = names_the_person(sentence)
    if not speaks_of_person:  # the unsaid subject is the person, unless someone else is named
        speaks_of_person = not any(_has(lowered, w, language, possessive=True) for w in table.others)
    lowered = _without_harmless(lowered, table)
    return speaks_of_person and not any(_has(lowered, w, language) for w in table.not_facts)


#: "maybe" or "probably" before a number rounds it, and says no hypothetical: "he's home maybe five days a month"
#: (round 50's set: the husband's job went unkept)
_ROUGHLY = re.compile(r"\b(?:maybe|probably)\s+(?=(?:\d|a (?:couple|dozen|hundred|thousand)|two|three|four|five|six"
                      r"|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
                      r"|hundred|twice|half)\b)")
#: ...but not in a plan or a wish ("maybe two years from now I'll quit nursing": the review)
_PLAN_WORDS = re.compile(r"\b(?:i'?ll|ill|will|won'?t|gonna|going to|would|someday|one day|from now|if|when i|once i)\b")


#: a greeting before a fact, no part of it: "hi, I'm Marguerite", "你好，我叫阿雅…"
_GREETING = re.compile(r"^(?:(?:hi|hey|hello|hiya|heya|yo|morning|good (?:morning|afternoon|evening))(?:\s+(?:there|xiaoqian|qianqian"
                       r"|crayfish|little (?:one|guy|buddy)|lil guy))?|(?:你好|您好|嗨|哈喽|哈啰|早上好|晚上好|早安)(?:呀|啊|哇)?"
                       r"(?:小钳|钳钳|小龙虾)?)(?:\s*[,，!！.。~～]+\s*(?=\S)|\s+(?=(?:i'?m|i am|my name|call me)\b)|(?=我))",
                       re.IGNORECASE)
#: the person's name said in a clause of its own: "I'm Tove", "my name's Bo", "我叫小明"
_NAME_CLAUSE = re.compile(r"(?i:i'?m|i am|my name is|my name'?s|call me)\s+[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?"
                          r"|(?:我叫|我的名字(?:是|叫)|大家(?:都)?叫我)(?![\u4e00-\u9fff]*(?:了|什么|啥|吗|呢|别|不|车|外卖|醒|他|她|你|它|们))"
                          r"[\u4e00-\u9fffA-Za-z]{1,4}")
_NAME_SPLIT = re.compile(r"\s*(?:[,，;；]\s*(?:and\s+)?|\s+and\s+)")


#: words after "I'm" that are no name, capitalised or not ("I'm Back", "I'm Fine")
_NOT_A_NAME = frozenset("""back home here there fine good great ok okay done tired sorry ready free sick bored hungry sure late
    up out in off on so not just going gonna still also very really cold hot happy sad busy new single married alone
    lost confused serious joking kidding away awake asleep exhausted stressed excited nervous scared the a an
    american canadian australian korean indian italian russian mexican german brazilian asian european african
    muslim catholic buddhist vegan vegetarian gay bi straight christian hindu jewish atheist sikh
    french dutch swiss thai greek irish welsh scottish polish spanish english danish swedish finnish turkish czech
    aries taurus gemini cancer leo virgo libra scorpio sagittarius capricorn aquarius pisces
    pregnant engaged retired divorced widowed adopted allergic vegan diabetic deaf blind sober broke rich poor
    twenty thirty forty fifty sixty seventy eighty ninety infj infp intj intp enfj enfp entj entp isfj isfp istj istp
    esfj esfp estj estp left right single taken fat thin tall short old young""".split())


def said_name(text: str) -> bool:
    """The text is the person's name said and nothing more: "I'm Tove", "my name is Sam", "我叫小明" (not "I'm Back",
    "I'm Pregnant", "I'm STARVING", "我叫车了": the review found them replacing the name)."""
    found = _NAME_CLAUSE.fullmatch(text.strip())
    if found is None:
        return False
    if re.match(r"\s*(?:我|大家)", text):
        return True
    said = re.sub(r"^(?i:i'?m|i am|my name is|my name'?s|call me)\s+", "", text.strip())
    words = said.split()
    if any(word.isupper() and len(word) > 1 for word in words):
        return False  # a shout, no name
    last = words[-1].lower() if words else ""
    if last in _NOT_A_NAME or last.endswith(("ese", "ish")):
        return False  # (nor "I'm Chinese", "I'm British")
    if re.match(r"(?i:my name is|my name'?s|call me)\b", text.strip()):
        return True  # named as a name
    # "I'm X": a state, a doing, a people, a faith or a sign is no name ("I'm Pregnant", "I'm Watching Netflix", "I'm Dutch")
    return not any(word.lower() in _NOT_A_NAME or (len(word) > 4 and word.lower().endswith("ing")) for word in words)


_I_AM = re.compile(r"^(?:i'?m|i am)\s+", re.IGNORECASE)
#: what speaks of a name or a nickname: the rest of a sentence that does is of the name, and stays with it
_OF_NAMES = re.compile(r"\b(?:call(?:s|ed)? me|name|nickname|known as|go by)\b|叫我|名字|外号|小名|昵称|网名", re.IGNORECASE)


def _as_name(said: str) -> str:
    """The name said as a memory that reads and is found as one: "I'm Tove" → "my name is Tove" ("what's my name?"
    found "I'm Luo Feng" fifth of five); other wordings as they are."""
    return _I_AM.sub("my name is ", said, count=1)


def _without_greeting(fact: str) -> str:
    """`fact` without a greeting that opens it ("hi, I'm Marguerite" keeps "I'm Marguerite")."""
    return _GREETING.sub("", fact, count=1) or fact


def _name_first(fact: str) -> tuple[str, str]:
    """The person's name said in the fact's first clause, and the rest ("I'm Tove, my husband drives a truck" → "I'm
    Tove", "my husband drives a truck"); ("", "") when it opens otherwise or says nothing more."""
    parts = _NAME_SPLIT.split(fact, maxsplit=1)
    if len(parts) != 2 or not said_name(parts[0]) or len(parts[1].strip()) < 2 or _OF_NAMES.search(parts[1]):
        return "", ""  # (nor "I'm Luo Feng, but everyone calls me Maple…": the rest is of the name)
    return parts[0].strip(), parts[1].strip()


#: the most words (or Chinese characters) of a change told bare, what changed left to the next sentence
BARE_CHANGE_WORDS, BARE_CHANGE_CHARS = 4, 6


def _bare_change(fact: str) -> bool:
    """A change told in a few words with nothing of what it changed to: "So yeah, moved again", "又搬家了"."""
    if not says_change(fact):
        return False
    if detect_language(fact) == "zh":
        return len(_CJK.findall(fact)) <= BARE_CHANGE_CHARS
    return len([w for w in _WORDS.findall(fact.lower()) if w not in {"so", "yeah", "well", "oh", "ok", "okay"}]) <= BARE_CHANGE_WORDS


def _without_asking_after(sentence: str) -> str:
    """A statement without the question that ends it after a comma, asked of the pet or of no one ("特效化妆我不干了，
    在伊犁霍城包了四十五亩地种薰衣草，是不是疯了？", "I moved to Lisbon, did you know?"): the clauses before it tell a
    fact. The sentence as it was when no clause is left or it is no question."""
    if not sentence.rstrip().endswith(("?", "？")):
        return sentence
    cut = max(sentence.rfind(","), sentence.rfind("，"))
    before = sentence[:cut].strip() if cut > 0 else ""
    if not _ASIDE.fullmatch(sentence[cut + 1:].strip()) or _WEIGHED.search(before):
        # it asks whether what it said is so ("You don't have eyelids, right?"), or what the pet thinks of it ("我要不要搬去
        # 上海，你说呢？", "I think I'm breaking up with Tom, is that bad?": the review)
        return sentence
    return before if len(before) >= 2 else sentence


#: a question after a statement that asks nothing of it: "did you know?", "是不是疯了？", "remember?"
_ASIDE = re.compile(r"(?:(?:did|do) (?:you|u|ya) know|you know|remember|guess what|can you believe it|how crazy is that|crazy,? right"
                    r"|(?:我)?是不是(?:疯了|傻了|很酷|很厉害)|(?:你)?知道吗|(?:你)?记得吗|没想到吧|厉害吧|疯了吧|想不到吧|酷不酷|牛不牛)"
                    r"[\s?？!！.。~～]*", re.IGNORECASE)
#: ...and a statement still weighed ("我要不要…", "I think I'm…", "we were wondering")
_WEIGHED = re.compile(r"要不要|是不是|该不该|能不能|吗|呢|想|打算|\b(?:think|wondering|should|maybe|might|thinking)\b", re.IGNORECASE)
#: a question after a statement that asks whether it is so
_DOUBTS = re.compile(r"\b(?:right|really|true|correct|isn'?t it|aren'?t (?:you|they|i)|don'?t (?:you|they|i)|doesn'?t it"
                     r"|is it|are you|do you think|innit|yeah|no)\s*[?？!！.]*\s*$|真的假的|真的吗|是真的吗|对吧|对不对|对吗|是吧"
                     r"|是不是真的|没错吧|吧[?？]", re.IGNORECASE)


def _without_harmless(lowered: str, table: Words) -> str:
    """`lowered` without the words that hold a word of `not_facts` or `unreal` but ask and suppose nothing
    ("主要是" holds 要是; "maybe five days a month" rounds a number)."""
    for phrase in table.harmless:
        lowered = lowered.replace(phrase, " ")
    return lowered if _PLAN_WORDS.search(lowered) else _ROUGHLY.sub(" ", lowered)


#: a plan or a wish the person had...
_PLANNED = re.compile(r"打算|准备|本来想|原本想|想过|考虑|计划"
                      r"|\b(?:thinking (?:of|about)|planning|plan(?:ned)? to|gonna|was going to|wanted to|considering)\b",
                      re.IGNORECASE)
#: ...given up in what follows: "thinking of getting a scooter here... nah the hills would kill me, forget it",
#: "本来打算在店里也养只小龙虾当吉祥物……算了，怕被客人当菜点了" (round 30's spent set noted both)
_GIVEN_UP = re.compile(r"^[\s,，.。…~～—-]*(?:(?:哎|唉|嗯|呃|oh|ah|ugh|hmm+|um+|meh|eh)[\s,，…~～]*)?"
                       # ("算了不说这个了" turns to another subject: what was said stands)
                       r"(?:(?:还是算了|算了)(?![\s，,]*不(?:说|提|聊|讲))|拉倒|不了不了|\bnah\b|\bnope\b|never ?mind|\bnvm\b"
                       r"|scratch that|forget (?:it|that))",
                       re.IGNORECASE)


def given_up(sentence: str, after: str = "") -> bool:
    """A plan the person gave up in the same sentence ("我本来想养只猫，算了，太麻烦") or the next."""
    if not _PLANNED.search(sentence):
        return False
    if after and _GIVEN_UP.match(after):
        return True
    parts = _CLAUSES.split(sentence)
    return any(_GIVEN_UP.match(part) for part in parts[1:])


def gives_up(text: str) -> bool:
    """Some plan in `text` is given up, in its sentence or the next."""
    said = sentences(text)
    return any(given_up(sentence, said[at + 1] if at + 1 < len(said) else "") for at, sentence in enumerate(said))


def without_given_up(sentence: str) -> str:
    """`sentence` without the clauses of a plan given up and of the giving up; what else it says stays ("My sister
    lives in Denver and I'm planning to move there" → "My sister lives in Denver")."""
    parts = [part.strip() for part in _CLAUSES.split(sentence) if part and part.strip()]
    kept = [part for part in parts if not _PLANNED.search(part) and not _GIVEN_UP.match(part)]
    if not kept or len(kept) == len(parts):
        return ""
    return ("，" if detect_language(sentence) == "zh" else ", ").join(kept)


#: a clause that asks to delete a memory: "wipe the one about night shifts, i'm on days now" is no fact
#: (it was kept as one, in place of "works night shifts"), "阿杰那条别留着了" neither; "I deleted
#: Instagram" and "我删了微博" tell one
_ASKS_DELETING = re.compile(
    r"^\s*(?:pls |please |can you |could you |just |now )?(?:forget|delete|remove|erase|wipe|scrub|scrap|bin|drop"
    r"|ditch|purge)\b(?! (?:it|that)\b)"
    r"|(?:那条|这条|那个|这个|的记忆).{0,12}(?:删|忘掉|忘了吧|别留|别存|别记|不用留|不用记|不要了|作废)",
    re.IGNORECASE,
)


#: a sentence that opens with someone the person knows: "my neighbour on the 18th floor keeps a rooster"
_OPENS_WITH_THEIRS = re.compile(r"^\W*(?:so |and |also |oh |btw,? )?(?:my|our|the|a|an)\s+(?:[a-z'-]+\s+){0,2}?"
                                r"(?:landlord|landlady|neighbour|neighbor|customer|client|coworker|colleague|boss)s?\b")


def may_be_told(sentence: str, today: bool = False) -> bool:
    """The form allows a fact told the way chat tells it, through an event or
    in passing ("passed the last driving test!!! licensed menace now"), for
    the learned reading (pet.memory.stated) to judge: no question, request,
    quote, hypothetical, wish or somebody else's words, and three words or
    Chinese characters at least."""
    table = _may_state(sentence)
    if table is None:
        return False
    lowered, language = sentence.lower(), detect_language(sentence)
    said = _CJK.findall(sentence) if language == "zh" else [w for w in _WORDS.findall(lowered) if len(w) > 1]
    if len(said) < TOLD_WORDS:
        return False  # too few words to tell anything by ("phone damson", "load c0 m5")
    opening = _CLAUSES.split(lowered, maxsplit=1)[0]
    if any(_has(opening, w, language, possessive=True) for w in table.acquaintances) and (
            not names_the_person(sentence) or _OPENS_WITH_THEIRS.match(opening)):
        return False  # "the landlord here has a parrot…", "my neighbour keeps a rooster": about them (named first)
    lowered = _without_harmless(lowered, table)  # "主要是海事案子" holds 要是 ("if"), but asks nothing
    return not any(_has(lowered, w, language) for w in table.unreal) and (today or not of_the_moment(sentence))


def of_the_moment(text: str) -> bool:
    """The words tell of this day or moment ("今天零下二十七度", "Typhoon warning tonight") and say
    nothing changed."""
    lowered, language = text.lower(), detect_language(text)
    table = words().get(language)
    return (table is not None and any(_has(lowered, w, language) for w in table.moments)
            and not says_change(text))


def joking(text: str) -> bool:
    """The message is a joke, or takes itself back ("I'm a millionaire. jk"): it states no fact."""
    if retracted(text):
        return True
    lowered, language = text.lower(), detect_language(text)
    table = words().get(language)
    return table is not None and any(_has(lowered, w, language) for w in table.jokes)


class Reader:
    """Decides which sentences state facts, on the router's encoder."""

    def __init__(self, router: intents.Router) -> None:
        from pet.memory import meaning  # the database layer loads only when capture is first asked

        self.router = router
        self.encoder_name = meaning.MODEL
        self.classifier = fact_kinds.classifier(meaning.MODEL, meaning.DIM)
        self.told = stated.classifier(meaning.MODEL, meaning.DIM)
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def vector(self, text: str) -> np.ndarray:
        """A text's vector, kept for the next turns (memories are compared again and again)."""
        with self._lock:
            found = self._cache.get(text)
            if found is not None:
                self._cache.move_to_end(text)
                return found
        vector = self.router.encode(text)
        with self._lock:
            self._cache[text] = vector
            while len(self._cache) > 2048:
                self._cache.popitem(last=False)
        return vector

    def kinds(self, vector: np.ndarray) -> dict[str, float]:
        """How likely the sentence is of each kind of fact (empty without the classifier)."""
        if self.classifier is None:
            return {}
        probabilities = self.classifier.probabilities(vector[None, :])[0]
        return dict(zip(self.classifier.kinds, probabilities.tolist()))

    def kind(self, vector: np.ndarray) -> str:
        found = self.kinds(vector)
        return max(found, key=found.__getitem__) if found else ""

    def stated(self, vector: np.ndarray, unsaid: bool = False) -> bool:
        """Whether a sentence worded as a fact reads as one: nearer the "note"
        examples than small talk, and not far behind any request (the
        encoder hears what a sentence is about more than what it does). One
        that leaves its subject out (`unsaid`) must be nearest "note" of all,
        and nearer than UNSAID_FLOOR."""
        scores = {name: score for score, name in self.router.scores(vector)}
        # the remember examples are facts with a request around them: a sentence worded as a fact (no
        # request in it) near them states one ("我的护照号是E7654321": remember 0.71, note 0.43)
        note = max(scores.get(intents.NOTE, -1.0), scores.get("remember", -1.0))
        if unsaid:
            return note >= UNSAID_FLOOR and note >= max(scores.values())
        return note >= NOTE_FLOOR and note >= scores.get(intents.CHAT, -1.0) and note >= max(scores.values()) - SLACK

    def share_of(self, text: str, kind: str) -> float:
        """How likely `text`, or one of its clauses, is of `kind`."""
        parts = [text] + [c.strip() for c in _CLAUSES.split(text) if c.strip() and c.strip() != text]
        return max(self.kinds(self.vector(part)).get(kind, 0.0) for part in parts)

    def facts(self, text: str) -> list[tuple[str, np.ndarray, str]]:
        """(fact, its vector, its kind) for each sentence of `text` that states one."""
        found: list[tuple[str, np.ndarray, str]] = []
        if joking(text) or declines_keeping(text):
            return found
        said = sentences(text)
        kept_at: list[int] = []
        for at, sentence in enumerate(said):
            if _few_words(sentence):
                continue  # "tea", "咖啡": a word alone (an answer, a topic) says nothing of the person by itself
            if kept_place(sentence):
                # where the person keeps a thing: the noting's learned reading does not keep it ("my spare key is under
                # the blue flowerpot", used as a person would: "where did i put my spare key" found nothing)
                fact = memory_fact(sentence).rstrip(".。!！~～ ")
                found.append((fact, self.vector(fact), PLACE))
                kept_at.append(at)
                continue
            sentence = _without_greeting(_without_asking_after(sentence))  # ("hi I'm Tove" was no fact, read as a greeting)
            if said_name(sentence.rstrip(".。!！~～ ")):
                # the person's name said alone: the learned reading does not keep a short one ("I'm Tove", used as a
                # person would), and it is the first thing a pet should know
                fact = _as_name(sentence.rstrip(".。!！~～ "))
                found.append((fact, self.vector(fact), NAME))
                kept_at.append(at)
                continue
            if given_up(sentence, said[at + 1] if at + 1 < len(said) else ""):
                sentence = without_given_up(sentence)
                if not sentence:
                    continue
            vector, kind, noted = None, "", False
            clauses = [c.strip() for c in _CLAUSES.split(sentence) if c and len(c.strip()) >= 2]
            if len(clauses) > 1 and any(self._asks(c) for c in clauses) or _ASKS_DELETING.search(sentence):
                continue  # a request rides along: "我的猫叫豆腐，给我定个明早7点的闹钟"; "瑜伽馆那条别记了"
            if arithmetic.expression_in(sentence):
                continue  # a sum asked: "1250 divided by 5, plus 12", "hey, 128 times 7 is what"
            if dated(sentence):
                # a plan at a set day and hour ("明天下午三点面试") passes, a reminder's business; a fact
                # in another clause stays ("我的猫叫豆腐，明天上午9点带它打疫苗")
                kept = [c for c in clauses if not dated(c)]
                if len(kept) == len(clauses):
                    # the day and the hour said in clauses apart ("我是护士，明天要上夜班，晚上八点开始"):
                    # the clauses that tell neither may still state a fact
                    kept = [c for c in clauses if not spans(c)]
                if len(kept) == len(clauses) or not kept or not any(self._lasting(c) for c in kept):
                    continue  # "…，好激动": the rest is a mood
                sentence = ("，" if detect_language(sentence) == "zh" else ", ").join(kept)
                clauses = kept
            if worded_as_fact(sentence):
                vector = self.vector(sentence)
                kind = self.kind(vector)
                unsaid = not names_the_person(sentence)
                # (a fear or a dislike of the person's own is a lasting fact: "我恐高", "I'm scared of heights")
                noted = (self.stated(vector, unsaid=unsaid) and (kind not in PASSING or kind == FEARS and not unsaid)
                         and not self._denied(vector, unsaid, sentence))
                if not noted:
                    # the whole may read as chat while a clause states the fact plainly: "我叫阿雅，在一家游戏公司做策划"
                    kind = self._clause_kind(sentence)
                    noted = bool(kind)
            whole = self._may_be_told(sentence)
            if not noted and self.told is not None and (whole or len(clauses) > 1 and of_the_moment(sentence)):
                # told through an event or in passing: the learned reading decides, of the whole or of a
                # clause ("我的猫叫豆腐，又把杯子推下桌了"), unless it asks for a tool. Of a sentence that
                # tells of the day, only a clause that names the person and not the day may tell a fact
                # ("今天真的离谱，……我胃不好，一喝冰的就疼……"; not "Typhoon warning tonight, and all the
                # ferries are cancelled")
                vector = self.vector(sentence) if vector is None else vector
                floor = TOLD_FLOOR if names_the_person(sentence) else UNSAID_TOLD_FLOOR
                told = sentence if whole and self._told(sentence, floor) else None
                if told is None and len(clauses) > 1:
                    told = next((c for c in clauses if (whole or names_the_person(c)) and self._told(c, CLAUSE_FLOOR)),
                                None)
                kind = self.kind(self.vector(told)) if told is not None else ""
                # (nor small talk, the kind of no fact: "我下班啦", "我上岸了", "with my NAME", "第一版" were kept from the
                # spent chat sets of rounds 45 to 47)
                noted = told is not None and kind != CHAT
            if not noted or vector is None:
                continue
            fact = _without_greeting(memory_fact(sentence).rstrip(".。!！~～ "))
            if len(fact) < 2:
                continue
            name, rest = _name_first(fact)
            if name and rest:
                # the person's name apart from what follows it, which is kept only when it tells a fact by itself: a
                # change of the rest ("我和宋杰离婚了") must not take the name with it (used as a person would: "hi! I'm
                # Tove, my husband Song Jie drives a truck…" was replaced whole); "我叫小明，很高兴认识你" keeps the name
                named = [(_as_name(name), self.vector(_as_name(name)), NAME)] + self._after_name(rest)
                found += named
                kept_at += [at] * len(named)
                continue
            found.append((fact, vector, kind))
            kept_at.append(at)
        return self._with_news_beside(said, found, kept_at)

    def _with_news_beside(self, said: list[str], found: list[tuple[str, np.ndarray, str]],
                          kept_at: list[int]) -> list[tuple[str, np.ndarray, str]]:
        """Each fact with the sentence just before or after it that tells news the learned reading is
        fairly sure of but that was not kept by itself, when the second of the two goes on from the first
        (it does not open with the person: "we adopted a calico from a shelter in Putuo today! her name is
        Niangao", "驾照终于考下来了！！科目二挂了两次，第三次过的", "quit Red Bull cold turkey. jasmine tea all
        day now": round 36's spent set kept the second alone, or the first; not "We finally bought a house!
        I'm allergic to peanuts btw."). A sentence goes with one fact only, the first to reach it."""
        taken = set(kept_at)
        joined: list[tuple[str, np.ndarray, str]] = []
        joined_at: list[int] = []
        for (fact, vector, kind), at in zip(found, kept_at):
            if joined_at and joined_at[-1] == at - 1 and _POINTS_BACK.match(said[at].strip()):
                # a fact that points back to the one kept just before it goes with it ("we adopted a calico
                # today! her name is Niangao", now that adopting reads as a change and is kept by itself)
                before, _, before_kind = joined.pop()
                told = said[joined_at.pop()].strip()
                before = told if told.rstrip(".。!！~～ ") == before else before
                gap = "" if detect_language(fact) == "zh" else " "
                end = "" if before[-1:] in ".。!！?？~～" else ("。" if gap == "" else ".")
                fact = memory_fact(before + end + gap + fact).rstrip(".。!！~～ ")
                vector = self.vector(fact)
                whole = self.kind(vector)
                joined.append((fact, vector, before_kind if whole in PASSING else whole))
                joined_at.append(at)
                continue
            joined_at.append(at)
            parts = [fact]
            if at > 0 and at - 1 not in taken and not _OPENS_WITH_THE_PERSON.match(said[at].strip()) and (
                    self._news_beside(said[at - 1])):
                parts.insert(0, said[at - 1].strip())
                taken.add(at - 1)
            if at + 1 < len(said) and at + 1 not in taken and not _OPENS_WITH_THE_PERSON.match(said[at + 1].strip()) and (
                    self._news_beside(said[at + 1]) or _bare_change(fact) and self._goes_on(said[at + 1])):
                parts.append(said[at + 1].strip())
                taken.add(at + 1)
            if len(parts) > 1:
                gap = "" if detect_language(fact) == "zh" else " "
                fact = memory_fact(gap.join(part if part[-1] in ".。!！?？~～" else part + ("。" if gap == "" else ".")
                                            for part in parts[:-1]) + gap + parts[-1]).rstrip(".。!！~～ ")
                vector = self.vector(fact)
                whole = self.kind(vector)
                kind = kind if whole in PASSING else whole
            joined.append((fact, vector, kind))
        return joined

    def _after_name(self, rest: str) -> list[tuple[str, np.ndarray, str]]:
        """The facts of what follows the person's name in a sentence ("…，在一家游戏公司做策划"): those it tells by
        itself, or the whole when it is worded as a lasting fact of no passing kind (not "很高兴认识你", "I'm so
        tired today")."""
        told = self.facts(rest)
        if told:
            return told
        vector = self.vector(rest)
        kind = self.kind(vector)
        lasting = worded_as_fact(rest) and not of_the_moment(rest) and kind not in PASSING and kind != CHAT
        return [(rest, vector, kind)] if lasting else []

    def _tells_nothing(self, text: str) -> bool:
        """A sentence beside a kept fact that cannot go with it: too short, a question, a request, a plan at a time,
        one given up, a joke or a sum."""
        return bool(len(text) < 2 or text.endswith(("?", "？")) or self._asks(text) or dated(text) or (
            given_up(text) or joking(text) or arithmetic.expression_in(text)))

    def _goes_on(self, sentence: str) -> bool:
        """Whether a sentence after a change told bare ("So yeah, moved again.") says what it changed to: it asks,
        plans and counts nothing, and is not small talk ("Little mud-brick house in Huocheng…", round 50's set)."""
        text = sentence.strip()
        return not self._tells_nothing(text) and self.kind(self.vector(text)) != CHAT

    def _news_beside(self, sentence: str) -> bool:
        """Whether a sentence beside a kept fact tells news of it: the learned reading gives it at least
        BESIDE_FLOOR, and it asks nothing."""
        text = sentence.strip()
        if self.told is None or self._tells_nothing(text):
            return False
        vector = self.vector(text)
        return (stated.fact_probability(self.told, vector) >= BESIDE_FLOOR
                and self.router.route(text, vector).intent in (None, intents.NOTE, intents.CHAT))

    def _lasting(self, clause: str) -> bool:
        """The clause states a lasting fact on its own ("我的猫叫豆腐"; not "好激动")."""
        vector = self.vector(clause)
        return worded_as_fact(clause) and self.stated(vector, unsaid=not names_the_person(clause)) and (
            self.kind(vector) not in PASSING)

    @staticmethod
    def _asks(clause: str) -> bool:
        """The clause asks for something in its form: a sentence with such a clause ("我的猫叫豆腐，
        给我定个明早7点的闹钟") is no fact, whatever its other clauses say. (A question word inside a
        sentence asks nothing: "I'm left-handed, which makes scissors a pain".)"""
        return reflexes.looks_like_request(clause) or _ASKS_DELETING.search(clause) is not None

    def _may_be_told(self, text: str) -> bool:
        """may_be_told, and of a sentence that tells of today, only news of the person of a lasting kind
        ("I adopted a kitten today!", "今天我领证了"; not "Ugh, I'm in such a flat mood today")."""
        if may_be_told(text):
            return True
        return (may_be_told(text, today=True) and names_the_person(text)
                and self.kind(self.vector(text)) not in PASSING)

    def _denied(self, vector: np.ndarray, unsaid: bool, sentence: str) -> bool:
        """The learned reading is sure the sentence states no fact: below DENIED for one that leaves its subject out;
        below DENIED_NAMED for one that names the person and says nothing changed (of news of a day it is too sure:
        "I broke up with my boyfriend yesterday" 0.09, "I quit my job yesterday" 0.03)."""
        if unsaid:
            floor = DENIED
        elif says_change(sentence) or _STATES_A_VALUE.search(sentence):
            # (nor of a value of theirs: "my gate code is 5521" 0.016, "my locker code is 4471" 0.002)
            return False
        else:
            floor = DENIED_NAMED
        return self.told is not None and stated.fact_probability(self.told, vector) < floor

    def _told(self, text: str, floor: float) -> bool:
        """The learned reading gives `text` at least `floor` of being a fact, and the router does not
        read it as a request."""
        if self.told is None or not self._may_be_told(text):
            return False
        vector = self.vector(text)
        return (stated.fact_probability(self.told, vector) >= floor
                and self.router.route(text, vector).intent in (None, intents.NOTE, intents.CHAT))

    def _clause_kind(self, sentence: str) -> str:
        """The kind of the first clause of `sentence` that states a lasting fact
        on its own ("我叫阿雅"), or "" when none does."""
        clauses = [c.strip() for c in _CLAUSES.split(sentence) if c and len(c.strip()) >= 2]
        if len(clauses) < 2:
            return ""
        for clause in clauses:
            vector = self.vector(clause)
            unsaid = not names_the_person(clause)
            if self.stated(vector, unsaid=unsaid) and not self._denied(vector, unsaid, clause):
                kind = self.kind(vector)
                if kind not in PASSING:
                    return kind
        return ""

    def replaced(self, book: NoteBook, pet_id: int, fact: str, vector: np.ndarray, kind: str,
                 message: np.ndarray | None = None, context: str = "",
                 taken: frozenset[int] = frozenset(), rules_only: bool = False) -> MemoryRecord | None:
        """The memory `fact` updates, about the same person, of those
        `candidates` finds but the `taken` (another fact of the message went
        to them: "格瓦斯我戒了，太甜。现在天天泡普洱" replaces the kvass once, and
        "我戒咖啡了。现在每天喝绿茶" with no memory of coffee keeps both):
        one of the same single-valued kind close in meaning, or, when the fact
        says something changed, the memory nearest in meaning if it is near
        enough. A fact of a single-valued kind is compared with the memory as
        the whole `message` too ("I quit the logistics job. I'm a freelance
        illustrator now!": the job it replaces is named in the other
        sentence). `context`: the message's text, which says whom a "he"/"she" is.
        With the learned model (pet.memory.replacing), unless `rules_only`, it
        decides which, from the rules' readings of each pair; a fact that is
        of no single-valued kind and says no change replaces nothing either way."""
        if not may_replace(fact, kind):
            return None
        learned = None if rules_only else replacing.model(self.encoder_name, len(PAIR_FEATURES))
        if learned is not None:
            import numpy as np

            compared = [r for r in candidates(book, pet_id, fact, context) if r.id not in taken]
            if not compared:
                return None
            rows = np.array(self.pair_features(fact, vector, kind, [r.content for r in compared], message),
                            dtype=np.float64)
            chances = learned.probabilities(rows)
            # someone else's news ("小美订婚了！", "Lily moved to Lisbon!") changes only a memory that names them
            others = _news_of_someone(fact)
            bar = np.array([float("inf") if (_RENAMES_A_THING.search(fact) or not _OWN_NAME.search(fact) and _SOMEONES_NAME.search(
                fact)) and _OWN_NAME.search(record.content)
                            else self._bar(row, record.content, kind, others) for row, record in zip(rows.tolist(), compared)])
            chances = np.where(chances >= bar, chances, 0.0)
            best_at = int(np.argmax(chances))
            return compared[best_at] if chances[best_at] >= replacing.REPLACE_AT else None
        language = detect_language(fact)
        sure = kind in SINGLE and self.kinds(vector).get(kind, 0.0) >= SURE_KIND and _of_the_person(fact, language)
        best, best_rank = None, -1.0
        lead = names.leading(fact)
        mine = self.kinds(vector)
        for record in candidates(book, pet_id, fact, context):
            if record.id in taken:
                continue
            rank = self.ruled(fact, vector, kind, record.content, message=message, language=language, sure=sure,
                              lead=lead, mine=mine)
            if rank is not None and rank > best_rank:
                best, best_rank = record, rank
        return best

    def pair_features(self, fact: str, vector: np.ndarray, kind: str, contents: list[str],
                      message: np.ndarray | None) -> list[list[float]]:
        """The readings of `fact` beside each memory of `contents` that pet.memory.replacing weighs
        (PAIR_FEATURES): each pair's own, then each beside the best of those the model is asked of."""
        import numpy as np

        language = detect_language(fact)
        single, changed = kind in SINGLE, says_change(fact)
        mine = self.kinds(vector)
        sure = single and mine.get(kind, 0.0) >= SURE_KIND and _of_the_person(fact, language)
        lead = names.leading(fact)
        also, mine_topics = bool(_ALSO.search(fact)), concepts.topics(fact)
        rows = []
        for content in contents:
            old = self.vector(content)
            cosine = float(old @ vector)
            near = cosine if message is None else max(cosine, float(old @ message))
            across = float(detect_language(content) != language)
            theirs = self.kinds(old)
            alike = sum(p * theirs.get(k, 0.0) for k, p in mine.items())
            share = self.share_of(content, kind)
            rank = self.ruled(fact, vector, kind, content, message=message, language=language, sure=sure, lead=lead,
                              mine=mine)
            rows.append([cosine, near, across, float(changed), float(single), mine.get(kind, 0.0), share, alike,
                         float(min(len(mine_topics & concepts.topics(content)), 2)), float(names.named(lead, content) or names.shared(fact, content)),
                         float(also), float(kind in PASSING), float(sure), float(rank is not None), rank or 0.0,
                         float(says_change(content)), changed * cosine, single * share, across * cosine, changed * alike,
                         float(min(len(lexicon.shared(fact, content)), 2))])
        # the best of the memories the model is asked of: one it may not replace ("I'm from Hangzhou" beside "I live
        # in Hangzhou", a memory of another kind) sets no bar
        asked = [row for row in rows if asked_of_model(row)] or rows
        best = np.array(asked, dtype=np.float64).max(axis=0)
        for row in rows:
            row += [row[0] - best[0], row[7] - best[7], row[6] - best[6], (row[14] - best[14]) * row[13],
                    row[_ACROSS_WORDS] - best[_ACROSS_WORDS]]
        return rows

    def _bar(self, row: list[float], content: str, kind: str, others: bool) -> float:
        """The least the learned model must give a pair (`row`, its PAIR_FEATURES) for the memory `content` to be
        replaced: more when only the fact's word of change admits it ("我戒咖啡了" must not replace "I'm allergic to
        peanuts" when no memory holds the coffee), unless the memory is of a kind that changes with the fact's (a
        job told as a workplace: "I work as a nurse at Ruijin Hospital"); none (infinite) when the model is not
        asked of it, or the fact is someone else's news and the memory does not name them."""
        if not asked_of_model(row) or others and not row[_NAMED]:
            return float("inf")
        if _ruled_or_kind(row) or any(self.share_of(content, other) >= SAME_KIND for other in _RELATED.get(kind, ())):
            return replacing.REPLACE_AT
        if row[_CHANGED] > 0 and row[_ACROSS_WORDS] > 0:
            # a change of the very thing the memory names in the other language ("Sold the Lego" beside
            # "我家的空房间基本是个乐高博物馆"; the encoder reads the two as unrelated)
            return replacing.REPLACE_AT
        return replacing.REPLACE_ONLY_CHANGED_AT

    def ruled(self, fact: str, vector: np.ndarray, kind: str, content: str, *, message: np.ndarray | None,
              language: str, sure: bool, lead: frozenset[str], mine: dict[str, float]) -> float | None:
        """How fit the memory `content` is to be replaced by `fact`, by the rules of `replaced`; None: it may not be."""
        single, changed = kind in SINGLE, says_change(fact)
        old = self.vector(content)
        cosine = float(old @ vector)
        near = cosine if message is None else max(cosine, float(old @ message))
        # which of the memories that may be replaced is: the nearest, but a likeness across languages
        # reads lower than one within a language for the same closeness
        bonus = CROSS_LANGUAGE if detect_language(content) != language else 0.0
        if changed and cosine >= CHANGED_TOPIC:
            rank = cosine
        elif cosine >= NAMED_TOPIC and (names.named(lead, content) or names.shared(fact, content)) and (
                changed or single and self.share_of(content, kind) >= SAME_KIND_CHANGED):
            rank = cosine
        elif changed and cosine >= CHANGED_KIND_TOPIC and kind not in PASSING and not _ALSO.search(fact) and (
                self.share_of(content, kind) >= SAME_KIND):
            rank = cosine
        elif changed and cosine >= SHARED_TOPIC and not _ALSO.search(fact) and (
                concepts.topics(fact) & concepts.topics(content)):
            rank = cosine
        elif single and near >= SAME_TOPIC and (
                self.share_of(content, kind) >= (SAME_KIND_CHANGED if changed else SAME_KIND)):
            rank = near
        elif changed and sure and not _ALSO.search(fact) and self.share_of(content, kind) >= SURE_KIND:
            # one single-valued kind, both sure of it, and the fact says it changed: "搬到里斯本啦" and "I've
            # got a flat in Wenjiang" (0.06 apart across languages)
            rank = cosine
        else:
            return None
        # ...and of two that may, the one of the fact's kinds of fact, as the kind reader sees both
        theirs = self.kinds(old)
        return rank + bonus + ALIKE_KINDS * sum(p * theirs.get(k, 0.0) for k, p in mine.items())


def _news_of_someone(fact: str) -> bool:
    """The fact opens with someone else's name: "Lily moved to Lisbon!", or in Chinese, where a name is not told from
    a word, a nickname ("小美订婚了！", "阿勇辞职了", not "小时候…", "小区…")."""
    if detect_language(fact) == "zh":
        return _NICKNAME.match(fact) is not None and not names_the_person(fact)
    return bool(names.leading(fact)) and not _of_the_person(fact, "en")


_NICKNAME = re.compile(r"^(?:小|阿)(?![时区孩学狗猫鱼朋伙姐哥弟妹时候猪兔鸟说])[\u4e00-\u9fff](?:[\u4e00-\u9fff](?=和|跟|订婚|结婚|搬|辞职|离职|分手|换|去|回|生|毕业|考|也|又|终于|最近|上个|今天|昨天))?")


def may_replace(fact: str, kind: str) -> bool:
    """Whether a fact may replace a memory at all: it is of a single-valued kind, or says something changed."""
    return kind in SINGLE or says_change(fact)


def asked_of_model(row: Sequence[float]) -> bool:
    """Whether the learned model (pet.memory.replacing) is asked of a pair whose PAIR_FEATURES are `row`: a fact that
    says no change replaces only a memory of its kind or one the rules allow ("I work in Beijing" leaves "I live in
    Beijing": the review of 2026-12-05 found the model alone replacing it)."""
    return row[_CHANGED] > 0 or _ruled_or_kind(row)


def _ruled_or_kind(row: Sequence[float]) -> bool:
    return row[_ALLOWED] > 0 or row[_OF_KIND] >= SAME_KIND


def _of_the_person(fact: str, language: str) -> bool:
    """The fact is surely the person's own: it names them ("我搬到里斯本了"), or it opens with no one else's
    name (English: "Just moved to Lisbon!", not "Lily moved to Lisbon!") or, in Chinese, where a name is not
    told from a word, with the words of the change themselves ("搬到里斯本啦", not "小美搬到里斯本啦")."""
    if names_the_person(fact) or _opens_with_change(fact, language):
        return True
    return language != "zh" and not names.leading(fact)


def _opens_with_change(fact: str, language: str) -> bool:
    """The fact opens with the words of a change, its subject left out: "搬到里斯本啦", "Gave up on Cantonese" (a
    capitalised verb is no name: round 48's spent set read "Gave" as someone's and the change as their news)."""
    table = words().get(language)
    if table is None:
        return False
    if language == "zh":
        return any(fact.startswith(word) for word in table.changes)
    lowered = fact.lower()
    return any(_has(lowered[:len(word) + 1], word, language) for word in table.changes
               if lowered.startswith(word) and word not in _SAID_OF_ANYONE)


#: words of change that open a sentence about anyone ("Actually Mei lives in Lisbon now", "Now Tom …": the review)
_SAID_OF_ANYONE = frozenset({"now", "actually", "update", "instead", "starting", "these days", "i meant", "scratch that",
                             "back to", "used to", "for good", "no more", "not any", "any more", "anymore", "no longer"})


#: a sentence that opens by pointing back at someone or something just told of: "her name is Niangao", "它叫年糕"
_POINTS_BACK = re.compile(r"^(?:(?:and|so)\s+)?(?:her|his|its|their|she|he|it|they|she's|he's|it's|they're)\b"
                          r"|^(?:它|她|他)", re.IGNORECASE)


def candidates(book: NoteBook, pet_id: int, fact: str, context: str = "") -> list[MemoryRecord]:
    """The memories a new fact may replace: the NEAREST in meaning and the
    RECENT newest, about whom the fact is about (`about`) or naming whom it
    opens with ("Tiedan has a new name: Captain", "我和Bartek分手了": pet.memory.names),
    but the fact's own text. A memory about the same person but naming others
    than the fact does (`mentions`) is a candidate only when the fact says
    something changed ("葡萄牙语放弃了，现在跟房东阿佳学藏语" replaces "I'm learning
    Portuguese"; "我在潍坊租的是一个老平房" leaves "每年清明我都回洛阳给爷爷扫墓"). A fact of the
    person and someone (`joint`: "我和男朋友分手了") may replace a memory about that someone. On the
    spent memory sets (rounds 1 to 19, 339 contradictions, 689 facts that say no
    change), against every name anywhere saying whom a fact is about: updates
    right 129 -> 140, facts that replaced a memory though they said no change
    31 -> 35."""
    who, named, changed = about(fact, context), mentions(fact), says_change(fact)
    together = joint(fact)
    seen: dict[int, MemoryRecord] = {}
    for record in book.nearest(pet_id, fact, NEAREST) + book.recent(pet_id, limit=RECENT):
        seen.setdefault(record.id, record)
    lead = names.leading(fact)
    return [r for r in seen.values()
            if r.content != fact and (about(r.content) == who and (changed or mentions(r.content) == named)
                                      or together and about(r.content) == together
                                      or names.named(lead, r.content) or names.shared(fact, r.content))]


def mentions(text: str) -> frozenset[str]:
    """The roles of every `others` word in `text`, wherever it stands ("the shop cat", "teaching the kids")."""
    return _roles(text, pets=True)


_reader: Reader | None = None


def reader() -> Reader | None:
    """The process's reader; None without the encoder (nothing is noted)."""
    global _reader
    if _reader is None:
        router = intents.router()
        if router is not None:
            _reader = Reader(router)
            # the Chinese-English dictionary (pet.memory.lexicon, about three seconds) read before the first fact needs it,
            # in the background thread a search would start
            lexicon.loaded()
    return _reader


def note(book: NoteBook, pet_id: int, text: str, *, source_message_id: int | None = None,
         conversation_id: int | None = None, pending: bool = False, rules_only: bool = False) -> list[Noted]:
    """Keep the facts `text` states about the person; what was kept.
    `pending`: a tool's output is in view, so the facts wait for approval.
    `rules_only`: which memory a fact replaces, by the rules alone (the
    learned model's training replays the sets so)."""
    found = reader()
    if found is None:
        return []
    noted = []
    facts = found.facts(text)
    message = found.vector(text) if facts and len(sentences(text)) > 1 else None
    taken: set[int] = set()  # memories a fact of this message went to: its other facts come beside them
    for fact, vector, kind in facts:
        old = None if pending else found.replaced(book, pet_id, fact, vector, kind, message, context=text,
                                                   taken=frozenset(taken), rules_only=rules_only)
        if old is not None:
            taken.add(old.id)
            record = book.revise(pet_id, old.id, fact, source_message_id=source_message_id,
                                 conversation_id=conversation_id)
            if record is not None:
                noted.append(Noted(record, replaced=old.content))
                continue
        record, created = book.remember(pet_id, fact, source_message_id=source_message_id,
                                        conversation_id=conversation_id, asserted_by="person", pending=pending)
        taken.add(record.id)
        noted.append(Noted(record, again=not created))
    return noted


def said(noted: Noted, language: str) -> str:
    """The noted step's result, as the chat shows it."""
    record = noted.record
    if language == "zh":
        if noted.replaced is not None:
            return f"#{record.id} 更新为：{record.content}（原来是：{noted.replaced}；/undo 撤销）"
        if record.status == "pending":
            return f"#{record.id} 记下了，等你确认（/approve {record.id}）：{record.content}"
        return f"#{record.id}：{record.content}（/undo 撤销）"
    if noted.replaced is not None:
        return f"#{record.id} updated: {record.content} (was: {noted.replaced}; /undo takes it back)"
    if record.status == "pending":
        return f"#{record.id} pending your /approve {record.id}: {record.content}"
    return f"#{record.id}: {record.content} (/undo takes it back)"


def unsaid(record: MemoryRecord, language: str) -> str:
    """What /undo says after taking a noted fact back."""
    if record.deleted_at is not None:
        return f"好，不记这条了 #{record.id}：{record.content}" if language == "zh" else (
            f"Took back memory #{record.id}: {record.content}")
    return f"#{record.id} 改回：{record.content}" if language == "zh" else (
        f"Memory #{record.id} is back to: {record.content}")

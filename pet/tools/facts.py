"""What a person asks the pet to keep or to drop, without the asking.

"Note that I'm allergic to peanuts, keep it in mind." holds one fact, "I'm
allergic to peanuts": the request around it ("keep it in mind", "记一下",
"记住了吗") and quotes around it are not part of it. `memory_fact` is the one
place that knows the request wording; reflexes and the remember tool both use it.

"Forget it, never mind." and "算了，别管了" drop a subject; they never ask to
delete a memory (`dismissal`).
"""

from __future__ import annotations

import re

_I = re.IGNORECASE

# "remember that …", "note: …", "帮我记一下：…"
_LEAD = [
    re.compile(
        r"^(?:(?:please|pls|plz|and|so|ok|okay|hey)[,\s]+)*(?:(?:can|could|would|will) (?:you|u)\s+(?:please\s+|pls\s+)?)?"
        r"(?:remember|note(?: down)?(?!\s+(?:this|that|it)\s+(?:down|away)(?:\s+(?:in|into|to|on)\s+(?:your|ur|ya|yr)\b|\s*[:：,，]|\s*$))|note to self|memori[sz]e|keep in mind"
        r"|don'?t forget|do not forget|make a (?:mental )?note(?!\s+(?:of|to)\b))\b(?:\s+for me(?=\s+that\b))?"
        # ("…, remember instead that i work at Kestrel Labs now")
        r"(?:\s*一下)?(?:\s+instead)?(?:\s+that\b)?\s*[:：,，-]?\s*",
        _I,
    ),
    # (after an aside: "顺便帮我记住：…", "对了，记一下…")
    re.compile(r"^(?:(?:顺便|另外|还有|对了|哦对了?)[，,\s]*)?(?:请|麻烦)?(?:你)?(?:帮我|给我)?\s*"
               r"(?:记住|记一下|记下来|记下|记着|记好|(?:改)?记成(?![^，,。]*了)|别忘了|不要忘了|别忘记|(?i:remember)(?=\s*一下))"
               r"(?:\s*一下|点儿?(?=[\s，,：:。！!]|$))?(?:吧|哈|啊|呀|哦|嘛)?[：:，,\s]*"),
    # "keep track of this one for me, …", "hold onto this: …", "I want you to remember that …"
    re.compile(
        r"^(?:(?:please|pls|plz|and|so|ok|okay|hey)[,\s]+)*(?:(?:can|could|would|will) (?:you|u)\s+(?:please\s+)?)?"
        # ("save that for me, I'll eat it later" is about a thing: a colon says it asks)
        r"(?!save (?:this|that|it) for me\s*[,，])"
        r"(?:keep track of|hold on ?to|hang on ?to|store|file away|don'?t lose|jot down|write down|note down|note"
        r"|remember|memori[sz]e|(?:save|commit|put)(?=\s+\w+\s+(?:for me|(?:to|in) (?:(?:your|ur|ya|yr) )?memory)))"
        r"\s+(?:this|that|it)(?:\s+one)?"
        # "save this for me: …", "commit this to memory, …", "put this in your memory bank: …"
        r"(?:\s+(?:away|down|for me|somewhere|to (?:(?:your|ur|ya|yr) )?memory|in (?:(?:your|ur|ya|yr) )?memory(?: bank)?))*\s*[:：,，-]+\s*",
        _I,
    ),
    re.compile(r"^i (?:want|need) you to remember\b(?:\s+that\b)?\s*[:：,，-]?\s*", _I),
    # "这个你得记牢：…", "把这个存进你脑子里：…"
    re.compile(r"^(?:(?:把)?(?:这个|这件事|这条|下面这个)|以下)?(?:你)?(?:帮我|给我)?(?:得|要|一定要|必须|可得)?"
               r"(?:记牢|记住|记好|记清楚|记下|存着|存好|存进(?:你的?)?(?:脑子|脑袋|记忆|小本本)里?"
               r"|存到(?:你的?)?(?:脑子|脑袋|记忆|小本本)里)(?:了|哦|啊|呀)?[：:，,]\s*"),
]
# requests to keep what follows in other words, before a colon or a comma (`opens_with_request`)
_OTHER_WORDS = [
    # a short request of other words before a colon or a comma: "store that somewhere in that crayfish
    # brain: …", "don't let this slip your mind: …", "save this about me: …", "keep this on file: …"
    re.compile(
        r"^(?:(?:please|pls|plz|and|so|ok|okay|hey|yo)[,\s]+)*(?:(?:can|could|would|will) (?:you|u)\s+(?:please\s+)?)?"
        r"(?:(?:store|save|log|file|stash|record|keep|bookmark|don'?t let|do not let)\s+(?:this|that)\b"
        r"(?:\s+(?!(?:is|was|are|i|i'm|my)\b)[\w'’-]+){0,5}?"
        r"(?:\s+(?:for me|somewhere|about me|on file|on record|slip your mind|(?:in|to) (?:your|ur|ya|yr) "
        r"(?:memory|memories|head|brain|notes?|files?)|in that [\w-]+ (?:brain|head)))"
        # a colon or a dash: after a comma it is banter as often ("write that down, you're hilarious",
        # "save that for me, I'll eat it later")
        r"|(?:jot|write) (?:this|that) down)\s*(?:[:：]|\s-)\s*",
        _I,
    ),
    re.compile(r"^(?:(?:please|pls|plz|ok|okay|hey|yo)[,\s]+)*(?:store|save|log|jot|file|stash|record|bookmark)\s+"
               r"(?:this|that)\s*[:：]\s*", _I),
    # any short request to keep "this" before a colon: "keep this somewhere safe: …", "don't let me lose this: …",
    # "stash this one for later: …" (round 42's spent tools set kept the request with the fact, or nothing)
    re.compile(r"^(?:(?:please|pls|plz|ok|okay|hey|yo|and|so)[,\s]+)*(?:(?:can|could|would|will) (?:you|u)\s+)?"
               r"(?:(?:keep|store|save|stash|log|file|record|bookmark|hold|hang|jot|note|memori[sz]e|remember)\b"
               r"|(?:don'?t|do not) (?:let me )?lose\b)[^:：\n]{0,30}?\b(?:this|that|these)\b[^:：\n]{0,20}[:：]\s*(?=\S)", _I),
    # "帮我存一下：…", "给我记上：…", "记录一下，…", "备忘一下：…", "你记一记：…", "remember一下，…", "存个档：…"
    re.compile(r"^(?:请|麻烦)?(?:你)?(?:帮我|给我)?(?:存|记上|记录|备忘|存档|(?i:remember))(?:一下|下|个档|一记|起来)?"
               r"[：:，,]\s*"),
    re.compile(r"^(?:请|麻烦)?(?:你)?(?:帮我|给我)?记一记[：:，,]\s*"),
    # "这个帮我收好：…", "帮我留个底：…", "你替我记着，…", "这个存好别丢了：…" (seen on the page: the model said it kept a wrong
    # number and nothing was kept)
    re.compile(r"^(?:这个|这条|下面这个|以下)?(?:你)?(?:帮我|给我|替我)?(?:收好|存好|留个底|保管好|存着|记着|收着)"
               r"(?:了|哦|啊|呀|别丢了|别弄丢了)?[：:，,]\s*"),
]
_LEAD += _OTHER_WORDS
#: words before a fact asked to be kept that only say why it is told now: "oh and before i forget, my niece turns six on
#: june 14 — keep that in mind" (round 38's spent set); by themselves they ask nothing ("before i forget, i was going to
#: tell you about my trip")
_WHY_NOW = re.compile(r"^(?:(?:oh|and|also|btw|by the way|so|ok|okay|anyway|anyways)[,\s]+)*(?:before i forget"
                      r"|while i remember|while i'm at it)\s*[:：,，—–-]+\s*(?=\S)", _I)
# "it: my wifi is hunter2", "这个：…" (a pronoun standing for what follows)
#: where the pet keeps a fact, said with the request: "in your memory", "into ur little crayfish brain"
KEPT_IN = r"(?:in|into|to|on) (?:your|ur|ya|yr) (?:[a-z]+ ){0,2}(?:memory|memories|head|brain|notes?|notebook)"
_BARE_PRONOUN = re.compile(r"^(?:it|that|this|这个|这件事|这)\s*[:：,，]\s*", _I)
_ONLY_PRONOUN = re.compile(r"^(?:it|that|this|它|这个|那个|这|那|这件事)$"
                           # ("remember that instead" read as "remember that <fact>")
                           r"|^(?:instead|too|as well|also)[\s.!]*$"
                           # ("…, note that down in your memory": round 48's spent tools set kept "down in your memory")
                           rf"|^(?=\w)(?:down|away)?\s*(?:{KEPT_IN})?[\s.!]*$", _I)
# "…, keep it in mind", "… don't forget", "…，记住了吗？"
#: what a fact is kept for, said after the request: "…, remember that for when she visits"
_KEPT_FOR = r"for (?:when|next time|later|future reference|the future)"
_TAIL_END = (# where it is kept: "…, note that down in your memory" (round 48's spent tools set kept "down in your memory")
             rf"(?:\s+{KEPT_IN})?"
             r"(?:[,\s]+(?:for me|please|pls|plz|ok|okay|will you|alright|thanks|thank you|thx|ty|lol|lmao|haha+|hehe"
             # "…. remember that instead" (after a forget: round 32's spent set kept "instead"), "…, note that too"
             r"|from now on|going forward|instead|too|as well))*"
             # "…, remember that, I don't need a reminder": a remark on the request after it
             # (no number and no "and" in it: "…, in case I forget, and my bike code is 4321" says more)
             r"(?:\s*[,;，]\s*(?:i (?:don't|do not|dont) need|no need|not as a reminder|just in case|in case"
             r"|i'?ll (?:never remember|forget|probably forget|never keep))"
             r"(?:(?!\band\b)[^.?!,，\d])*)?"
             # "…, remember that for when she visits", "…, note it so I don't ask again": what it is kept for
             rf"(?:\s*,?\s+(?:{_KEPT_FOR}|so (?:that )?i (?:don'?t|do not|won'?t"
             r"|can'?t|can|never|remember)|so (?:that )?(?:you|u) (?:know|remember|don'?t|do not|won'?t|never))\b"
             r"(?:(?!\band\b)[^.?!,，\d])*)?"
             r"[\s?？!.。~～\U0001F300-\U0001FAFF\U0001F1E6-\U0001F1FF\u2600-\u27BF\u2B00-\u2BFF\uFE0F\u200D]*$")
_ZH_ASK = (r"(?:(?i:remember)\s*一下|记住了吗|记住了没有?|记住没有?|记得住吗|记住|记好了?|记一下|记下来|记下|记着|别忘了|不要忘了|别忘记了?|不要忘记"
           r"|存一下|存下来|存起来|记在心上|记在心里|放在心上|记牢了?|记清楚|要记得|得记得|(?:别|不要)让我忘(?:了|记了?)?"
           r"|存(?:到|进)(?:你的?)?(?:脑子|脑袋|记忆|小本本)里?)")
#: where the pet keeps it, said before the request: "你脑子里存一下", "在小本本上记一下"
_ZH_WHERE = r"(?:(?:在|往)?(?:你的?)?(?:小)?(?:脑子|脑袋|脑瓜子?|小本本|本本|本子|记忆|心)(?:里|上)(?:面)?(?:给我|帮我)?)?"
_ZH_TAIL_END = (r"(?:点儿?|一下)?(?:了|啦|哦|啊|吧|呀|哈|喔|吗|没|没有|嘛|呗)*"
                # "…你帮我记住吧，以后万一用得上": why it is worth keeping, after the request
                # (no number and no 记 or 也 in it: "…，下次我的车牌是沪A12345也记一下" says more)
                r"(?:[，,]\s*(?:以后|万一|免得|省得|到时候?|下次|回头|哪天|改天|之后|将来)[^，,。？?\d记也]*)?"
                r"[\s？?！!。~～]*$")
_TAIL = [
    re.compile(
        r"[\s,.;:!—–-]*\b(?:(?:and|so|please|pls|plz|ok|okay|now|just|btw|by the way)[,\s]+)*"
        r"(?:(?:can|could|would|will) (?:you|u)\s+(?:please\s+)?)?"
        r"(?<!\bi )(?<!\bwe )(?<!\bwill )(?<!'ll )(?<!\bto )(?<!\bcan )"  # "…, I'll remember that": the person's own
        r"(?:keep (?:it|that|this) in mind|remember (?:it|that|this)|don'?t forget (?:it|that|this)"
        r"|do not forget (?:it|that|this)|note (?:it|that|this)(?: down)?|make a note of (?:it|that|this)"
        r"|write (?:it|that|this) down|save (?:it|that|this)|memori[sz]e (?:it|that|this)"
        # in other words, after the fact: "…, keep that in ur head for me", "…, file that away", "…, save
        # that somewhere pls" (not "save that for me", which is as often about a thing: "…, I'll eat it later")
        # ("…, save that somewhere in ur little crayfish brain", "…, dont let me forget that")
        r"|keep (?:it|that|this) in (?:your|ur|ya|yr) (?:[a-z]+ ){0,3}(?:head|brain|memory|noggin)|file (?:it|that|this) away"
        r"|(?:save|store|stash) (?:it|that|this) (?:somewhere|away)(?: in (?:your|ur|ya|yr) (?:[a-z]+ ){0,3}(?:head|brain|memory|noggin))?"
        # "…. store that pls", "…, keep that safe for me", "…, don't let me lose it" (round 42's spent tools set)
        r"|(?:store|stash) (?:it|that|this)|keep (?:it|that|this) safe|(?:don'?t|do not) let me lose (?:it|that|this)"
        r"|(?:hang|hold) on ?to (?:it|that|this)|(?:don'?t|do not) let me forget (?:it|that|this)"
        # "…btw, pls don't lose that" (round 30's spent set)
        r"|(?:don'?t|do not) lose (?:it|that|this))" + _TAIL_END,
        _I,
    ),
    # without an object the request needs a mark before it: "…, don't forget" (not "things I don't forget")
    re.compile(r"\s*[,.;:!—–-]+\s*(?:(?:and|so|please|pls|now|just)\s+)*"
               r"(?:keep in mind|don'?t forget|do not forget|make a note|(?:don'?t|do not) let me forget)" + _TAIL_END, _I),
    re.compile(r"\s*[,.;!]\s*(?:got (?:it|that)|ok(?:ay)?|please|pls|thanks|thank you|alright)[\s?？!.]*$", _I),
    # "…，记住了吗？", "…，一定要记住哦"; with no mark only when the words ask the pet ("我搬家了，记一下" but
    # not "我终于把乘法表记住了")
    # "…，这个你得记牢"
    # "…，你脑子里存一下", "…，在你的小本本里记一下"
    re.compile(r"(?:[\s，,。！!；;、~～]+(?:这个|这条|这件事)?(?:请|你|要|得|可得|必须|一定|千万|务必|帮我|可以|可(?=别|不要))*"
               r"|(?:请|你|帮我)+(?:一定)?(?:要)?)" + _ZH_WHERE + _ZH_ASK + _ZH_TAIL_END),
    re.compile(r"(?:记住了吗|记住了没有?|记住没有?|记得住吗|记一下|记下来)" + _ZH_TAIL_END),
    re.compile(r"\s*[，,]\s*(?:好吗|好不好|行吗|可以吗|谢谢|谢啦)[\s？?！!。~～]*$"),
]
_QUOTES = {'"': '"', "“": "”", "'": "'", "‘": "’", "「": "」", "『": "』"}


def unquote(text: str) -> str:
    """Quotes around the whole text go; quotes inside it stay ("my motto is "carpe diem"")."""
    close = _QUOTES.get(text[:1])
    inner = text[1:-1]
    if close and len(text) >= 2 and text.endswith(close) and text[0] not in inner and close not in inner:
        return inner.strip()
    return text


def only_pronoun(text: str) -> bool:
    """Whether `text` is nothing but "it", "that", "这个" …: it points at
    something said before rather than saying it."""
    return _ONLY_PRONOUN.match(text.strip()) is not None


def opens_with_request(text: str) -> bool:
    """`text` opens with words asking, in other words than "remember", to keep what follows ("save this
    about me: …", "记录一下，…")."""
    text = " ".join(text.split())
    for pattern in _OTHER_WORDS:
        found = pattern.match(text)
        if found and found.end() > 0:
            return True
    return False


def memory_fact(text: str) -> str:
    """The fact a request to remember carries, without the request wording
    ("keep it in mind", "don't forget", "记住了吗", "记一下"), surrounding quotes
    or a bare pronoun. Empty when nothing is left ("remember it")."""
    text = said = " ".join(text.split())
    opened = _WHY_NOW.sub("", text, count=1)
    if opened != text and any(pattern.match(opened) for pattern in _LEAD):
        text = opened  # "before i forget, remember that my pin is 4412"
    text = _ASKED_FORM.sub(r"\g<thing> \g<verb> \g<value>", text, count=1)
    while True:
        before = text
        for pattern in _LEAD:
            text = pattern.sub("", text, count=1)
        text = _BARE_PRONOUN.sub("", text, count=1)
        for pattern in _TAIL:
            text = pattern.sub("", text, count=1)
        text = unquote(text.strip().strip(",，;；:：").strip())
        if text == before:
            break
    if text != said:
        text = without_chat_words(text)
    return "" if _ONLY_PRONOUN.match(text) or text != said and _ONLY_PURPOSE.match(text) else text


#: a fact asked to be kept in the words of a question, its answer after a colon: "dont let me forget who my new dentist
#: is: dr. okafor", "remember what my locker code is: 4471" (round 31's spent set recalled the dentist)
_ASKED_FORM = re.compile(
    r"^(?P<ask>(?:(?:please|pls|plz|and|so|ok|okay|hey|yo)[,\s]+)*(?:remember|memori[sz]e|note(?: down)?|keep in mind"
    r"|(?:don'?t|do not) (?:let me )?forget))\s+(?:who|what|where|which|when)\s+(?P<thing>(?:my|our|the)\b.{1,60}?)"
    r"\s+(?P<verb>is|are|was|were|lives|works)\s*[:：—–-]+\s*(?P<value>\S.*)$", _I)


def told_as_asked(text: str) -> bool:
    """Whether `text` asks to keep a fact in the words of a question, its answer after a colon ("dont let me forget
    who my new dentist is: dr. okafor"): a request to remember, though it reads like one to recall."""
    return _ASKED_FORM.match(" ".join(text.split())) is not None


#: a word of chat left at the end: "my dog's vet is Dr. Lindqvist btw" (before ", pls don't lose that")
_CHAT_TAIL = re.compile(r"(?<=\w)(?<!\bis)(?<!\bwas)(?<!\bnamed)(?<!\bcalled)[\s,]+"
                        r"(?:btw|by the way|fyi|lol|lmao|haha+|BTW|LOL)[\s.!~]*$")  # ("nickname is Lol" keeps it)
#: ...or a label at the start: "important thing — my new office is room 1207" (round 30's spent set)
_CHAT_HEAD = re.compile(r"^(?:(?:the |most |an? )?important (?:thing|bit|part)|heads up|fyi|big news|重要的事|划重点)"
                        r"\s*(?:[—–:：,，-]+|\.\.\.)\s*(?=\S)", _I)


def without_chat_words(text: str) -> str:
    """`text` without a word of chat at its end ("…Dr. Lindqvist btw") or a label at its start ("important thing —
    …")."""
    return _WHY_NOW.sub("", _CHAT_HEAD.sub("", _CHAT_TAIL.sub("", text)), count=1)


# what a fact is kept for, and nothing else: "for when she visits" (from "…, so remember that for when she visits");
# not "for future reference, my blood type is O+"
_ONLY_PURPOSE = re.compile(rf"^{_KEPT_FOR}\b[^,，:：;]*$"
                           # what it is kept for, in Chinese: "以后好打招呼", "免得我又问" (not "以后叫我小鱼就行", the fact)
                           r"|^(?:(?:以后|到时候|下次|回头|哪天)(?:好|方便|用得上|用得着)|万一|免得|省得)[^，,。？?\d记也]*$", _I)

# "Forget it", "never mind", "forget I said anything", "算了", "别管了", whatever follows.
_DISMISSAL = re.compile(
    r"^(?:(?:oh|ok|okay|ah|well|hmm|um|no|nah|actually|ugh|oops|meh|eh)[,\s]+)*"
    r"(?:forget (?:about )?it\b|forget (?:that )?i (?:said|asked|mentioned) (?:anything|that|it)\b(?: about \S+)?"
    r"|never\s?mind\b|nvm\b|算了(?![一算下])|别管了|不管了|当我没说)"
    r"[\s,，.。!！;；…~～?？-]*",
    _I,
)


# Words of deleting, in either language: a message with none of them asks to forget nothing
# ("门禁密码？？" asks for the code, whatever tool a model picks for it).
_DELETING = re.compile(
    # (nor one refused: "my phone's storage is 98% full and I refuse to delete anything", round 37's spent set)
    # (nor "don't let me forget", which asks to keep: round 46's spent set, the served model called forget)
    # (nor the person's own forgetting to come: "it's 4471# and I WILL forget it", round 47's spent set)
    r"(?<![a-z])(?<!don't )(?<!dont )(?<!do not )(?<!never )(?<!not )(?<!refuse to )(?<!won't )(?<!wont )(?<!let me )(?<!lemme )"
    r"(?<!\bi will )(?<!\bi'll )(?<!\bill )(?<!\bi'd )(?<!gonna )(?<!\bi might )(?<!\bi always )(?<!\bi probably )"
    r"(?:forget|forgets|(?<!\bi )(?<!\bi just )(?<!\bi totally )forgot|delete|deleted|remove|erase|wipe|scrub|scrap|scratch|bin|drop|ditch|clear|purge|yeet|nuke"
    r"|get rid|un-?know|unlearn|unremember|can go|let go|no longer|stop remembering|don'?t need|outdated"
    # (typed fast, in other words: "plz forgt my dentist's name", "ignore what i said about my ex", "no point you
    # hanging on to that one anymore", spent tools sets and the review of 2026-12-07)
    r"|forgt|forgett|ignore|disregard|no point|stop (?:storing|saving|keeping)"
    r"|(?:toss|trash|chuck)(?= (?:it|that|this)\b)"
    r"|(?:no need to|(?:don'?t|do not) have to) (?:keep|remember|store|save|hold on to|hang on to)"
    r"(?= (?:that|it|its|this|the|my|his|her|their|our)\b))(?![a-z])"
    r"|(?<!别)(?<!不要)(?<!不能)(?<!别再)(?<!让我)忘(?!不了)|(?<!不想)(?<!舍不得)(?<!不肯)(?<!不愿意)删|清掉|清除|清空|划掉|去掉|抹掉|丢掉|扔掉|不要了|作废|撤销"
    r"|别记|别存|别留|不用记|不要记|不用留|不用存|(?:别|不要|不用)再记(?:着|住)|没必要(?:再)?(?:存|留|记)|可以扔|忽略|(?:别|不要|不用)保存",
    _I,
)


#: a memory said to be no longer needed: "you don't need to keep my office parking spot anymore", "不用再记着了"
_NO_LONGER_KEPT = re.compile(r"\b(?:no need to|(?:you )?(?:don'?t|do not) (?:need|have) to) (?:keep|remember|store|save|hold on to)"
                             r"(?! (?:this|that|it)\b)"  # "you don't need to remember this, but my cat…": this message
                             # ("关于它的那条就别留着了", round 47's spent set)
                             r"|不用再?(?:记着|记住|留着|存着)|(?:别|不要)再?(?:记着|留着|存着)", re.IGNORECASE)


def no_longer_kept(text: str) -> bool:
    """Whether `text` says a thing kept is no longer needed (see _NO_LONGER_KEPT)."""
    return _NO_LONGER_KEPT.search(text) is not None


def asks_deleting(text: str) -> bool:
    """Whether `text` has a word of deleting or forgetting ("bin it", "划掉", "帮我delete一下", "/forget 3"),
    not one that asks to keep ("don't forget", "别忘了", "忘不了")."""
    return _DELETING.search(_THROWN_AWAY.sub(" ", text)) is not None


#: the person's own throwing away, a thing and not a memory: "那个旧手机 我扔掉了", "我昨天把旧沙发丢了" (not "帮我把它扔掉了吧")
_THROWN_AWAY = re.compile(r"(?<![帮给替让叫])我(?:已经|刚|刚刚|昨天|今天|早就|早)?(?:把[^，,。！!？?\s]{0,12})?(?:扔掉|丢掉|扔|丢)了(?!吧)")


# "… jk", "just kidding", "开玩笑的", "逗你的": the message takes back what it said
# (not "…, no kidding" or "我不是开玩笑的", which insist on it).
_RETRACTION = re.compile(
    r"(?:\b(?<!no )(?<!not )(?:jk|j/k|just kidding|only kidding|kidding|just joking|i'm joking|im joking)\b"
    r"|(?<!不是)(?<!没)(?<!不)(?:开玩笑的|开个玩笑|逗你(?:的|玩)|说着玩的))"
    r"(?:[\s,，.。!！~～…]*(?:i know|lol|lmao|haha+|哈+|啦|嘛|呢|😂|🤣|😆|😜|😏)+)*[\s,，.。!！~～…?？]*$",
    _I,
)


# "…, actually no, I'll just do it now", "… lol jk i have a calculator", "…？开个玩笑，我自己会算": taken
# back at the start of a clause, then nothing or a short remark about the person's own doing (_REMARK)
_TAKEN_BACK = re.compile(
    # (chat Chinese parts clauses with a space: "取消取消 当我没说")
    r"(?:[,，.。!！?？~～…;；—]|\.\.\.|\b(?:lol|lmao|haha+|but)|(?<=[\u4e00-\u9fff])(?=\s))\s*"
    # a sigh may open the clause first: "帮我记一下……哎算了", "remind me… ugh, never mind"
    # (or two: "… oh wait scratch that")
    r"(?:(?:哎呀|哎哟|唉呀|哎|唉|嗯|呃|额|啊|哦|噢|哈{2,}|oh|ah|ugh|hmm+|um+|eh|meh|wait|nah|nope|actually)[\s,，…~～]*){0,2}"
    # one taking-back or several in a row ("算了不用算了")
    r"(?:(?:(?<!no )(?<!not )\b(?:jk|j/k|just kidding|only kidding|kidding|just joking|i'm joking|im joking"
    r"|actually,? no|actually,? never ?mind|nah,? never ?mind|never ?mind|nvm|scratch that|scrap that|no,? scrap that"
    r"|ignore (?:me|that)|forget (?:about )?it|skip (?:it|that)|(?:wait|ugh|nah|actually),? no|don'?t bother"
    r"|(?:i )?don'?t need (?:one|it|that|any))\b"
    r"|(?<!不是)(?<!没)(?<!不)(?:开玩笑的|开个玩笑|逗你(?:的|玩)|说着玩的|骗你的)[啦哈呢嘛呀啊哦]*|算了[吧啦呗哈]?|还是不用了|当我没说"
    # "算了不用，反正…": a bare 不用 only before a pause or the end
    r"|不用(?:算|记|提醒|加|删)?了|不用(?:算|记|提醒|加|删)?(?=[\s,，.。!！~～…;；]|$)|不(?:算|记)了|(?:还是|就|那)?先?别(?:记|存)了[吧啦哈]?|不对(?:不对)?)"
    r"[\s,，]*)+?"
    # (a remark of the person's own doing may follow with no mark: "…算了我自己算出来了 420")
    r"(?P<tail>(?:[\s,，.。!！~～…;；:：-]+[^?？]{0,40}|(?<=了)(?=我自己|我已经|我早就)[^?？]{0,40})?)$",
    _I,
)
#: what may follow: the person will do it, or needs nothing ("I'll just do it now", "i have a calculator",
#: "我自己会算", "不用了"); never a new value ("actually no, 8pm", "算了，她叫小美")
_REMARK = re.compile(
    r"[\s,，.。!！~～…;；:：-]*(?:(?:(?:i|i'll|i will|i can|i have|i've got|i got|i know|i'm good|never ?mind"
    r"|nvm|lol|haha+|no need|forget it)\b"
    # ("三百乘四……算了不用算了，心算出来了", round 50's spent set computed it)
    r"|我自己|我心算|我会|我有|我已经|我早就|不用了?|没事|没关系|不需要).*)?$", _I)
#: …or, after a request, that it does not matter ("帮我记一下……哎算了，也没什么重要的"); after news it plays
#: the news down and takes nothing back ("我失业了，唉算了，没啥大不了")
_DOWNPLAY = re.compile(
    r"[\s,，.。!！~～…;；:：-]*(?:(?:it's |it is |its )?not important|nothing important|nothing worth (?:it|remembering)"
    r"|(?:it )?(?:doesn'?t|does not|don'?t) matter|(?:it's |its )?no big deal|无所谓|不重要"
    r"|也?没(?:什么|啥)(?:重要|要紧|大不了|好记)).*$", _I)
#: words that ask the pet for something, which a taking-back may follow
_ASKING = re.compile(r"\b(?:remember|remind|note|save|add|set|calculate|cancel|delete|forget)\b"
                     r"|帮我|给我|记住|记一下|记下|记着|提醒|加到|加个|加进|定个|设个|算一下|算算|删掉|删了|取消"
                     # a sum asked ("what's 913 divided by 7...", "456乘以23是……")
                     r"|\d\s*(?:[+*/×÷x]|乘以?|除以|加上?|减去?|times|divided by|plus|minus)\s*\d", _I)
#: a question asked, which a taking-back may follow with nothing, or with the answer found ("what time is it—
#: oh never mind, found my watch", "现在几点……哦不用了，我看到墙上的钟了"); not news ("What time do you wake up?
#: Never mind, my sister moved in with me")
#: (a sum said bare is a question too: "三百乘四……算了不用算了，心算出来了", round 50's spent set computed it)
_QUESTIONED = re.compile(r"[?？]|\bwhat time\b|\bwhat(?:'s| is)\b|\bhow (?:much|many|long)\b|几点|多少"
                         r"|[0-9一二两三四五六七八九十百千万]\s*(?:乘以?|除以?|加上?|减去?|[+*/×÷-])\s*[0-9一二两三四五六七八九十百千万]", _I)
_SETTLED = re.compile(
    r"[\s,，.。!！~～…;；:：-]*(?:(?:i |just )?(?:found|see|saw|got) (?:it|my|the)\b.*|just (?:asking|curious|wondering)\b.*"
    r"|(?:it )?(?:doesn'?t|does not|don'?t) matter\b.{0,20}"
    r"|(?:我)?(?:看到|找到|知道)了?.{0,12}|随口一?问.{0,6}|就?随便问问.{0,6}|无所谓.{0,6}|不重要.{0,6}"
    r"|(?:我)?(?:已经)?(?:心算|自己算|算)(?:出来|好)了.{0,6}"
    # no need after all: there is still some ("…nah forget it, there's still half a carton", "……算了，家里还有")
    r"|(?:there'?s|there is|there are)\b.{0,16}\bstill\b.{0,40}|(?:we|i)(?: still)? (?:have|got) (?:some|plenty|half|enough"
    r"|a (?:bit|few|lot)|one|two|lots)\b.{0,40}|(?:家里|冰箱里|我这儿?)还有.{0,20})?$", _I)
#: a request the tail says not to do is no new request: "…scratch that, don't save it", "……算了别记"
_NOT_ASKING = re.compile(r"\b(?:don'?t|do not|no need to|never)\s+(?:save|remember|add|note|keep|store|write|set|remind)"
                         r"(?:\s+(?:it|that|this|them|me))?\b|(?:别|不要|不用)再?(?:记|存|加|保存|记录|写|设|提醒)(?:了|这个|这条|它)?",
                         _I)
#: the person says not to keep what they just said: "my locker code is 4471, no need to save it", "我的工号是A3321，别记这个",
#: "…这个没必要记" (not "别记错了", "don't forget it", "I never remember names")
_DECLINES_KEEPING = re.compile(
    r"\b(?:(?:don'?t|do not|no need to|you don'?t (?:need|have) to)\s+(?:save|remember|note|keep|store|write down)"
    r"\s+(?:it|that|this|them)|don'?t bother (?:remembering|saving|noting|keeping)|not worth (?:remembering|saving))\b"
    # "don't you dare keep a record of me crying at that dog food commercial" (round 42's spent tools set: noted)
    r"|\b(?:don'?t|do not)\s+(?:you\s+)?(?:dare|ever)\s+(?:save|remember|note|keep|store|write down|record|log)\b"
    r"|\b(?:don'?t|do not)\s+(?:keep|make|write)\s+a\s+(?:record|note)\s+of\b"
    r"|(?:别|不要|不用|没必要|不必)再?(?:记|存|保存|记录)(?![错混反性得])(?:了|这个|这条|它|下来|住|着)?(?=[\s,，.。!！~～…;；吧啦哈了]|$)",
    _I)


def declines_keeping(text: str) -> bool:
    """The message says not to keep what it says ("…, no need to save it", "…，别记这个"): nothing in it is noted."""
    return _DECLINES_KEEPING.search(text) is not None


#: a new value after the taking-back: it corrects the request, it does not take it back ("…actually no,
#: make it 8pm", "算了，她叫小美", "never mind, add eggs instead")
_CORRECTING = re.compile(r"\d|[一二三四五六七八九十两]点|是|叫|\b(?:instead|make it|rather)\b|改成|换成", _I)


#: the person did it already: a number after it is the answer found, no correction ("…算了我自己算出来了 420")
_DONE_MYSELF = re.compile(r"[\s,，.。!！~～…;；:：-]*我自己")

#: what opens the truth after a joke: "…开玩笑的啦，其实是后天", "jk, actually it's friday"
_REALLY = re.compile(r"[\s,，.。!！~～…;；:：-]*(?:其实|实际上|应该是|actually|i mean|really)", _I)

#: a request said as a joke: what follows is no new value
_JOKING = re.compile(r"\bjk\b|j/k|kidding|joking|开玩笑|开个玩笑|逗你|说着玩|骗你", _I)

#: the takings-back that as often start a correction or follow news (see retracted)
_WEAK = re.compile(r"\b(?:forget (?:about )?it|skip (?:it|that)|(?:wait|ugh|nah|actually),? no)\b|不用(?![算记提加删了])", _I)

#: …and those that take back whatever follows them ("……算了不用，反正我自己背得住")
_STRONG = re.compile(r"算了|never ?mind|nvm|kidding|\bjk\b|j/k|joking|开玩笑|开个玩笑|逗你|说着玩|骗你|当我没说|还是不用了"
                     r"|不用(?:算|记|提醒|加|删)?了|不(?:算|记)了|别记了|scratch that|scrap that|ignore (?:me|that)"
                     r"|don'?t need", _I)

#: the person will do it instead, at the end of a request: "…eh, actually i'll just remember it myself", "…算了我自己记吧"
_MYSELF_INSTEAD = re.compile(
    r"(?:[,，.。!！…~～—-]|\.\.\.)\s*(?:(?:eh|oh|ah|um+|hmm+|wait|nah|meh)[\s,…]*)?(?:actually,?\s+)?"
    # (the pet's part done by the person, not the task: "remind me at 6pm to buy the cake stuff, i'll bake it myself"
    # and "提醒我周六上午十点买材料，我自己弄" still ask)
    r"(?:i'?ll|i will|let me)\s+(?:just\s+)?(?:remember|note|write down|jot down|track|keep track of|set)\s+(?:it|that|this)"
    r"(?:\s+down)?\s+(?:myself|on my own)[\s.!~]*$"
    r"|(?:[，,。…~～]|\.\.\.)\s*(?:(?:哎|唉|嗯|呃)[\s，,…]*)?(?:算了|还是)[\s，,]*(?:我)?自己(?:记|设|定)(?:吧|好了|得了)?[。！!~～]*$",
    _I,
)
#: a taking-back that ends what follows another ("…啊不对，密码还是别记了", "…wait no, actually never mind")
_ENDS_TAKEN_BACK = re.compile(r"(?:还是|就|那|先)*(?:别|不要|不用)(?:记|存|保存)了?[吧啦哈]?[\s。!！~～]*$"
                              r"|(?:算了[吧啦]?|never ?mind|nvm|forget (?:about )?it)[\s。.!！~～]*$", _I)
#: how many of a message's last characters may hold its taking-back
_TAKEN_BACK_SPAN = 240


def retracted(text: str) -> bool:
    """Whether `text` ends by taking itself back ("what's 2+2? jk", "1+1等于几？开玩笑的啦"), maybe
    with a short remark after it about the person's own doing ("remind me at 4pm... actually no,
    I'll just do it now"): then nothing in it is a request. A correction is no taking back
    ("remind me at 7... actually no, 8pm", "记住我妹妹叫小红，算了，她叫小美")."""
    text = " ".join(text.split())
    if _RETRACTION.search(text) is not None:
        return True
    myself = _MYSELF_INSTEAD.search(text, max(0, len(text) - _TAKEN_BACK_SPAN))
    if myself is not None and myself.start() > 0 and _ASKING.search(text[:myself.start()]):
        return True  # "set a reminder for... eh, actually i'll just remember it myself" (round 30's spent set)
    # the taking-back ends the message: its last characters are enough (the chain of takings-back would
    # take quadratic time over a long message)
    offset = max(0, len(text) - _TAKEN_BACK_SPAN)
    found = _TAKEN_BACK.search(text, offset)
    if found is None or found.start() == 0:
        return False
    tail = found.group("tail")
    rest = _ENDS_TAKEN_BACK.sub("", tail)
    if _ENDS_TAKEN_BACK.search(tail) and not _ASKING.search(rest) and not _CORRECTING.search(rest):
        # (not after a new value: "记住我的wifi密码是1234，不对，是5678，旧的那个别记了" keeps 5678: the review)
        return True  # the correction itself takes it back: "帮我记住我的新密码是…啊不对，密码还是别记了" (round 46's spent set)
    if _CORRECTING.search(tail) and (not _JOKING.search(found.group()[: len(found.group()) - len(tail)]) or (
            _REALLY.match(tail))) and not _DONE_MYSELF.match(tail):
        # a joke taken back is no correction, whatever follows ("jk we have like 3 cartons"), unless it says what is
        # so instead ("记住我明天生日，开玩笑的啦，其实是后天")
        return False
    before = text[:found.start()]
    asked = _ASKING.search(before) is not None
    part = found.group()[: len(found.group()) - len(tail)]
    if _WEAK.search(part) and not _STRONG.search(_WEAK.sub(" ", part)):
        # "forget it", "wait no", "skip that", a bare 不用: taking back only after a request or a question, and
        # only before a remark or nothing ("add milk. wait no, oat milk" corrects it; "I failed my driving test.
        # forget it, I'll try again" and "my ex's number, forget it" take nothing back)
        if not (asked or _QUESTIONED.search(before)):
            return False
        if _ASKING.search(_without_negated_asks(tail)):
            return False  # "…nah forget it, i still need to add eggs to my list": a new request follows
        return bool(_REMARK.fullmatch(tail) or _DOWNPLAY.fullmatch(tail) or _SETTLED.fullmatch(tail))
    if re.search(r"don'?t need", found.group(), _I) and not asked:
        return False  # "I quit smoking, don't need it" is news
    if not asked and _QUESTIONED.search(before):
        # a question dropped: nothing after it, or the answer found ("…never mind, found my watch")
        return _SETTLED.fullmatch(tail) is not None
    # after a request, any short remark that asks nothing new takes it back ("…wait, scratch that, they're
    # open now", "…哎还是不用了，反正起不来"); after news, only the remarks above do (news played down
    # takes nothing back: "我失业了，唉算了，没啥大不了")
    return _REMARK.fullmatch(tail) is not None or (asked and (
        _DOWNPLAY.fullmatch(tail) is not None or not _ASKING.search(_without_negated_asks(tail))))


def _without_negated_asks(tail: str) -> str:
    """`tail` without the requests it says not to make ("don't save it")."""
    return _NOT_ASKING.sub(" ", tail)


def dismissal(text: str) -> str | None:
    """None when `text` does not open by dropping the subject; else what
    follows the dismissal ("" for "Forget it, never mind.")."""
    text = text.strip()
    found = _DISMISSAL.match(text)
    if not found:
        return None
    rest = text[found.end():]
    again = dismissal(rest)
    return rest if again is None else again

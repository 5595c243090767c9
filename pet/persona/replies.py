"""Small talk in the pet's own lines, for a small model.

A small embedded model is poor company at small talk: it says the person's
words back in other words ("累死了，今天搬了一天家。" → "今天搬了一天家，累死
了。") or answers as if it were the person. The persona's `[[replies]]` hold,
per topic, examples of what a person says (`when`) and lines the pet answers
with (`say`). A message the sentence encoder (pet.memory.meaning) puts near
one topic's examples, clearly nearer than any other topic's, is answered with
one of that topic's lines, in the message's language; anything else goes to
the model as before. The agent uses this only when its brain is a small one
(config `canned_replies`, "auto": the embedded brain).

A topic's line is not one said lately in the conversation while another is
left (then the one said longest ago): the lines are taken in turn, from a
place set by the message.

The encoder hears what a message is about more than how it feels: "today was
great, feeling good" is nearest "what a day, i'm beat", and "今天心情很好" near
"心情低落". A message that says it is glad is never answered by a topic whose
nearest example says the opposite, nor the other way round (`mood`, a few
words of each in each language).
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
from dataclasses import dataclass
from typing import Callable, Sequence

from pet.persona.model import Persona, Replies

log = logging.getLogger(__name__)

#: the least cosine between a message and a topic's nearest example for the topic to answer it
FLOOR = 0.62
#: ...and by how much that must beat the nearest example of every other topic
MARGIN = 0.05
#: how far below the floor the topic's nearest example in a language the message is written in may be: a short example
#: in the other language draws messages it does not mean ("do you dream at night?" at 0.62 to "你半夜也会提醒吗", 0.56 to
#: the topic's English; "Feeling really happy today" to "今天心情如何"). On the spent chat sets of rounds 5 to 50 (3,941
#: messages) 0.04 below FLOOR turned away 6 matches, all wrong; 0.02 also turned away "fog so thick i cant see…" (fog)
SAME_LANGUAGE_BELOW = 0.04
_HAN = re.compile(r"[\u4e00-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]{2,}")


#: words of a low mood, and of a glad one (a glad word after a word of not is a low one: "not good", "不开心")
_LOW = re.compile(
    r"\b(?:sad|tired|exhausted|beat|drained|awful|terrible|horrible|down|low|blah|meh|upset|angry|mad|stressed|lonely"
    r"|sick|worst|hate|cry|crying|anxious|worried|nervous|depressed|miserable|bored|homesick|ugh"
    r"|(?<!never )(?<!n't )(?<!not )hurts?|aching|sore|painful|sucks|frustrat\w*|annoy(?:ed|ing)|overwhelmed|dreading"
    r"|fml|panicking|yell(?:ed|ing) at|shout(?:ed|ing) at|scolded|chewed (?:me )?out|told me off)\b"
    r"|\b(?:not|never|no)\s+(?:\w+\s+){0,3}(?:good|great|happy|fine|ok|okay|well)\b"
    r"|n['’]?t\s+(?:\w+\s+){0,3}(?:good|great|happy|fine|ok|okay|well)\b"
    r"|难过|伤心|累|困|烦|丧|低落|不(?:太|是很|怎么|大|很)?(?:开心|高兴|好(?!意思)|舒服)|糟|生气|焦虑|紧张|孤单|寂寞|想哭|郁闷|崩溃"
    r"|难受|病|想家(?!里)|无聊"
    # (not "奶奶最疼我了", "不疼了", "痛痛快快", "今天不用加班", "加班费到账了", "emo music": the review of 2026-12-07)
    r"|(?<![心不没])疼(?!我|爱|人)|(?<![不没])痛(?!快|痛快)|纠结|头大|心累|(?<![a-z])emo(?![a-z]|\s+(?:music|band|song|rock))"
    r"|倒霉|怀疑人生|被.{0,4}骂|挨骂|(?<!不用)(?<!没)(?<!不)加班(?!费)|失眠|委屈|破防|慌|绝望|好惨|血汗钱"
    # a vent (round 47's spent chat set said "感觉自己一事无成…" back glad): words of being fed up (not "好吃到受不了",
    # "还没用过", "jumped over it": the review of 2026-12-07)
    r"|一事无成|心塞|无语|气死|离谱|烦死|(?<![a-z])(?:fed up|ridiculous|so done with|can'?t stand)(?![a-z])",
    re.IGNORECASE)
_GLAD = re.compile(r"\b(?:good|great|awesome|amazing|happy|glad|excited|fantastic|wonderful|best|fun|nice|yay|proud"
                   r"|relaxed|perfect)\b|开心|高兴|很好|超好|不错|棒|爽|幸福|快乐|兴奋|满意|舒服", re.IGNORECASE)


#: a thing done no more, or not: "我不熬夜了" (熬夜), "quit smoking", "never drink coffee"
_NOT_DOING_ZH = re.compile(r"(?:不再|再也不|没再|别再|不|戒了?|戒掉了?)([\u4e00-\u9fff]{2})")
_NOT_DOING_EN = re.compile(r"\b(?:no more|no longer|quit|stopped|gave up|don'?t|never)\s+([a-z]{4,})", re.IGNORECASE)


def negates(text: str, example: str) -> bool:
    """`text` says it does not do, or no longer does, what `example` says is done: "我不熬夜了！" is not "熬夜追剧中" (seen
    on the page: it got a line about staying up for a show)."""
    for found in _NOT_DOING_ZH.finditer(text):
        word = found.group(1)
        if found.start() > 0 and text[found.start() - 1] == word[0]:
            continue  # "会不会夹人" asks, it denies nothing
        if word in example and not re.search(r"(?:不|没|别|戒)" + re.escape(word), example):
            return True
    lowered = example.lower()
    for found in _NOT_DOING_EN.finditer(text):
        word = found.group(1).lower()
        if re.search(rf"\b{re.escape(word)}\b", lowered) and not re.search(
                rf"\b(?:no more|no longer|quit|stopped|gave up|don'?t|never)\s+(?:\w+\s+)?{re.escape(word)}\b", lowered):
            return True
    return False


def low_words(text: str) -> bool:
    """`text` holds a word of a low mood, whatever else it holds ("my boss yelled at me today, … fun stuff")."""
    return _LOW.search(text) is not None


def mood(text: str) -> int:
    """-1 when `text` says a low mood and no glad one, 1 for the other way round, else 0."""
    low = _LOW.search(text) is not None
    glad = _GLAD.search(_LOW.sub(" ", text)) is not None
    return (glad and not low) - (low and not glad)


@dataclass(frozen=True)
class Match:
    replies: Replies
    #: the cosine of the nearest example, and how far it beats the other topics'
    score: float
    lead: float
    #: that nearest example
    example: str = ""


class Bank:
    """A persona's replies with their examples' sentence vectors."""

    def __init__(self, replies: Sequence[Replies], encoder) -> None:
        import numpy as np

        self.replies = tuple(replies)
        self._encoder = encoder
        texts: list[str] = []
        owners: list[int] = []
        languages: list[str] = []
        self._texts = texts
        for index, topic in enumerate(self.replies):
            for language, examples in topic.when.items():
                texts += examples
                owners += [index] * len(examples)
                languages += [language] * len(examples)
        self._owners = np.array(owners, dtype=np.int64)
        self._languages = np.array(languages)
        self._vectors = encoder.encode(texts) if texts else np.zeros((0, 1), dtype=np.float32)

    def match(self, text: str, floor: float = FLOOR, margin: float = MARGIN) -> Match | None:
        """The topic `text` is small talk of, or None when none is clearly nearest (`floor`, `margin`)."""
        import numpy as np

        if len(self.replies) == 0 or not text.strip():
            return None
        vector = self._encoder.encode([text])[0]
        cosines = self._vectors @ vector
        best = np.full(len(self.replies), -1.0)
        np.maximum.at(best, self._owners, cosines)
        order = np.argsort(-best)
        top = float(best[order[0]])
        lead = top - (float(best[order[1]]) if len(order) > 1 else -1.0)
        if top < floor or lead < margin:
            return None
        written = [language for language, script in (("zh", _HAN), ("en", _LATIN)) if script.search(text)]
        own = (self._owners == order[0]) & np.isin(self._languages, written)
        if written and float(np.max(np.where(own, cosines, -1.0))) < floor - SAME_LANGUAGE_BELOW:
            return None  # near only an example in the other language ("do you dream at night?", "你半夜也会提醒吗")
        nearest = int(np.argmax(np.where(self._owners == order[0], cosines, -2.0)))
        if mood(text) * mood(self._texts[nearest]) < 0 or negates(text, self._texts[nearest]):
            return None  # "today was great, feeling good" is no "what a day, i'm beat"; "我不熬夜了" no "熬夜追剧中"
        return Match(self.replies[int(order[0])], top, lead, self._texts[nearest])


def line(replies: Replies, language: str, text: str, said: Sequence[str] = (), name: str = "",
         fits: Callable[[str], bool] = lambda candidate: True) -> str | None:
    """One of the topic's lines in `language` ({name} filled in) that `fits`,
    none of those `said` lately if it can; which one is set by `text`, so that
    the same words get the same answer. None when no line fits."""
    lines = [candidate.replace("{name}", name) for candidate in replies.say.get(language, ())]
    lines = [candidate for candidate in lines if fits(candidate)]
    if not lines:
        return None
    start = int(hashlib.sha256(text.encode("utf-8")).hexdigest(), 16) % len(lines)
    turned = lines[start:] + lines[:start]
    # a reply stored may hold more than the line (the day's greeting before it)
    fresh = [candidate for candidate in turned if not any(candidate in reply for reply in said)]
    if fresh:
        return fresh[0]
    # every line said lately: the one said longest ago
    return min(turned, key=lambda candidate: max(i for i, reply in enumerate(said) if candidate in reply))


_banks: dict[tuple[str, int], Bank | None] = {}  # by the replies' digest and the encoder
_lock = threading.Lock()


def bank(persona: Persona) -> Bank | None:
    """The persona's bank, built once per process and persona; None without
    replies or without the sentence encoder."""
    if not persona.replies:
        return None
    from pet.memory import meaning

    encoder = meaning.encoder()
    if encoder is None:
        return None
    key = (hashlib.sha256(repr(persona.replies).encode("utf-8")).hexdigest(), id(encoder))
    with _lock:
        if key in _banks:
            return _banks[key]
        try:
            found: Bank | None = Bank(persona.replies, encoder)
        except Exception as exc:  # the encoder failed: the model answers, as without it (not tried again)
            log.warning("could not read the persona's replies: %s", exc)
            found = None
        _banks[key] = found
        return found

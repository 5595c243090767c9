"""The pond: two pets talk to each other about a topic the person gives.

Each pet speaks in character from its own system prompt, with tools off, so
nothing either says reaches a memory; the person may keep a line afterwards.
The talk stops at the first of:

- the turn cap (`max_turns` lines in all, default 6);
- repetition: a line whose character-bigram Jaccard similarity with any
  earlier line is at least `similarity` (default 0.6). Bigrams of the text
  casefolded with spaces and punctuation removed work the same for Chinese
  and English; two lines that share 60% of their bigrams are mostly the
  same sentence;
- the token budget (`max_tokens` estimated tokens of lines, default 1500);
- the person pressing stop (`stop` is set), between streamed pieces;
- a model error or an empty line.
"""

from __future__ import annotations

import datetime as dt
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from pet.brain.base import ChatModel
from pet.errors import BrainError
from pet.events import Completion, Message, TextDelta
from pet.persona.model import Persona
from pet.persona.prompt import system_prompt
from pet.text import detect_language, estimate_tokens


@dataclass(frozen=True)
class Speaker:
    persona: Persona
    adopted: dt.date
    model: ChatModel


@dataclass(frozen=True)
class LineStarted:
    index: int
    speaker: str  # the persona id


@dataclass(frozen=True)
class LineFinished:
    index: int
    speaker: str
    text: str


@dataclass(frozen=True)
class PondStopped:
    #: "turn_cap", "repeating", "token_budget", "stopped", "error" or "empty"
    reason: str
    detail: str = ""


PondEvent = LineStarted | TextDelta | LineFinished | PondStopped

_NOT_TEXT = re.compile(r"[\W_]+", re.UNICODE)


def bigrams(text: str) -> set[str]:
    squeezed = _NOT_TEXT.sub("", text.casefold())
    return {squeezed[i : i + 2] for i in range(len(squeezed) - 1)} or ({squeezed} if squeezed else set())


def similarity(a: str, b: str) -> float:
    """Jaccard similarity of the two lines' character bigrams (0 to 1)."""
    first, second = bigrams(a), bigrams(b)
    if not first or not second:
        return 0.0
    return len(first & second) / len(first | second)


_INVITE = {
    "zh": "（主人想听你们俩聊聊：{topic}）{other}在这儿。你先开口吧，一到三句话。",
    "en": "(Your person wants to hear you two talk about: {topic}) {other} is here. You start, one to three sentences.",
}
_SETTING = {
    "zh": "你正在和另一只宠物{other}聊天，话题是：{topic}。每次只说一到三句话，回应对方，别重复说过的话；不要调用工具。",
    "en": "You are chatting with another pet, {other}, about: {topic}. Say one to three sentences each time, answer "
          "what they said, do not repeat what was said, and do not use tools.",
}


class Pond:
    def __init__(
        self,
        first: Speaker,
        second: Speaker,
        *,
        clock: Callable[[], dt.datetime],
        max_turns: int = 6,
        max_tokens: int = 1500,
        similarity: float = 0.6,
        reply_tokens: int = 160,
    ):
        if first.persona.id == second.persona.id:
            raise ValueError("the pond needs two different pets")
        self.speakers = (first, second)
        self.clock = clock
        self.max_turns = max_turns
        self.max_tokens = max_tokens
        self.similarity = similarity
        self.reply_tokens = reply_tokens

    def _messages(self, index: int, topic: str, language: str, lines: Sequence[str]) -> list[Message]:
        me, other = self.speakers[index % 2], self.speakers[(index + 1) % 2]
        other_name = other.persona.display_name(language)
        now = self.clock().astimezone(me.persona.zone())
        system = system_prompt(me.persona, now=now, adopted=me.adopted, language=language, memories=(), tools=False)
        system += "\n\n" + _SETTING[language].format(other=other_name, topic=topic)
        messages = [Message("system", system)]
        if index % 2 == 0:
            messages.append(Message("user", _INVITE[language].format(other=other_name, topic=topic)))
        for said_by, line in enumerate(lines):
            mine = said_by % 2 == index % 2
            messages.append(Message("assistant" if mine else "user", line if mine else f"{other_name}: {line}"))
        return messages

    def talk(self, topic: str, stop: threading.Event | None = None) -> Iterator[PondEvent]:
        """The talk as events: each line streamed between LineStarted and
        LineFinished, then one PondStopped with the reason."""
        topic = " ".join(topic.split())
        if not topic:
            yield PondStopped("empty", "give the pets something to talk about")
            return
        language = detect_language(topic, default=self.speakers[0].persona.languages[0])
        stop = stop or threading.Event()
        lines: list[str] = []
        spent = 0
        for index in range(self.max_turns):
            if stop.is_set():
                yield PondStopped("stopped", "stopped by the person")
                return
            speaker = self.speakers[index % 2]
            yield LineStarted(index, speaker.persona.id)
            text, completion = "", None
            try:
                for part in speaker.model.stream(self._messages(index, topic, language, lines), (),
                                                 max_tokens=self.reply_tokens):
                    if isinstance(part, TextDelta):
                        text += part.text
                        yield part
                        if stop.is_set():
                            break
                    elif isinstance(part, Completion):
                        completion = part
            except BrainError as exc:
                if text.strip():
                    yield LineFinished(index, speaker.persona.id, text.strip())
                yield PondStopped("error", f"{speaker.persona.display_name(language)}: {exc}")
                return
            line = " ".join((completion.text if completion and not stop.is_set() else text).split())
            if stop.is_set():
                if line:
                    yield LineFinished(index, speaker.persona.id, line + "…")
                yield PondStopped("stopped", "stopped by the person")
                return
            if not line:
                yield PondStopped("empty", f"{speaker.persona.display_name(language)} had nothing to say")
                return
            yield LineFinished(index, speaker.persona.id, line)
            echo = max((similarity(line, earlier) for earlier in lines), default=0.0)
            lines.append(line)
            spent += estimate_tokens(line)
            if echo >= self.similarity:
                yield PondStopped("repeating", f"a line was {echo:.0%} like an earlier one")
                return
            if spent >= self.max_tokens:
                yield PondStopped("token_budget", f"about {spent} tokens were said")
                return
        yield PondStopped("turn_cap", f"{self.max_turns} lines")

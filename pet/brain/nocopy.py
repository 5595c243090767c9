"""A sampler rule that keeps a small model from copying text into its reply.

Small models answer "我今天加班到很晚，有点累。" with the same sentence, copy the
program's notes out of their prompt ("Mention it once, warmly."), and fall
into an assistant's stock phrases. Checking the reply afterwards (see
pet.agent.replycheck) costs a second generation that often copies again.
This rule acts while the reply is written: a token that would make the
reply's last `n` tokens a run found in a source text is never sampled, so
the model has to say it in words of its own.

A source is a text and a run length: the system prompt with a long one (a
phrase may be reused, a line may not), the stock phrases with a very short
one and, on the retry after an echo, the person's message with the shortest.
Pure Python over token ids, for llama.cpp's logits-processor hook.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

#: tokens of the person's message in a row that the retry after an echo may
#: not repeat. The first reply may copy them: a ban then makes the model swap
#: one word and go on copying ("被老板点名" -> "被产品经理点名"), an echo the
#: guard no longer sees, where a plain echo is caught and retried with this.
ECHO_RUN = 2
#: tokens of a run copied from the system prompt that make a recital of it
PROMPT_RUN = 8
#: tokens of a run from a stock phrase (below) that make it
PHRASE_RUN = 3
#: tokens of a run of the pet's own earlier replies in the conversation that make a repeat: a small
#: model took "I've got a shell full of puns." from the turn before into its next reply
SAID_RUN = 5
#: what a digit reads as in a run that may not be copied with its numbers changed
DIGIT = -1

#: the phrases of an assistant, which a pet never says
STOCK_PHRASES = (
    "How can I assist you today",
    "How can I help you today",
    "How may I assist you",
    "Is there anything else I can help you with",
    "I'm here to help",
    "I am here to help",
    "As an AI",
    "as an AI language model",
    "I'm sorry, but I can't assist with that",
    "I'm just an AI",
    "I can only assist with",
    "Could you please provide more context",
    "please provide more details",
    "clarify your question",
    "请提供更多信息",
    "我没有这个功能",
    "有什么可以帮你的吗",
    "有什么我可以帮助你的吗",
    "有什么需要帮助的吗",
    "我可以帮你什么",
    "作为一个人工智能",
    "作为一个AI",
    "我是一个人工智能助手",
    "很抱歉，我无法",
)


@dataclass(frozen=True)
class Source:
    text: str
    run: int


def variants(text: str) -> list[str]:
    """The spellings a copied run may take: as written, after a space, and
    with its first letter in the other case (a sentence's start)."""
    text = text.strip()
    if not text:
        return []
    found = [text, " " + text]
    swapped = text[0].swapcase() + text[1:]
    if swapped != text:
        found += [swapped, " " + swapped]
    return found


class CopyBan:
    """Bans each token that would complete a run of a source's tokens.

    `tokenize` turns a text into token ids (no special tokens); `start` is
    the index in the model's token sequence where the reply begins.

    A number does not break a run: a digit stands for any digit, so "Today
    is day 31 of us" copies the prompt's "Today is day 30 of us" as surely
    as the same words would. Runs mostly of digits (a date, a clock time)
    are matched only as written: the reply may give a date of its own."""

    def __init__(self, sources: Iterable[Source], tokenize: Callable[[str], Sequence[int]], start: int) -> None:
        self.start = start
        # the tokens of a lone digit, with and without a space before it
        self.digits = frozenset(t for d in "0123456789" for spelling in (d, " " + d)
                                for t in tokenize(spelling)[-1:])
        # run length -> (the run's first n-1 tokens -> the tokens that would complete it)
        self.tables: dict[int, dict[tuple[int, ...], set[int]]] = defaultdict(lambda: defaultdict(set))
        # the same with every digit read as DIGIT, for runs with few digits
        self.loose: dict[int, dict[tuple[int, ...], set[int]]] = defaultdict(lambda: defaultdict(set))
        for source in sources:
            if source.run < 2:
                raise ValueError("a banned run needs at least two tokens")
            for spelling in variants(source.text):
                ids = list(tokenize(spelling))
                table, loose = self.tables[source.run], self.loose[source.run]
                for i in range(len(ids) - source.run + 1):
                    window = ids[i:i + source.run]
                    table[tuple(window[:-1])].add(window[-1])
                    digits = sum(token in self.digits for token in window)
                    if 0 < digits <= source.run // 3:
                        loose[self._loose(window[:-1])].add(window[-1])

    def _loose(self, tokens: Sequence[int]) -> tuple[int, ...]:
        return tuple(DIGIT if token in self.digits else token for token in tokens)

    def __bool__(self) -> bool:
        return any(self.tables.values())

    def banned(self, reply: Sequence[int]) -> set[int]:
        """The tokens that may not follow `reply` (the reply's tokens so far)."""
        found: set[int] = set()
        for run, table in self.tables.items():
            if len(reply) >= run - 1:
                tail = reply[len(reply) - run + 1:]
                found |= table.get(tuple(tail), set())
                for token in self.loose[run].get(self._loose(tail), ()):
                    found |= self.digits if token in self.digits else {token}
        return found

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        """llama.cpp's logits-processor hook: every id so far, and the logits."""
        reply = [int(token) for token in input_ids[self.start:]]
        for token in self.banned(reply):
            if 0 <= token < len(scores):
                scores[token] = -float("inf")
        return scores


def sources_for(system: Sequence[str], message: str = "", phrases: Sequence[str] = STOCK_PHRASES, *,
                message_run: int = 0, replied: Sequence[str] = ()) -> list[Source]:
    """What a pet's reply may not copy: the system prompt's text, the stock
    phrases, its own earlier replies (`replied`) and, with `message_run`, runs
    that long of the person's message."""
    found = [Source(message, message_run)] if message.strip() and message_run else []
    found += [Source(text, PROMPT_RUN) for text in system if text.strip()]
    found += [Source(phrase, PHRASE_RUN) for phrase in phrases]
    found += [Source(text, SAID_RUN) for text in replied if text.strip()]
    return found

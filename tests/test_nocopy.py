"""The sampler rule that keeps a reply from copying its sources: which
tokens it bans after which reply, on a tokenizer of one token per word."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pet.brain.nocopy import ECHO_RUN, SAID_RUN, STOCK_PHRASES, CopyBan, Source, sources_for, variants

VOCAB: dict[str, int] = {}


def tokenize(text: str) -> list[int]:
    """One id per word; a word after a space is another token, as in real vocabularies."""
    ids = []
    for i, word in enumerate(text.split(" ")):
        key = word if i == 0 else " " + word
        if key.strip():
            ids.append(VOCAB.setdefault(key, len(VOCAB)))
    return ids


def test_the_token_that_would_finish_a_copied_run_is_banned():
    ban = CopyBan([Source("I worked late and I am tired", 4)], tokenize, start=0)
    reply = tokenize("Oh I worked late")
    assert tokenize(" and")[0] in ban.banned(reply)
    # the first three words may be said; only the fourth would copy a run of four
    assert ban.banned(tokenize("Oh I worked")) == set()


def test_a_run_at_the_start_of_a_sentence_is_banned_in_either_case():
    ban = CopyBan([Source("good evening how is life", 3)], tokenize, start=0)
    assert tokenize(" how")[0] in ban.banned(tokenize("Good evening"))
    assert tokenize(" how")[0] in ban.banned(tokenize("good evening"))


def test_the_hook_sets_banned_logits_to_minus_infinity_and_reads_only_the_reply():
    prompt = tokenize("You said: I worked late and")
    ban = CopyBan([Source("I worked late and I am tired", 4)], tokenize, start=len(prompt))
    scores = np.zeros(len(VOCAB) + 5, dtype=np.float32)
    # the prompt holds the run, but the reply has not started: nothing is banned
    assert not np.isinf(ban(np.array(prompt), scores.copy())).any()
    reply = tokenize("Wow I worked late")
    out = ban(np.array(prompt + reply), scores.copy())
    banned = np.flatnonzero(np.isinf(out))
    assert list(banned) == [tokenize(" and")[0]] and math.isinf(out[banned[0]]) and out[banned[0]] < 0


def test_stock_phrases_are_banned_after_a_few_tokens():
    ban = CopyBan(sources_for([], "", STOCK_PHRASES), tokenize, start=0)
    assert tokenize(" assist")[0] in ban.banned(tokenize("Sure! How can I"))


def test_sources_take_the_message_the_prompt_lines_and_the_phrases():
    found = sources_for(["You are Xiaoqian.", "  "], "hello there", ["As an AI"], message_run=ECHO_RUN)
    assert [(s.text, s.run) for s in found][0] == ("hello there", ECHO_RUN)
    assert [s.text for s in found] == ["hello there", "You are Xiaoqian.", "As an AI"]
    # the first reply may copy the message: only its retry after an echo may not
    assert [s.text for s in sources_for(["You are Xiaoqian."], "hello there", [])] == ["You are Xiaoqian."]
    assert sources_for([], "  ", [], message_run=ECHO_RUN) == []


def test_the_pet_s_own_earlier_replies_are_not_copied_into_the_next():
    said = "Want a joke? I've got a shell full of puns."
    found = sources_for([], "", [], replied=[said, " "])
    assert [(s.text, s.run) for s in found] == [(said, SAID_RUN)]
    ban = CopyBan(found, tokenize, start=0)
    assert tokenize(" of")[0] in ban.banned(tokenize("The haircut is old. I've got a shell full"))
    assert not ban.banned(tokenize("I've got a"))  # a few words in common are no repeat


def test_spellings_and_a_run_too_short_to_ban():
    assert variants("Hi there") == ["Hi there", " Hi there", "hi there", " hi there"]
    assert variants("你好") == ["你好", " 你好"]
    with pytest.raises(ValueError):
        CopyBan([Source("a b", 1)], tokenize, start=0)


def test_a_prompt_line_copied_with_its_number_changed_is_banned():
    ban = CopyBan([Source("Today is day 3 0 of being together", 6)], tokenize, start=0)
    # "Today is day 3 1 of": digits read as any digit, so " of" would finish a copied run of six
    assert tokenize(" of")[0] in ban.banned(tokenize("Today is day 3 1"))
    # and a different digit where the prompt has one would too
    ban = CopyBan([Source("we have been together for 3 0 days", 6)], tokenize, start=0)
    assert {tokenize(" 3")[0], tokenize(" 7")[0]} <= ban.banned(tokenize("we have been together for"))
    # words of its own around a number are free
    assert ban.banned(tokenize("We met 3 1 days")) == set()


def test_a_run_mostly_of_digits_may_be_written_with_other_digits():
    ban = CopyBan([Source("on 2 0 2 6 - 1 2 - 0 2 at", 6)], tokenize, start=0)
    assert tokenize(" -")[0] in ban.banned(tokenize("on 2 0 2 6"))  # the date as written may not be copied
    assert ban.banned(tokenize("on 2 0 2 7")) == set()  # another date may be written
    assert ban.banned(tokenize("on 2 0 2 7 - 1 1")) == set()

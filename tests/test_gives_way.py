"""Which messages the summary fold after a reply gives way to: the ones code
answers (a command, a reflex, a tool the router is sure of, one of the
persona's own lines), guessed before the turn. The guess must agree with
what the turn then does, or a message waits (or a fold is lost) for nothing."""

from __future__ import annotations

import pytest

from pet.agent import capture
from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings
from pet.events import Reply

pytestmark = [pytest.mark.real_encoder,
              pytest.mark.skipif(capture.reader() is None, reason="the sentence encoder is not installed")]

MESSAGES = [
    "/reminders", "what time is it?", "现在几点了", "今天好累啊", "I'm so tired today",
    "remind me to call mom tomorrow at 9am", "你喜欢吃什么？", "hello!", "what's 15% of 80",
    "remember that my sister is called Lily",
    # the model's
    "tell me a long story about the sea and your cousins", "我今天画了一幅画，画了好久",
    "what do you think about cats?", "写一首关于秋天的诗", "what's 2+2? jk",
]


def test_the_guess_agrees_with_what_the_turn_does():
    model = ScriptedModel(["(the model)"], repeat_last=True)
    app = build(load_settings({"reflexes": True, "greeting": False, "canned_replies": "on"}), brain=model,
                scheduler="off")
    conversation = app.new_conversation()
    guessed, done = [], []
    for text in MESSAGES:
        guessed.append(app.agent._without_model(text))
        reply = [e for e in app.agent.run(conversation, text) if isinstance(e, Reply)][-1]
        reflex = app.traces.get(reply.trace_id).get("reflex")
        done.append(reflex is not None and reflex not in ("intent chat", "likely chat", "taken back"))
    app.close()
    assert guessed == done
    assert guessed.count(True) == 10  # both kinds are in the list


def test_without_reflexes_only_commands_are_answered_by_code():
    app = build(load_settings({"reflexes": False, "greeting": False}), brain=ScriptedModel(["ok"]), scheduler="off")
    assert app.agent._without_model("/reminders")
    assert not app.agent._without_model("what time is it?")
    app.close()

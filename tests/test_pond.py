"""The pond's stop conditions, with scripted models and an injected clock."""

from __future__ import annotations

import dataclasses
import datetime as dt
import threading

import pytest

from pet.agent.pond import LineFinished, LineStarted, Pond, PondStopped, Speaker, similarity
from pet.brain.scripted import ScriptedModel
from pet.errors import BrainUnavailable
from pet.events import Message, TextDelta
from pet.persona.model import load_persona

NOW = dt.datetime(2026, 12, 1, 20, 0, tzinfo=dt.timezone.utc)


def pets(first_lines, second_lines, **options):
    xiaoqian = load_persona("xiaoqian")
    doudou = dataclasses.replace(xiaoqian, id="doudou", name={"zh": "豆豆", "en": "Doudou"})
    a, b = ScriptedModel(first_lines), ScriptedModel(second_lines)
    pond = Pond(Speaker(xiaoqian, dt.date(2026, 11, 1), a), Speaker(doudou, dt.date(2026, 11, 20), b),
                clock=lambda: NOW, **options)
    return pond, a, b


def finished(events):
    return [e for e in events if isinstance(e, LineFinished)]


def stopped(events) -> PondStopped:
    assert isinstance(events[-1], PondStopped)
    assert sum(isinstance(e, PondStopped) for e in events) == 1
    return events[-1]


def test_similarity_is_a_bigram_measure_for_both_languages():
    assert similarity("I love the sea!", "i LOVE the sea") == 1.0
    assert similarity("我最喜欢大海了", "我最喜欢大海啦！") > 0.6
    assert similarity("Let's go swimming", "What do you eat for breakfast?") < 0.2
    assert similarity("", "anything") == 0.0


def test_the_talk_alternates_and_stops_at_the_turn_cap():
    pond, a, b = pets(["Hi! The sea is huge.", "I like the waves best.", "Shells are my treasure."],
                      ["Hello! I prefer the river.", "Rivers are calmer.", "I collect pebbles."])
    events = list(pond.talk("the sea"))
    lines = finished(events)
    assert [line.speaker for line in lines] == ["xiaoqian", "doudou"] * 3
    assert stopped(events).reason == "turn_cap"
    # each line is streamed between its start and finish
    assert isinstance(events[0], LineStarted) and isinstance(events[1], TextDelta)
    # each pet sees its own lines as its own and the other's as the other's, tools off
    last_of_a = a.calls[-1]
    assert last_of_a.tools == ()
    roles = [m.role for m in last_of_a.messages]
    assert roles == ["system", "user", "assistant", "user", "assistant", "user"]
    assert "Doudou" in last_of_a.messages[0].content and "the sea" in last_of_a.messages[0].content
    assert b.calls[0].messages[1:] == (Message("user", "Xiaoqian: Hi! The sea is huge."),)


def test_a_shorter_cap():
    pond, _, _ = pets(["one line about tea"], ["another about coffee"], max_turns=2)
    events = list(pond.talk("drinks"))
    assert len(finished(events)) == 2 and stopped(events).reason == "turn_cap"


def test_the_talk_stops_when_it_repeats_itself():
    pond, _, _ = pets(["The moon is made of cheese, I'm sure.", "Cheese, cheese, the moon is cheese!"],
                      ["The moon is made of cheese, I am sure!", "never said"])
    events = list(pond.talk("the moon"))
    assert len(finished(events)) == 2
    reason = stopped(events)
    assert reason.reason == "repeating" and "%" in reason.detail


def test_the_talk_stops_on_its_token_budget():
    long = "word " * 200  # about 250 tokens
    pond, _, _ = pets([long, long], [long + "x", long + "y"], max_tokens=400, similarity=1.1)
    events = list(pond.talk("anything"))
    assert len(finished(events)) == 2 and stopped(events).reason == "token_budget"


def test_the_person_can_stop_it_mid_line():
    stop = threading.Event()
    pond, _, _ = pets(["Once upon a time there was a crayfish who loved to talk and talk."], ["unused"])
    events = []
    for event in pond.talk("a story", stop):
        events.append(event)
        if isinstance(event, TextDelta):
            stop.set()
    [line] = finished(events)
    assert line.text.endswith("…")
    assert stopped(events).reason == "stopped"


def test_stopped_before_it_starts():
    stop = threading.Event()
    stop.set()
    pond, a, _ = pets([], [])
    assert [type(e) for e in pond.talk("x", stop)] == [PondStopped]
    assert a.calls == []


def test_a_model_error_ends_the_talk_with_a_reason():
    pond, _, _ = pets(["Hello there."], [BrainUnavailable("the model server is down")])
    events = list(pond.talk("weather"))
    assert len(finished(events)) == 1
    reason = stopped(events)
    assert reason.reason == "error" and "down" in reason.detail


def test_an_empty_line_or_topic_ends_it():
    pond, _, _ = pets(["   "], [])
    assert stopped(list(pond.talk("weather"))).reason == "empty"
    pond, a, _ = pets([], [])
    assert stopped(list(pond.talk("   "))).reason == "empty" and a.calls == []


def test_a_chinese_topic_gets_a_chinese_talk():
    pond, a, _ = pets(["大海好大呀！"], ["河里更安静。"], max_turns=2)
    list(pond.talk("大海"))
    assert "豆豆" in a.calls[0].messages[0].content and "大海" in a.calls[0].messages[1].content


def test_two_different_pets_are_needed():
    xiaoqian = load_persona("xiaoqian")
    with pytest.raises(ValueError, match="two different pets"):
        Pond(Speaker(xiaoqian, NOW.date(), ScriptedModel([])), Speaker(xiaoqian, NOW.date(), ScriptedModel([])),
             clock=lambda: NOW)

"""The Pond tab: its actions directly, and its talk through gradio_client
against the app served on 127.0.0.1."""

from __future__ import annotations

import pytest
from serving import stop_server

from pet.api.server import start_in_thread
from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings
from pet.ui.pond_tab import PondPanel

SEA_TALK = ["The sea is huge and blue!", "Rivers are calmer, I think.", "Waves make me want to dance.",
            "Pebbles are my treasure.", "Shells sing when you listen.", "Let's go swimming tomorrow."]


@pytest.fixture
def model():
    return ScriptedModel([])


@pytest.fixture
def app(model):
    application = build(load_settings({}), brain=model)
    yield application
    application.close()


@pytest.fixture
def pets(app):
    return app.pet.id, app.create_pet("Doudou").record.id


def texts(chat) -> list[str]:
    return [m["content"] for m in chat]


def test_the_talk_streams_both_pets_and_ends_at_the_turn_cap(app, model, pets):
    model.enqueue(*SEA_TALK)
    panel = PondPanel(app)
    states = list(panel.talk(*pets, "the sea"))
    chat, status = states[-1]
    assert len(chat) == 6 and "turn cap" in status and "6 lines" in status
    assert all(m["role"] == "assistant" for m in chat)
    # lines alternate between the two pets, each named and numbered
    assert ["Doudou" in m["content"] for m in chat] == [False, True] * 3
    assert chat[0]["content"].startswith("**1 · ") and chat[0]["content"].endswith(SEA_TALK[0])
    # the chat grew while the pets spoke: a line was shown before it was finished
    assert any(c and not c[-1]["content"].endswith(SEA_TALK[0]) for c, _ in states if len(c) == 1)
    assert [(line.pet_id, line.text) for line in panel.lines] == list(zip(list(pets) * 3, SEA_TALK))
    # nothing either pet said was remembered by itself
    assert all(app.memories.listing(pet) == [] for pet in pets)
    model.assert_complete()


def test_the_status_says_why_a_talk_stopped_early(app, model, pets):
    model.enqueue("The moon is made of cheese, I'm sure.", "The moon is made of cheese, I am sure!")
    chat, status = list(PondPanel(app).talk(*pets, "the moon"))[-1]
    assert len(chat) == 2 and "repeating" in status and "%" in status


def test_the_same_pet_twice_or_no_topic_gets_a_clear_message(app, model, pets):
    panel = PondPanel(app)
    first, second = pets
    assert list(panel.talk(first, first, "the sea")) == [([], "⚠️ pick two different pets: one pet cannot talk with itself here")]
    [(chat, status)] = panel.talk(first, second, "   ")
    assert chat == [] and "something to talk about" in status
    [(chat, status)] = panel.talk(None, second, "the sea")
    assert chat == [] and "pick a pet" in status
    [(chat, status)] = panel.talk(first, 999, "the sea")
    assert chat == [] and "no pet #999" in status
    assert model.calls == []


def test_stop_ends_the_talk_mid_line(app, model, pets):
    model.enqueue("Once upon a time there was a crayfish who loved to talk and talk.", "never said")
    panel = PondPanel(app)
    states = []
    for chat, status in panel.talk(*pets, "a story"):
        states.append((chat, status))
        if chat:  # the first piece of the first line is on screen
            assert panel.stop() == "⏹️ stopping…"
    chat, status = states[-1]
    assert status == "⏹️ Stopped by you."
    assert len(chat) == 1 and chat[0]["content"].endswith("…")
    assert len(model.calls) == 1
    # a new talk starts with the switch off again
    model.enqueue(*SEA_TALK)
    assert "turn cap" in list(panel.talk(*pets, "the sea"))[-1][1]


def test_a_model_error_is_said_in_words(app, model, pets):
    from pet.errors import BrainUnavailable

    model.enqueue("Hello there.", BrainUnavailable("the model server is down"))
    chat, status = list(PondPanel(app).talk(*pets, "weather"))[-1]
    assert len(chat) == 1 and "model error" in status and "down" in status


def test_keeping_a_line_stores_one_memory_for_the_chosen_pet_only(app, model, pets):
    first, second = pets
    panel = PondPanel(app)
    assert panel.keep(1, second).startswith("⚠️ there is no talk yet")
    model.enqueue(*SEA_TALK)
    list(panel.talk(first, second, "the sea"))

    message = panel.keep(1.0, second)  # Xiaoqian's first line, kept by Doudou
    assert "kept" in message
    [memory] = app.memories.listing(second)
    assert memory.content.endswith(SEA_TALK[0]) and memory.content.startswith("小钳")
    assert memory.asserted_by == "model" and memory.status == "active"
    assert app.memories.listing(first) == []

    assert panel.keep(7, first).startswith("⚠️ pick a line number from 1 to 6")
    assert panel.keep("", first).startswith("⚠️")
    assert panel.keep(2, None).startswith("⚠️ pick a pet")
    assert app.memories.listing(first) == [] and len(app.memories.listing(second)) == 1


@pytest.mark.slow
def test_the_tab_works_through_gradio_client(app, model, pets):
    from serving import gradio_client

    model.enqueue(*SEA_TALK)
    server = start_in_thread(app, port=0)
    try:
        client = gradio_client(server.url)
        first, second = pets
        chat, status = client.predict(first, second, "the sea", api_name="/pond_talk")
        assert len(chat) == 6 and "turn cap" in status
        assert "Doudou" in str(chat[1]["content"]) and SEA_TALK[5] in str(chat[5]["content"])

        assert "kept" in client.predict(6, first, api_name="/pond_keep")
        [memory] = app.memories.listing(second) + app.memories.listing(first)
        assert memory.content == "Doudou: " + SEA_TALK[5]
        assert app.memories.listing(second) == []
        assert "stopping" in client.predict(api_name="/pond_stop")
    finally:
        stop_server(server)

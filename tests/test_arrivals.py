"""The page's side of what the pet says unasked (pet.ui.arrivals), the
header's words about the brain (pet.ui.header) and the Pond's hint, as
plain functions."""

from __future__ import annotations

import pytest

from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.brain.select import BrainChoice
from pet.config import load_settings
from pet.ui.arrivals import Arrivals
from pet.ui.header import brain_details, brain_words
from pet.ui.pond_tab import pond_hint


@pytest.fixture
def app():
    application = build(load_settings({"scheduler": "paused"}), brain=ScriptedModel([]))
    yield application
    application.close()


def test_a_page_gets_what_is_said_after_it_loaded_once_and_marks_it_read(app):
    assert app.herald is not None
    pet = app.pet.id
    app.herald.deliver(pet, "before the page", "reminder")
    arrivals = Arrivals(app)
    seen = arrivals.start()
    assert app.inbox.unread_count(pet) == 0  # on screen in the loaded chat: read
    assert arrivals.look(seen).here == ()
    app.herald.deliver(pet, "drink water", "reminder")
    found = arrivals.look(seen)
    assert [p.message.text for p in found.here] == ["drink water"] and found.elsewhere == ()
    assert app.inbox.unread_count(pet) == 0
    assert arrivals.look(found.upto).here == ()  # never twice on one page
    assert arrivals.history()[-1]["content"] == "⏰ Reminder: drink water"
    assert arrivals.notifications(found)["items"][0]["body"] == "drink water"


def test_another_pets_words_are_found_elsewhere_with_its_name(app):
    assert app.herald is not None
    arrivals = Arrivals(app)
    seen = arrivals.start()
    doudou = app.create_pet("Doudou")
    app.herald.deliver(doudou.record.id, "feed the fish", "reminder")
    found = arrivals.look(seen)
    assert found.here == () and len(found.elsewhere) == 1
    assert arrivals.toast(found.elsewhere[0]) == ("Doudou · Reminder / 提醒", "feed the fish")


def test_nothing_reaches_the_chat_while_a_turn_runs_in_it(app):
    assert app.herald is not None and app.locks is not None
    arrivals = Arrivals(app)
    seen = arrivals.start()
    _, conversation = app.turn_target()
    with app.locks.of(conversation):
        app.herald.deliver(app.pet.id, "stretch", "reminder")
        assert arrivals.look(seen).here == ()  # the streaming turn would overwrite the chat
    assert [p.message.text for p in arrivals.look(seen).here] == ["stretch"]


def test_the_header_says_which_brain_in_words_and_keeps_the_address_for_the_details(app):
    class Served(ScriptedModel):
        base_url = "http://192.168.1.5:11434/v1"
        model = "qwen2.5:3b"

    app.brain = BrainChoice(Served([]), "server", "the server at http://192.168.1.5:11434/v1 answered")
    words = brain_words(app)
    assert "thinks with qwen2.5:3b, on a model server on another computer" in words
    assert "192.168" not in words and "192.168.1.5" in brain_details(app)
    Served.base_url = "http://127.0.0.1:11434/v1"
    assert "on this computer" in brain_words(app)


def test_the_pond_asks_for_a_second_pet_until_there_is_one(app):
    assert "Adopt a second" in pond_hint(app)
    app.create_pet("Doudou")
    assert pond_hint(app) == ""


def test_the_tab_bar_holds_tabs_only(app):
    """A timer (or anything else) among the tabs made Gradio repeat a tab's
    label in the tab bar when a tab was selected (seen in Chromium)."""
    import gradio as gr

    from pet.ui.chat import build_ui

    blocks = build_ui(app)
    tab_bars = [block for block in blocks.blocks.values() if isinstance(block, gr.Tabs)]
    assert tab_bars
    for bar in tab_bars:
        strays = [type(child).__name__ for child in bar.children if not isinstance(child, gr.Tab)]
        assert strays == [], strays

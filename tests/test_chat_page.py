"""One page's chat over the shared app (pet.ui.session), without a browser:
each page its own pet and conversation, the conversation list, stopping."""

from __future__ import annotations

import threading
import time

from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings
from pet.events import Message, TextDelta
from pet.ui.session import UNTITLED, ChatPage


def make(model=None):
    app = build(load_settings({"reflexes": False}), brain=model or ScriptedModel([], repeat_last=False))
    return app, ChatPage(app)


def said(app, conversation):
    return [(m.message.role, m.message.content, m.status) for m in app.conversations.history(conversation)]


def test_pages_keep_their_own_pet_and_conversation():
    app, page = make(ScriptedModel(["To the laptop.", "To the phone."]))
    try:
        doudou = app.create_pet("Doudou")
        laptop = page.open(None)
        phone = page.switch_pet(doudou.record.id)
        assert laptop["pet"] == app.first_pet().record.id and phone["pet"] == doudou.record.id
        *_, (shown, laptop) = page.turn("hello", laptop, "laptop")
        *_, (other, phone) = page.turn("hi", phone, "phone")
        assert shown[-1]["content"] == "To the laptop." and other[-1]["content"] == "To the phone."
        assert [c for _, c, _ in said(app, laptop["conversation"])] == ["hello", "To the laptop."]
        assert [c for _, c, _ in said(app, phone["conversation"])] == ["hi", "To the phone."]
        # a new page remembers the pet the browser chose, in its latest conversation
        assert page.open(str(doudou.record.id)) == phone
        assert page.open("no such pet")["pet"] == app.first_pet().record.id
    finally:
        app.close()


def test_what_vanished_gives_way_to_the_pets_latest_conversation():
    app, page = make()
    try:
        first = page.open(None)
        second = page.new(first)
        app.conversations.append(second["conversation"], Message("user", "in the second"))
        assert page.resolve({"pet": first["pet"], "conversation": 999})[1] == second["conversation"]
        assert page.resolve({"pet": 999, "conversation": 999})[0].record.id == first["pet"]
        assert page.resolve({"pet": "x", "conversation": True})[1] == second["conversation"]
    finally:
        app.close()


def test_a_new_conversation_over_an_empty_one_is_that_one():
    # (seen on the page: "New conversation" on a conversation nothing was said in left an empty one on the list)
    app, page = make()
    try:
        one = page.open(None)
        assert page.new(one) == one
        app.conversations.append(one["conversation"], Message("assistant", "Hello! (the day's greeting)"))
        assert page.new(one) == one
        app.conversations.append(one["conversation"], Message("user", "about tea"))
        two = page.new(one)
        assert two["conversation"] != one["conversation"] and page.new(two) == two
        assert [v for _, v in page.listing(two)[0]] == [two["conversation"], one["conversation"]]
    finally:
        app.close()


def test_the_list_is_newest_first_titled_by_first_words_and_dated():
    app, page = make()
    try:
        one = page.open(None)
        app.conversations.append(one["conversation"], Message("user", "  we talked\nabout tea " + "and more " * 10))
        two = page.new(one)
        choices, open_now = page.listing(two)
        assert open_now == two["conversation"]
        assert [value for _, value in choices] == [two["conversation"], one["conversation"]]
        assert choices[0][0].startswith(UNTITLED + " · ")
        label = choices[1][0]
        assert label.startswith("we talked about tea and more") and "…" in label
        assert label.split(" · ")[-1][:4].isdigit()  # dated, YYYY-MM-DD HH:MM
    finally:
        app.close()


def test_rename_delete_and_undo():
    app, page = make()
    try:
        one = page.open(None)
        app.conversations.append(one["conversation"], Message("user", "about tea"))
        two = page.new(one)
        app.conversations.append(two["conversation"], Message("user", "about jazz"))
        assert page.rename(one, "  Tea   time ") == "Renamed: Tea time"
        assert page.rename(one, "   ").startswith("⚠️")
        moved, gone = page.delete(one)
        assert gone == one["conversation"] and moved["conversation"] == two["conversation"]
        assert [v for _, v in page.listing(moved)[0]] == [two["conversation"]]
        assert said(app, gone)  # its messages stay
        back = page.undo(moved, gone)
        assert back["conversation"] == gone
        assert "Tea time" in [label.split(" · ")[0] for label, _ in page.listing(back)[0]]
        # reopening another pet's conversation, or one that is not there, leaves the page where it was
        doudou = app.create_pet("Doudou")
        theirs = app.latest_conversation(doudou.record.id)
        assert page.reopen(back, theirs) == back and page.reopen(back, "nope") == back
    finally:
        app.close()


class TwoParts(ScriptedModel):
    """Streams its answer in two parts."""

    def __init__(self):
        super().__init__(["first words and then much more"])

    def stream(self, messages, tools=(), **kwargs):
        completion = self._next(messages, tools)
        yield TextDelta("first words ")
        yield TextDelta("and then much more")
        yield completion


def test_stop_keeps_what_was_said_marked_cut():
    model = TwoParts()
    app, page = make(model)
    try:
        session = page.open(None)
        assert page.stop("no turn here") is False
        turn = page.turn("tell me everything", session, "page-1")
        shown, _ = next(turn)
        assert shown == [{"role": "user", "content": "tell me everything"}]  # at once, before the pet answers
        shown, _ = next(turn)
        assert shown[-1]["content"] == "first words "
        stopper = threading.Thread(target=page.stop, args=("page-1",))
        stopper.start()
        while not page._running["page-1"][0].is_set():  # the stop is asked for
            time.sleep(0.01)
        rest = list(turn)
        stopper.join(10)
        assert not stopper.is_alive()  # it waited until the words were stored
        # the page shows, and the conversation keeps, exactly what was said before the stop
        assert rest == [([{"role": "user", "content": "tell me everything"},
                          {"role": "assistant", "content": "first words *(cut short)*"}], session)]
        assert said(app, session["conversation"]) == [
            ("user", "tell me everything", "ok"), ("assistant", "first words", "cut")]
    finally:
        app.close()

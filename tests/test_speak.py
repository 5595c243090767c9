"""The pet speaks first: a reminder that fires and the morning brief are
said in the pet's latest conversation, once, besides the inbox."""

from __future__ import annotations

import datetime as dt

import pytest

from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings
from pet.scheduler.speak import FRESH_FOR

NOW = dt.datetime(2026, 12, 1, 9, 0, tzinfo=dt.timezone.utc)


@pytest.fixture
def app():
    application = build(load_settings({"scheduler": "paused"}), brain=ScriptedModel([]), clock=lambda: NOW)
    yield application
    application.close()


def said(app, conversation: int) -> list[tuple[str, str]]:
    return [(m.message.role, m.message.content) for m in app.conversations.history(conversation)]


def test_a_fired_reminder_is_said_once_in_the_latest_conversation(app):
    pet = app.pet.id
    older = app.conversations.create(pet)
    latest = app.conversations.create(pet)
    reminder = app.reminders.add(pet, "stretch your legs", NOW)
    assert app.scheduler is not None
    app.scheduler.fire(reminder.id, reminder.due_at, now=NOW)
    assert said(app, latest) == [("assistant", "⏰ Reminder: stretch your legs")]
    assert said(app, older) == []
    [message] = app.inbox.recent(pet)
    assert message.text == "stretch your legs" and message.message_id is not None  # the inbox keeps it
    app.scheduler.fire(reminder.id, reminder.due_at, now=NOW)  # a second firing says nothing more
    assert app.herald is not None and app.herald.post() == []
    assert len(said(app, latest)) == 1
    [posted] = app.inbox.posted_since(0)
    assert (posted.conversation_id, posted.message.id) == (latest, message.id)
    assert app.inbox.posted_since(posted.message_id) == []
    assert app.inbox.unread_in(latest) == [message.id]


def test_the_brief_is_said_in_the_pets_own_words_and_chinese_reminders_in_chinese(app):
    assert app.herald is not None
    pet = app.pet.id
    app.herald.deliver(pet, "早上好！今天有两件事。", "brief", urgent=True)
    app.herald.deliver(pet, "给妈妈打电话", "reminder")
    conversation = app.conversations.latest(pet)
    assert said(app, conversation) == [("assistant", "早上好！今天有两件事。"), ("assistant", "⏰ 提醒：给妈妈打电话")]


def test_a_held_message_is_said_when_it_shows_and_old_or_read_ones_never(app):
    assert app.herald is not None
    pet = app.pet.id
    later = NOW + dt.timedelta(hours=2)
    app.inbox.hold = lambda pet_id, now: later  # quiet hours until then
    app.herald.deliver(pet, "morning!", "brief")
    conversation = app.conversations.latest(pet)
    assert conversation is None or said(app, conversation) == []
    stale = app.inbox.add(pet, "long ago", kind="reminder", now=NOW - FRESH_FOR - dt.timedelta(minutes=1))
    read = app.inbox.add(pet, "seen in the Inbox tab", kind="reminder", now=NOW)
    assert stale is not None and read is not None
    app.inbox.mark_read([read.id])
    app.herald.clock = lambda: later
    [posted] = app.herald.post()
    assert posted.message.text == "morning!"
    assert said(app, posted.conversation_id) == [("assistant", "morning!")]

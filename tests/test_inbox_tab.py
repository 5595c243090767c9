"""The Inbox tab and the page's poll: directly and through gradio_client."""

from __future__ import annotations

import datetime as dt

import pytest
from serving import stop_server

from pet.api.server import start_in_thread
from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings
from pet.ui.inbox_tab import InboxPanel


@pytest.fixture
def app():
    application = build(load_settings({"scheduler": "paused"}), brain=ScriptedModel([]))
    yield application
    application.close()


def soon(minutes: int) -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc) + dt.timedelta(minutes=minutes)


def test_messages_are_listed_with_their_kind_in_words_until_read(app):
    panel = InboxPanel(app)
    assert "Nothing yet" in panel.listing() and panel.badge() == ""
    app.inbox.add(app.pet.id, "drink water", kind="reminder", urgent=True)
    assert "1 unread" in panel.badge()
    assert "reminder" in panel.listing() and "drink water" in panel.listing() and "new" in panel.listing()
    assert "1 marked read" in panel.mark_read()
    assert panel.badge() == "" and "new" not in panel.listing()


def test_the_tab_lists_the_pages_pets_messages(app):
    doudou = app.create_pet("Doudou")
    app.inbox.add(doudou.record.id, "feed the fish", kind="reminder", urgent=True)
    assert "feed the fish" not in InboxPanel(app).listing()
    assert "feed the fish" in InboxPanel(app).listing({"pet": doudou.record.id})


def test_upcoming_reminders_and_cancel(app):
    panel = InboxPanel(app)
    record = app.reminders.add(app.pet.id, "call mom", soon(90))
    [row] = panel.reminder_rows()
    assert row[0] == record.id and row[3] == "call mom"
    assert panel.cancel("").startswith("⚠️")
    assert panel.cancel("#999").startswith("⚠️ There is no upcoming reminder #999")
    assert "Cancelled reminder" in panel.cancel(f"#{record.id}")
    assert panel.reminder_rows() == []


@pytest.mark.slow
def test_the_poll_through_the_page(app):
    from serving import gradio_client

    server = start_in_thread(app, port=0)
    try:
        client = gradio_client(server.url)
        client.predict(api_name="/inbox_poll")  # the page's first look: from what was said so far
        assert app.herald is not None
        app.herald.deliver(app.pet.id, "stretch your legs", "reminder")
        # the page's own state (what it saw) stays on the server side
        _notify, chat, badge, listing, _ = client.predict(api_name="/inbox_poll")
        assert chat[-1]["content"][0]["text"] == "⏰ Reminder: stretch your legs"
        assert badge == "" and "stretch your legs" in listing  # shown in the chat: read
        record = app.reminders.add(app.pet.id, "water the plants", soon(30))
        assert "Cancelled" in client.predict(f"#{record.id}", api_name="/reminder_cancel")
        assert app.reminders.pending(app.pet.id) == []
    finally:
        stop_server(server)

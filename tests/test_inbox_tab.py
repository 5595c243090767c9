"""The Inbox tab and the page's poll: directly and through gradio_client."""

from __future__ import annotations

import datetime as dt

import pytest

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


def test_a_new_message_is_shown_once_and_listed(app):
    panel = InboxPanel(app)
    assert panel.poll([]) == ([], [])
    assert "Nothing yet" in panel.listing()
    app.inbox.add(app.pet.id, "drink water", kind="reminder", urgent=True)
    lines, seen = panel.poll([])
    assert len(lines) == 1 and "drink water" in lines[0] and lines[0].startswith("⏰")
    assert panel.poll(seen) == ([], seen)  # not shown twice on the same page
    assert "1 unread" in panel.badge() and "drink water" in panel.listing() and "🆕" in panel.listing()
    assert "1 marked read" in panel.mark_read()
    assert panel.badge() == "" and "🆕" not in panel.listing()
    assert panel.poll([])[0] == []  # read messages do not pop up again


def test_another_pets_message_pops_up_with_its_name_and_stays_in_its_inbox(app):
    doudou = app.create_pet("Doudou")
    app.inbox.add(doudou.record.id, "feed the fish", kind="reminder", urgent=True)
    [line] = InboxPanel(app).poll([])[0]
    assert "Doudou: feed the fish" in line
    assert "feed the fish" not in InboxPanel(app).listing()  # the tab lists the current pet's
    app.switch_pet(doudou.record.id)
    assert "feed the fish" in InboxPanel(app).listing()


def test_upcoming_reminders_and_cancel(app):
    panel = InboxPanel(app)
    record = app.reminders.add(app.pet.id, "call mom", soon(90))
    [row] = panel.reminder_rows()
    assert row[0] == record.id and row[3] == "call mom"
    assert panel.cancel("").startswith("⚠️")
    assert panel.cancel("#999").startswith("⚠️ there is no upcoming reminder #999")
    assert "cancelled reminder" in panel.cancel(f"#{record.id}")
    assert panel.reminder_rows() == []


@pytest.mark.slow
def test_the_poll_through_the_page(app):
    from gradio_client import Client

    server = start_in_thread(app, port=0)
    try:
        client = Client(server.url, verbose=False)
        app.inbox.add(app.pet.id, "stretch your legs", kind="reminder", urgent=True)
        # the page's own state (ids already shown) stays on the server side
        badge, listing, _ = client.predict(api_name="/inbox_poll")
        assert "1 unread" in badge and "stretch your legs" in listing
        record = app.reminders.add(app.pet.id, "water the plants", soon(30))
        assert "cancelled" in client.predict(f"#{record.id}", api_name="/reminder_cancel")
        assert app.reminders.pending(app.pet.id) == []
    finally:
        server.stop()

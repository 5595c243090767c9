"""The chat in real Chromium: each page its own pet and conversation, the
history never stale, a stop button that keeps what was said, and the
message box in view on a laptop and a phone."""

from __future__ import annotations

import re

import pytest
from browser import chromium

from pet.api.server import start_in_thread
from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings
from pet.events import Message

pytestmark = pytest.mark.slow

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def browser():
    with chromium() as launched:
        yield launched


@pytest.fixture
def serve():
    """Start the real app on 127.0.0.1 with a brain of the test's choosing."""
    running = []

    def start(model, prepare=None):
        app = build(load_settings({"reflexes": False}), brain=model)
        if prepare is not None:
            prepare(app)
        server = start_in_thread(app, port=0)
        running.append((app, server))
        return app, server.url

    yield start
    for app, server in running:
        server.stop()
        app.close()


def open_page(browser, url, viewport=DESKTOP):
    page = browser.new_context(viewport=viewport).new_page()
    page.set_default_timeout(60_000)  # two shared cores: slow, never stuck
    page.goto(url + "/", wait_until="load")
    return page


def box(page):
    return page.get_by_placeholder(re.compile("Chat with"))


def say(page, text):
    box(page).fill(text)
    box(page).press("Enter")


def bubbles(page) -> list[str]:
    return [t.strip() for t in page.locator("#pet-chatbot .message").all_inner_texts()]


def test_a_reloaded_page_keeps_the_whole_conversation_when_it_sends(browser, serve):
    from playwright.sync_api import expect

    def earlier(app):  # a conversation that was there before the server started
        conversation = app.current_conversation()
        app.conversations.append(conversation, Message("user", "before the start"))
        app.conversations.append(conversation, Message("assistant", "Noted before the start."))

    app, url = serve(ScriptedModel(["Reply one.", "Reply two."]), earlier)
    page = open_page(browser, url)
    chat = page.locator("#pet-chatbot")
    expect(chat.get_by_text("Noted before the start.")).to_be_visible()
    say(page, "message one")
    expect(chat.get_by_text("Reply one.")).to_be_visible()

    page.reload(wait_until="load")
    expect(chat.get_by_text("Reply one.")).to_be_visible()
    say(page, "message two")
    expect(chat.get_by_text("Reply two.")).to_be_visible()
    # what was said since the server started is still on screen, in order
    shown = " | ".join(bubbles(page))
    for words in ("before the start", "message one", "Reply one.", "message two", "Reply two."):
        assert words in shown
    assert shown.index("Reply one.") < shown.index("message two")

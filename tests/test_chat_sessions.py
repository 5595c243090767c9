"""The chat in real Chromium: each page its own pet and conversation, the
history never stale, a stop button that keeps what was said, and the
message box in view on a laptop and a phone."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import threading
import time

import pytest
from browser import close_pages, patient_chromium

from pet.api.server import start_in_thread
from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings
from pet.events import Message, TextDelta

pytestmark = pytest.mark.slow

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


browser = pytest.fixture(scope="module", name="browser")(patient_chromium)


@pytest.fixture
def serve(browser):
    """Start the real app on 127.0.0.1 with a brain of the test's choosing;
    the test's pages close before its servers stop."""
    running = []

    def start(model, prepare=None):
        app = build(load_settings({"reflexes": False}), brain=model)
        # these pages run on the stand-in encoder (conftest), whose vectors make the learned
        # reading of facts note noise ("hello little one"); capture has tests of its own
        app.agent.config = dataclasses.replace(app.agent.config, notes=False)
        if prepare is not None:
            prepare(app)
        server = start_in_thread(app, port=0)
        running.append((app, server))
        return app, server.url

    yield start
    close_pages(browser)
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
    return [t.strip() for t in page.locator("#pet-chatbot .message-content").all_inner_texts()]


def echo(messages) -> str:
    """The scripted pet repeats the last thing it was told."""
    said = [m.content for m in messages if m.role == "user"][-1]
    return f"You said: {said.split()[-1]}"


class SlowModel(ScriptedModel):
    """Streams its answer a word at a time, slowly: a long reply to stop."""

    def __init__(self, words: int = 200, pause: float = 0.15):
        super().__init__([" ".join(f"word{i}" for i in range(words))])
        self.pause = pause
        self.finished = threading.Event()

    def stream(self, messages, tools=(), **kwargs):
        completion = self._next(messages, tools)
        for word in completion.text.split(" "):
            time.sleep(self.pause)
            yield TextDelta(word + " ")
        self.finished.set()
        yield completion


def stored(app, conversation) -> list[tuple[str, str, str]]:
    return [(m.message.role, m.message.content, m.status) for m in app.conversations.history(conversation)]


def wait_for(condition, seconds=30.0):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


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


def pick_pet(page, name):
    page.locator(".pet-picker input").click()
    page.get_by_role("option", name=re.compile(name)).click()


def test_two_pages_talk_with_different_pets_and_never_see_each_others_turns(browser, serve):
    from playwright.sync_api import expect

    app, url = serve(ScriptedModel([echo], repeat_last=True))
    doudou = app.create_pet("Doudou")
    laptop = open_page(browser, url, DESKTOP)
    phone = open_page(browser, url, PHONE)
    expect(phone.locator(".pet-growth-card")).to_be_visible()
    pick_pet(phone, "Doudou")
    expect(phone.locator(".pet-growth-card")).to_contain_text("Doudou")
    expect(laptop.locator(".pet-stage-face")).to_contain_text("小钳")  # the laptop stays with its pet

    say(laptop, "laptop apple")
    say(phone, "phone banana")
    expect(laptop.locator("#pet-chatbot").get_by_text("You said: apple")).to_be_visible()
    expect(phone.locator("#pet-chatbot").get_by_text("You said: banana")).to_be_visible()
    # the phone starts a new conversation; the laptop's next words stay where they were
    phone.get_by_role("button", name=re.compile("New conversation")).click()
    expect(phone.locator("#pet-chatbot").get_by_text("You said: banana")).to_be_hidden()
    say(laptop, "laptop cherry")
    say(phone, "phone damson")
    expect(laptop.locator("#pet-chatbot").get_by_text("You said: cherry")).to_be_visible()
    expect(phone.locator("#pet-chatbot").get_by_text("You said: damson")).to_be_visible()

    assert not any("banana" in t or "damson" in t for t in bubbles(laptop))
    assert not any("apple" in t or "cherry" in t for t in bubbles(phone))
    mine = app.conversations.latest(app.first_pet().record.id)
    assert [c for _, c, _ in stored(app, mine)] == [
        "laptop apple", "You said: apple", "laptop cherry", "You said: cherry"]
    theirs = app.conversations.listing(doudou.record.id)
    assert [[c for _, c, _ in stored(app, r.id)] for r in theirs] == [
        ["phone damson", "You said: damson"], ["phone banana", "You said: banana"]]

    # a reload keeps the phone's pet and opens its latest conversation
    phone.reload(wait_until="load")
    expect(phone.locator(".pet-growth-card")).to_contain_text("Doudou")
    expect(phone.locator("#pet-chatbot").get_by_text("You said: damson")).to_be_visible()


def test_stop_ends_the_turn_and_keeps_what_was_said_marked_cut_short(browser, serve):
    from playwright.sync_api import expect

    model = SlowModel()
    app, url = serve(model)
    page = open_page(browser, url)
    say(page, "tell me a very long story")
    chat = page.locator("#pet-chatbot")
    expect(chat.get_by_text(re.compile("word3 "))).to_be_visible()
    page.locator("#pet-stop").click()
    expect(chat.get_by_text("(cut short)")).to_be_visible()
    expect(page.locator("#pet-stop")).to_be_hidden()
    expect(box(page)).to_be_editable()

    conversation = app.conversations.latest(app.first_pet().record.id)
    [(role, said, status)] = stored(app, conversation)[1:]
    assert role == "assistant" and status == "cut" and said.startswith("word0 word1 word2 word3")
    assert "word199" not in said and not model.finished.is_set()  # ended, not waited out
    # the next message is answered as usual, after the cut reply
    model.enqueue("Fine, a short one.")
    model.pause = 0
    say(page, "a short one then")
    expect(chat.get_by_text("Fine, a short one.")).to_be_visible()
    assert [s for _, _, s in stored(app, conversation)] == ["ok", "cut", "ok", "ok"]


def test_conversations_are_found_again_renamed_deleted_and_brought_back(browser, serve):
    from playwright.sync_api import expect

    app, url = serve(ScriptedModel([echo], repeat_last=True))
    page = open_page(browser, url)
    say(page, "we talked about oolong tea")
    expect(page.locator("#pet-chatbot").get_by_text("You said: tea")).to_be_visible()
    page.get_by_role("button", name=re.compile("New conversation")).click()
    say(page, "and then about jazz")
    expect(page.locator("#pet-chatbot").get_by_text("You said: jazz")).to_be_visible()

    listing = page.locator("#pet-conversations")
    labels = listing.locator("label")
    expect(labels).to_have_count(2)
    today = dt.date.today().isoformat()
    expect(labels.nth(0)).to_contain_text("and then about jazz")  # the newest first, with its date
    expect(labels.nth(1)).to_contain_text(f"we talked about oolong tea · {today}")

    labels.nth(1).click()  # reopen the first
    expect(page.locator("#pet-chatbot").get_by_text("You said: tea")).to_be_visible()
    expect(page.locator("#pet-chatbot").get_by_text("You said: jazz")).to_be_hidden()

    page.locator("#pet-conversation-title textarea").fill("Tea time")
    page.get_by_role("button", name=re.compile("Rename")).click()
    expect(listing).to_contain_text("Tea time")

    page.get_by_role("button", name=re.compile("Delete")).click()
    expect(listing).not_to_contain_text("Tea time")
    expect(page.locator("#pet-chatbot").get_by_text("You said: jazz")).to_be_visible()  # the latest left
    page.locator("#pet-undo-delete").click()
    expect(listing).to_contain_text("Tea time")
    expect(page.locator("#pet-chatbot").get_by_text("You said: tea")).to_be_visible()
    # the chat has no trash icon that drops a conversation from view
    expect(page.locator("#pet-chatbot").get_by_role("button", name=re.compile("Clear", re.I))).to_have_count(0)


def test_the_face_follows_the_stage_at_once_when_the_adoption_date_changes(browser, serve):
    from playwright.sync_api import expect

    app, url = serve(ScriptedModel([echo], repeat_last=True))
    page = open_page(browser, url)
    say(page, "hello little one")
    chat = page.locator("#pet-chatbot")
    expect(chat.get_by_text("You said: one")).to_be_visible()
    expect(chat.locator("img[src*='stage-0']").first).to_be_visible()
    expect(page.locator(".pet-stage-face")).to_have_attribute("data-days", "0")

    runtime = app.first_pet()  # as the Pets tab saves an earlier adoption date
    earlier = app.today(runtime.persona) - dt.timedelta(days=10)
    app.update_persona(runtime.record.id, dataclasses.replace(runtime.persona, adopted=earlier))

    expect(page.locator(".pet-stage-face")).to_have_attribute("data-days", "10")  # no reload
    face = chat.locator("img[src*='stage-7']").first
    expect(face).to_be_visible()
    expect(chat.locator("img[src*='stage-0']")).to_have_count(0)
    # the new face is an image the browser shows, not a broken one, and big enough to see
    page.wait_for_function("(img) => img.complete", arg=face.element_handle())
    assert face.evaluate("(img) => img.naturalWidth") > 0
    assert face.bounding_box()["width"] >= 40


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_message_box_is_in_view_without_scrolling(browser, serve, viewport):
    from playwright.sync_api import expect

    def long_history(app):
        conversation = app.current_conversation()
        for n in range(30):
            app.conversations.append(conversation, Message("user", f"question {n}"))
            app.conversations.append(conversation, Message("assistant", f"answer {n} " * 20))

    app, url = serve(ScriptedModel([]), long_history)
    page = open_page(browser, url, viewport)
    expect(page.locator("#pet-chatbot").get_by_text("question 29")).to_be_visible()
    area = box(page).bounding_box()
    assert area is not None and 0 <= area["y"] and area["y"] + area["height"] <= viewport["height"]
    assert page.evaluate("window.scrollY") == 0
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]


class Warmable(ScriptedModel):
    """Keeps the prompts it was asked to read ahead, as the embedded brain's cache would."""

    reuses_prompt_prefix = True

    def __init__(self):
        super().__init__()
        self.warmed: list[str] = []

    def warm(self, messages, tools=(), stable=0):
        self.warmed.append(messages[0].content)
        return 1


def test_an_opened_page_has_the_prompt_read_ahead_for_either_language(browser, serve):
    """Before anything is said, the pet's prompt is read ahead, and it is one
    for both of the default pet's languages: a message in either reuses it."""
    model = Warmable()
    app, url = serve(model)
    page = browser.new_context(viewport=DESKTOP, locale="en-US").new_page()
    page.goto(url + "/", wait_until="load")
    box(page).wait_for()
    deadline = time.monotonic() + 30
    while not model.warmed:
        assert time.monotonic() < deadline, "the page opened, but nothing was read ahead"
        time.sleep(0.2)
    prompt = model.warmed[-1]
    assert "Person: it's raining today" in prompt and "Person: 今天下雨了" in prompt
    assert "Reply in" not in prompt  # the language to reply in comes with the message
    page.context.close()

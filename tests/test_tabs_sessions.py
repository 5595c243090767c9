"""Every tab of a page follows that page's pet, in real Chromium: two pages
on two pets each see and change only their own pet's memories, persona,
inbox and trace, and a pet picked on one page moves no other page."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from browser import patient_chromium

from pet.api.server import start_in_thread
from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings

pytestmark = pytest.mark.slow

DESKTOP = {"width": 1280, "height": 800}


browser = pytest.fixture(scope="module", name="browser")(patient_chromium)


def echo(messages) -> str:
    said = [m.content for m in messages if m.role == "user"][-1]
    return f"You said: {said.split()[-1]}"


@pytest.fixture
def home():
    """The real app on 127.0.0.1 with two pets, each with a memory and an
    upcoming reminder of its own: (app, url, first pet id, Doudou's id)."""
    app = build(load_settings({"reflexes": False}), brain=ScriptedModel([echo], repeat_last=True),
                scheduler="paused")
    first = app.first_pet().record.id
    doudou = app.create_pet("Doudou").record.id
    later = dt.datetime.now(dt.timezone.utc) + dt.timedelta(hours=3)
    app.memories.remember(first, "likes oolong tea")
    app.memories.remember(doudou, "is afraid of thunder")
    app.reminders.add(first, "water the plants", later)
    app.reminders.add(doudou, "feed the fish", later)
    server = start_in_thread(app, port=0)
    yield app, server.url, first, doudou
    server.stop()
    app.close()


def open_page(browser, url):
    page = browser.new_context(viewport=DESKTOP).new_page()
    page.set_default_timeout(60_000)
    page.goto(url + "/", wait_until="load")
    return page


def pick_pet(page, name):
    page.locator(".pet-picker input").click()
    page.get_by_role("option", name=re.compile(name)).click()


def tab(page, name):
    page.get_by_role("tab", name=re.compile(name)).click()


def say(page, text):
    page.get_by_role("tab", name=re.compile("Chat")).click()
    box = page.get_by_placeholder(re.compile("Chat with"))
    box.fill(text)
    box.press("Enter")


def test_two_pages_on_two_pets_each_see_and_change_only_their_own_pet(browser, home):
    from playwright.sync_api import expect

    app, url, first, doudou = home
    laptop, phone = open_page(browser, url), open_page(browser, url)
    expect(phone.locator(".pet-stage-face")).to_be_visible()
    pick_pet(phone, "Doudou")
    expect(phone.locator(".pet-stage-face")).to_contain_text("Doudou")

    # Memory: each page its own pet's memories; the laptop never sees Doudou's
    for page, mine, theirs in ((laptop, "likes oolong tea", "afraid of thunder"),
                               (phone, "is afraid of thunder", "oolong")):
        tab(page, "Memory")
        table = page.locator(".pet-memory-table")
        expect(table).to_contain_text(mine)
        expect(table).not_to_contain_text(theirs)
    [thunder] = app.memories.listing(doudou)
    phone.get_by_label("Memory #").fill(f"#{thunder.id}")
    phone.get_by_role("button", name=re.compile("Forget")).click()
    expect(phone.locator(".pet-memory-table")).not_to_contain_text("thunder")
    assert app.memories.listing(doudou) == []
    assert [m.content for m in app.memories.listing(first)] == ["likes oolong tea"]
    laptop.get_by_label("Search / 搜索").press("Enter")  # the laptop looks again: its memory is still there
    expect(laptop.locator(".pet-memory-table")).to_contain_text("likes oolong tea")

    # Pets: each page edits its own pet's persona
    for page, name in ((laptop, "Xiaoqian"), (phone, "Doudou")):
        tab(page, "Pets")
        expect(page.get_by_label("Name (en)")).to_have_value(name)
    phone.get_by_label("Rename this pet to").fill("Dumpling")
    phone.get_by_role("button", name=re.compile("Rename$")).click()
    expect(phone.get_by_label("Name (en)")).to_have_value("Dumpling")
    assert app.runtime(doudou).persona.display_name("en") == "Dumpling"
    assert app.runtime(first).persona.display_name("en") == "Xiaoqian"
    tab(laptop, "Memory")
    tab(laptop, "Pets")
    expect(laptop.get_by_label("Name (en)")).to_have_value("Xiaoqian")

    # Inbox: each page its own pet's reminders
    for page, mine, theirs in ((laptop, "water the plants", "feed the fish"),
                               (phone, "feed the fish", "water the plants")):
        tab(page, "Inbox")
        reminders = page.locator(".pet-reminder-table")
        expect(reminders).to_contain_text(mine)
        expect(reminders).not_to_contain_text(theirs)

    # Trace (behind the switch): each page its own conversation's turns
    say(laptop, "laptop apple")
    say(phone, "phone banana")
    expect(laptop.locator("#pet-chatbot").get_by_text("You said: apple")).to_be_visible()
    expect(phone.locator("#pet-chatbot").get_by_text("You said: banana")).to_be_visible()
    for page, mine, theirs in ((laptop, "laptop apple", "banana"), (phone, "phone banana", "apple")):
        page.locator("#pet-advanced input").check()
        tab(page, "Trace")
        summary = page.locator(".block.pet-trace-summary")
        expect(summary).to_contain_text(mine)
        expect(summary).not_to_contain_text(theirs)

    # the laptop's chat and header stayed with its own pet throughout
    expect(laptop.locator(".pet-stage-face")).to_contain_text("小钳")
    laptop_turns = app.conversations.latest(first)
    assert [m.message.content for m in app.conversations.history(laptop_turns)] == ["laptop apple", "You said: apple"]


def test_a_pet_picked_on_one_page_shows_in_its_open_tab_at_once(browser, home):
    from playwright.sync_api import expect

    app, url, _, _ = home
    page = open_page(browser, url)
    tab(page, "Memory")
    table = page.locator(".pet-memory-table")
    expect(table).to_contain_text("oolong")
    pick_pet(page, "Doudou")
    expect(table).to_contain_text("thunder")
    expect(table).not_to_contain_text("oolong")

"""What the page shows of the pet's own messages, in real Chromium: each
message its own bubble, a message said elsewhere in the page's own toast
titled by the pet (never Gradio's "Info") and clear of the header on a
phone, and the raw system prompt only behind "Technical details"."""

from __future__ import annotations

import datetime as dt
import re
import time

import pytest
from browser import ARTIFACTS, patient_chromium

from pet.api.server import start_in_thread
from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings

pytestmark = pytest.mark.slow

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
TOASTS = "[data-testid='pet-toast']"


browser = pytest.fixture(scope="module", name="browser")(patient_chromium)


@pytest.fixture
def pet():
    """The real app with its scheduler on (reminders fire by the clock)."""
    app = build(load_settings({"reflexes": False}), brain=ScriptedModel(["Here is my answer."], repeat_last=True),
                scheduler="on")
    server = start_in_thread(app, port=0)
    yield app, server.url
    server.stop()
    app.close()


def open_page(browser, url, viewport):
    page = browser.new_context(viewport=viewport).new_page()
    page.set_default_timeout(60_000)
    page.goto(url + "/", wait_until="load")
    page.get_by_placeholder(re.compile("Chat with")).wait_for()
    return page


def remind_in(app, pet_id: int, seconds: float, text: str) -> None:
    app.reminders.add(pet_id, text, dt.datetime.now(dt.timezone.utc) + dt.timedelta(seconds=seconds))


def test_a_reminder_right_after_a_reply_is_a_bubble_of_its_own(browser, pet):
    from playwright.sync_api import expect

    app, url = pet
    page = open_page(browser, url, DESKTOP)
    box = page.get_by_placeholder(re.compile("Chat with"))
    box.fill("how are you")
    box.press("Enter")
    chat = page.locator("#pet-chatbot")
    expect(chat.get_by_text("Here is my answer.")).to_be_visible()
    remind_in(app, app.first_pet().record.id, 2, "stretch your legs")
    expect(chat).to_contain_text("Reminder: stretch your legs")

    rows = chat.locator(".message-row.bot-row")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_contain_text("Here is my answer.")
    expect(rows.nth(0)).not_to_contain_text("stretch your legs")
    expect(rows.nth(1)).to_contain_text("Reminder: stretch your legs")
    # two boxes, one under the other, each with the pet's face
    first, second = rows.nth(0).bounding_box(), rows.nth(1).bounding_box()
    assert first is not None and second is not None and first["y"] + first["height"] <= second["y"]
    expect(rows.nth(1).locator(".avatar-container img")).to_be_visible()


def test_on_a_phone_another_pets_reminder_is_a_toast_titled_by_the_pet_under_the_header(browser, pet):
    from playwright.sync_api import expect

    app, url = pet
    page = open_page(browser, url, PHONE)
    expect(page.locator(".pet-growth-card")).to_be_visible()
    doudou = app.create_pet("Doudou")
    remind_in(app, doudou.record.id, 2, "feed the fish")
    toast = page.locator(TOASTS)
    expect(toast).to_have_count(1)
    expect(toast.locator(".pet-toast-title")).to_have_text("Doudou · Reminder / 提醒")
    expect(toast).to_contain_text("feed the fish")
    expect(toast).not_to_contain_text("Info")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / "arrival-toast-phone.png")
    header = page.locator(".pet-header").bounding_box()
    shown = toast.bounding_box()
    assert header is not None and shown is not None
    tabs = page.get_by_role("tablist").first.bounding_box()
    assert header is not None and tabs is not None
    # the pet, its name, its picker and the tabs stay in view
    assert shown["y"] >= max(header["y"] + header["height"], tabs["y"] + tabs["height"])
    assert shown["x"] >= 0 and shown["x"] + shown["width"] <= PHONE["width"]
    toast.get_by_role("button", name="Close").click()
    expect(toast).to_have_count(0)


def test_the_system_prompt_shows_only_with_technical_details_on(browser, pet):
    from playwright.sync_api import expect

    app, url = pet
    page = open_page(browser, url, DESKTOP)
    page.get_by_role("tab", name=re.compile("Pets")).click()
    expect(page.get_by_label("Name (en)")).to_have_value("Xiaoqian")
    preview = page.get_by_role("button", name=re.compile("Preview system prompt"))
    expect(preview).to_have_count(0)
    prompt = page.locator("#pet-prompt-preview textarea")
    expect(prompt).to_have_count(0)

    page.locator("#pet-advanced input").check()
    expect(preview).to_be_visible()
    preview.click()
    expect(prompt).to_have_value(re.compile("小钳|Xiaoqian"))
    page.locator("#pet-advanced input").uncheck()
    expect(preview).to_have_count(0)


def test_a_message_typed_while_the_page_still_loads_stays_in_view(browser, pet, monkeypatch):
    """The page's first look at its conversation comes late on a loaded
    machine: a message sent before it arrived was wiped from view (CI)."""
    from playwright.sync_api import expect

    import pet.ui.chat as chat_ui

    shown = chat_ui.status_line

    def late(*args, **kwargs):
        time.sleep(3)
        return shown(*args, **kwargs) + " · late"

    monkeypatch.setattr(chat_ui, "status_line", late)
    app, url = pet
    page = browser.new_context(viewport=DESKTOP).new_page()
    page.set_default_timeout(60_000)
    page.goto(url + "/", wait_until="load")
    box = page.get_by_placeholder(re.compile("Chat with"))
    box.wait_for()
    assert not box.is_editable()  # the page has not shown its conversation yet
    box.fill("how are you")  # waits until the box opens
    box.press("Enter")
    chat = page.locator("#pet-chatbot")
    expect(chat.get_by_text("Here is my answer.")).to_be_visible()
    # the late look has landed (its status line shows), and the turn is still on screen
    expect(page.get_by_text(re.compile("· late"))).to_be_visible()
    expect(chat.get_by_text("how are you")).to_be_visible()
    expect(chat.get_by_text("Here is my answer.")).to_be_visible()


@pytest.mark.parametrize(("message", "script"), [
    # the model's reply fails its checks twice and the pet's own line stands in: after a false claim ("k" on the page,
    # 2026-12-06: the line was stored at once but showed only after a reload), and after a fact the pet noted
    ("k", ["Got it, I'll remember that!", "k"]),
    ("hi! my boyfriend is called Lukas", ["Hello Lukas! How can we assist you with your day?",
                                          "Hi! My boyfriend is called Lukas."]),
])
def test_the_pets_own_line_for_a_reply_that_failed_twice_shows_live(browser, message, script, tmp_path):
    from playwright.sync_api import expect

    # the stored reply of the same script, run without the page (in a home of its own)
    alone = build(load_settings({"reflexes": False, "home": str(tmp_path / "alone")}),
                  brain=ScriptedModel(script, repeat_last=True), scheduler="off")
    stored = alone.agent.run(alone.new_conversation(), message)
    final = [event for event in stored if type(event).__name__ == "Reply"][-1].text
    alone.close()
    app = build(load_settings({"reflexes": False, "home": str(tmp_path / "page")}),
                brain=ScriptedModel(script, repeat_last=True), scheduler="off")
    server = start_in_thread(app, port=0)
    try:
        page = open_page(browser, server.url, DESKTOP)
        box = page.get_by_placeholder(re.compile("Chat with"))
        box.fill(message)
        box.press("Enter")
        line = final.split("\n\n")[-1]
        rows = page.locator("#pet-chatbot .message-row.bot-row")
        expect(rows.last).to_contain_text(line)  # live: no reload
        expect(rows.filter(has_text=line)).to_have_count(1)  # once (a noted fact's step is a row of its own)
        expect(page.get_by_role("button", name=re.compile("Stop"))).to_be_hidden()
        page.screenshot(path=str(ARTIFACTS / f"own-line-live-{len(message)}.png"))
        page.close()
    finally:
        server.stop()
        app.close()

"""The pet speaks first, in real Chromium on a desktop and a phone: a
reminder set a few seconds ahead arrives in the open chat as the pet's own
message, stored in its conversation; nothing pops up again after a reload;
a hidden page gets a notification; the technical details (and the Trace
tab) show only with the switch on; the tab bar never repeats a label; the
phone's tables keep the columns that matter."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from browser import ARTIFACTS, chromium, close_pages

from pet.api.server import start_in_thread
from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings

pytestmark = pytest.mark.slow

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
#: the page is "hidden" when the test says so, and notifications are recorded, not shown
HIDDEN_AND_NOTIFIED = """
window.__hidden = false;
Object.defineProperty(document, "hidden", { get: () => window.__hidden });
window.__shown = [];
window.Notification = class {
  static permission = "granted";
  static requestPermission() { return Promise.resolve("granted"); }
  constructor(title, options) { window.__shown.push([title, (options || {}).body]); }
};
"""
TOASTS = "[data-testid='pet-toast']"  # the page's own toasts (Gradio's are titled "Info")


@pytest.fixture(scope="module")
def browser():
    """One Chromium for the module; each test opens its own contexts (pages)."""
    with chromium() as launched:
        yield launched


@pytest.fixture
def pet(browser):
    """A pet of its own for each test; the test's pages close before its server stops."""
    app = build(load_settings({"reflexes": False}), brain=ScriptedModel([]), scheduler="on")
    server = start_in_thread(app, port=0)
    try:
        yield app, server.url
    finally:
        close_pages(browser)
        server.stop()
        app.close()


def remind_in(app, pet_id: int, seconds: float, text: str) -> None:
    app.reminders.add(pet_id, text, dt.datetime.now(dt.timezone.utc) + dt.timedelta(seconds=seconds))


def tab_labels(page) -> list[str]:
    return [tab.inner_text().strip() for tab in page.get_by_role("tab").all()]


def open_page(browser, url: str, viewport: dict, **options):
    context = browser.new_context(viewport=viewport, **options)
    context.add_init_script(HIDDEN_AND_NOTIFIED)
    page = context.new_page()
    page.set_default_timeout(60_000)  # two cores shared with other work: slow, never stuck
    page.goto(url + "/")
    page.get_by_placeholder(re.compile("Chat with")).wait_for()
    return page


def test_on_a_desktop_a_reminder_arrives_in_the_chat_once(pet, browser):
    from playwright.sync_api import expect

    app, url = pet
    ARTIFACTS.mkdir(exist_ok=True)
    page = open_page(browser, url, DESKTOP)
    chat = page.locator("#pet-chatbot")
    remind_in(app, app.pet.id, 3, "stretch your legs")
    expect(chat).to_contain_text("Reminder: stretch your legs", timeout=60_000)
    page.screenshot(path=ARTIFACTS / "arrival-desktop.png")
    conversation = app.conversations.latest(app.pet.id)
    stored = [(m.message.role, m.message.content) for m in app.conversations.history(conversation)]
    assert stored == [("assistant", "⏰ Reminder: stretch your legs")]  # the pet's words, kept
    assert app.inbox.unread_count(app.pet.id) == 0  # shown once: read
    assert page.locator(TOASTS).count() == 0  # in the chat, so no toast
    assert app.inbox.recent(app.pet.id)[0].text == "stretch your legs"  # the Inbox keeps the history

    # another pet's reminder: one toast naming that pet, then a hidden page's notification
    doudou = app.create_pet("Doudou")
    remind_in(app, doudou.record.id, 2, "feed the fish")
    toast = page.locator(TOASTS).filter(has_text="feed the fish")
    expect(toast).to_be_visible(timeout=60_000)
    expect(toast).to_contain_text("Doudou")
    expect(toast).to_have_count(1)
    page.screenshot(path=ARTIFACTS / "arrival-toast-desktop.png")
    page.evaluate("window.__hidden = true")
    remind_in(app, app.pet.id, 2, "drink water")
    expect(chat).to_contain_text("Reminder: drink water", timeout=60_000)
    page.wait_for_function("window.__shown.length >= 1")
    assert page.evaluate("window.__shown") == [["小钳 (Xiaoqian) · Reminder / 提醒", "drink water"]]
    page.evaluate("window.__hidden = false")

    # a reload shows the conversation and pops up nothing again
    page.reload()
    page.get_by_placeholder(re.compile("Chat with")).wait_for()
    expect(chat).to_contain_text("Reminder: drink water")
    page.wait_for_timeout(8_000)  # two looks of the page at least
    assert page.locator(TOASTS).count() == 0
    assert chat.inner_text().count("Reminder: stretch your legs") == 1


def test_the_switch_shows_the_plumbing_and_no_tab_label_repeats(pet, browser):
    from playwright.sync_api import expect

    app, url = pet
    page = open_page(browser, url, DESKTOP)
    expect(page.locator(".pet-status-line").first).to_contain_text("thinks with")
    details = page.locator("#pet-brain-details")
    expect(details).to_be_hidden()
    expected = ["Chat", "Memory", "Pets", "Pond", "Inbox"]
    assert [label.split()[1] for label in tab_labels(page)] == expected  # no Trace tab yet
    for name in ("Inbox", "Memory", "Pond", "Inbox"):
        page.get_by_role("tab", name=name).first.click()
        page.wait_for_timeout(800)
        assert [label.split()[1] for label in tab_labels(page)] == expected, name
    page.get_by_role("tab", name="Pond").first.click()
    expect(page.locator("#pet-pond-hint")).to_contain_text("Adopt a second")

    page.locator("#pet-advanced input").check()
    expect(details).to_contain_text("scripted")
    expect(page.get_by_role("tab", name="Trace")).to_be_visible()
    page.get_by_role("tab", name="Trace").first.click()
    page.wait_for_timeout(800)
    assert [label.split()[1] for label in tab_labels(page)] == [*expected, "Trace"]
    page.reload()  # the browser remembers the switch
    expect(page.get_by_role("tab", name="Trace")).to_be_visible()
    for name in ("Inbox", "Trace", "Memory", "Inbox"):
        page.get_by_role("tab", name=name).first.click()
        page.wait_for_timeout(800)
        assert [label.split()[1] for label in tab_labels(page)] == [*expected, "Trace"], name
    page.locator("#pet-advanced input").uncheck()
    expect(page.get_by_role("tab", name="Trace")).to_have_count(0)
    expect(details).to_be_hidden()

    # the notification button asks the browser (the test's browser says yes)
    page.get_by_role("tab", name="Inbox").first.click()
    page.locator("#pet-notify-ask").click()
    expect(page.locator("#pet-notify-answer")).to_contain_text("Notifications are on")


def test_on_a_phone_the_reminder_arrives_and_the_memory_table_keeps_three_columns(pet, browser):
    from playwright.sync_api import expect

    app, url = pet
    ARTIFACTS.mkdir(exist_ok=True)
    app.memories.remember(app.pet.id, "my cat is called Tom")
    page = open_page(browser, url, PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)
    remind_in(app, app.pet.id, 3, "stand up and stretch")
    chat = page.locator("#pet-chatbot")
    expect(chat).to_contain_text("Reminder: stand up and stretch", timeout=60_000)
    assert page.locator(TOASTS).count() == 0
    expect(page.locator("#pet-advanced")).to_be_hidden()  # the plumbing's switch is for the computer
    page.screenshot(path=ARTIFACTS / "arrival-phone.png")

    page.get_by_role("tab", name="Memory").first.tap()
    table = page.locator(".pet-memory-table")
    expect(table.get_by_test_id("cell-0-1")).to_contain_text("my cat is called Tom")
    # the header cells, and the first row's cells, that a person sees
    shown = """() => [
        [...document.querySelectorAll('.pet-memory-table th')],
        [...document.querySelectorAll('.pet-memory-table [role=gridcell][data-row="0"], .pet-memory-table tbody:not([aria-hidden]) tr:first-child td')],
      ].map((cells) => cells.filter((cell) => { const box = cell.getBoundingClientRect();
                                              return cell.offsetParent && box.width > 0 && box.height > 0; })
                            .map((cell) => cell.innerText.trim()))"""
    page.wait_for_function(f"({shown})().every((row) => row.length === 3)")
    assert page.evaluate(shown) == [["#", "memory", "state"], ["1", "my cat is called Tom", "active"]]
    cell = table.get_by_test_id("cell-0-1")
    cell.scroll_into_view_if_needed()
    assert cell.evaluate("""(cell) => { const box = cell.getBoundingClientRect();
        return cell.contains(document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2)); }""")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.screenshot(path=ARTIFACTS / "memory-phone.png")

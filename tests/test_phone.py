"""A phone on the LAN: headless Chromium with a phone's screen signs in over
HTTPS, chats with the pet and sees the reply. Screenshots go to
tests/artifacts/ for a person to look at."""

from __future__ import annotations

import re

import pytest
from browser import ARTIFACTS, chromium, close_pages
from lanserver import PASSWORD, lan_pet

from pet.api.lan import phone_urls
from pet.brain.scripted import ScriptedModel

pytestmark = pytest.mark.slow

PHONE = {"width": 390, "height": 844}
REPLY = "Snap snap! Hello, I'm Xiaoqian. Nice to meet you on the phone."


@pytest.fixture(scope="module")
def shared_browser():
    with chromium() as launched:
        yield launched


@pytest.fixture
def browser(shared_browser):
    """The module's Chromium; the pages a test opened close after it."""
    yield shared_browser
    close_pages(shared_browser)


def test_a_phone_signs_in_chats_and_sees_the_reply(browser):
    from playwright.sync_api import expect

    ARTIFACTS.mkdir(exist_ok=True)
    with lan_pet(ScriptedModel([REPLY])) as pet:
        context = browser.new_context(
            viewport=PHONE,
            is_mobile=True,
            has_touch=True,
            device_scale_factor=2,
            ignore_https_errors=True,
            locale="zh-CN",
        )
        page = context.new_page()
        page.set_default_timeout(60_000)  # two cores shared with other tests: slow, never stuck

        page.goto(pet.url + "/", wait_until="load")
        expect(page).to_have_url(re.compile(r"/login\?next=%2F$"))  # the gate sent the phone to sign in
        page.fill("input[name=password]", "not it")
        page.tap("button[type=submit]")
        expect(page.locator(".error")).to_contain_text("Wrong password")
        page.screenshot(path=ARTIFACTS / "phone-sign-in.png")

        page.fill("input[name=password]", PASSWORD)
        page.tap("button[type=submit]")
        box = page.get_by_placeholder(re.compile("Chat with"))
        expect(box).to_be_visible()
        # measured once the header has its face card and the chat its frame
        expect(page.locator(".pet-growth-card")).to_be_visible()
        expect(page.locator("#pet-chatbot")).to_be_visible()

        # usable on the phone: the message box is in view without scrolling,
        # nothing is wider than the screen, and typing does not zoom the page
        area = box.bounding_box()
        assert area is not None and area["y"] >= 0 and area["y"] + area["height"] <= PHONE["height"]
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        assert page.evaluate("(el) => parseFloat(getComputedStyle(el).fontSize)", box.element_handle()) >= 16
        expect(page.locator(".pet-phone-panel")).to_be_hidden()  # the QR code is for the computer's screen

        box.fill("How are you, little crayfish?")
        box.press("Enter")
        reply = page.locator("#pet-chatbot").get_by_text("Nice to meet you on the phone.")
        expect(reply).to_be_visible()
        page.screenshot(path=ARTIFACTS / "phone-chat.png")

        def stored() -> list[tuple[str, str]]:
            history = pet.app.conversations.history(pet.app.current_conversation())
            return [(m.message.role, m.message.content) for m in history]

        for _ in range(300):  # the turn is saved as it ends, just after the last words show
            if len(stored()) == 2:
                break
            page.wait_for_timeout(100)
        assert stored() == [("user", "How are you, little crayfish?"), ("assistant", REPLY)]


def test_the_computer_shows_the_phone_address_as_a_qr_code(browser):
    from playwright.sync_api import expect

    ARTIFACTS.mkdir(exist_ok=True)
    with lan_pet() as pet:
        page = browser.new_context(
            viewport={"width": 1280, "height": 900}, ignore_https_errors=True
        ).new_page()
        page.set_default_timeout(60_000)
        page.goto(pet.url + "/login", wait_until="load")
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        page.get_by_text("Open on your phone").click()
        panel = page.locator("#pet-phone-qr")
        expected = phone_urls(pet.server.port)
        if expected:
            expect(panel.get_by_role("img", name="QR code")).to_be_visible()
            expect(panel.get_by_role("link", name=expected[0])).to_be_visible()
        else:  # a computer on no network says so instead
            expect(panel).to_contain_text("No network address found")
        expect(panel.get_by_text("Sign out")).to_be_visible()
        page.screenshot(path=ARTIFACTS / "computer-phone-panel.png")

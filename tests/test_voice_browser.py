"""Talking to the pet in a real browser: headless Chromium whose microphone
plays a question espeak-ng spoke, on a desktop over http://127.0.0.1 and on
a phone over the LAN (HTTPS, signed in). The transcript appears, the answer
streams in, and its sentences play one after another without a tap.
Screenshots go to tests/artifacts/."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser import ARTIFACTS, chromium
from speechclips import ENGLISH_QUESTION, espeak_clip

from pet.api.server import start_in_thread
from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings
from pet.speech import models
from pet.speech.tts import espeak_installed

pytestmark = pytest.mark.slow

ANSWER = "Hello there. I am a crayfish with opinions."
#: the transcript of the question, as the person's message. Chromium's fake microphone can
#: drop audio on a loaded machine, and Whisper then mishears a word or two (a CI run heard
#: "What is the winner like today? Please tell me a short story about a courageous…"), so
#: any of these phrases will do; a transcript with none of them is still a failure
HEARD = re.compile(r"weather|like today|short story", re.IGNORECASE)
#: every play() the page starts, in order: the test watches, the page still plays
WATCH_PLAYS = """
window.__plays = [];
const play = HTMLMediaElement.prototype.play;
HTMLMediaElement.prototype.play = function () { window.__plays.push(this.src); return play.call(this); };
"""


@pytest.fixture
def question(tmp_path):
    pytest.importorskip("faster_whisper", reason="pip install faster-whisper")
    if models.base_sources() is None or not espeak_installed():
        pytest.skip("voice needs the Whisper base packages and espeak-ng")
    return espeak_clip(ENGLISH_QUESTION, "en", tmp_path / "question.wav")


def chromium_hearing(microphone: Path):
    """Chromium with a microphone that hears this file once, and no permission prompt."""
    return chromium(["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
                     f"--use-file-for-fake-audio-capture={microphone}%noloop"])


def ask_aloud(page, press) -> None:
    """Record the question through the page's microphone and wait for the spoken answer."""
    from playwright.sync_api import expect

    mic = page.locator("#pet-mic")
    press(mic.locator("button.record"))
    expect(mic).to_contain_text("0:06", timeout=60_000)  # the whole question is recorded
    press(mic.locator("button.stop-button"))
    chat = page.locator("#pet-chatbot")
    expect(chat).to_contain_text(HEARD, timeout=180_000)  # the transcript, as the person's message
    expect(chat).to_contain_text(ANSWER, timeout=180_000)
    # the tap's moment of silence, then one clip per sentence
    page.wait_for_function("window.__plays.length >= 3", timeout=60_000)
    plays = page.evaluate("window.__plays")
    assert all(src.startswith("data:audio/wav;base64,") for src in plays)
    assert len(plays) == 3
    expect(page.locator("#pet-voice-note")).to_contain_text("first sound after")


def test_on_a_desktop_the_question_is_heard_and_the_answer_plays(question):
    app = build(load_settings({"reflexes": False, "speech_language": "en"}),
                brain=ScriptedModel([ANSWER, "Typed answer."]), scheduler="off")
    server = start_in_thread(app, port=0)
    try:
        with chromium_hearing(question) as browser:
            from playwright.sync_api import expect

            context = browser.new_context(permissions=["microphone"], viewport={"width": 1280, "height": 900})
            context.add_init_script(WATCH_PLAYS)
            page = context.new_page()
            page.set_default_timeout(60_000)
            page.goto(server.url + "/")
            ask_aloud(page, lambda locator: locator.click())
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=ARTIFACTS / "voice-desktop.png", full_page=True)

            # a typed message afterwards answers below the voice turn, which stays on screen
            box = page.get_by_placeholder(re.compile("Chat with"))
            box.fill("and now I type")
            box.press("Enter")
            chat = page.locator("#pet-chatbot")
            expect(chat).to_contain_text("Typed answer.")
            expect(chat).to_contain_text(ANSWER)
            expect(chat).to_contain_text(HEARD)
    finally:
        server.stop()
        app.close()


def test_on_a_phone_over_the_lan_the_question_is_heard_and_the_answer_plays(question):
    from lanserver import PASSWORD, lan_pet

    with lan_pet(ScriptedModel([ANSWER]), speech_language="en") as pet, chromium_hearing(question) as browser:
        context = browser.new_context(
            viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, device_scale_factor=2,
            ignore_https_errors=True, permissions=["microphone"],
        )
        context.add_init_script(WATCH_PLAYS)
        page = context.new_page()
        page.set_default_timeout(60_000)
        page.goto(pet.url + "/")
        page.fill("input[name=password]", PASSWORD)
        page.tap("button[type=submit]")
        page.locator("#pet-mic").scroll_into_view_if_needed()
        ask_aloud(page, lambda locator: locator.tap())
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=ARTIFACTS / "voice-phone.png", full_page=True)

"""A hands-free conversation in a real browser, for the talk-mode test and
the barge-in bench: headless Chromium's fake microphone plays one WAV file
holding three spoken utterances with long silences between them. The third
comes while the answer to the second is still playing: it interrupts it.

    silence | "What is the weather like today?" | 30 s (answer 1 plays whole)
            | "Please tell me a long story about the pond." | 45 s (answer 2, 25 sentences
              and about 90 s long, is playing)
            | "Wait, I have a question." (barge-in) | 25 s (answer 3 plays)

The gaps are long because a loaded machine took up to 36 s to hear an
utterance: answer 2 must have begun, and not ended, when the third comes. On
a quiet machine it begins about 3 s after the second utterance, so it must
last well past the 45 s gap (a 45 s answer had ended before the third came).
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import numpy as np
from browser import chromium
from speechclips import espeak_clip, read_wav, write_wav

UTTERANCES = (
    "What is the weather like today?",
    "Please tell me a long story about the pond.",
    "Wait, I have a question.",
)
#: silence before each utterance, and after the last (seconds)
GAPS = (1.0, 30.0, 45.0, 25.0)
#: seconds between the starts of two sessions talked side by side: more than
#: the time an utterance takes to be heard and answered on a quiet machine
STAGGER = 12.0
ANSWERS = (
    "It is sunny and warm. Have a lovely day.",
    " ".join([
        "Once upon a time a little crayfish lived in a quiet pond.",
        "Every morning it climbed onto a smooth grey stone to watch the sun come up.",
        "One day a green frog hopped onto the same stone and asked to share it.",
        "The crayfish waved its claws and said the stone was big enough for two.",
        "They watched the dragonflies dance above the water until noon.",
        "In the afternoon a heavy rain made the whole pond ring like a drum.",
        "The frog sang a song about the rain and the crayfish clicked along.",
        "When the clouds left, a rainbow stood over the reeds.",
        "The two friends promised to meet on the stone every day.",
        "Years later the little crayfish had grown big and strong.",
        "The frog had many children who learned to swim among the lilies.",
        "On summer evenings they all sat together on the stone.",
        "And that is how the pond got its happiest corner.",
        "But the story does not end there, because ponds always have more to tell.",
        "One autumn the leaves fell so thick that the water turned gold.",
        "The crayfish built a little house of leaves under the stone.",
        "The frog's children carried acorns to fill it for the winter.",
        "When the snow came, the pond froze into a silver mirror.",
        "Under the ice the crayfish slept and dreamed of the summer sun.",
        "In spring the ice cracked with a sound like a hundred bells.",
        "The first warm morning, everyone climbed back onto the stone.",
        "A heron landed at the edge of the reeds and looked around slowly.",
        "The crayfish raised both claws high, and the heron flew away.",
        "From then on the frogs called the crayfish the guardian of the stone.",
        "And the guardian of the stone is still there, if you look closely.",
    ]),
    "Of course. I am listening.",
)
#: every play() the page starts, with the turn the page's player was on
WATCH_PLAYS = """
window.__plays = [];
const play = HTMLMediaElement.prototype.play;
HTMLMediaElement.prototype.play = function () {
  window.__plays.push([window.petVoice ? window.petVoice.turn : null, this.src.slice(0, 30),
                       Math.round(performance.now())]);
  return play.call(this);
};
"""


def conversation_wav(folder: Path) -> Path:
    """The three utterances, spoken by espeak-ng, with the gaps between them, as one WAV."""
    parts: list[np.ndarray] = []
    rate = 0
    for n, (gap, text) in enumerate(zip(GAPS, UTTERANCES)):
        samples, rate = read_wav(espeak_clip(text, "en", folder / f"utterance{n}.wav"))
        parts += [np.zeros((int(gap * rate), 1), np.float32), samples]
    parts.append(np.zeros((int(GAPS[-1] * rate), 1), np.float32))
    return write_wav(folder / "conversation.wav", np.concatenate(parts), rate)


@dataclass
class TalkResult:
    #: the chat's text, as shown
    chat: str
    #: (turn, src prefix, ms) of every play() the page started
    plays: list
    #: utterances the page sent
    sent: int
    #: milliseconds from the interruption's first loud moment to the pet's audio pausing
    barge_in_ms: list[float]
    #: the page's own log: [ms, what]
    events: list
    #: the stored conversation: (role, content, status)
    stored: list[tuple[str, str, str]] = field(default_factory=list)
    #: the stages of the turns' traces, oldest first
    stages: list[dict] = field(default_factory=list)


def talk_session(home: Path, *, lan: bool = False, screenshot: Path | None = None) -> TalkResult:
    """Serve a pet (scripted answers) and talk to it hands-free through the fake microphone."""
    folder = home / "talk-clips"
    folder.mkdir(parents=True, exist_ok=True)
    microphone = conversation_wav(folder)
    with _served_pet(lan) as (app, url, password):
        return _talk(app, url, microphone, password=password, screenshot=screenshot)


def talk_sessions_at_once(home: Path, screenshots: dict[str, Path]) -> dict[str, TalkResult | BaseException]:
    """The desktop session and the phone-over-the-LAN session of `talk_session`
    side by side, each with its own pet, home and browser; what each gave, or
    what it raised. The fake microphone plays in real time (about 90 s), so
    two sessions in a row wait twice for nothing. The servers start one after
    the other (each points Gradio's uploads at its own home as it mounts);
    only the talking runs in two threads, the second STAGGER seconds later so
    that the two pets never hear, transcribe and answer at the same moment."""
    import threading
    from contextlib import ExitStack

    folder = home / "talk-clips"
    folder.mkdir(parents=True, exist_ok=True)
    microphone = conversation_wav(folder)
    outcome: dict[str, TalkResult | BaseException] = {}

    def talk(name: str, app, url: str, password: str | None, delay: float) -> None:
        try:
            time.sleep(delay)
            outcome[name] = _talk(app, url, microphone, password=password, screenshot=screenshots.get(name))
        except BaseException as error:  # a failed expect, a skip: the test of this session re-raises it
            outcome[name] = error

    with ExitStack() as stack:
        threads = []
        for delay, (name, lan) in zip((0.0, STAGGER), (("desktop", False), ("phone", True))):
            app, url, password = stack.enter_context(_served_pet(lan, home / f"{name}-home"))
            threads.append(threading.Thread(target=talk, args=(name, app, url, password, delay), name=f"talk-{name}"))
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    return outcome


@contextmanager
def _served_pet(lan: bool, home: Path | None = None) -> Iterator[tuple]:
    """A pet with the scripted ANSWERS on 127.0.0.1: (app, url, password or None)."""
    from pet.brain.scripted import ScriptedModel

    model = ScriptedModel(list(ANSWERS))
    if lan:
        from lanserver import PASSWORD, lan_pet

        with lan_pet(model, home=home) as pet:
            yield pet.app, pet.url, PASSWORD
        return
    from pet.api.server import start_in_thread
    from pet.app import build
    from pet.config import load_settings

    flags: dict = {"reflexes": False} if home is None else {"reflexes": False, "home": str(home)}
    app = build(load_settings(flags), brain=model, scheduler="off")
    try:
        server = start_in_thread(app, port=0)
    except BaseException:
        app.close()
        raise
    try:
        yield app, server.url, None
    finally:
        server.stop()
        app.close()


def _talk(app, url: str, microphone: Path, *, password: str | None = None,
          screenshot: Path | None = None) -> TalkResult:
    from playwright.sync_api import expect

    args = ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
            f"--use-file-for-fake-audio-capture={microphone}%noloop",
            "--autoplay-policy=no-user-gesture-required"]
    with chromium(args) as browser:
        phone = dict(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                     ignore_https_errors=True) if password else dict(viewport={"width": 1280, "height": 900})
        context = browser.new_context(permissions=["microphone"], **phone)
        context.add_init_script(WATCH_PLAYS)
        page = context.new_page()
        page.set_default_timeout(60_000)
        page.goto(url + "/")
        if password:
            page.fill("input[name=password]", password)
            page.tap("button[type=submit]")
        talk = page.locator("#pet-talk")
        talk.scroll_into_view_if_needed()
        talk.tap() if password else talk.click()
        expect(talk).to_contain_text("Stop talking", timeout=30_000)  # the microphone is open

        chat = page.locator("#pet-chatbot")
        expect(chat).to_contain_text(ANSWERS[2], timeout=240_000)  # the third utterance was answered
        page.wait_for_function("window.petVoice && window.petVoice.queue.length === 0 && !window.petVoice.busy",
                               timeout=60_000)
        time.sleep(0.5)
        if screenshot is not None:
            page.screenshot(path=screenshot, full_page=True)
        talk_state = page.evaluate("({sent: window.petTalk.sent, bargeIns: window.petTalk.bargeIns, "
                                   "events: window.petTalk.events})")
        result = TalkResult(chat.inner_text(), page.evaluate("window.__plays"), talk_state["sent"],
                            talk_state["bargeIns"], talk_state["events"])
        talk.tap() if password else talk.click()  # and off again
        expect(talk).to_contain_text("Talk hands-free")
    conversation = app.current_conversation()
    result.stored = [(m.message.role, m.message.content, m.status) for m in app.conversations.history(conversation)]
    result.stages = [trace.get("stages", {}) for trace in app.traces.recent(conversation)]
    return result


#: keeps the page's player busy with a looping clip, as if the pet were talking,
#: and keeps utterances from being sent (only the page's barge-in is timed)
KEEP_TALKING = """(clip) => {
  const pet = window.petVoice, talk = window.petTalk;
  talk.pump = () => { talk.utterances = []; };
  const keep = () => {
    if (!pet.player.paused) return;
    pet.busy = true; pet.turn = undefined; pet.player.loop = true; pet.player.src = clip; pet.player.play();
  };
  keep();
  window.__keep = setInterval(keep, 300);
}"""


def barge_in_times(home: Path, count: int = 8) -> tuple[list[float], list]:
    """Milliseconds from the first loud moment to the pause, for `count`
    interruptions of a pet that keeps talking: the page's barge-in alone,
    with no turn running on the server. Also returns the page's log."""
    import base64

    from playwright.sync_api import expect

    from pet.api.server import start_in_thread
    from pet.app import build
    from pet.brain.scripted import ScriptedModel
    from pet.config import load_settings

    folder = home / "barge-clips"
    folder.mkdir(parents=True, exist_ok=True)
    samples, rate = read_wav(espeak_clip(UTTERANCES[2], "en", folder / "wait.wav"))
    quiet = np.zeros((int(3.0 * rate), 1), np.float32)
    microphone = write_wav(folder / "interruptions.wav", np.concatenate([quiet, *([samples, quiet] * count)]), rate)
    hum = 0.2 * np.sin(np.linspace(0, 2 * np.pi * 220 * 2, 16_000 * 2, dtype=np.float32))
    clip = "data:audio/wav;base64," + base64.b64encode(write_wav(folder / "hum.wav", hum, 16_000).read_bytes()).decode()

    app = build(load_settings({"reflexes": False}), brain=ScriptedModel([]), scheduler="off")
    server = start_in_thread(app, port=0)
    try:
        args = ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
                f"--use-file-for-fake-audio-capture={microphone}%noloop",
                "--autoplay-policy=no-user-gesture-required"]
        with chromium(args) as browser:
            page = browser.new_context(permissions=["microphone"]).new_page()
            page.goto(server.url + "/")
            page.locator("#pet-talk").click()
            expect(page.locator("#pet-talk")).to_contain_text("Stop talking", timeout=30_000)
            page.evaluate(KEEP_TALKING, clip)
            page.wait_for_function(f"window.petTalk.bargeIns.length >= {count}",
                                   timeout=int(1000 * (4 + count * (len(samples) / rate + 3) + 30)))
            return page.evaluate("window.petTalk.bargeIns"), page.evaluate("window.petTalk.events")
    finally:
        server.stop()
        app.close()

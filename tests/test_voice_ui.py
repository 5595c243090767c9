"""The voice panel of the served app, driven through gradio_client as the
page drives it: a recording in, the transcript and the streamed answer in
the chat, each spoken sentence out to the page's player as it is ready."""

from __future__ import annotations

import base64
import json
import urllib.request
from pathlib import Path

import pytest
from serving import stop_server
from speechclips import ENGLISH_QUESTION, espeak_clip

from pet.api.server import start_in_thread
from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings
from pet.errors import ConfigError
from pet.speech import models
from pet.speech.tts import espeak_installed, wav_seconds

pytestmark = pytest.mark.slow


@pytest.fixture
def served():
    """Start the real app with a scripted brain; yields (app, client)."""
    from serving import gradio_client

    running = []

    def start(model, **flags):
        app = build(load_settings({"reflexes": False, **flags}), brain=model, scheduler="off")
        server = start_in_thread(app, port=0)
        running.append((app, server))
        return app, gradio_client(server.url)

    yield start
    for app, server in running:
        stop_server(server)
        app.close()


@pytest.fixture
def needs_voice():
    pytest.importorskip("faster_whisper", reason="pip install faster-whisper")
    if models.base_sources() is None or not espeak_installed():
        pytest.skip("voice needs the Whisper base packages and espeak-ng")


def page_config(client) -> str:
    with urllib.request.urlopen(client.src.rstrip("/") + "/config", timeout=10) as response:
        return json.dumps(json.loads(response.read()), ensure_ascii=False)


def text_of(message: dict) -> str:
    content = message["content"]
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content


def wav_of(clip: dict) -> bytes:
    prefix = "data:audio/wav;base64,"
    assert clip["src"].startswith(prefix)
    return base64.b64decode(clip["src"][len(prefix):])


def test_a_recording_gets_a_spoken_answer_sentence_by_sentence(served, needs_voice, tmp_path):
    from gradio_client import handle_file

    answer = "Hello there. I am a crayfish with opinions."
    app, client = served(ScriptedModel([answer]), speech_language="en")
    question = espeak_clip(ENGLISH_QUESTION, "en", tmp_path / "question.wav")
    job = client.submit(handle_file(str(question)), [], api_name="/voice")
    job.result(timeout=300)
    outputs = job.outputs()

    chats = [out[0] for out in outputs if isinstance(out[0], list)]
    heard = text_of(chats[0][0])
    assert chats[0][0]["role"] == "user" and "weather" in heard.lower()
    assert len(chats[0]) == 1  # the transcript shows before the answer starts
    assert text_of(chats[-1][-1]) == answer

    clips = [(out[1], text_of(out[0][-1])) for out in outputs if isinstance(out[1], dict) and "src" in out[1]]
    assert [clip["n"] for clip, _ in clips] == [0, 1]
    _, shown_then = clips[0]
    assert shown_then != answer  # the first sentence was out before the answer was written
    assert all(wav_of(clip)[:4] == b"RIFF" for clip, _ in clips)

    replay = [out[3] for out in outputs if isinstance(out[3], str) and out[3]]
    assert len(replay) == 1
    total = wav_seconds(Path(replay[0]).read_bytes())
    assert total == pytest.approx(sum(wav_seconds(wav_of(clip)) for clip, _ in clips), abs=0.01)
    assert outputs[-1][4] is None  # the microphone is cleared for the next question

    stored = app.conversations.history(app.current_conversation())
    assert [(m.message.role, m.message.content) for m in stored] == [("user", heard), ("assistant", answer)]
    stages = app.traces.recent(app.current_conversation())[-1]["stages"]
    assert {"transcription", "first_token", "first_audio", "total"} <= set(stages)


def test_an_upload_that_is_not_audio_is_refused_in_the_chat(served, needs_voice, tmp_path):
    from gradio_client import handle_file

    app, client = served(ScriptedModel([]))
    bogus = tmp_path / "holiday.mp3"
    bogus.write_text("not really an mp3")
    outputs = client.submit(handle_file(str(bogus)), [], api_name="/voice")
    outputs.result(timeout=60)
    (chat, _, note, _, mic), = outputs.outputs()
    assert "holiday.mp3 is not audio the pet can read" in text_of(chat[-1])
    assert note.startswith("⚠️") and "upload a WAV" in note
    assert mic == {"__type__": "update"}  # left as it was: the recording can be played back
    assert app.conversations.history(app.current_conversation()) == []


def test_the_page_has_the_microphone_and_the_player(served, needs_voice):
    _, client = served(ScriptedModel([]))
    config = page_config(client)
    assert "pet-mic" in config and "🎤 Talk / 说话" in config
    assert '"microphone", "upload"' in config  # recording first, upload as the alternative
    assert "petVoice" in config  # the page-side player of spoken sentences


def test_with_voice_off_the_page_says_how_to_turn_it_on(served):
    _, client = served(ScriptedModel([]), voice="off")
    config = page_config(client)
    assert "pet-mic" not in config
    assert "PET_VOICE=auto" in config


@pytest.mark.parametrize(("env", "message"), [
    ({"PET_VOICE": "loud"}, "voice must be one of auto, on, off"),
    ({"PET_MAX_RECORDING_SECONDS": "0"}, "max_recording_seconds must be more than 0"),
])
def test_bad_voice_settings_say_what_is_allowed(env, message):
    with pytest.raises(ConfigError, match=message):
        load_settings(environ=env)

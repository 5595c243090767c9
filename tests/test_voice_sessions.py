"""A voice turn goes to the page's own pet and conversation: two pages (two
gradio_client sessions) on two pets, one speaking while the other has
picked another pet."""

from __future__ import annotations

import pytest
from gradio_client import handle_file
from speechclips import ENGLISH_QUESTION, espeak_clip

from pet.api.server import start_in_thread
from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings
from pet.speech import models
from pet.speech.tts import espeak_installed

pytestmark = pytest.mark.slow


@pytest.fixture
def needs_voice():
    pytest.importorskip("faster_whisper", reason="pip install faster-whisper")
    if models.base_sources() is None or not espeak_installed():
        pytest.skip("voice needs the Whisper base packages and espeak-ng")


def said(app, pet_id: int) -> list[tuple[str, str]]:
    conversation = app.conversations.latest(pet_id)
    if conversation is None:
        return []
    return [(m.message.role, m.message.content) for m in app.conversations.history(conversation)]


def test_a_voice_turn_goes_to_the_pages_own_pet(needs_voice, tmp_path):
    from serving import gradio_client

    app = build(load_settings({"reflexes": False, "speech_language": "en"}),
                brain=ScriptedModel(["Sunny, little one."], repeat_last=True), scheduler="off")
    server = start_in_thread(app, port=0)
    try:
        first = app.first_pet().record.id
        doudou = app.create_pet("Doudou").record.id
        phone, laptop = gradio_client(server.url), gradio_client(server.url)
        _chat, card, _status = phone.predict(doudou, api_name="/switch_pet")
        assert "Doudou" in card
        question = espeak_clip(ENGLISH_QUESTION, "en", tmp_path / "question.wav")

        job = laptop.submit(handle_file(str(question)), [], api_name="/voice")
        job.result(timeout=300)
        heard = said(app, first)
        assert [role for role, _ in heard] == ["user", "assistant"] and "weather" in heard[0][1].lower()
        assert heard[1][1] == "Sunny, little one."
        assert said(app, doudou) == []  # the phone's pet heard nothing

        job = phone.submit(handle_file(str(question)), [], api_name="/voice")
        job.result(timeout=300)
        assert [role for role, _ in said(app, doudou)] == ["user", "assistant"]
        assert len(said(app, first)) == 2  # the laptop's conversation is as it was
    finally:
        server.stop()
        app.close()

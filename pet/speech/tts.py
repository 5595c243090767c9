"""Text to speech: pyttsx3 driving espeak-ng, one voice per language, WAV out.

pyttsx3's engine is one per process and concurrent `runAndWait` calls
corrupt its output, so every synthesis goes through one lock.

pyttsx3's espeak driver starts espeak-ng in its asynchronous mode:
`runAndWait()` returns once synthesis has *started*, and the WAV is written
later from espeak-ng's own thread (seen: 196,608 of 231,414 bytes, or no file
at all, right after `runAndWait()`). So a synthesis is over only when the
driver reports "finished-utterance" (it does so after closing the file) and
the file is whole: its RIFF header's sizes agree with its length and the
length has stopped growing. The lock is held until then, because the next
synthesis reuses the driver's one audio buffer.
"""

from __future__ import annotations

import ctypes
import io
import logging
import os
import struct
import tempfile
import threading
import time
import wave
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pet.speech.errors import SpeechError, SpeechUnavailable

log = logging.getLogger(__name__)

#: espeak-ng voice ids that speak each language well (the plain `cmn` voice
#: reads tone digits aloud; a mistyped id makes espeak write nothing)
VOICES = {"en": "gmw/en-us", "zh": "sit/cmn-latn-pinyin"}
ESPEAK_LIBRARIES = ("libespeak-ng.so.1", "libespeak-ng.so", "libespeak.so.1",
                    "libespeak-ng.1.dylib", "libespeak-ng.dll")
ESPEAK_INSTALL = "install espeak-ng (Debian/Ubuntu: sudo apt install espeak-ng; macOS: brew install espeak-ng)"

#: pyttsx3.init hands every caller the same engine per process, so the lock
#: that serializes its use is the process's too, not one per Speaker
_ENGINE_LOCK = threading.Lock()

#: how long a synthesis may take: espeak-ng writes a sentence in well under a
#: second; a loaded machine gets generous room before a sentence counts as lost
#: (10 s was too little once, with a model server and the test suite on both cores)
WAIT_BASE_SECONDS = 20.0
WAIT_PER_CHARACTER = 0.05
#: how often the file is looked at while it is being finished
POLL_SECONDS = 0.01


def espeak_installed() -> bool:
    """Whether the espeak-ng library pyttsx3 needs can be loaded."""
    for name in ESPEAK_LIBRARIES:
        try:
            ctypes.CDLL(name)
            return True
        except OSError:
            continue
    return False


@dataclass(frozen=True)
class Speech:
    """One spoken sentence: WAV bytes and what they say."""

    wav: bytes
    text: str
    language: str
    seconds: float


def wav_seconds(data: bytes) -> float:
    """The length of a WAV file's audio; raises wave.Error or EOFError when it is not one."""
    with wave.open(io.BytesIO(data)) as reader:
        return reader.getnframes() / reader.getframerate()


def wav_whole(data: bytes) -> bool:
    """Whether `data` is a complete RIFF/WAVE file: the RIFF size and the
    data chunk's size both reach exactly the last byte."""
    if len(data) < 44 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        return False
    if struct.unpack_from("<I", data, 4)[0] + 8 != len(data):
        return False
    at = 12
    while at + 8 <= len(data):
        chunk, size = data[at:at + 4], struct.unpack_from("<I", data, at + 4)[0]
        if chunk == b"data":
            return size > 0 and at + 8 + size == len(data)
        at += 8 + size + (size & 1)
    return False


def wait_for_wav(path: Path, deadline: float, *, clock=time.monotonic, sleep=time.sleep) -> bytes:
    """The file at `path` once it is whole and its size has stopped growing
    (the same size on two looks `POLL_SECONDS` apart); b"" when it is not by
    `deadline` (on `clock`)."""
    last = -1
    while True:
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            size = -1
        if size > 0 and size == last:
            data = path.read_bytes()
            if len(data) == size and wav_whole(data):
                return data
        last = size
        if clock() >= deadline:
            return b""
        sleep(POLL_SECONDS)


def join_wavs(parts: list[bytes]) -> bytes:
    """One WAV of the parts in order (espeak-ng writes every voice at the same
    rate and format; a part in another format is left out)."""
    out = io.BytesIO()
    params = None
    with wave.open(out, "wb") as writer:
        for part in parts:
            with wave.open(io.BytesIO(part)) as reader:
                shape = (reader.getnchannels(), reader.getsampwidth(), reader.getframerate())
                if params is None:
                    params = shape
                    writer.setnchannels(shape[0])
                    writer.setsampwidth(shape[1])
                    writer.setframerate(shape[2])
                if shape != params:
                    log.warning("left a sentence out of the joined answer: %s is not %s", shape, params)
                    continue
                writer.writeframes(reader.readframes(reader.getnframes()))
        if params is None:
            raise ValueError("nothing to join")
    return out.getvalue()


class Speaker:
    """Speaks text in a language's voice. Thread-safe; the engine starts on first use."""

    def __init__(self, voices: dict[str, str] | None = None, rate: int | None = None):
        self.voices = dict(VOICES if voices is None else voices)
        self.rate = rate
        self._engine: Any = None
        self._known: set[str] = set()
        self._lock = _ENGINE_LOCK
        self._folder = Path(tempfile.gettempdir())

    def voice_for(self, language: str) -> str:
        return self.voices.get(language) or self.voices["en"]

    def warm_up(self) -> None:
        with self._lock:
            self._start()

    def say(self, text: str, language: str) -> Speech:
        """`text` spoken in the voice for `language`, as WAV bytes; raises
        SpeechError when espeak-ng has not written a whole file in time."""
        voice = self.voice_for(language)
        handle, name = tempfile.mkstemp(prefix="pet-say-", suffix=".wav", dir=self._folder)
        os.close(handle)
        path = Path(name)
        limit = WAIT_BASE_SECONDS + WAIT_PER_CHARACTER * len(text)
        try:
            path.unlink()  # espeak must create it: an empty leftover would pass for output
            with self._lock:
                engine = self._start()
                if voice not in self._known:
                    # espeak keeps the last voice (or writes nothing) for an unknown id
                    raise SpeechError(f"espeak-ng has no voice {voice!r} — `espeak-ng --voices` lists the ones it has")
                finished = threading.Event()
                token = engine.connect("finished-utterance", lambda **_: finished.set())
                try:
                    started = time.monotonic()
                    engine.setProperty("voice", voice)
                    engine.save_to_file(text, str(path))
                    engine.runAndWait()  # returns once espeak-ng has *started*
                    deadline = started + limit
                    if not finished.wait(max(0.0, deadline - time.monotonic())):
                        _cancel()  # the next sentence must not land in this one's buffer
                    data = wait_for_wav(path, deadline)
                finally:
                    engine.disconnect(token)
        finally:
            path.unlink(missing_ok=True)
        try:
            seconds = wav_seconds(data) if data else 0.0
        except (wave.Error, EOFError):
            seconds = 0.0
        if seconds <= 0:
            raise SpeechError(
                f"espeak-ng wrote no whole audio file for {_clip(text)!r} within {limit:.0f} s "
                f"(voice {voice!r})"
            )
        return Speech(data, text, language, seconds)

    def _start(self) -> Any:
        if self._engine is not None:
            return self._engine
        if not espeak_installed():
            raise SpeechUnavailable(f"Speaking needs espeak-ng — {ESPEAK_INSTALL}")
        try:
            import pyttsx3
        except ImportError as exc:
            raise SpeechUnavailable("Speaking needs pyttsx3 — run: pip install pyttsx3") from exc
        started = time.perf_counter()
        try:
            engine = pyttsx3.init("espeak")
        except (RuntimeError, OSError, ImportError) as exc:
            raise SpeechUnavailable(f"espeak-ng did not start ({exc}) — {ESPEAK_INSTALL}") from exc
        _quiet_driver()
        self._known = {voice.id for voice in engine.getProperty("voices")}
        if self.rate:
            engine.setProperty("rate", self.rate)
        self._engine = engine
        log.info("espeak-ng ready in %.2f s", time.perf_counter() - started)
        return engine


def _clip(text: str, most: int = 40) -> str:
    return text if len(text) <= most else text[:most - 1] + "…"


def _cancel() -> None:
    """Stop a synthesis that overran its time."""
    try:
        from pyttsx3.drivers import _espeak

        _espeak.Cancel()
    except Exception as exc:  # noqa: BLE001 — best effort; the sentence is reported lost either way
        log.warning("could not cancel an overrunning espeak-ng synthesis: %s", exc)


def _quiet_driver() -> None:
    """pyttsx3's espeak driver prints "Audio saved to …" for every file; the
    pet's console is for its own log lines. The name is shadowed in that one
    module rather than redirecting sys.stdout, which other threads share."""
    import sys

    driver = sys.modules.get("pyttsx3.drivers.espeak")
    if driver is not None:
        driver.print = lambda *args, **kwargs: log.debug("pyttsx3: %s", " ".join(map(str, args)))  # type: ignore[attr-defined]

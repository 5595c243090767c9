"""Text to speech: espeak-ng's own program, one voice per language, WAV out.

Each sentence is one run of `espeak-ng -w FILE`: the program exits only after
it has closed the file, so the file is whole when it returns, and a run that
hangs is killed at its time limit and reported, without holding anything
else up. (pyttsx3 drove espeak-ng inside the process before: its
`runAndWait()` returns once synthesis has *started*, the WAV was read half
written, and now and then the synthesis hung for good with the engine's one
lock held, about once in 200-700 sentences, twice in the test suite in a day.
pyttsx3 still speaks reminders aloud through the host's sound, announce.py.)
"""

from __future__ import annotations

import io
import logging
import shutil
import struct
import subprocess
import tempfile
import wave
from dataclasses import dataclass
from pathlib import Path

from pet.speech.errors import SpeechError, SpeechUnavailable

log = logging.getLogger(__name__)

#: espeak-ng voice ids that speak each language well (the plain `cmn` voice
#: reads tone digits aloud; a mistyped id makes espeak write nothing)
VOICES = {"en": "gmw/en-us", "zh": "sit/cmn-latn-pinyin"}
PROGRAM = "espeak-ng"
ESPEAK_INSTALL = "install espeak-ng (Debian/Ubuntu: sudo apt install espeak-ng; macOS: brew install espeak-ng)"
#: words a minute: pyttsx3's default, the pace the pet has always spoken at
#: (espeak-ng's own default, 175, is slower)
DEFAULT_RATE = 200

#: how long one sentence may take: espeak-ng writes a sentence in 10-50 ms;
#: a loaded machine gets room before a sentence counts as lost, and a voice
#: turn tries a lost sentence once more
WAIT_BASE_SECONDS = 10.0
WAIT_PER_CHARACTER = 0.05


def espeak_installed() -> bool:
    """Whether the espeak-ng program (and so its library, which pyttsx3 loads) is there."""
    return shutil.which(PROGRAM) is not None


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
    """Speaks text in a language's voice. Thread-safe: every sentence is its own process."""

    def __init__(self, voices: dict[str, str] | None = None, rate: int | None = None):
        self.voices = dict(VOICES if voices is None else voices)
        self.rate = rate or DEFAULT_RATE
        self._program: str | None = None

    def voice_for(self, language: str) -> str:
        return self.voices.get(language) or self.voices["en"]

    def warm_up(self) -> None:
        """Find the program; SpeechUnavailable when it is missing."""
        self._find()

    def say(self, text: str, language: str) -> Speech:
        """`text` spoken in the voice for `language`, as WAV bytes; raises
        SpeechError when espeak-ng has not written a whole file in time."""
        voice = self.voice_for(language)
        limit = WAIT_BASE_SECONDS + WAIT_PER_CHARACTER * len(text)
        command = [self._find(), "-b", "1", "-v", voice, "-s", str(self.rate)]
        with tempfile.TemporaryDirectory(prefix="pet-say-") as folder:
            path = Path(folder) / "said.wav"
            try:
                # the text on stdin: a sentence starting with "-" is not an option
                done = subprocess.run([*command, "-w", str(path), "--stdin"], input=text.encode("utf-8", "replace"),
                                      capture_output=True, timeout=limit,
                                      creationflags=getattr(subprocess, "CREATE_NO_WINDOW", 0))
            except subprocess.TimeoutExpired:
                raise SpeechError(f"espeak-ng did not finish {_clip(text)!r} within {limit:.0f} s "
                                  f"(voice {voice!r}); it was stopped") from None
            except OSError as exc:
                raise SpeechUnavailable(f"espeak-ng did not start ({exc}) — {ESPEAK_INSTALL}") from exc
            problem = done.stderr.decode("utf-8", "replace").strip()
            if done.returncode != 0 and "voice does not exist" in problem:
                raise SpeechError(f"espeak-ng has no voice {voice!r} — `espeak-ng --voices` lists the ones it has")
            data = path.read_bytes() if path.exists() else b""
        if done.returncode != 0 or not wav_whole(data):
            raise SpeechError(f"espeak-ng wrote no whole audio file for {_clip(text)!r} (voice {voice!r}, "
                              f"exit {done.returncode}{': ' + _clip(problem, 80) if problem else ''})")
        return Speech(data, text, language, wav_seconds(data))

    def _find(self) -> str:
        if self._program is None:
            program = shutil.which(PROGRAM)
            if program is None:
                raise SpeechUnavailable(f"Speaking needs espeak-ng — {ESPEAK_INSTALL}")
            self._program = program
        return self._program


def _clip(text: str, most: int = 40) -> str:
    return text if len(text) <= most else text[:most - 1] + "…"

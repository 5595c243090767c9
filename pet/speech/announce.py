"""Reminders spoken aloud on the pet's own computer, when the setting
`speak_reminders` is on: pyttsx3's `say` and `runAndWait` on espeak-ng,
played through the host's sound (pyttsx3 plays with `aplay` on Linux,
`afplay` on macOS). Quiet hours keep it silent; the reminder is in the
inbox and on the page either way.

The scheduler calls `speak_fired` after each firing. It never raises: a
pet that cannot speak still delivers the reminder.
"""

from __future__ import annotations

import datetime as dt
import logging
import platform
import shutil
import threading
from typing import TYPE_CHECKING, Any, Protocol

from pet.config import quiet_window
from pet.errors import ConfigError
from pet.scheduler.policy import quiet_until
from pet.speech.errors import SpeechError, SpeechUnavailable
from pet.speech.sentences import speakable
from pet.speech.tts import ESPEAK_INSTALL, VOICES, espeak_installed
from pet.text import detect_language

if TYPE_CHECKING:
    from pet.scheduler.delivery import Fired

log = logging.getLogger(__name__)

#: what pyttsx3 plays its audio with, per system (its espeak driver calls them)
PLAYERS = {"Linux": ("aplay", "install alsa-utils (Debian/Ubuntu: sudo apt install alsa-utils)"),
           "Darwin": ("afplay", "afplay comes with macOS")}
#: longest wait for one spoken reminder: synthesis and playback
SPEAK_TIMEOUT = 60.0
#: pyttsx3.init hands every caller the same engine per process, so its uses go one at a time
_ENGINE_LOCK = threading.Lock()
#: kinds of inbox message read aloud: the reminder itself and the report of one missed
SPOKEN_KINDS = frozenset({"reminder", "missed"})
#: said before a reminder's own words, so a person across the room knows what it is
REMINDER_PREFIX = {"en": "Reminder: ", "zh": "提醒："}


class Engine(Protocol):
    """The part of a pyttsx3 engine used here (a fake records what it is told)."""

    def setProperty(self, name: str, value: Any) -> None: ...
    def say(self, text: str) -> None: ...
    def runAndWait(self) -> None: ...


class HostVoice:
    """Speaks text through the computer's speakers. Thread-safe: one at a
    time (pyttsx3 has one engine a process)."""

    def __init__(self, engine: Engine | None = None, voices: dict[str, str] | None = None):
        """`engine`: a stand-in for pyttsx3's (tests); by default pyttsx3's
        espeak engine on first use."""
        self.voices = dict(VOICES if voices is None else voices)
        self._engine = engine
        self._lock = _ENGINE_LOCK if engine is None else threading.Lock()

    def speak(self, text: str, language: str) -> None:
        """Say `text` aloud in the voice of `language`; returns when it has
        been played. Raises SpeechUnavailable when the computer cannot speak."""
        voice = self.voices.get(language) or self.voices["en"]
        with self._lock:
            engine: Any = self._engine or _pyttsx3_engine()
            finished = threading.Event()
            token = engine.connect("finished-utterance", lambda **_: finished.set()) \
                if hasattr(engine, "connect") else None
            try:
                engine.setProperty("voice", voice)
                engine.say(text)
                engine.runAndWait()  # espeak-ng speaks, and the player plays, on espeak's own thread
                if token is not None and not finished.wait(SPEAK_TIMEOUT):
                    raise SpeechError(f"speaking {text[:40]!r} aloud did not finish within {SPEAK_TIMEOUT:.0f} s")
            finally:
                if token is not None:
                    engine.disconnect(token)


def _pyttsx3_engine() -> Any:
    if not espeak_installed():
        raise SpeechUnavailable(f"Speaking reminders needs espeak-ng — {ESPEAK_INSTALL}")
    player, install = PLAYERS.get(platform.system(), (None, ""))
    if player is not None and shutil.which(player) is None:
        raise SpeechUnavailable(f"Speaking reminders aloud needs the {player} program to play sound — {install}")
    try:
        import pyttsx3
    except ImportError as exc:
        raise SpeechUnavailable("Speaking reminders needs pyttsx3 — run: pip install pyttsx3") from exc
    try:
        return pyttsx3.init("espeak")
    except (RuntimeError, OSError, ImportError) as exc:
        raise SpeechUnavailable(f"espeak-ng did not start ({exc}) — {ESPEAK_INSTALL}") from exc


_host: HostVoice | None = None
_host_lock = threading.Lock()
_warned: set[str] = set()


def host_voice() -> HostVoice:
    """The process's host voice, made on first use."""
    global _host
    with _host_lock:
        if _host is None:
            _host = HostVoice()
        return _host


def speak_fired(app: Any, fired: Fired | None) -> list[str]:
    """Read a fired reminder aloud when `app.settings.speak_reminders` is on
    and the pet is not in its quiet hours. Returns what was spoken. Never raises."""
    if fired is None or app is None or not getattr(app.settings, "speak_reminders", False):
        return []
    try:
        return _speak(app, fired)
    except Exception as exc:  # noqa: BLE001 — the reminder is delivered; only its sound is lost
        reason = str(exc)
        if reason not in _warned:  # once a process: a missing player would say so at every reminder
            _warned.add(reason)
            log.warning("reminder #%d was not spoken aloud: %s", fired.reminder_id, reason)
        return []


def _speak(app: Any, fired: Fired) -> list[str]:
    now = app.clock()
    zone = app.zone_of(fired.pet_id)
    try:
        quiet = quiet_window(app.settings.quiet_hours)
    except ConfigError:
        quiet = None
    if quiet_until(now, zone, quiet) is not None:
        log.info("reminder #%d not spoken aloud: quiet hours (%s)", fired.reminder_id, app.settings.quiet_hours)
        return []
    spoken = []
    for message in fired.messages:
        if message.kind not in SPOKEN_KINDS or message.deliver_at > now + dt.timedelta(seconds=1):
            continue  # held for later by quiet hours, or not a thing to say
        language = detect_language(message.text, default=app.language_of(fired.pet_id))
        words = speakable(message.text)
        if not words:
            continue
        if message.kind == "reminder":
            words = REMINDER_PREFIX.get(language, REMINDER_PREFIX["en"]) + words
        host_voice().speak(words, language)
        spoken.append(words)
    return spoken

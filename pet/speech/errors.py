"""Speech errors, typed by who fixes them.

    PetError
    └── SpeechError
        ├── SpeechUnavailable    a speech package, model or espeak-ng is missing
        │                        (the person installs it)
        └── RecordingRejected    this recording cannot be used (the person
                                 records again); nothing else is affected
"""

from __future__ import annotations

from pet.errors import PetError


class SpeechError(PetError):
    pass


class SpeechUnavailable(SpeechError):
    pass


class RecordingRejected(SpeechError):
    pass

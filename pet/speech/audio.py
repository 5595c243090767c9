"""Reading a recording for the speech model: any container, codec, sample
rate or channel count PyAV reads becomes 16 kHz mono float32, and a
recording the pet cannot use is rejected with the reason and what to do.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pet.speech.errors import RecordingRejected

SAMPLE_RATE = 16_000
#: shorter than this is a click of the button, not a question
MIN_SECONDS = 0.3
#: the loudest 30 ms must reach this RMS (about -46 dBFS); below is a muted
#: microphone or an empty room, where Whisper would invent words
SILENCE_RMS = 0.005
_WINDOW = SAMPLE_RATE * 30 // 1000


@dataclass(frozen=True)
class Recording:
    samples: np.ndarray  # float32, mono, SAMPLE_RATE
    seconds: float


def load_recording(path: str | Path | None, max_seconds: float) -> Recording:
    """The recording at `path`, decoded and checked. Raises RecordingRejected
    for a missing or empty file, a file that is not audio, one longer than
    `max_seconds`, or one that is too short or silent."""
    if path is None or not str(path):
        raise RecordingRejected("No recording arrived — press the microphone, speak, then press stop.")
    file = Path(path)
    try:
        size = file.stat().st_size if file.is_file() else None
    except OSError:  # gone between the two looks
        size = None
    if size is None:
        raise RecordingRejected("The recording did not arrive (no such file) — record again.")
    if size == 0:
        raise RecordingRejected("The recording is empty — check the browser may use the microphone, then record again.")
    samples = _decode(file, max_seconds)
    seconds = len(samples) / SAMPLE_RATE
    if seconds < MIN_SECONDS:
        raise RecordingRejected(
            f"The recording is only {seconds:.1f} s long — hold on a moment longer and say your question."
        )
    if loudest_rms(samples) < SILENCE_RMS:
        raise RecordingRejected(
            "The recording is silent — check the microphone is on and not muted, then speak a little closer."
        )
    return Recording(samples, seconds)


def _decode(file: Path, max_seconds: float) -> np.ndarray:
    import av  # bundled FFmpeg; comes with faster-whisper

    limit = int(max_seconds * SAMPLE_RATE)
    chunks: list[np.ndarray] = []
    total = 0
    try:
        with av.open(str(file), mode="r", metadata_errors="ignore") as container:
            if not container.streams.audio:
                raise RecordingRejected(f"{_shown(file)} has no sound in it — upload an audio file or record with the microphone.")
            declared = _declared_seconds(container)
            if declared is not None and declared > max_seconds + 1:
                raise RecordingRejected(_too_long(declared, max_seconds))
            resampler = av.AudioResampler(format="flt", layout="mono", rate=SAMPLE_RATE)
            for frame in container.decode(audio=0):
                for out in resampler.resample(frame):
                    chunk = out.to_ndarray().reshape(-1)
                    chunks.append(chunk)
                    total += len(chunk)
                # decoding stops early: a long upload is never held whole in memory
                if total > limit:
                    raise RecordingRejected(_too_long(None, max_seconds))
            for out in resampler.resample(None):
                chunks.append(out.to_ndarray().reshape(-1))
    except RecordingRejected:
        raise
    except (av.error.FFmpegError, ValueError, IndexError, OSError) as exc:
        raise RecordingRejected(
            f"{_shown(file)} is not audio the pet can read ({type(exc).__name__}) — record again, "
            "or upload a WAV, MP3, OGG, M4A or WebM file."
        ) from exc
    samples = np.concatenate(chunks).astype(np.float32, copy=False) if chunks else np.zeros(0, np.float32)
    if len(samples) > limit:
        raise RecordingRejected(_too_long(len(samples) / SAMPLE_RATE, max_seconds))
    return samples


def _shown(file: Path) -> str:
    """The file's name for a message: one not in UTF-8 (its bytes kept as
    surrogates by the file system encoding) would not survive the JSON to the page."""
    return os.fsencode(file.name).decode("utf-8", errors="replace")


def _declared_seconds(container) -> float | None:
    """The length the file says it has, when it says (browser WebM often does not)."""
    if container.duration:
        return container.duration / 1_000_000
    stream = container.streams.audio[0]
    if stream.duration and stream.time_base:
        return float(stream.duration * stream.time_base)
    return None


def _too_long(seconds: float | None, max_seconds: float) -> str:
    if seconds is None:
        length = f"longer than {max_seconds:.0f} s"
    else:
        length = f"{seconds / 60:.1f} minutes long" if seconds >= 120 else f"{seconds:.0f} s long"
    return (
        f"The recording is {length}; the pet listens to at most {max_seconds:.0f} s at a time — "
        "ask in a shorter recording, or type a long message."
    )


def loudest_rms(samples: np.ndarray) -> float:
    """RMS of the loudest 30 ms window."""
    if len(samples) == 0:
        return 0.0
    usable = len(samples) - len(samples) % _WINDOW
    if usable == 0:
        return float(math.sqrt(np.mean(np.square(samples))))
    windows = samples[:usable].reshape(-1, _WINDOW)
    return float(np.sqrt(np.mean(np.square(windows), axis=1)).max())

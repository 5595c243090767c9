"""Spoken clips made with espeak-ng at test time, for the speech tests and
the voice bench to import (tests/test_speech_clips.py checks the clips are
what they assume).

Whisper hears espeak-ng's robotic Chinese only in part, so the Chinese
question is one it was seen to get right in its key words (你好 … 故事).
"""

from __future__ import annotations

import shutil
import subprocess
import wave
from pathlib import Path

import numpy as np
import pytest

ENGLISH_QUESTION = "Hello pet. What is the weather like today? Please tell me a short story about a crayfish."
# Whisper base (int8, greedy) hears this robotic clip the same with ctranslate2's AVX512 and AVX2
# kernels (CT2_FORCE_CPU_ISA); the one before ("你好，请给我讲一个小龙虾的故事。") came out as
# "…小龙下个部分" on an AVX512 machine, and a shorter one was taken for English.
CHINESE_QUESTION = "你好，给我讲个故事吧，我想听小龙虾的故事。"
VOICES = {"en": "en-us", "zh": "cmn-latn-pinyin"}


def espeak_clip(text: str, language: str, path: Path) -> Path:
    """`text` spoken by the espeak-ng program (not through the pet) into a WAV file."""
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed: sudo apt install espeak-ng")
    subprocess.run(["espeak-ng", "-v", VOICES[language], "-w", str(path), text], check=True, capture_output=True)
    return path


def read_wav(path: Path) -> tuple[np.ndarray, int]:
    """Samples as float32 in [-1, 1], shape (frames, channels), and the rate."""
    with wave.open(str(path)) as reader:
        assert reader.getsampwidth() == 2
        data = np.frombuffer(reader.readframes(reader.getnframes()), dtype="<i2")
        return data.reshape(-1, reader.getnchannels()).astype(np.float32) / 32768, reader.getframerate()


def write_wav(path: Path, samples: np.ndarray, rate: int) -> Path:
    """float samples (frames,) or (frames, channels) as 16-bit PCM WAV."""
    if samples.ndim == 1:
        samples = samples[:, None]
    with wave.open(str(path), "wb") as writer:
        writer.setnchannels(samples.shape[1])
        writer.setsampwidth(2)
        writer.setframerate(rate)
        writer.writeframes((np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes())
    return path


def resampled(source: Path, target: Path, rate: int, channels: int = 1) -> Path:
    """The clip at another sample rate and channel count, filtered the way a
    recording device would (libswresample), as a 16-bit WAV."""
    import av

    layout = "mono" if channels == 1 else "stereo"
    with av.open(str(source)) as reader, av.open(str(target), "w", format="wav") as writer:
        stream = writer.add_stream("pcm_s16le", rate=rate)
        stream.layout = layout
        resampler = av.AudioResampler(format="s16", layout=layout, rate=rate)
        for frame in [*reader.decode(audio=0), None]:
            for piece in resampler.resample(frame):
                for packet in stream.encode(piece):
                    writer.mux(packet)
        for packet in stream.encode(None):
            writer.mux(packet)
    return target


def as_webm(source: Path, target: Path) -> Path:
    """The clip as WebM/Opus at 48 kHz, the way Chrome and Android record:
    a live stream that does not say how long it is."""
    import av

    samples, rate = read_wav(source)
    with av.open(str(target), "w", format="webm", options={"live": "1"}) as container:
        stream = container.add_stream("libopus", rate=48_000)
        stream.layout = "mono"
        frame = av.AudioFrame.from_ndarray((samples[:, 0] * 32767).astype("<i2")[None, :], format="s16",
                                           layout="mono")
        frame.sample_rate = rate
        resampler = av.AudioResampler(format="s16", layout="mono", rate=48_000)
        for piece in resampler.resample(frame) + resampler.resample(None):
            for packet in stream.encode(piece):
                container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)
    return target

"""The spoken clips the speech tests use are what those tests assume."""

from __future__ import annotations

import numpy as np
from speechclips import CHINESE_QUESTION, ENGLISH_QUESTION, as_webm, espeak_clip, read_wav, resampled

# -- the clips are what the tests assume ---------------------------------------


def test_the_english_question_is_a_few_seconds_of_sound(tmp_path):
    samples, rate = read_wav(espeak_clip(ENGLISH_QUESTION, "en", tmp_path / "q.wav"))
    assert rate == 22050
    assert 3 < len(samples) / rate < 9
    assert np.abs(samples).max() > 0.1


def test_resampling_keeps_the_length_and_sets_the_rate(tmp_path):
    source = espeak_clip(CHINESE_QUESTION, "zh", tmp_path / "q.wav")
    original, rate = read_wav(source)
    copy, new_rate = read_wav(resampled(source, tmp_path / "q8k.wav", 11_025, channels=2))
    assert new_rate == 11_025 and copy.shape[1] == 2
    assert abs(len(copy) / new_rate - len(original) / rate) < 0.01


def test_the_webm_copy_is_opus_at_48_khz(tmp_path):
    import av

    webm = as_webm(espeak_clip("Testing one two three.", "en", tmp_path / "t.wav"), tmp_path / "t.webm")
    with av.open(str(webm)) as container:
        stream = container.streams.audio[0]
        assert (stream.codec_context.name, stream.rate) == ("opus", 48_000)
        assert container.duration is None and stream.duration is None

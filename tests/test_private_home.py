"""A new home is the person's alone: every folder in it 0700, every file
0600, from the first start on (the logs are set up before the app is
built, so the first folder made is <home>/logs)."""

from __future__ import annotations

import logging
import os
import sqlite3
import stat
import sys
from contextlib import closing
from pathlib import Path

import pytest
from fakeserver import FakeOpenAIServer
from test_faults import PetProcess, call, echo

from pet.logs import setup_logging
from pet.memory.db import open_database
from pet.private import private_dir, private_file

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")


def modes(home: Path) -> dict[str, str]:
    """Every path in `home` (itself included) with its mode, as '700'."""
    found = {".": f"{stat.S_IMODE(home.stat().st_mode):o}"}
    for path in sorted(home.rglob("*")):
        found[str(path.relative_to(home))] = f"{stat.S_IMODE(path.lstat().st_mode):o}"
    return found


def not_private(home: Path) -> dict[str, str]:
    wanted = {True: "700", False: "600"}
    return {name: mode for name, mode in modes(home).items()
            if mode != wanted[(home / name).is_dir()]}


@pytest.fixture
def open_umask():
    """The usual umask (022), which left a new home readable by everyone."""
    old = os.umask(0o022)
    yield
    os.umask(old)


@pytest.mark.slow
def test_a_fresh_home_is_private_after_a_start_and_a_turn(tmp_path, open_umask):
    home = tmp_path / "home"
    with FakeOpenAIServer(default=echo) as brain:
        pet = PetProcess(home, brain.base_url)
        pet.start()
        try:
            reply = call(pet.url + "/api/chat", {"message": "hello there"})
            assert reply["reply"]
            call(pet.url + "/api/memories", {"content": "my cat is called Tom"})
            running = modes(home)
            exposed = not_private(home)
        finally:
            pet.stop()
    # what the pet keeps was there to check: the log, the database and its write-ahead log
    for name in ("logs", "logs/pet.log", "pet.db", "pet.db-wal"):
        assert name in running, sorted(running)
    assert exposed == {}, f"readable by others while running: {exposed}"
    assert not_private(home) == {}, "readable by others after stopping"


def test_logging_first_makes_the_home_private(tmp_path, open_umask):
    home = tmp_path / "made" / "home"
    try:
        setup_logging(home, "INFO", console=False)
        logging.getLogger("pet.test").info("a line")
    finally:
        setup_logging(home, "INFO", console=False, to_file=False)  # close the file again
    assert modes(tmp_path / "made") == {".": "700", "home": "700", "home/logs": "700", "home/logs/pet.log": "600"}


def test_a_rotated_log_starts_private_too(tmp_path, open_umask, monkeypatch):
    import pet.logs

    monkeypatch.setattr(pet.logs, "MAX_BYTES", 200)
    home = tmp_path / "home"
    try:
        setup_logging(home, "INFO", console=False)
        for n in range(20):
            logging.getLogger("pet.test").info("line %d of a log that rotates", n)
    finally:
        setup_logging(home, "INFO", console=False, to_file=False)
    assert (home / "logs" / "pet.log.1").exists()
    assert not_private(home) == {}


def test_the_database_and_its_wal_are_private_from_the_start(tmp_path, open_umask):
    path = tmp_path / "data" / "pet.db"
    db = open_database(f"sqlite:///{path}")
    try:
        with closing(sqlite3.connect(path)) as raw, raw:  # a write, so the WAL and its index exist
            raw.execute("CREATE TABLE IF NOT EXISTS probe (x)")
        assert {"pet.db", "pet.db-wal", "pet.db-shm"} <= set(modes(tmp_path / "data"))
        assert not_private(tmp_path / "data") == {}
    finally:
        db.close()


def test_folders_the_person_made_keep_their_mode(tmp_path, open_umask):
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o755)
    private_dir(mine / "home")
    private_file(mine / "home" / "f")
    assert modes(mine) == {".": "755", "home": "700", "home/f": "600"}
    (mine / "home" / "f").write_text("kept")
    private_file(mine / "home" / "f")  # exists: left alone
    assert (mine / "home" / "f").read_text() == "kept"

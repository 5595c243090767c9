"""A home made by an older release (or under a loose umask) is made the
person's alone at the next start; their own files in it are left alone."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings
from pet.private import tighten

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def older_home(home: Path) -> dict[str, Path]:
    """A home as an older release left it: 755 folders, 644 files."""
    paths = {
        "db": home / "pet.db",
        "wal": home / "pet.db-wal",
        "log": home / "logs" / "pet.log",
        "export": home / "exports" / "pet-export-1.json",
        "auth": home / "auth.json",
        "mine": home / "workspace" / "todo.md",  # the person's own file
    }
    for path in paths.values():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"")
    for path in [home, *home.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return paths


def test_an_older_home_is_tightened_at_start(tmp_path):
    home = tmp_path / "home"
    paths = older_home(home)
    paths["db"].unlink()  # the start makes a real database here
    paths["wal"].unlink()
    app = build(load_settings({"home": str(home), "scheduler": "off"}), brain=ScriptedModel([]))
    app.close()
    assert mode(home) == 0o700
    for name in ("log", "export", "auth"):
        assert mode(paths[name]) == 0o600, name
    assert mode(home / "logs") == mode(home / "exports") == 0o700
    assert mode(paths["mine"]) == 0o644 and mode(home / "workspace") == 0o755  # theirs, as they were


def test_tighten_keeps_owner_bits_and_follows_no_link(tmp_path):
    home = tmp_path / "home"
    paths = older_home(home)
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"")
    outside.chmod(0o644)
    os.symlink(outside, home / "logs" / "link.log")
    script = home / "plugins" / "tool.py"
    script.parent.mkdir()
    script.write_bytes(b"")
    script.chmod(0o755)

    changed = tighten(home, paths["db"])

    assert mode(paths["db"]) == mode(paths["wal"]) == 0o600
    assert mode(script) == 0o700  # the owner's execute bit stays
    assert mode(outside) == 0o644  # not reached through the link
    assert paths["mine"] not in changed and mode(paths["mine"]) == 0o644
    assert tighten(home, paths["db"]) == []  # once is enough

"""Uploads live in the pet's home, owner-only, and old ones are deleted at
start, instead of piling up in the shared temp folder."""

from __future__ import annotations

import os
import stat
import time

import httpx
import pytest

from pet.api.server import start_in_thread
from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings
from pet.private import sweep


def test_sweep_deletes_old_files_and_the_folders_they_leave_empty(tmp_path):
    old = tmp_path / "a1" / "clip.wav"
    new = tmp_path / "b2" / "note.txt"
    for path in (old, new):
        path.parent.mkdir()
        path.write_bytes(b"x")
    two_days_ago = time.time() - 2 * 86400
    os.utime(old, (two_days_ago, two_days_ago))
    assert sweep(tmp_path, 86400) == 1
    assert not old.parent.exists() and new.exists()


@pytest.mark.slow
def test_an_upload_lands_in_the_home_and_old_ones_go_at_start(tmp_path, monkeypatch):
    home = tmp_path / "home"
    stale = home / "uploads" / "0123abcd" / "yesterday.wav"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"RIFF")
    two_days_ago = time.time() - 2 * 86400
    os.utime(stale, (two_days_ago, two_days_ago))
    monkeypatch.delenv("GRADIO_TEMP_DIR", raising=False)

    app = build(load_settings({"home": str(home), "scheduler": "off"}), brain=ScriptedModel([]))
    server = start_in_thread(app, port=0)
    try:
        with httpx.Client(base_url=server.url, timeout=60) as client:
            [path] = client.post("/gradio_api/upload", files={"files": ("note.txt", b"hello", "text/plain")}).json()
    finally:
        server.stop()
        app.close()
    assert path.startswith(str(home / "uploads") + os.sep)
    assert stat.S_IMODE((home / "uploads").stat().st_mode) == 0o700
    assert not stale.exists()

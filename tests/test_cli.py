"""The command line: what each command offers, and a start-up that fails fast."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from pet.api.server import port_is_free
from pet.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]


def _options(command: str) -> set[str]:
    parser = build_parser()
    commands = next(action for action in parser._actions if action.dest == "command")
    return {option for action in commands.choices[command]._actions for option in action.option_strings}


def test_export_and_import_offer_no_serving_or_brain_flags():
    for command in ("export", "import"):
        options = _options(command)
        assert "--home" in options
        assert not options & {"--port", "--brain", "--model", "--base-url", "--persona", "--lan"}, command


def test_brief_thinks_but_does_not_serve():
    options = _options("brief")
    assert "--brain" in options and "--port" not in options


def test_run_has_a_description_and_the_serving_flags():
    parser = build_parser()
    commands = next(action for action in parser._actions if action.dest == "command")
    run = commands.choices["run"]
    assert run.description and "127.0.0.1" in run.description
    assert {"--port", "--lan", "--brain"} <= _options("run")


def test_help_names_the_command_people_type():
    assert build_parser().format_usage().startswith("usage: python run.py")


def _time_wait_port() -> int:
    """A port left in TIME_WAIT: the server side closes an accepted connection
    first. The listener sets SO_REUSEADDR as uvicorn's does (Linux lets a new
    bind reuse the port only when both sockets asked for it)."""
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    client = socket.create_connection(("127.0.0.1", port))
    accepted, _ = listener.accept()
    accepted.close()  # the active close: this side goes to TIME_WAIT
    client.recv(1)
    client.close()
    listener.close()
    return port


def test_a_port_in_time_wait_counts_as_free():
    port = _time_wait_port()
    plain = socket.socket()
    try:
        with pytest.raises(OSError):
            plain.bind(("127.0.0.1", port))  # the trap: a bind without SO_REUSEADDR is refused
    finally:
        plain.close()
    assert port_is_free("127.0.0.1", port)


def test_a_taken_port_is_refused_before_anything_loads(pet_home):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "run.py", "--port", str(port), "--brain", "embedded"],
                              cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert f"port {port} on 127.0.0.1 is in use" in done.stderr
    assert "pet:" not in done.stdout and "brain:" not in done.stdout  # no home or model was opened
    assert not (pet_home / "pet.db").exists()

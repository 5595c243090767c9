"""Gradio's file route fetches an http(s) URL itself when given one; the pet
refuses those requests before Gradio sees them: no lookup, no connection,
for a loopback port or a host elsewhere. Its own files are served as ever."""

from __future__ import annotations

import sys
import threading

import httpx
import pytest
from fakeserver import CountingServer

from pet.api.server import start_in_thread
from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings

pytestmark = pytest.mark.slow


class Watch:
    """Every name looked up and address connected to while `on`."""

    def __init__(self) -> None:
        self.on = False
        self.seen: list[str] = []

    def __call__(self, event: str, args: tuple) -> None:
        if not self.on:
            return
        if event == "socket.getaddrinfo":
            self.seen.append(str(args[0]))
        elif event == "socket.connect" and isinstance(args[1], tuple):
            self.seen.append(str(args[1][0]))


WATCH = Watch()
sys.addaudithook(WATCH)  # once: audit hooks cannot be removed


@pytest.fixture
def pet_and_listener():
    listener = CountingServer()  # another program on a loopback port
    threading.Thread(target=listener.serve_forever, daemon=True).start()
    app = build(load_settings({"scheduler": "off", "reflexes": False}), brain=ScriptedModel([]))
    server = start_in_thread(app, port=0)
    try:
        yield server, listener
    finally:
        server.stop()
        app.close()
        listener.shutdown()
        listener.server_close()


def test_a_url_given_to_the_file_route_is_refused_unfetched(pet_and_listener):
    server, listener = pet_and_listener
    port = listener.server_address[1]
    targets = [
        f"http://127.0.0.1:{port}/x.png",
        f"http://localhost:{port}/x.png",
        "http://pet-probe.invalid/x.png",
        "https://pet-probe.invalid/x.png",
        "http://93.184.215.14/x.png",  # an address elsewhere: the test guard would refuse it too
    ]
    answers = {}
    with httpx.Client(base_url=server.url, timeout=60) as client:
        WATCH.seen.clear()
        WATCH.on = True
        try:
            for target in targets:
                for route in ("/gradio_api/file=", "/gradio_api/file/"):
                    answers[route + target] = client.get(route + target)
            encoded = "/gradio_api/file=" + f"http://127.0.0.1:{port}/x.png".replace(":", "%3A").replace("/", "%2F")
            answers[encoded] = client.get(encoded)
            answers["proxy"] = client.get(f"/gradio_api/proxy=http://127.0.0.1:{port}/x.png")
        finally:
            WATCH.on = False
    assert {where: answer.status_code for where, answer in answers.items()} == dict.fromkeys(answers, 403)
    assert "fetches nothing from elsewhere" in answers["/gradio_api/file=http://pet-probe.invalid/x.png"].text
    assert listener.hits == []
    # the client's own connections to the pet aside, nothing was looked up or reached
    assert [name for name in WATCH.seen if name not in ("127.0.0.1",)] == []


def test_the_pets_own_files_are_still_served(pet_and_listener):
    server, _ = pet_and_listener
    with httpx.Client(base_url=server.url, timeout=60) as client:
        [path] = client.post("/gradio_api/upload", files={"files": ("note.txt", b"hello pet", "text/plain")}).json()
        served = client.get(f"/gradio_api/file={path}")
    assert served.status_code == 200 and served.content == b"hello pet"

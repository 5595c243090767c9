"""A client that sends half a request loses the connection in time, on
loopback as in LAN mode, whichever route it picks: our API, Gradio's routes,
the sign-in page, or a route that answers without reading the body."""

from __future__ import annotations

import socket
import time

import pytest

from pet.api.server import start_in_thread
from pet.app import build
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings

pytestmark = pytest.mark.slow

#: the clocks are shortened to this many seconds for the test
CLOCK = 2.0


@pytest.fixture(scope="module")
def local_pet(tmp_path_factory):
    import pet.api.headerclock
    import pet.api.limits

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pet.api.limits, "BODY_SECONDS", CLOCK)
        patch.setattr(pet.api.headerclock, "HEADER_SECONDS", CLOCK)
        home = tmp_path_factory.mktemp("slow-clients")
        app = build(load_settings({"home": str(home), "scheduler": "off", "reflexes": False}),
                    brain=ScriptedModel([]))
        server = start_in_thread(app, port=0)
        try:
            yield server
        finally:
            server.stop()
            app.close()


def _half_request(port: int, head: str, seconds: int = 12) -> tuple[bytes, bool, float]:
    """Send `head`, then one more byte a second; return the answer, whether
    the server closed the connection, and after how long."""
    conn = socket.create_connection(("127.0.0.1", port), timeout=30)
    with conn:
        conn.sendall(head.encode())
        conn.settimeout(1.0)
        started, answer, closed = time.monotonic(), b"", False
        for _ in range(seconds):
            try:
                conn.sendall(b"x")
                chunk = conn.recv(65536)
            except TimeoutError:
                continue
            except OSError:  # reset or broken pipe: closed on us
                closed = True
                break
            if not chunk:
                closed = True
                break
            answer += chunk
        return answer, closed, time.monotonic() - started


def _post(port: int, path: str, content_type: str) -> str:
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 100\r\n"
            f"Content-Type: {content_type}\r\n\r\n")


@pytest.mark.parametrize(
    "path, content_type",
    [
        ("/login", "application/x-www-form-urlencoded"),  # Gradio's sign-in route
        ("/gradio_api/queue/join", "application/json"),  # how the page sends a message
        ("/api/chat", "application/json"),
    ],
)
def test_a_body_that_trickles_in_gets_408_and_loses_the_connection(local_pet, path, content_type):
    answer, closed, took = _half_request(local_pet.port, _post(local_pet.port, path, content_type))
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
    assert b"did not arrive within 2 seconds" in answer
    assert closed and took < CLOCK + 3


@pytest.mark.parametrize(
    "path, content_type, status",
    [
        ("/no/such/page", "application/json", b"404"),
        ("/healthz", "application/json", b"404"),  # a GET route posted to
        ("/gradio_api/upload", "multipart/form-data; boundary=----b", b"400"),  # broken framing
    ],
)
def test_the_rest_of_an_answered_body_cannot_hold_the_connection(local_pet, path, content_type, status):
    # The route answers at once without reading the body; the client keeps trickling.
    answer, closed, took = _half_request(local_pet.port, _post(local_pet.port, path, content_type))
    assert answer.split(b"\r\n")[0].split()[1] == status, answer[:200]
    assert closed and took < CLOCK + 3


def test_half_the_headers_lose_the_connection(local_pet):
    head = f"GET /login HTTP/1.1\r\nHost: 127.0.0.1:{local_pet.port}\r\n"  # no blank line: not finished
    answer, closed, took = _half_request(local_pet.port, head)
    assert answer == b"" and closed and took < CLOCK + 3


def test_whole_requests_are_served_as_ever(local_pet):
    import httpx

    with httpx.Client(base_url=local_pet.url, timeout=30) as client:
        assert [client.get("/healthz").status_code for _ in range(3)] == [200] * 3
        time.sleep(CLOCK + 0.5)  # an idle gap longer than the clock, then the same connection
        assert client.get("/healthz").status_code == 200

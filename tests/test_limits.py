"""Limits: request body size, upload size, message size and requests per
client per minute, each with a clear answer when exceeded."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from lanserver import PASSWORD, lan_pet

from pet.api.limits import RateLimit, SlidingWindow
from pet.brain.scripted import ScriptedModel
from pet.config import load_settings
from pet.errors import ConfigError


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_window_allows_its_limit_then_says_how_long_to_wait():
    clock = Clock()
    window = SlidingWindow(3, 60, clock)
    assert [window.allow("a") for _ in range(3)] == [0, 0, 0]
    clock.now += 10
    assert window.allow("a") == pytest.approx(50)
    assert window.allow("b") == 0  # another client has its own budget
    clock.now += 50
    assert window.allow("a") == 0  # the oldest fell out of the minute


def test_refused_requests_do_not_extend_the_wait():
    clock = Clock()
    window = SlidingWindow(2, 60, clock)
    window.allow("a"), window.allow("a")
    for _ in range(20):
        window.allow("a")  # hammering while blocked
    clock.now += 60
    assert window.allow("a") == 0


def _call(app, path: str, client: str, method: str = "GET") -> int:
    sent: list[dict] = []

    async def receive():
        return {"type": "http.request", "body": b""}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": method, "path": path, "client": (client, 5000), "headers": []}
    asyncio.run(app(scope, receive, send))
    return sent[0]["status"]


async def _ok(scope, receive, send):
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


def test_the_rate_limit_counts_per_client_and_skips_the_pages_scripts():
    limited = RateLimit(_ok, per_minute=2, clock=Clock())
    assert [_call(limited, "/config", "10.0.0.2") for _ in range(3)] == [200, 200, 429]
    assert _call(limited, "/config", "10.0.0.3") == 200
    assert _call(limited, "/assets/index.js", "10.0.0.2") == 200  # scripts and styles are free
    assert _call(limited, "/gradio_api/queue/join", "10.0.0.2", "POST") == 429


def test_limits_are_checked_when_settings_load():
    for key in ("requests_per_minute", "max_upload_mb", "max_body_kb"):
        with pytest.raises(ConfigError, match=key):
            load_settings({}, {f"PET_{key.upper()}": "-1"})
    assert load_settings({}, {"PET_REQUESTS_PER_MINUTE": "0"}).requests_per_minute == 0  # off


@pytest.mark.slow
def test_too_many_requests_get_429_with_a_clear_message():
    with lan_pet(requests_per_minute=5) as pet, pet.client(auth=("pet", PASSWORD)) as client:
        assert [client.get("/healthz").status_code for _ in range(5)] == [200] * 5
        refused = client.get("/healthz")
        assert refused.status_code == 429
        assert "the limit is 5 a minute" in refused.json()["detail"]
        assert "requests_per_minute" in refused.json()["detail"]  # says how to change it
        assert 0 < int(refused.headers["retry-after"]) <= 60
        # strangers are counted too: the limit comes before the password
        assert httpx.get(pet.url + "/healthz", verify=pet.tls()).status_code == 429


@pytest.mark.slow
def test_a_too_large_body_gets_413_before_the_app_reads_it():
    with lan_pet(max_body_kb=1) as pet, pet.client(auth=("pet", PASSWORD)) as client:
        big = {"message": "x" * 4000}
        answer = client.post("/api/chat", json=big)
        assert answer.status_code == 413
        assert "the limit is 1 KB" in answer.json()["detail"] and "max_body_kb" in answer.json()["detail"]

        def chunks():  # no Content-Length: counted as it arrives
            for _ in range(8):
                yield b"x" * 512

        streamed = client.post("/api/chat", content=chunks(), headers={"content-type": "application/json"})
        assert streamed.status_code == 413
        assert pet.count("messages") == 0


@pytest.mark.slow
def test_an_upload_over_the_limit_gets_413_and_one_under_it_is_kept():
    with lan_pet(max_upload_mb=1) as pet, pet.client(auth=("pet", PASSWORD)) as client:
        small = client.post("/gradio_api/upload", files={"files": ("note.txt", b"a" * 100_000, "text/plain")})
        assert small.status_code == 200 and small.json()[0].endswith("note.txt")

        large = client.post("/gradio_api/upload", files={"files": ("big.bin", b"a" * 2_000_000)})
        assert large.status_code == 413
        assert "uploads are limited to 1 MB" in large.json()["detail"]

        # just over 1 MB slips under our cap (which allows for multipart
        # framing) and meets Gradio's own limit, set from the same setting
        edge = client.post("/gradio_api/upload", files={"files": ("edge.bin", b"a" * (1024 * 1024 + 2000))})
        assert edge.status_code == 413 and "maximum allowed size of 1048576 bytes" in edge.text


@pytest.mark.slow
def test_the_body_cap_holds_on_loopback_too():
    from pet.api.server import start_in_thread
    from pet.app import build

    app = build(load_settings({"max_body_kb": 1, "scheduler": "off"}), brain=ScriptedModel([]))
    server = start_in_thread(app, port=0)
    try:
        answer = httpx.post(server.url + "/api/chat", json={"message": "x" * 4000}, timeout=30)
    finally:
        server.stop()
        app.close()
    assert answer.status_code == 413


@pytest.mark.slow
def test_a_message_over_the_character_limit_gets_a_clear_reply_in_the_chat():
    from serving import gradio_client

    with lan_pet(ScriptedModel([]), max_message_chars=1000) as pet:
        client = gradio_client(pet.url, auth=("pet", PASSWORD), ssl_verify=False)
        final = client.predict("y" * 1500, api_name="/chat")
        assert "1,500 characters" in final[-1]["content"]
        assert pet.model.calls == []  # the model never saw it


def _trickle(pet, path: str, headers: str, seconds: int = 8) -> tuple[bytes, float]:
    """Send the headers of a POST, then one body byte a second; return what
    the server answered and after how long (stops when the server closes)."""
    import socket
    import time
    from urllib.parse import urlsplit

    where = urlsplit(pet.url)
    raw = socket.create_connection((where.hostname, where.port), timeout=30)
    with pet.tls().wrap_socket(raw, server_hostname=where.hostname) as conn:
        conn.sendall(
            f"POST {path} HTTP/1.1\r\nHost: {where.netloc}\r\nContent-Length: 100\r\n{headers}\r\n".encode()
        )
        conn.settimeout(1.0)
        started, answer = time.monotonic(), b""
        for _ in range(seconds):
            try:
                conn.sendall(b"x")
            except OSError:
                break  # closed on us: the answer is already in
            try:
                chunk = conn.recv(65536)
            except TimeoutError:
                continue
            if not chunk:
                break
            answer += chunk
        return answer, time.monotonic() - started


@pytest.mark.slow
@pytest.mark.parametrize(
    "path, headers",
    [
        # the sign-in form, read by the gate before anyone is known
        ("/login", "Content-Type: application/x-www-form-urlencoded\r\n"),
        # a route of ours, read by the app behind the body cap
        ("/api/chat", f"Content-Type: application/json\r\nAuthorization: Bearer {PASSWORD}\r\n"),
    ],
)
def test_a_body_that_trickles_in_gets_408_and_the_connection_closes(monkeypatch, path, headers):
    import pet.api.limits

    monkeypatch.setattr(pet.api.limits, "BODY_SECONDS", 2.0)
    with lan_pet() as lan:
        answer, took = _trickle(lan, path, headers)
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
    assert b"did not arrive within 2 seconds" in answer and b"connection: close" in answer.lower()
    assert took < 6  # answered at the time limit, not when the trickle ended


def test_the_body_clock_stops_once_the_body_is_whole():
    from pet.api.limits import BodyClock, BodyTooSlow

    async def scenario() -> list[str]:
        messages = asyncio.Queue()
        await messages.put({"type": "http.request", "body": b"{}", "more_body": False})
        body = BodyClock(messages.get, 0.05)
        got = [(await body.receive())["type"]]

        async def later():  # a streaming app waits for the client to leave
            await asyncio.sleep(0.2)
            await messages.put({"type": "http.disconnect"})

        task = asyncio.create_task(later())
        got.append((await body.receive())["type"])
        await task

        stalled = BodyClock(asyncio.Queue().get, 0.05)
        try:
            await stalled.receive()
        except BodyTooSlow:
            got.append("too slow")
        return got

    assert asyncio.run(scenario()) == ["http.request", "http.disconnect", "too slow"]


@pytest.mark.slow
def test_headers_that_trickle_in_lose_the_connection(monkeypatch):
    import socket
    import time
    from urllib.parse import urlsplit

    import pet.api.headerclock

    monkeypatch.setattr(pet.api.headerclock, "HEADER_SECONDS", 2.0)
    with lan_pet() as lan:
        where = urlsplit(lan.url)
        raw = socket.create_connection((where.hostname, where.port), timeout=30)
        with lan.tls().wrap_socket(raw, server_hostname=where.hostname) as conn:
            conn.sendall(f"GET /healthz HTTP/1.1\r\nHost: {where.netloc}\r\n".encode())
            conn.settimeout(1.0)
            started, closed = time.monotonic(), False
            for _ in range(10):
                try:
                    conn.sendall(b"X")
                    closed = conn.recv(1024) == b""
                except TimeoutError:
                    continue
                except OSError:
                    closed = True
                if closed:
                    break
            took = time.monotonic() - started
        # and a client that sends its request at once is served as ever
        with lan.client(auth=("pet", PASSWORD)) as client:
            assert [client.get("/healthz").status_code for _ in range(3)] == [200] * 3
    assert closed and took < 5

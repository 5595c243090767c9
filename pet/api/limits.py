"""Request limits: a body-size cap, a body time limit and a per-client request
rate, as ASGI middleware over the whole app (our routes and the mounted Gradio
UI alike).

Each answers with a short JSON body that says what to do: 413 for a body that
is too large, 408 for one that does not arrive in time (a client trickling a
byte a second would otherwise hold a connection for ever), 429 (with
Retry-After) for too many requests.
"""

from __future__ import annotations

import asyncio
import json
import math
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Any

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Any]
Send = Callable[[Message], Any]
ASGIApp = Callable[[Scope, Receive, Send], Any]

UPLOAD_PATH = "/gradio_api/upload"
#: multipart framing around an uploaded file (boundaries, part headers)
UPLOAD_OVERHEAD = 64 * 1024
#: a request body must arrive whole within this many seconds of its headers
BODY_SECONDS = 30.0
#: an upload is larger and may come over slow Wi-Fi
UPLOAD_BODY_SECONDS = 300.0
#: how many client addresses a window remembers; the least recently seen go first
MAX_CLIENTS = 10_000
#: GETs of the page's scripts, styles and fonts; a page load fetches dozens of
#: them, so counting them would spend a phone's budget on one reload
STATIC_PREFIXES = ("/assets/", "/static/", "/svelte/", "/favicon.ico", "/theme.css", "/gradio_api/theme.css")


class SlidingWindow:
    """At most `limit` events per key within the last `seconds`."""

    def __init__(self, limit: int, seconds: float, clock: Callable[[], float] = time.monotonic):
        self.limit = limit
        self.seconds = seconds
        self._clock = clock
        self._events: OrderedDict[str, deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def _recent(self, key: str, now: float) -> deque[float]:
        events = self._events.get(key)
        if events is None:
            events = self._events[key] = deque()
            while len(self._events) > MAX_CLIENTS:
                self._events.popitem(last=False)
        self._events.move_to_end(key)
        while events and events[0] <= now - self.seconds:
            events.popleft()
        return events

    def retry_after(self, key: str) -> float:
        """Seconds until `key` may act again; 0 when it may now."""
        with self._lock:
            now = self._clock()
            events = self._recent(key, now)
            if len(events) < self.limit:
                return 0.0
            return max(events[-self.limit] + self.seconds - now, 0.0)

    def allow(self, key: str) -> float:
        """Record one event if it fits: 0 when it did, else the seconds to wait."""
        with self._lock:
            now = self._clock()
            events = self._recent(key, now)
            if len(events) >= self.limit:
                return max(events[-self.limit] + self.seconds - now, 0.0)
            events.append(now)
            return 0.0

    def count(self, key: str) -> int:
        """Events of `key` still inside the window."""
        with self._lock:
            return len(self._recent(key, self._clock()))

    def give_back(self, key: str) -> None:
        """Forget the latest event of `key` (one that turned out not to count)."""
        with self._lock:
            events = self._events.get(key)
            if events:
                events.pop()

    def clear(self, key: str) -> None:
        with self._lock:
            self._events.pop(key, None)


def client_address(scope: Scope) -> str:
    """The peer's address. uvicorn runs with proxy headers off, so this is the
    socket's peer and an X-Forwarded-For header cannot forge it."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


class BodyTooSlow(Exception):
    """The request body did not arrive whole in time."""


def body_seconds(path: str) -> float:
    """How long the body sent to `path` may take to arrive."""
    return UPLOAD_BODY_SECONDS if path.rstrip("/") == UPLOAD_PATH else BODY_SECONDS


class BodyClock:
    """Reads a request body with a deadline that starts now (after the headers).
    Once the body is complete, later reads (an app waiting for the client to
    go away while it streams) wait as long as they like."""

    def __init__(self, receive: Receive, seconds: float):
        self._receive = receive
        self.seconds = seconds
        self._deadline = asyncio.get_running_loop().time() + seconds
        self._complete = False

    async def receive(self) -> Message:
        if self._complete:
            return await self._receive()
        remaining = self._deadline - asyncio.get_running_loop().time()
        try:
            message = await asyncio.wait_for(self._receive(), max(remaining, 0.0))
        except TimeoutError:
            raise BodyTooSlow from None
        if message["type"] != "http.request" or not message.get("more_body"):
            self._complete = True
        return message


async def send_too_slow(send: Send, seconds: float) -> None:
    # Connection: close, so the trickling client does not keep the socket either.
    await send_json(
        send,
        408,
        f"The request body did not arrive within {wait_words(seconds)}. Send it again "
        "(on a better connection, or in smaller pieces).",
        {"connection": "close"},
    )


async def send_json(send: Send, status: int, detail: str, headers: dict[str, str] | None = None) -> None:
    body = json.dumps({"detail": detail}, ensure_ascii=False).encode()
    raw = [
        (b"content-type", b"application/json; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-store"),
    ]
    raw += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


def wait_words(seconds: float) -> str:
    seconds = max(1, math.ceil(seconds))
    if seconds < 90:
        return f"{seconds} seconds"
    return f"{math.ceil(seconds / 60)} minutes"


class RateLimit:
    """Too many requests from one client address within a minute get 429."""

    def __init__(self, app: ASGIApp, *, per_minute: int, clock: Callable[[], float] = time.monotonic):
        self.app = app
        self.per_minute = per_minute
        self.window = SlidingWindow(per_minute, 60.0, clock)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.per_minute <= 0 or _is_static(scope):
            await self.app(scope, receive, send)
            return
        client = client_address(scope)
        wait = self.window.allow(client)
        if wait:
            await send_json(
                send,
                429,
                f"Too many requests from {client}: the limit is {self.per_minute} a minute. "
                f"Wait {wait_words(wait)} and try again (or raise requests_per_minute in config.toml).",
                {"retry-after": str(max(1, math.ceil(wait)))},
            )
            return
        await self.app(scope, receive, send)


def _is_static(scope: Scope) -> bool:
    return scope["method"] in ("GET", "HEAD") and scope["path"].startswith(STATIC_PREFIXES)


class BodyLimit:
    """A request body larger than the cap gets 413 before the app reads it.

    The upload route gets the upload size (plus multipart framing); every
    other route the smaller general cap. A declared Content-Length is checked
    up front; a chunked body is counted as it arrives.
    """

    def __init__(self, app: ASGIApp, *, max_body: int, max_upload: int):
        self.app = app
        self.max_body = max_body
        self.max_upload = max_upload

    def cap_for(self, path: str) -> int:
        if path.rstrip("/") == UPLOAD_PATH:
            return self.max_upload + UPLOAD_OVERHEAD
        return self.max_body

    def _refusal(self, path: str, cap: int) -> str:
        if path.rstrip("/") == UPLOAD_PATH:
            return (
                f"That file is too large: uploads are limited to {_size(self.max_upload)}. "
                "Send a smaller file (or raise max_upload_mb in config.toml)."
            )
        return (
            f"That request is too large: the limit is {_size(cap)}. Send less at once "
            "(or raise max_body_kb in config.toml)."
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        cap = self.cap_for(path)
        declared = _content_length(scope)
        if declared is not None and declared > cap:
            await send_json(send, 413, self._refusal(path, cap))
            return

        received = 0
        started = refused = False
        body = BodyClock(receive, body_seconds(path))

        async def counted_receive() -> Message:
            nonlocal received, refused
            if refused:
                return {"type": "http.disconnect"}
            try:
                message = await body.receive()
            except BodyTooSlow:
                refused = True
                if not started:
                    await send_too_slow(send, body.seconds)
                return {"type": "http.disconnect"}
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > cap:
                    refused = True
                    if not started:
                        await send_json(send, 413, self._refusal(path, cap))
                    # to the app the client has gone: it stops reading and answers nobody
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if refused:
                return  # our 413 or 408 is the answer; the app's late reply goes nowhere
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted_receive, guarded_send)
        except Exception:
            if not refused:
                raise  # the app's own failure, not the disconnect we made up


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def _size(n: int) -> str:
    if n >= 1024 * 1024:
        return f"{n / (1024 * 1024):g} MB"
    return f"{n / 1024:g} KB"

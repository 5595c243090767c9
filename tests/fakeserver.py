"""A real OpenAI-compatible HTTP server on 127.0.0.1 for tests.

    with FakeOpenAIServer() as server:
        server.enqueue(Text("Hello!"), Status(500), ToolCalls(("get_time", '{"tz": "UTC"}')))
        model = OpenAIChatModel(server.base_url, "fake-model")
        ...
        assert server.requests[0]["messages"][0]["role"] == "system"
        server.assert_complete()

Each POST /v1/chat/completions takes the next scripted behaviour from the
queue (or `server.default` when the queue is empty). `Text` and `ToolCalls`
answer as JSON or as an SSE stream, whichever the request asked for. A
behaviour may also be a function of the request body that returns one.
GET /v1/models lists `server.models`.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterable, Union

Body = dict[str, Any]


# --- behaviours ---------------------------------------------------------------


@dataclass(frozen=True)
class Text:
    """A plain text answer. Streamed in `pieces` (default: word by word)."""

    text: str
    pieces: tuple[str, ...] | None = None
    finish_reason: str = "stop"
    usage: tuple[int, int] = (7, 5)  # prompt, completion tokens

    def stream_pieces(self) -> list[str]:
        if self.pieces is not None:
            assert "".join(self.pieces) == self.text, "pieces must join to the text"
            return list(self.pieces)
        words = self.text.split(" ")
        return [word if i == 0 else " " + word for i, word in enumerate(words)]


@dataclass(frozen=True, init=False)
class ToolCalls:
    """Native tool calls: each (name, arguments JSON text[, id]).

    Streamed, each call's arguments are split into `arg_pieces` fragments.
    """

    calls: tuple[tuple[str, ...], ...]
    text: str = ""
    arg_pieces: int = 3
    finish_reason: str = "tool_calls"

    def __init__(
        self, *calls: tuple[str, ...], text: str = "", arg_pieces: int = 3, finish_reason: str = "tool_calls"
    ):
        object.__setattr__(self, "calls", tuple(calls))
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "arg_pieces", arg_pieces)
        object.__setattr__(self, "finish_reason", finish_reason)

    def wire_calls(self) -> list[tuple[str, str, str]]:
        """(id, name, arguments) for each call."""
        return [(c[2] if len(c) > 2 else f"call_fake{i}", c[0], c[1]) for i, c in enumerate(self.calls)]


@dataclass(frozen=True)
class Status:
    """An HTTP error. `retry_after_ms` keeps the SDK's retry wait short in tests."""

    code: int
    message: str = "internal error"
    retry_after_ms: int | None = 10

    def body(self) -> Body:
        return {"error": {"message": self.message, "type": "server_error", "code": self.code}}


@dataclass(frozen=True)
class ModelMissing:
    """Ollama's 404 for a model that was never pulled."""

    model: str = "fake-model"


@dataclass(frozen=True)
class Hang:
    """Accept the request, then say nothing for `seconds` (or until the server stops)."""

    seconds: float = 30.0


@dataclass(frozen=True)
class DieMidStream:
    """Stream these text pieces, then drop the connection without finishing."""

    pieces: tuple[str, ...] = ("Once ", "upon ")


@dataclass(frozen=True)
class BadChunk:
    """Stream these text pieces, then an event whose data is not JSON, then finish normally."""

    pieces: tuple[str, ...] = ("Once ", "upon ")
    data: bytes = b"{this is not json"


@dataclass(frozen=True)
class Garbage:
    """A 200 answer whose body is not JSON (or SSE)."""

    body: bytes = b"<html><body>It works!</body></html>"
    content_type: str = "text/html"


Behaviour = Union[Text, ToolCalls, Status, ModelMissing, Hang, DieMidStream, BadChunk, Garbage]
Script = Union[Behaviour, Callable[[Body], Behaviour]]


# --- the server ---------------------------------------------------------------


@dataclass
class FakeOpenAIServer:
    """A threaded HTTP server speaking enough of the chat-completions protocol."""

    models: list[str] = field(default_factory=lambda: ["fake-model"])
    default: Script | None = None
    requests: list[Body] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._queue: deque[Script] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    # lifecycle

    def start(self) -> "FakeOpenAIServer":
        self._httpd = _Server(("127.0.0.1", 0), _Handler, fake=self)
        self._thread = threading.Thread(
            # A short poll interval keeps stop() fast: every test starts and stops a server.
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="fake-openai", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is None:
            return
        self._stopping.set()  # wakes hanging handlers
        self._httpd.shutdown()
        self._httpd.close_connections()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None

    def __enter__(self) -> "FakeOpenAIServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "start the server first"
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # script

    def enqueue(self, *behaviours: Script) -> None:
        with self._lock:
            self._queue.extend(behaviours)

    def assert_complete(self) -> None:
        with self._lock:
            left = len(self._queue)
        assert not left, f"{left} scripted behaviours were never requested"

    @property
    def hits(self) -> int:
        """How many chat-completion requests arrived."""
        with self._lock:
            return len(self.requests)

    def _next(self, body: Body) -> Behaviour:
        with self._lock:
            self.requests.append(body)
            script = self._queue.popleft() if self._queue else self.default
        if script is None:
            return Status(500, "FakeOpenAIServer: no scripted behaviour left", retry_after_ms=None)
        return script(body) if callable(script) else script


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # hanging handlers are woken by the stop event instead

    def __init__(self, address: tuple[str, int], handler: type, *, fake: FakeOpenAIServer):
        self.fake = fake
        self._connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()
        super().__init__(address, handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._connections_lock:
            self._connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._connections_lock:
            self._connections.discard(request)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        """End idle keep-alive connections so their handler threads exit."""
        with self._connections_lock:
            connections = list(self._connections)
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # clients hanging up on purpose are the point of several behaviours


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    # routing

    def do_GET(self) -> None:
        if self.path.rstrip("/") == "/v1/models":
            models = self.server.fake.models
            data = [{"id": m, "object": "model", "created": 0, "owned_by": "fake"} for m in models]
            self._send_json(200, {"object": "list", "data": data})
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if self.path != "/v1/chat/completions":
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        try:
            body = json.loads(raw)
        except ValueError:
            self._send_json(400, {"error": {"message": "request body is not JSON"}})
            return
        behaviour = self.server.fake._next(body)
        self._perform(behaviour, body)

    # behaviours

    def _perform(self, behaviour: Behaviour, body: Body) -> None:
        streaming = bool(body.get("stream"))
        model = body.get("model", "fake-model")
        if isinstance(behaviour, Text):
            if streaming:
                self._stream_text(behaviour, model, body)
            else:
                message = {"role": "assistant", "content": behaviour.text}
                self._send_json(200, _completion(model, message, behaviour.finish_reason, behaviour.usage))
        elif isinstance(behaviour, ToolCalls):
            if streaming:
                self._stream_tool_calls(behaviour, model, body)
            else:
                calls = [
                    {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
                    for call_id, name, arguments in behaviour.wire_calls()
                ]
                message = {"role": "assistant", "content": behaviour.text or None, "tool_calls": calls}
                self._send_json(200, _completion(model, message, behaviour.finish_reason, (9, 4)))
        elif isinstance(behaviour, Status):
            headers = {}
            if behaviour.retry_after_ms is not None:
                headers["retry-after-ms"] = str(behaviour.retry_after_ms)
            self._send_json(behaviour.code, behaviour.body(), headers)
        elif isinstance(behaviour, ModelMissing):
            message = f'model "{behaviour.model}" not found, try pulling it first'
            self._send_json(404, {"error": {"message": message, "type": "not_found_error"}})
        elif isinstance(behaviour, Hang):
            self.server.fake._stopping.wait(behaviour.seconds)
            self.close_connection = True
        elif isinstance(behaviour, DieMidStream):
            self._start_stream()
            for piece in behaviour.pieces:
                self._send_event(_chunk(model, {"content": piece}))
            # Abrupt close: no last chunk, no [DONE], no terminating zero-length chunk.
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
        elif isinstance(behaviour, BadChunk):
            self._start_stream()
            for piece in behaviour.pieces:
                self._send_event(_chunk(model, {"content": piece}))
            self._send_event(behaviour.data)
            self._finish_stream(model, body, "stop", (7, 5))
        elif isinstance(behaviour, Garbage):
            self._send_bytes(200, behaviour.body, behaviour.content_type)
        else:
            raise TypeError(f"unknown behaviour {behaviour!r}")

    def _stream_text(self, behaviour: Text, model: str, body: Body) -> None:
        self._start_stream()
        self._send_event(_chunk(model, {"role": "assistant", "content": ""}))
        for piece in behaviour.stream_pieces():
            self._send_event(_chunk(model, {"content": piece}))
        self._finish_stream(model, body, behaviour.finish_reason, behaviour.usage)

    def _stream_tool_calls(self, behaviour: ToolCalls, model: str, body: Body) -> None:
        self._start_stream()
        self._send_event(_chunk(model, {"role": "assistant", "content": behaviour.text or None}))
        for index, (call_id, name, arguments) in enumerate(behaviour.wire_calls()):
            function = {"name": name, "arguments": ""}
            head = {"index": index, "id": call_id, "type": "function", "function": function}
            self._send_event(_chunk(model, {"tool_calls": [head]}))
            for piece in _split(arguments, behaviour.arg_pieces):
                fragment = {"index": index, "function": {"arguments": piece}}
                self._send_event(_chunk(model, {"tool_calls": [fragment]}))
        self._finish_stream(model, body, behaviour.finish_reason, (9, 4))

    # wire helpers

    def _send_json(self, status: int, payload: object, headers: dict[str, str] | None = None) -> None:
        self._send_bytes(status, json.dumps(payload).encode(), "application/json", headers)

    def _send_bytes(
        self, status: int, data: bytes, content_type: str, headers: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _start_stream(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def _send_event(self, payload: object) -> None:
        data = b"data: " + (payload if isinstance(payload, bytes) else json.dumps(payload).encode()) + b"\n\n"
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _finish_stream(self, model: str, body: Body, finish_reason: str, usage: tuple[int, int]) -> None:
        self._send_event(_chunk(model, {}, finish_reason))
        if (body.get("stream_options") or {}).get("include_usage"):
            self._send_event({**_chunk(model, {}), "choices": [], "usage": _usage(usage)})
        self._send_event(b"[DONE]")
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


def _split(text: str, pieces: int) -> Iterable[str]:
    size = max(1, -(-len(text) // max(1, pieces)))
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _usage(usage: tuple[int, int]) -> Body:
    prompt, completion = usage
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _completion(model: str, message: Body, finish_reason: str, usage: tuple[int, int]) -> Body:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": _usage(usage),
    }


def _chunk(model: str, delta: Body, finish_reason: str | None = None) -> Body:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }


class CountingServer(ThreadingHTTPServer):
    """Another program on a loopback address: answers every GET with `body`
    and counts what it was asked for, so a test can check nobody asked."""

    def __init__(self, host: str = "127.0.0.1", *, content_type: str = "image/png", body: bytes = b"\x89PNG"):
        self.hits: list[str] = []

        class Handler(BaseHTTPRequestHandler):
            def do_GET(handler) -> None:  # noqa: N805
                self.hits.append(handler.path)
                handler.send_response(200)
                handler.send_header("content-type", content_type)
                handler.end_headers()
                handler.wfile.write(body)

            def log_message(handler, *args) -> None:  # noqa: N805
                pass

        super().__init__((host, 0), Handler)

"""`python run.py chat`: talk to the pet in a terminal.

It talks to a running pet over its HTTP API (server-sent events, so the reply
streams in as the pet thinks), or, when none answers, wakes one in this
process. `/new` starts a new conversation, `/debug` shows the last turn's
trace, `/quit` (or Ctrl+D) leaves; every other line goes to the pet.
"""

from __future__ import annotations

import json
import re
import socket
import ssl
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Iterable, Iterator, Protocol

from pet.config import Settings

#: seconds to wait for a running pet to answer /healthz
PROBE_TIMEOUT = 1.5
#: seconds a streamed turn may stay silent (a slow model on a CPU thinks long)
READ_TIMEOUT = 600.0
HELP = "Type a message. /new starts a new conversation, /debug shows the last turn's trace, /quit leaves."

EventPair = tuple[str, dict[str, Any]]


class ChatUnavailable(Exception):
    """The pet cannot be reached; str() says what to do."""


class PasswordNeeded(ChatUnavailable):
    """A pet answers, in LAN mode, and wants its password."""


def parse_sse(lines: Iterable[str]) -> Iterator[EventPair]:
    """Server-sent events from a stream of text lines: (event name, JSON data)."""
    name, data = "message", list[str]()
    for raw in lines:
        line = raw.rstrip("\r\n")
        if not line:
            if data:
                yield name, json.loads("\n".join(data))
            name, data = "message", []
        elif line.startswith(":"):
            continue  # a comment, sent to keep the connection alive
        else:
            field, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if field == "event":
                name = value
            elif field == "data":
                data.append(value)
    if data:
        yield name, json.loads("\n".join(data))


class Backend(Protocol):
    name: str

    def turn(self, message: str) -> Iterator[EventPair]: ...
    def last_trace(self) -> dict[str, Any] | None: ...
    def close(self) -> None: ...


# --- a pet running elsewhere -------------------------------------------------------------


def _pinned_context(home: Path) -> ssl.SSLContext | None:
    """Trust exactly the certificate LAN mode made in this home, if any."""
    from pet.api.lan import TLS_FOLDER
    from pet.api.tls import CERT_FILE

    cert = home / TLS_FOLDER / CERT_FILE
    if not cert.is_file():
        return None
    # only this self-signed certificate is trusted; it names 127.0.0.1 and the LAN addresses
    return ssl.create_default_context(cafile=str(cert))


class Connection:
    """How to reach a pet: its address, and in LAN mode its password
    (PET_PASSWORD, sent as a Bearer token) and its own certificate."""

    def __init__(self, url: str, password: str = "", home: Path | None = None):
        self.url = url.rstrip("/")
        self.headers = {"Content-Type": "application/json", "Accept": "*/*"}
        # Only over HTTPS: a pet that asks for it (LAN mode) always serves
        # HTTPS, and over plain HTTP the password would reach whatever listens
        # at that address, in clear text.
        if password and self.url.startswith("https:"):
            self.headers["Authorization"] = f"Bearer {password}"
        handlers: list[Any] = [urllib.request.ProxyHandler({})]  # the pet is near: never via a proxy
        context = _pinned_context(home) if home is not None and self.url.startswith("https:") else None
        if context is not None:
            handlers.append(urllib.request.HTTPSHandler(context=context))
        self._opener = urllib.request.build_opener(*handlers)

    def open(self, path: str, body: dict[str, Any] | None = None, timeout: float = READ_TIMEOUT):
        url = self.url + path
        data = json.dumps(body).encode("utf-8") if body is not None else None
        request = urllib.request.Request(
            url, data=data, method="POST" if body is not None else "GET", headers=self.headers
        )
        try:
            return self._opener.open(request, timeout=timeout)
        except urllib.error.HTTPError as err:
            try:
                detail = json.loads(err.read()).get("detail", "")
            except (ValueError, AttributeError):
                detail = ""
            if err.code == 401:
                raise PasswordNeeded(
                    f"the pet at {self.url} wants its password (LAN mode): set PET_PASSWORD "
                    "to the one `python run.py --lan` showed"
                ) from None
            raise ChatUnavailable(f"the pet answered {err.code}: {detail or err.reason}") from None
        except (urllib.error.URLError, OSError) as err:
            raise ChatUnavailable(
                f"no pet answers at {self.url} ({getattr(err, 'reason', err)}) — is `python run.py` "
                "up? Leave out --url to chat with a pet started here"
            ) from None

    def health(self, timeout: float = PROBE_TIMEOUT) -> dict[str, Any] | None:
        """What the pet says at /healthz; None when no pet answers. A pet
        that wants its password raises PasswordNeeded."""
        try:
            with self.open("/healthz", timeout=timeout) as response:
                health = json.loads(response.read())
        except PasswordNeeded:
            raise
        except (ChatUnavailable, ValueError):
            return None
        return health if isinstance(health, dict) and health.get("status") == "ok" else None


def running_pet(url: str, timeout: float = PROBE_TIMEOUT) -> dict[str, Any] | None:
    """What a pet serving at `url` says at /healthz; None when none answers."""
    return Connection(url).health(timeout)


class RemoteBackend:
    """A running pet, over /api/chat with stream true."""

    def __init__(
        self,
        connection: Connection,
        health: dict[str, Any],
        pet: str | None = None,
        conversation_id: int | None = None,
    ):
        self.connection = connection
        self.pet = pet
        self.conversation_id = conversation_id
        self.name = pet or str(health.get("pet") or "pet")

    def turn(self, message: str) -> Iterator[EventPair]:
        body: dict[str, Any] = {"message": message, "stream": True}
        if self.conversation_id is not None:
            body["conversation_id"] = self.conversation_id
        if self.pet is not None:
            body["pet"] = self.pet
        with self.connection.open("/api/chat", body) as response:
            lines = (line.decode("utf-8") for line in response)
            for name, data in parse_sse(lines):
                if name in ("start", "conversation", "reply") and data.get("conversation_id"):
                    self.conversation_id = data["conversation_id"]  # keep talking where the pet is
                yield name, data

    def last_trace(self) -> dict[str, Any] | None:
        if self.conversation_id is None:
            return None
        with self.connection.open(f"/api/debug/{self.conversation_id}?limit=1") as response:
            traces = json.loads(response.read()).get("traces") or []
        return traces[-1] if traces else None

    def close(self) -> None:
        pass


# --- a pet woken in this process ---------------------------------------------------------------


class LocalBackend:
    """The pet's agent in this process, for when none is running. Its
    scheduler stays off: a terminal chat should not fire reminders; the next
    `python run.py` settles them."""

    def __init__(self, settings: Settings, pet: str | None = None, conversation_id: int | None = None):
        from pet.app import build

        self.app = build(settings, scheduler="off")
        try:
            self.runtime = self._pet(pet)
            self.conversation_id = conversation_id or self._conversation()
        except BaseException:
            self.app.close()
            raise
        self.name = self.runtime.persona.full_name()

    def _pet(self, pet: str | None):
        if pet is None:
            return self.app.current
        for runtime in self.app.pets():
            if pet in (runtime.record.slug, str(runtime.record.id)):
                return self.app.switch_pet(runtime.record.id)
        known = ", ".join(r.record.slug for r in self.app.pets())
        raise ChatUnavailable(f"there is no pet {pet!r}; this home has: {known}")

    def _conversation(self) -> int:
        return self.app.turn_target()[1]

    def turn(self, message: str) -> Iterator[EventPair]:
        from pet.api.schemas import event_payload
        from pet.events import ConversationStarted

        pet_id = self.runtime.record.id
        for event in self.runtime.agent.run(self.conversation_id, message):
            if isinstance(event, ConversationStarted):
                self.app.switch_conversation(event.conversation_id)
                self.conversation_id = event.conversation_id
            yield event_payload(event, self.conversation_id, pet_id)

    def last_trace(self) -> dict[str, Any] | None:
        traces = self.app.traces.recent(self.conversation_id, limit=1) if self.app.traces is not None else []
        return traces[-1] if traces else None

    def close(self) -> None:
        self.app.close()


# --- the terminal -------------------------------------------------------------------------------


# C0 and C1 control characters but tab and newline: in tool output or a
# model's text they would be terminal commands (clear the screen, retitle the
# window, write the clipboard with OSC 52), not words.
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _printable(text: str) -> str:
    return _CONTROLS.sub("", text)


def _one_line(value: Any, limit: int = 160) -> str:
    text = _printable(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def format_trace(trace: dict[str, Any] | None) -> str:
    """A turn's trace, short enough for a terminal: what went to the model,
    what it answered, each tool's result, timings and tokens."""
    if not trace:
        return "No turn traced in this conversation yet."
    seconds = trace.get("seconds")
    head = (
        f"trace #{trace.get('id')} · {seconds:.3f} s"
        if isinstance(seconds, (int, float))
        else (f"trace #{trace.get('id')} · still running")
    )
    lines = [
        head + (f" · reflex {trace['reflex']}" if trace.get("reflex") else ""),
        f"  you: {_one_line(trace.get('text', ''))}",
    ]
    for step in trace.get("steps") or []:
        if step.get("kind") == "model":
            tokens = f"{step.get('prompt_tokens', 0)}+{step.get('completion_tokens', 0)} tokens"
            if step.get("tokens_estimated"):
                tokens += " (estimated)"
            lines.append(
                f"  model step {step.get('step')} ({step.get('purpose', 'reply')}): "
                f"{len(step.get('messages') or [])} messages, {len(step.get('tools') or [])} tools, "
                f"{tokens}, {step.get('seconds', 0):.3f} s"
            )
            for message in step.get("messages") or []:
                lines.append(f"    [{message.get('role')}] {_one_line(message.get('content', ''), 120)}")
            if step.get("error"):
                lines.append(f"    ✗ error: {step['error']}")
            for call in step.get("tool_calls") or []:
                lines.append(f"    → calls {call.get('name')} {_one_line(call.get('arguments', {}))}")
            if step.get("text"):
                lines.append(f"    → says: {_one_line(step['text'])}")
        elif step.get("kind") == "tool":
            mark = "✓" if step.get("ok") else "✗"
            lines.append(
                f"  tool {mark} {step.get('name')} {_one_line(step.get('arguments', {}))} → "
                f"{_one_line(step.get('content', ''))} ({step.get('seconds', 0):.3f} s)"
            )
    for notice in trace.get("notices") or []:
        lines.append(f"  notice: {notice}")
    if trace.get("reply"):
        lines.append(f"  reply{' (cut short)' if trace.get('partial') else ''}: {_one_line(trace['reply'])}")
    return _printable("\n".join(lines))


@dataclass
class Terminal:
    """Prints a turn's events as they come."""

    out: IO[str]
    name: str

    def show(self, events: Iterable[EventPair]) -> None:
        at_line_start = True
        named = False  # the pet's name opens its text, again after a tool line

        def line(text: str) -> None:
            nonlocal at_line_start, named
            if not at_line_start:
                self.out.write("\n")
            self.out.write(_printable(text) + "\n")
            at_line_start, named = True, False

        spoke = False
        for name, data in events:
            if name == "delta":
                text = _printable(data.get("text", ""))
                if not named:
                    if not at_line_start:
                        self.out.write("\n")
                    self.out.write(_printable(f"{self.name} › "))
                    named = True
                self.out.write(text)
                spoke = True
                at_line_start = text.endswith("\n")
            elif name == "tool_started":
                line(f"  🔧 {data.get('name')} {_one_line(data.get('arguments') or {})}")
            elif name == "tool_finished":
                mark = "✓" if data.get("ok") else "✗"
                line(
                    f"  {mark} {data.get('name')} → {_one_line(data.get('content', ''))} "
                    f"({data.get('seconds', 0):.2f} s)"
                )
            elif name == "notice":
                icon = {"warning": "⚠", "error": "✗"}.get(data.get("level", ""), "ℹ")
                line(f"  {icon} {data.get('text')}")
            elif name == "conversation":
                line(f"  (new conversation #{data.get('conversation_id')})")
            elif name == "reply":
                if not spoke:  # nothing streamed: show the reply whole
                    line(f"{self.name} › {data.get('text', '')}")
                if data.get("partial"):
                    line("  (cut short)")
            elif name == "error":
                line(f"  ✗ {data.get('message')}")
            self.out.flush()
        if not at_line_start:
            self.out.write("\n")
        self.out.flush()


def chat_loop(backend: Backend, stdin: IO[str], out: IO[str], *, prompt: bool) -> int:
    """Read lines until /quit or end of input; returns the exit code."""
    terminal = Terminal(out, backend.name)
    out.write(f"Chatting with {backend.name}. {HELP}\n")
    out.flush()
    while True:
        if prompt:
            out.write("you › ")
            out.flush()
        line = stdin.readline()
        if not line:  # end of input (Ctrl+D)
            if prompt:
                out.write("\n")
            return 0
        text = line.strip()
        if not text:
            continue
        if text in ("/quit", "/exit", "/q"):
            return 0
        if text in ("/help", "/?"):
            out.write(HELP + "\n")
            continue
        try:
            if text == "/debug":
                out.write(format_trace(backend.last_trace()) + "\n")
                continue
            terminal.show(backend.turn(text))
        except ChatUnavailable as exc:
            out.write(f"pet: {exc}\n")
            return 1
        except KeyboardInterrupt:
            out.write("\n  (stopped; the pet keeps what it said so far)\n")
        out.flush()


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=PROBE_TIMEOUT):
            return True
    except OSError:
        return False


def run_chat(
    settings: Settings,
    *,
    url: str | None = None,
    pet: str | None = None,
    conversation_id: int | None = None,
    local: bool = False,
    stdin: IO[str] | None = None,
    out: IO[str] | None = None,
) -> int:
    """`python run.py chat`: a running pet at `url` (default: this home's port on
    127.0.0.1), else one woken here (unless `url` was given)."""
    stdin = stdin or sys.stdin
    out = out or sys.stdout
    backend: Backend
    target = url or f"{'https' if settings.lan else 'http'}://127.0.0.1:{settings.port}"
    connection = Connection(target, settings.password, settings.home)
    health = None if local else connection.health()
    if health is not None:
        backend = RemoteBackend(connection, health, pet, conversation_id)
        out.write(f"(talking to the pet running at {target})\n")
    elif url is not None:
        out.write(
            f"pet: no pet answers at {url} — start it with `python run.py`, or leave out --url "
            "to chat with a pet started here\n"
        )
        return 1
    elif not local and _listening(settings.port):
        # not a pet we can talk to, perhaps one in LAN mode: never wake a second pet on the same home
        out.write(
            f"pet: something listens on port {settings.port} but does not answer as a pet; if it is the "
            f"pet in LAN mode, use --url https://127.0.0.1:{settings.port} and set PET_PASSWORD "
            "(or --local to start one here anyway)\n"
        )
        return 1
    else:
        backend = LocalBackend(settings, pet, conversation_id)
        out.write(f"(no pet running at {target}; woke one here — brain: {backend.app.brain.model.label})\n")
    try:
        return chat_loop(backend, stdin, out, prompt=stdin.isatty())
    finally:
        backend.close()

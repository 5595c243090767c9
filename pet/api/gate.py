"""The LAN gate: ASGI middleware in front of every route, the UI's included.

A request passes with a valid session cookie (browsers, after /login) or with
the password as HTTP Basic or a Bearer token (gradio_client, curl). Anything
else gets the login page (a browser opening a page), 401 (anything else), or
429 after too many wrong passwords from its address, or from all addresses
together. Only /login is public. Wrong passwords and lock-outs are logged
with the address and the count, never the password tried.
"""

from __future__ import annotations

import base64
import binascii
import html
import json
import logging
import urllib.parse
from dataclasses import dataclass

from starlette.authentication import AuthCredentials, SimpleUser
from starlette.concurrency import run_in_threadpool
from starlette.requests import cookie_parser

from pet.api.auth import (
    ALL_CLIENTS,
    ATTEMPT_WINDOW_SECONDS,
    MAX_ATTEMPTS,
    MAX_GUESSES_IN_ALL,
    SESSION_SECONDS,
    USER,
    Authenticator,
)
from pet.api.limits import (
    ASGIApp,
    BodyClock,
    BodyTooSlow,
    Receive,
    Scope,
    Send,
    body_seconds,
    client_address,
    send_json,
    send_too_slow,
    wait_words,
)
from pet.persona.messages import sign_in_heading

log = logging.getLogger(__name__)

LOGIN_PATH = "/login"
LOGOUT_PATH = "/logout"
PUBLIC_PATHS = frozenset({LOGIN_PATH, LOGIN_PATH + "/"})
#: a login form is a password and a path; nothing bigger is read
MAX_LOGIN_BODY = 8 * 1024
NOT_SIGNED_IN = (
    "Sign in first: open /login in a browser, or send the password with HTTP Basic "
    f"(user {USER}) or as 'Authorization: Bearer <password>'."
)
WRONG_PASSWORD = "Wrong password. Type it as shown in the pet's terminal (or set PET_PASSWORD and restart)."


@dataclass(frozen=True)
class Lockout:
    """No password is checked for a while: `everyone` when the shared budget is spent."""

    wait: float
    everyone: bool = False

    def detail(self, client: str) -> str:
        if self.everyone:
            return (
                "Too many wrong passwords from all addresses together: signing in with a password is "
                f"paused for everyone. Wait {wait_words(self.wait)} and try again (signed-in browsers "
                "keep working)."
            )
        return f"Too many wrong passwords from {client}. Wait {wait_words(self.wait)} and try again."


def cookie_name(scope: Scope) -> str:
    # __Host-: the browser keeps it to this host over HTTPS, path /. The port
    # is in the name because cookies ignore ports: two pets on one machine
    # would otherwise sign each other out.
    server = scope.get("server")
    return f"__Host-pet-{server[1] if server else 0}"


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value.decode("latin-1")
    return ""


def password_from_header(value: str) -> str | None:
    """The password carried by an Authorization header (Basic or Bearer)."""
    scheme, _, rest = value.strip().partition(" ")
    if scheme.lower() == "bearer":
        return rest.strip() or None
    if scheme.lower() == "basic":
        try:
            decoded = base64.b64decode(rest.strip(), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return None
        _, colon, password = decoded.partition(":")
        return password if colon else None
    return None


def safe_next(target: str) -> str:
    """Only a path on this server: never another host after signing in.
    Printable ASCII only: browsers drop tabs and newlines from a Location, so
    "/<TAB>/evil.example" would become "//evil.example" (another host), and
    a newline cannot go into a header at all."""
    if not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    if any(not "!" <= ch <= "~" for ch in target):
        return "/"
    return target


def _wants_page(scope: Scope) -> bool:
    return scope.get("method") in ("GET", "HEAD") and "text/html" in _header(scope, b"accept")


class AuthGate:
    def __init__(self, app: ASGIApp, *, auth: Authenticator):
        self.app = app
        self.auth = auth

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)  # lifespan
            return
        if kind == "http" and scope["path"] in PUBLIC_PATHS:
            await self._login(scope, receive, send)
            return
        if kind == "http" and scope["path"] == LOGOUT_PATH:
            await self._logout(scope, send)
            return
        verdict = await self._identify(scope)
        if verdict == "ok":
            scope["user"] = SimpleUser(USER)
            scope["auth"] = AuthCredentials(["authenticated"])
            await self.app(scope, receive, send)
        elif kind == "websocket":
            await send({"type": "websocket.close", "code": 1008, "reason": "sign in first"})
        elif isinstance(verdict, Lockout):
            await self._locked(scope, send, verdict)
        elif verdict == "none" and _wants_page(scope):
            path = scope["path"] + (
                f"?{scope['query_string'].decode('latin-1')}" if scope.get("query_string") else ""
            )
            await _redirect(send, f"{LOGIN_PATH}?next={urllib.parse.quote(path, safe='')}")
        else:
            detail = WRONG_PASSWORD if verdict == "wrong" else NOT_SIGNED_IN
            await send_json(send, 401, detail, {"www-authenticate": f'Bearer realm="{USER}"'})

    async def _identify(self, scope: Scope) -> str | Lockout:
        """ "ok", "none" (no credentials), "wrong", or how long a locked-out client waits."""
        token = cookie_parser(_header(scope, b"cookie")).get(cookie_name(scope))
        if token and self.auth.check_session(token):
            return "ok"
        header = _header(scope, b"authorization")
        if not header:
            return "none"
        return await self._try_password(client_address(scope), password_from_header(header) or "")

    async def _try_password(self, client: str, password: str) -> str | Lockout:
        attempts, guesses = self.auth.attempts, self.auth.guesses
        wait = attempts.retry_after(client)
        if wait:
            return Lockout(max(wait, 1.0))
        wait = guesses.retry_after(ALL_CLIENTS)
        if wait:
            return Lockout(max(wait, 1.0), everyone=True)
        if self.auth.is_cached(password):
            return "ok"
        # Counted before the slow check, so a burst of parallel guesses
        # cannot all start before the first wrong one is recorded.
        wait = guesses.allow(ALL_CLIENTS)
        if wait:
            return Lockout(max(wait, 1.0), everyone=True)
        wait = attempts.allow(client)
        if wait:
            guesses.give_back(ALL_CLIENTS)
            return Lockout(max(wait, 1.0))
        if await run_in_threadpool(self.auth.check_password, password):
            attempts.clear(client)
            guesses.give_back(ALL_CLIENTS)
            return "ok"
        _log_wrong_password(client, attempts.count(client), guesses.count(ALL_CLIENTS))
        return "wrong"

    async def _locked(self, scope: Scope, send: Send, lockout: Lockout) -> None:
        detail = lockout.detail(client_address(scope))
        await send_json(send, 429, detail, {"retry-after": str(int(lockout.wait) + 1)})

    async def _login(self, scope: Scope, receive: Receive, send: Send) -> None:
        query = urllib.parse.parse_qs(scope.get("query_string", b"").decode("latin-1"))
        target = safe_next((query.get("next") or ["/"])[0])
        if scope["method"] in ("GET", "HEAD"):
            await _page(send, 200, login_page(target))
            return
        if scope["method"] != "POST":
            await send_json(
                send,
                405,
                "Use GET to see the sign-in page or POST the password to it.",
                {"allow": "GET, HEAD, POST"},
            )
            return
        reading = BodyClock(receive, body_seconds(scope["path"]))
        try:
            form = await _read_form(reading.receive)
        except BodyTooSlow:
            await send_too_slow(send, reading.seconds)
            return
        if form is None:
            await send_json(send, 413, "A sign-in form is only a password; this one is too large.")
            return
        target = safe_next(form.get("next", target))
        verdict = await self._try_password(client_address(scope), form.get("password", ""))
        browser = "text/html" in _header(scope, b"accept")
        if isinstance(verdict, Lockout):
            if browser:
                await _page(send, 429, login_page(target, verdict.detail(client_address(scope))))
            else:
                await self._locked(scope, send, verdict)
            return
        if verdict != "ok":
            if browser:
                await _page(send, 401, login_page(target, WRONG_PASSWORD))
            else:
                await send_json(send, 401, WRONG_PASSWORD)
            return
        cookie = (
            f"{cookie_name(scope)}={self.auth.new_session()}; Path=/; Max-Age={SESSION_SECONDS}; "
            "Secure; HttpOnly; SameSite=Lax"
        )
        if browser:
            await _redirect(send, target, [("set-cookie", cookie)])
        else:  # gradio_client posts here and reads the cookie from a 2xx answer
            body = json.dumps({"success": True}).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"set-cookie", cookie.encode()),
                        (b"cache-control", b"no-store"),
                        (b"content-length", str(len(body)).encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})

    async def _logout(self, scope: Scope, send: Send) -> None:
        name = cookie_name(scope)
        token = cookie_parser(_header(scope, b"cookie")).get(name)
        if token:
            self.auth.end_session(token)
        await _redirect(
            send, LOGIN_PATH, [("set-cookie", f"{name}=; Path=/; Max-Age=0; Secure; HttpOnly; SameSite=Lax")]
        )


def _log_wrong_password(client: str, from_there: int, in_all: int) -> None:
    """One line per wrong password, one more when it starts a lock-out. The
    password tried is never logged: it may be the right one mistyped."""
    minutes = wait_words(ATTEMPT_WINDOW_SECONDS)
    log.warning(
        "LAN sign-in: wrong password from %s (%d of %d allowed from there, %d of %d from all addresses, "
        "in %s)", client, from_there, MAX_ATTEMPTS, in_all, MAX_GUESSES_IN_ALL, minutes,
    )
    if from_there >= MAX_ATTEMPTS:
        log.warning("LAN sign-in: %s is locked out after %d wrong passwords in %s", client, from_there, minutes)
    if in_all >= MAX_GUESSES_IN_ALL:
        log.warning(
            "LAN sign-in: password sign-in is paused for every address after %d wrong passwords in %s "
            "(the last from %s)", in_all, minutes, client,
        )


async def _read_form(receive: Receive) -> dict[str, str] | None:
    body = b""
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        body += message.get("body", b"")
        if len(body) > MAX_LOGIN_BODY:
            return None
        if not message.get("more_body"):
            break
    fields = urllib.parse.parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True)
    return {key: values[0] for key, values in fields.items()}


async def _redirect(send: Send, location: str, headers: list[tuple[str, str]] | None = None) -> None:
    raw = [
        (b"location", location.encode("latin-1", "replace")),
        (b"cache-control", b"no-store"),
        (b"content-length", b"0"),
    ]
    raw += [(k.encode(), v.encode("latin-1")) for k, v in headers or []]
    await send({"type": "http.response.start", "status": 303, "headers": raw})
    await send({"type": "http.response.body", "body": b""})


async def _page(send: Send, status: int, text: str) -> None:
    body = text.encode("utf-8")
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/html; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                (b"cache-control", b"no-store"),
                (b"x-frame-options", b"DENY"),
                (b"referrer-policy", b"same-origin"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def login_page(target: str, error: str = "") -> str:
    """A self-contained page (no scripts, no outside files) that fits a phone.
    It names no pet: whoever sees it has not signed in yet."""
    note = f'<p class="error" role="alert">{html.escape(error)}</p>' if error else ""
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in · 登录</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 0; min-height: 100vh; display: flex;
       align-items: center; justify-content: center; background: #fff7f2; color: #222; }}
form {{ box-sizing: border-box; width: min(22rem, 92vw); padding: 1.5rem; border-radius: 1rem;
        background: #fff; box-shadow: 0 2px 12px rgba(0,0,0,.12); }}
h1 {{ font-size: 1.4rem; margin: 0 0 1rem; }}
label {{ display: block; margin-bottom: .4rem; }}
input[type=password] {{ box-sizing: border-box; width: 100%; font-size: 1.1rem; padding: .7rem;
                        border: 1px solid #bbb; border-radius: .5rem; }}
button {{ margin-top: 1rem; width: 100%; font-size: 1.1rem; padding: .75rem; border: 0;
          border-radius: .5rem; background: #e4572e; color: #fff; }}
.error {{ color: #b00020; }}
.hint {{ font-size: .85rem; color: #555; }}
</style></head>
<body><form method="post" action="{LOGIN_PATH}">
<h1>{sign_in_heading()}</h1>
{note}
<input type="hidden" name="username" value="{USER}" autocomplete="username">
<input type="hidden" name="next" value="{html.escape(target)}">
<label for="password">Password · 密码</label>
<input id="password" name="password" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Sign in · 登录</button>
<p class="hint">The password was shown in the terminal where the pet started.
密码显示在启动宠物的终端里。</p>
</form></body></html>"""

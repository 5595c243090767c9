"""Which names the pet answers to, and which pages may change what it keeps.

DNS rebinding: a page on evil.example points its own name at 127.0.0.1 and
then talks to the pet as "evil.example"; to the browser that is the page's
own origin, so it could read and write everything. The pet therefore
answers only requests addressed (the Host header) to one of its own names:
the loopback names in local mode, the names and addresses in its
certificate in LAN mode.

A page elsewhere can still send a form or a fetch to 127.0.0.1 with the
right Host. The browser says where such a request comes from in the Origin
header (and Sec-Fetch-Site, which no page can set), so a request that
changes something and comes from another origin is refused, and no answer
tells the browser another origin may read it (CORS). Clients that are not
browsers (curl, gradio_client) send neither header.

Under `Referrer-Policy: no-referrer` a browser sends `Origin: null` even
with a form a page posts to itself (the sign-in form), so the pet's pages
say `same-origin` (still no referrer to other sites), and a "null" passes
only when Sec-Fetch-Site says the request is same-origin.
"""

from __future__ import annotations

import ipaddress
import re
import urllib.parse
from collections.abc import Iterable
from dataclasses import dataclass

from pet.api.limits import ASGIApp, Message, Receive, Scope, Send

#: the names of this machine's loopback address that the pet answers to in local mode
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
#: methods that change something; with another origin's Origin header they are refused
STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: CORS headers that would let another origin's page read an answer
CORS_GRANTS = frozenset({b"access-control-allow-origin", b"access-control-allow-credentials"})
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
#: what the bind address means when it names no one address
_ANY_ADDRESS = ("", "0.0.0.0", "::")
#: a DNS name as a Host header may carry one
_NAME = re.compile(r"[a-z0-9_-]+(\.[a-z0-9_-]+)*\.?")


def normal_host(host: str) -> str | None:
    """A host name in one spelling: lower case, an IP address as Python
    writes it, IPv6 without brackets. None when it cannot be a host."""
    host = host.strip().lower()
    if host.startswith("[") and host.endswith("]"):
        try:
            return str(ipaddress.IPv6Address(host[1:-1]))
        except ValueError:
            return None
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        pass
    return host if _NAME.fullmatch(host) else None


def split_host_header(value: str) -> tuple[str, int | None] | None:
    """'[::1]:7860' -> ('::1', 7860); 'LocalHost' -> ('localhost', None); None when malformed."""
    value = value.strip()
    if value.startswith("["):
        end = value.find("]")
        host, rest = value[: end + 1], value[end + 1 :]
        if end < 0 or (rest and not rest.startswith(":")):
            return None
        port_text = rest[1:]
    else:
        host, _, port_text = value.partition(":")
        if ":" in port_text:  # a bare IPv6 address is not a Host header
            return None
    name = normal_host(host)
    if name is None:
        return None
    if not port_text:
        return name, None
    if not port_text.isascii() or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        return None
    return name, int(port_text)


def display(name: str) -> str:
    return f"[{name}]" if ":" in name else name


@dataclass(frozen=True)
class AcceptedHosts:
    """The names a request may address the pet by."""

    names: frozenset[str]

    @classmethod
    def of(cls, names: Iterable[str]) -> AcceptedHosts:
        return cls(frozenset(n for n in (normal_host(name) for name in names) if n))

    def accepts(self, host: str) -> bool:
        return host in self.names

    def words(self) -> str:
        """'127.0.0.1, localhost or [::1]'"""
        shown = [display(name) for name in sorted(self.names, key=_order)]
        return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"


def _order(name: str) -> tuple[int, str]:
    loopback = LOOPBACK_NAMES.index(name) if name in LOOPBACK_NAMES else len(LOOPBACK_NAMES)
    return loopback, name


def accepted_hosts(
    bind: str, certificate_names: Iterable[str] = (), certificate_ips: Iterable[object] = ()
) -> AcceptedHosts:
    """Local mode (no certificate): the loopback names. LAN mode: the names
    and addresses in the certificate. Either way also the address the server
    is bound to, when it is one address."""
    names = [*certificate_names, *(str(ip) for ip in certificate_ips)] or list(LOOPBACK_NAMES)
    if bind not in _ANY_ADDRESS:
        names.append(bind)
    return AcceptedHosts.of(names)


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value.decode("latin-1")
    return None


class HostCheck:
    """Refuses a request addressed to a name that is not the pet's (421), and
    a state-changing request or a WebSocket from another origin (403); strips
    CORS grants from answers to another origin."""

    def __init__(self, app: ASGIApp, *, hosts: AcceptedHosts):
        self.app = app
        self.hosts = hosts

    def wrong_host(self) -> str:
        return (
            f"This pet answers only to the host names {self.hosts.words()}: "
            "open it by one of those (for example http://127.0.0.1:<port>/)."
        )

    def foreign_origin(self) -> str:
        return "Refused: a page from another site may not change anything here. Open the pet's own page."

    def is_foreign(self, scope: Scope) -> bool:
        """The browser says the request comes from a page of another origin."""
        site = _header(scope, b"sec-fetch-site")
        if site in ("cross-site", "same-site"):  # same-site: say, another port of this host
            return True
        origin = _header(scope, b"origin")
        if origin is None:
            return False
        if origin.strip() == "null":
            return site != "same-origin"
        return not self.is_own_origin(origin, scope)

    def is_own_origin(self, origin: str, scope: Scope) -> bool:
        """The Origin names one of the pet's hosts and the port it listens on."""
        try:
            parts = urllib.parse.urlsplit(origin.strip())
            port = parts.port or _DEFAULT_PORTS.get(parts.scheme)
        except ValueError:
            return False
        host = normal_host(parts.hostname or "")
        if host is None or not self.hosts.accepts(host) or parts.scheme not in _DEFAULT_PORTS:
            return False
        server = scope.get("server")
        return server is None or server[1] == port

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)  # lifespan
            return
        host = split_host_header(_header(scope, b"host") or "")
        if host is None or not self.hosts.accepts(host[0]):
            await self._refuse(scope, send, 421, self.wrong_host())
            return
        foreign = self.is_foreign(scope)
        if foreign and (kind == "websocket" or scope["method"] in STATE_CHANGING):
            await self._refuse(scope, send, 403, self.foreign_origin())
            return
        if not foreign:
            await self.app(scope, receive, send)
            return

        async def without_grants(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() not in CORS_GRANTS]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, without_grants)

    async def _refuse(self, scope: Scope, send: Send, status: int, text: str) -> None:
        if scope["type"] == "websocket":  # closed before the handshake: the client sees 403
            await send({"type": "websocket.close", "code": 1008, "reason": text[:120]})
            return
        body = text.encode("utf-8")
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()),
                    (b"cache-control", b"no-store"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

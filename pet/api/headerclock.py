"""Request headers must arrive whole in time.

uvicorn lets a client send its headers as slowly as it likes: one byte a
second keeps a connection (and a slot of the machine) for hours, and its
keep-alive timer is reset by every byte. This protocol closes a connection
whose request headers are not complete within HEADER_SECONDS of the
connection opening or of the previous answer.

The same clock covers what is left of a body after its answer: a route that
answers without reading the body (a 404, a refusal, a bad upload) would
otherwise let the client trickle the rest for ever, since BodyLimit's clock
only runs while the app reads.
"""

from __future__ import annotations

import asyncio

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

#: the request line and headers must be complete within this many seconds
HEADER_SECONDS = 10.0


class HeaderClockProtocol(H11Protocol):
    _header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._start_header_clock()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._start_header_clock()  # the next request on this connection gets its own time

    def connection_lost(self, exc: Exception | None) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
        super().connection_lost(exc)

    def _start_header_clock(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
        self._header_timer = self.loop.call_later(HEADER_SECONDS, self._headers_too_slow)

    def _headers_too_slow(self) -> None:
        if self.transport.is_closing():
            return
        # IDLE: h11 has not yet seen a whole request line and headers.
        waiting_for_headers = self.conn.their_state is h11.IDLE
        # Answered, yet the client is still sending that request's body.
        answered_mid_body = self.conn.their_state is h11.SEND_BODY and self.conn.our_state in (
            h11.DONE,
            h11.MUST_CLOSE,
        )
        if waiting_for_headers or answered_mid_body:
            self.transport.close()

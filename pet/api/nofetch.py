"""The pet never fetches from elsewhere on a request's behalf.

Gradio's file route serves an http(s) URL by fetching it itself
(`/gradio_api/file=https://…`): a DNS lookup and a connection to any public
address, whoever asked. The pet's page only ever loads its own files, so
such a request is refused before Gradio sees it.
"""

from __future__ import annotations

import re

from pet.api.limits import ASGIApp, Receive, Scope, Send, send_json

#: Gradio's file routes (the current one and the older "/file/") given a URL
#: instead of a path (the path is %-decoded already), and its proxy route,
#: which the pet never uses
REMOTE_FILE = re.compile(r"^/gradio_api/(?:(?:file=|file/)\s*https?:|proxy=)", re.IGNORECASE)


class NoRemoteFiles:
    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and REMOTE_FILE.match(scope["path"]):
            await send_json(send, 403, "The pet serves its own files only; it fetches nothing from elsewhere.")
            return
        await self.app(scope, receive, send)

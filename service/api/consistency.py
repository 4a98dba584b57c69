"""The X-Engram-Bookmark header: a GraphQL or MCP request that carries the bookmark an add
returned reads after that write, whichever process or cluster member answers (docs/cluster.md).
"""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from service.core.bookmarks import HEADER, reading_after


class ReadAfterBookmark:
    """ASGI middleware: the request's queries wait for the header's bookmark. A malformed one
    is answered by the request's own typed error (GraphQL InvalidInput), not a bare 400."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        token = Headers(scope=scope).get(HEADER) if scope["type"] == "http" else None
        if not token:
            await self.app(scope, receive, send)
            return
        with reading_after(token):
            await self.app(scope, receive, send)

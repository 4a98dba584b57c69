"""Admission: at most Settings.max_requests_in_flight GraphQL and MCP requests run at once in a
process, each under a deadline of Settings.request_timeout_s (service/core/deadline.py).

Past the limit a request is refused at once (503 with Retry-After) instead of waiting its turn:
a queue only adds its wait to every answer, while a client told "busy" can back off or try
another process. /healthz, /metrics and static files are never limited, so a busy process
still reports its health.
"""

from __future__ import annotations

from enum import StrEnum

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from service.core.config import Settings
from service.core.deadline import deadline_after
from service.observability.metrics import ErrorKind, Metrics


class Surface(StrEnum):
    """The limited endpoints, named as the metrics' ``surface`` label names them."""

    GRAPHQL = "graphql"
    MCP = "mcp"


def limited_surface(scope: Scope) -> Surface | None:
    """Which limited endpoint an ASGI request is for, or None for the unlimited rest."""
    if scope["type"] != "http":
        return None
    path: str = scope["path"]
    if path == "/graphql" or path.startswith("/graphql/"):
        return Surface.GRAPHQL
    if path == "/mcp":
        return Surface.MCP
    return None


def busy_response(surface: Surface, settings: Settings) -> JSONResponse:
    """503 with Retry-After, and a body the surface's clients read as an error: GraphQL's
    ``errors`` list, or a JSON-RPC error for MCP, both named Busy as the metrics name it."""
    message = (
        f"{ErrorKind.BUSY}: this process already runs {settings.max_requests_in_flight} "
        f"requests; retry in {settings.busy_retry_after_s} s"
    )
    body: dict[str, object]
    if surface is Surface.GRAPHQL:
        extensions = {"code": ErrorKind.BUSY.value, "retryAfter": settings.busy_retry_after_s}
        body = {"data": None, "errors": [{"message": message, "extensions": extensions}]}
    else:
        body = {"jsonrpc": "2.0", "id": None, "error": {"code": -32000, "message": message}}
    headers = {"Retry-After": str(settings.busy_retry_after_s)}
    return JSONResponse(body, status_code=503, headers=headers)


class AdmissionLimit:
    """ASGI middleware: the in-flight limit and the per-request deadline of the module doc."""

    def __init__(self, app: ASGIApp, settings: Settings, metrics: Metrics) -> None:
        self.app = app
        self.settings = settings
        self.metrics = metrics
        self.in_flight = 0  # one event loop: no await between the check and the increment

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        surface = limited_surface(scope)
        if surface is None:
            await self.app(scope, receive, send)
            return
        limit = self.settings.max_requests_in_flight
        if limit and self.in_flight >= limit:
            self.metrics.count_error(surface, ErrorKind.BUSY)
            await busy_response(surface, self.settings)(scope, receive, send)
            return
        self.in_flight += 1
        self.metrics.requests_in_flight.set(self.in_flight)
        try:
            with deadline_after(self.settings.request_timeout_s or None):
                await self.app(scope, receive, send)
        finally:
            self.in_flight -= 1
            self.metrics.requests_in_flight.set(self.in_flight)

"""The two ways to reach Engram's MCP tools.

- stdio (`engram mcp`), for desktop agents: one process per agent, its own Memory, and one
  configured scope (ENGRAM_MCP_USER_ID / _AGENT_ID / _RUN_ID) as the principal, so a tool can
  name ids inside that scope but never outside it.
- streamable HTTP at /mcp on the API app: the same API keys (X-API-Key) as GraphQL, checked
  before the MCP transport sees the request (401 without a valid key, unless
  ENGRAM_AUTH_MODE=local). Stateless, JSON responses: any API process behind a load balancer
  answers any call, as for GraphQL (docs/DESIGN.md, "Scale beyond one machine").
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, cast

from fastapi import FastAPI, HTTPException
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from service.core.auth import ANY, Principal, authenticate
from service.core.config import Settings
from service.core.errors import ConfigurationError
from service.mcp.metrics import ToolMetrics
from service.mcp.tools import Binding, build_server
from service.memory import MemoryService
from service.observability.metrics import Metrics
from service.observability.tracing import start_tracing

MCP_PATH = "/mcp"
# Where the API key gate leaves the principal for the tools (the request's ASGI scope state).
PRINCIPAL_STATE = "engram_principal"


def stdio_principal(settings: Settings) -> Principal:
    """The configured scope as a principal; refuse to run stdio without one."""
    ids = {
        "user_ids": settings.mcp_user_id,
        "agent_ids": settings.mcp_agent_id,
        "run_ids": settings.mcp_run_id,
    }
    if not any(ids.values()):
        raise ConfigurationError(
            "`engram mcp` serves one scope: set ENGRAM_MCP_USER_ID "
            "(and/or ENGRAM_MCP_AGENT_ID, ENGRAM_MCP_RUN_ID)"
        )
    allowed = {field: frozenset({value or ANY}) for field, value in ids.items()}
    return Principal(settings.mcp_principal, **allowed)


def stdio_server(settings: Settings) -> MCPServer[Any]:
    """The tools for one agent over stdio; the server starts and closes its own Memory."""
    principal = stdio_principal(settings)
    tracer_provider = start_tracing(settings)  # None unless ENGRAM_OTEL_ENABLED=true

    @asynccontextmanager
    async def lifespan(_: MCPServer[Any]) -> AsyncIterator[MemoryService]:
        memory = await MemoryService.start(settings)
        if settings.pending_worker:
            memory.start_worker()  # deferred adds (ingest/deferred.py)
        try:
            yield memory
        finally:
            await memory.close(grace_s=settings.shutdown_grace_s)
            if tracer_provider is not None:
                tracer_provider.shutdown()

    def memory_of(ctx: Context) -> MemoryService:
        return cast(MemoryService, ctx.request_context.lifespan_context)  # what lifespan yielded

    return build_server(Binding(memory_of, lambda _: principal), lifespan)


def mount_http(
    app: FastAPI, settings: Settings, metrics: Metrics | None = None
) -> StreamableHTTPSessionManager:
    """Serve the tools at /mcp on ``app``; run the returned manager in the app's lifespan."""

    def memory_of(_: Context) -> MemoryService:
        memory: MemoryService = app.state.memory
        return memory

    extensions = [ToolMetrics(metrics)] if metrics else []
    server = build_server(Binding(memory_of, principal_of_request), extensions=extensions)
    # DNS-rebinding protection on a loopback host, as the SDK sets it for its own apps.
    mcp_app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        stateless_http=True,
        json_response=True,
        host=settings.api_host,
    )
    # A Route (not a Mount) so that the endpoint is /mcp itself, not /mcp/ behind a redirect.
    app.router.routes.append(Route(MCP_PATH, endpoint=ApiKeyGate(mcp_app, settings)))
    return server.session_manager


def principal_of_request(ctx: Context) -> Principal:
    """The principal the API key gate found for this HTTP request."""
    request = ctx.request_context.request
    if not isinstance(request, Request):  # only the HTTP transport binds this
        raise TypeError("principal_of_request needs an HTTP request")
    principal: Principal = request.scope["state"][PRINCIPAL_STATE]
    return principal


class ApiKeyGate:
    """Refuses an MCP request without a valid X-API-Key with 401, as GraphQL does, and hands
    the key's principal to the tools through the request's state."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            try:
                principal = authenticate(self.settings, Headers(scope=scope).get("X-API-Key"))
            except HTTPException as e:
                await JSONResponse({"detail": e.detail}, e.status_code)(scope, receive, send)
                return
            state: dict[str, Any] = scope.setdefault("state", {})
            state[PRINCIPAL_STATE] = principal
        await self.app(scope, receive, send)

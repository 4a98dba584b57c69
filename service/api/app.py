"""The FastAPI app: GraphQL at /graphql (GraphiQL in a browser), MCP at /mcp, health at /healthz.

GraphiQL's own files are served under /graphiql-assets/, so it works offline (docs/graphiql.md).

The memory dashboard at /dashboard, its files under /dashboard-assets/ (docs/dashboard.md).

Also Engram's Neo4j Browser guide and style under /neo4j-browser/ (docs/browser.md).
"""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Annotated, Any

from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.responses import FileResponse, JSONResponse
from starlette.applications import Starlette
from starlette.middleware.cors import CORSMiddleware
from starlette.routing import Route
from starlette.types import ASGIApp

from service.api.admission import Admission, AdmissionLimit
from service.api.auth import principal_from
from service.api.consistency import ReadAfterBookmark
from service.api.context import RequestContext
from service.api.dashboard_page import (
    DASHBOARD_ASSETS_ROUTE,
    DASHBOARD_ROUTE,
    dashboard,
    dashboard_assets,
)
from service.api.export import download
from service.api.graphiql import GRAPHIQL_ASSETS_ROUTE, OfflineGraphQLRouter, graphiql_assets
from service.api.metrics import metrics_endpoint, observe
from service.api.offline_assets import FAVICON_ROUTES, favicon
from service.api.schema import build_schema
from service.core.auth import Principal
from service.core.config import Settings, get_settings
from service.core.errors import DatabaseUnavailableError
from service.core.export_records import EXPORT_ROUTE
from service.lifecycle.reembed import recheck_if_pending
from service.mcp.transports import mount_http
from service.memory import MemoryService
from service.observability.logs import RequestIdMiddleware, configure_logging
from service.observability.metrics import Metrics
from service.observability.tracing import start_tracing
from service.store.local_server import (
    BROWSER_ASSETS,
    BROWSER_ASSETS_ROUTE,
    BROWSER_GUIDE,
    BROWSER_STYLE,
)

_BROWSER_MEDIA_TYPES = {
    BROWSER_GUIDE: "text/html; charset=utf-8",
    BROWSER_STYLE: "text/plain; charset=utf-8",
}


def create_app_from_environment() -> FastAPI:
    """The app of one `engram serve --workers N` process, from the settings it reads itself."""
    return create_app(get_settings())


def create_app(settings: Settings, memory: MemoryService | None = None) -> FastAPI:
    """Build the app; it starts (and closes) its own Memory unless one is handed in."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        try:
            # /mcp answers only while its session manager runs.
            async with mcp_sessions.run(), _memory_served(app, settings, memory, metrics):
                yield
        finally:
            if tracer_provider is not None:
                tracer_provider.shutdown()  # exports the spans still buffered

    configure_logging(settings.log_format)  # before the MCP server, whose SDK configures too
    metrics = Metrics()  # this app's own registry (docs/metrics.md)
    tracer_provider = start_tracing(settings)  # None unless ENGRAM_OTEL_ENABLED=true
    app = FastAPI(title="Engram", lifespan=lifespan)
    app.state.settings = settings
    app.state.metrics = metrics
    if memory is not None:
        app.state.memory = memory
        observe(memory, metrics)
    router = OfflineGraphQLRouter(build_schema(settings, metrics), context_getter=request_context)
    app.include_router(router, prefix="/graphql")
    _mount_pages(app)
    mcp_sessions = mount_http(app, settings, metrics)  # the MCP tools at /mcp (docs/mcp.md)
    app.add_api_route("/metrics", metrics_endpoint(settings, metrics), include_in_schema=False)
    app.add_api_route("/healthz", healthz, methods=["GET"])
    # A scope's export file, linked by GraphQL's `export` (docs/export.md).
    app.add_api_route(EXPORT_ROUTE, download, methods=["GET"], include_in_schema=False)
    app.state.admission = Admission(settings, metrics)  # also read by the door (api/door.py)
    app.add_middleware(AdmissionLimit, admission=app.state.admission)  # docs/operations.md
    app.add_middleware(ReadAfterBookmark)  # X-Engram-Bookmark (docs/cluster.md)
    app.add_middleware(RequestIdMiddleware)
    return app


@asynccontextmanager
async def _memory_served(
    app: FastAPI, settings: Settings, memory: MemoryService | None, metrics: Metrics
) -> AsyncIterator[None]:
    """The app's MemoryService while it serves: the caller's (tests, embedding in another
    app), or one it starts and closes itself."""
    if memory is not None:
        yield
        return
    app.state.memory = await MemoryService.start(settings)
    observe(app.state.memory, metrics)
    if settings.pending_worker:
        app.state.memory.start_worker()  # deferred adds (ingest/deferred.py)
    if settings.neo4j_watch_s:
        app.state.memory.watch_neo4j()  # search warmed up after a Neo4j restart
    # What start loaded (the models: ~290k objects) lives as long as the process; frozen, it
    # is left out of every full collection, which otherwise walks it in a pause that falls on
    # whichever request triggers it (bench/gc_pause.py).
    gc.freeze()
    try:
        yield
    finally:
        # Requests in flight have had their grace (uvicorn); pending work gets its own.
        await app.state.memory.close(grace_s=settings.shutdown_grace_s)
        gc.unfreeze()  # a closed Memory (an app started again in one process) can go


async def request_context(
    request: Request, principal: Annotated[Principal, Depends(principal_from)]
) -> RequestContext:
    """Each GraphQL request's context: the app's MemoryService and the key's principal."""
    return RequestContext(request.app.state.memory, principal)


def _mount_pages(app: FastAPI) -> None:
    """GraphiQL's and the dashboard's files, and Neo4j Browser's guide, served offline."""
    for route in FAVICON_ROUTES:
        app.add_route(route, favicon, include_in_schema=False)
    app.mount(GRAPHIQL_ASSETS_ROUTE, graphiql_assets(), name="graphiql-assets")
    app.mount(BROWSER_ASSETS_ROUTE, _browser_assets(), name="neo4j-browser")
    app.add_route(DASHBOARD_ROUTE, dashboard, include_in_schema=False)
    app.mount(DASHBOARD_ASSETS_ROUTE, dashboard_assets(), name="dashboard-assets")


async def healthz(request: Request) -> JSONResponse:
    """Neo4j up or down (503); once it answers, the embeddings' state and the deferred adds
    waiting in the whole database."""
    memory: MemoryService = request.app.state.memory
    up = await memory.db.ping()
    request.app.state.metrics.neo4j_up.set(1 if up else 0)
    body: dict[str, Any] = {
        "status": "ok" if up else "unavailable",
        "neo4j": "up" if up else "down",
        "uri": memory.db.uri,
    }
    if not up:
        body["detail"] = f"Neo4j at {memory.db.uri} does not answer"
    else:
        if memory.warm_up_watch is not None:  # docs/operations.md, "After a crash"
            body["search"] = "warming up" if memory.warm_up_watch.warming else "warm"
        if (embeddings := await _embeddings_health(memory)) is not None:
            body["embeddings"] = embeddings
        with suppress(DatabaseUnavailableError):
            pending = await memory.deferred.work(None)
            request.app.state.metrics.show_pending(pending)
            body["pending"] = pending.model_dump()
    return JSONResponse(body, status_code=200 if up else 503)


def _browser_assets() -> ASGIApp:
    """The guide and style files, readable by Neo4j Browser's page (another origin)."""

    async def asset(request: Request) -> FileResponse:
        name = request.path_params["name"]
        if name not in _BROWSER_MEDIA_TYPES:
            raise HTTPException(status_code=404)
        return FileResponse(BROWSER_ASSETS / name, media_type=_BROWSER_MEDIA_TYPES[name])

    # Public, static files: any origin may read them (Browser's own origin depends on the
    # Neo4j in use), sending any header: Browser's fetches add Cache-Control, Pragma and its
    # error reporter's sentry-trace, so they are preflighted, and a header refused fails them.
    return CORSMiddleware(
        Starlette(routes=[Route("/{name}", asset)]),
        allow_origins=["*"],
        allow_methods=["GET"],
        allow_headers=["*"],
    )


async def _embeddings_health(memory: MemoryService) -> dict[str, Any] | None:
    """The embedding model and how many memories still need `engram reembed`."""
    if memory.embedding_status is None:  # a Memory built without start(): never checked
        return None
    with suppress(DatabaseUnavailableError):  # then the last known status is the best answer
        memory.embedding_status = await recheck_if_pending(
            memory.embedding_status, memory.db, memory.embedder
        )
    status = memory.embedding_status
    return {
        "model": status.model,
        "stale": status.stale,
        "dimensions": status.dimensions,
        "index_dimensions": status.index_dimensions,
        "checked_at": status.checked_at.isoformat(),
    }

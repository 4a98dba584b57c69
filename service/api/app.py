"""The FastAPI app: GraphQL at /graphql (GraphiQL in a browser), health at /healthz."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from strawberry.fastapi import GraphQLRouter

from service.api.schema import schema
from service.config import Settings
from service.memory import Memory


def create_app(settings: Settings, memory: Memory | None = None) -> FastAPI:
    """Build the app; it starts (and closes) its own Memory unless one is handed in."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if memory is not None:  # the caller owns it (tests, embedding in another app)
            yield
            return
        app.state.memory = await Memory.start(settings)
        try:
            yield
        finally:
            await app.state.memory.close()

    app = FastAPI(title="Engram", lifespan=lifespan)
    if memory is not None:
        app.state.memory = memory

    async def context(request: Request) -> dict[str, Any]:
        return {"memory": request.app.state.memory, "request": request}

    app.include_router(GraphQLRouter(schema, context_getter=context), prefix="/graphql")

    @app.get("/healthz")
    async def healthz(request: Request) -> JSONResponse:
        db = request.app.state.memory.db
        up = await db.ping()
        body = {"status": "ok" if up else "unavailable", "neo4j": "up" if up else "down",
                "uri": db.uri}  # fmt: skip
        if not up:
            body["detail"] = f"Neo4j at {db.uri} does not answer"
        return JSONResponse(body, status_code=200 if up else 503)

    return app

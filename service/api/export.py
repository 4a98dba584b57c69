"""Export of one scope over HTTP (docs/export.md): GraphQL's `export(scope)` answers the counts
and the download's link; `GET /export?userId=…` streams the JSON Lines file, behind the same
X-API-Key and scope check as /graphql, so a dashboard and an agent download alike.

The download is read a page at a time while it is sent, so a large scope never sits in memory;
it is not admission-limited nor under the request deadline (a large scope takes minutes). A
download cut short lacks its end record, and `engram import` refuses it.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Annotated
from urllib.parse import urlencode

import pydantic
import strawberry
from fastapi import HTTPException, Query, Request
from fastapi.responses import StreamingResponse
from strawberry.types import Info

from service.api.auth import scope_for
from service.api.context import RequestContext
from service.api.types import (
    DatabaseUnavailable,
    Forbidden,
    InvalidInput,
    NotFound,
    ScopeInput,
    TimedOut,
    problem,
)
from service.core import domain
from service.core.auth import authenticate, authorize
from service.core.errors import EngramError, ForbiddenError
from service.core.export_records import EXPORT_ROUTE, FORMAT, MEDIA_TYPE, VERSION, to_line
from service.core.export_records import ExportCounts as StoredCounts
from service.memory import MemoryService

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@strawberry.type(description="How many records of each kind an export of the scope holds.")
class ExportCounts:
    messages: int
    memories: int
    entities: int
    mentions: int
    relations: int
    supersessions: int
    memory_events: int
    read_events: int


@strawberry.type(
    description="An export of one scope (docs/export.md): GET `url` with the same X-API-Key "
    "to download it as JSON Lines; `engram import` restores it."
)
class ScopeExport:
    url: str = strawberry.field(description="The download, relative to this service's root.")
    filename: str
    media_type: str
    format: str
    version: int
    counts: ExportCounts

    @classmethod
    def of(cls, scope: domain.Scope, counts: StoredCounts) -> ScopeExport:
        return cls(
            url=export_url(scope),
            filename=export_filename(scope),
            media_type=MEDIA_TYPE,
            format=FORMAT,
            version=VERSION,
            counts=ExportCounts(**counts.model_dump()),
        )


ExportResult = Annotated[
    ScopeExport | InvalidInput | DatabaseUnavailable | TimedOut | NotFound | Forbidden,
    strawberry.union("ExportResult"),
]


@strawberry.type
class ExportQuery:
    @strawberry.field(
        description="The counts of an export of the scope and the link that downloads it."
    )
    async def export(self, info: Info[RequestContext, None], scope: ScopeInput) -> ExportResult:
        try:
            whose = scope_for(info, scope)
            memory: MemoryService = info.context.memory
            counts = await memory.export_counts(whose)
        except EngramError as e:
            return problem(e)
        return ScopeExport.of(whose, counts)


def export_url(scope: domain.Scope) -> str:
    ids = {"userId": scope.user_id, "agentId": scope.agent_id, "runId": scope.run_id}
    return f"{EXPORT_ROUTE}?{urlencode({k: v for k, v in ids.items() if v is not None})}"


def export_filename(scope: domain.Scope) -> str:
    """engram-user-alice.jsonl: the scope's ids, with anything but [A-Za-z0-9._-] as "_"."""
    ids = [("user", scope.user_id), ("agent", scope.agent_id), ("run", scope.run_id)]
    parts = [f"{kind}-{_UNSAFE.sub('_', value)}" for kind, value in ids if value is not None]
    return f"engram-{'-'.join(parts)}.jsonl"


async def download(
    request: Request,
    user_id: Annotated[str | None, Query(alias="userId")] = None,
    agent_id: Annotated[str | None, Query(alias="agentId")] = None,
    run_id: Annotated[str | None, Query(alias="runId")] = None,
) -> StreamingResponse:
    """GET /export: the scope as JSON Lines, for the key's principal (401, 403 as /graphql)."""
    principal = authenticate(request.app.state.settings, request.headers.get("X-API-Key"))
    try:
        asked = domain.Scope(user_id=user_id, agent_id=agent_id, run_id=run_id)
        scope = authorize(principal, asked)
    except pydantic.ValidationError as e:
        raise HTTPException(status_code=400, detail=f"scope: {e.errors()[0]['msg']}") from e
    except ForbiddenError as e:
        raise HTTPException(status_code=403, detail=str(e)) from e
    memory: MemoryService = request.app.state.memory
    if not await memory.db.ping():  # a 503 now, rather than a stream cut after its headers
        raise HTTPException(status_code=503, detail=f"Neo4j at {memory.db.uri} does not answer")
    return StreamingResponse(
        _lines(memory, scope, principal.name),
        media_type=MEDIA_TYPE,
        headers={"Content-Disposition": f'attachment; filename="{export_filename(scope)}"'},
    )


async def _lines(memory: MemoryService, scope: domain.Scope, actor: str) -> AsyncIterator[str]:
    async for record in memory.export(scope, actor=actor):
        yield to_line(record)

"""The strawberry schema: resolvers translate GraphQL input to the Memory use cases."""

from __future__ import annotations

from datetime import datetime
from functools import partial
from typing import Annotated, Any

import pydantic
import strawberry
from strawberry.extensions import MaskErrors, QueryDepthLimiter
from strawberry.types import Info

from service import domain
from service.api.types import (
    AddMessagesSuccess,
    DatabaseUnavailable,
    InvalidInput,
    MemoryHit,
    MessageInput,
    NotFound,
    ScopeInput,
    SearchHits,
    TimeFilterInput,
    problem,
)
from service.errors import EngramError, ValidationError
from service.memory import Memory as MemoryService

AddMessagesResult = Annotated[
    AddMessagesSuccess | InvalidInput | DatabaseUnavailable | NotFound,
    strawberry.union("AddMessagesResult"),
]
SearchResult = Annotated[
    SearchHits | InvalidInput | DatabaseUnavailable | NotFound, strawberry.union("SearchResult")
]


def service(info: Info[Any, None]) -> MemoryService:
    memory: MemoryService = info.context["memory"]
    return memory


def to_options(**values: Any) -> domain.SearchOptions:
    try:
        return domain.SearchOptions(**values)
    except pydantic.ValidationError as e:
        first = e.errors()[0]
        raise ValidationError(f"{'.'.join(map(str, first['loc']))}: {first['msg']}") from e


def to_scope(scope: ScopeInput) -> domain.Scope:
    try:
        return domain.Scope(user_id=scope.user_id, agent_id=scope.agent_id, run_id=scope.run_id)
    except pydantic.ValidationError as e:
        raise ValidationError(f"scope: {e.errors()[0]['msg']}") from e


@strawberry.type
class Query:
    @strawberry.field(description="Memories closest in meaning to the query, within one scope.")
    async def search(
        self,
        info: Info[Any, None],
        query: str,
        scope: ScopeInput,
        limit: int = 10,
        when: TimeFilterInput | None = None,
        as_of: datetime | None = None,
    ) -> SearchResult:
        try:
            options = to_options(limit=limit, when=when.to_domain() if when else None, as_of=as_of)
            hits = await service(info).search(query, to_scope(scope), options=options)
        except EngramError as e:
            return problem(e)
        return SearchHits(hits=[MemoryHit.of(h) for h in hits])


@strawberry.type
class Mutation:
    @strawberry.mutation(description="Store conversation messages; a repeat writes nothing new.")
    async def add_messages(
        self, info: Info[Any, None], messages: list[MessageInput], scope: ScopeInput
    ) -> AddMessagesResult:
        raw = [
            {"content": m.content, "role": m.role.value, "speaker": m.speaker,
             "timestamp": m.timestamp, "id": m.id, "session_id": m.session_id}
            for m in messages
        ]  # fmt: skip
        try:
            result = await service(info).add(raw, to_scope(scope))
        except EngramError as e:
            return problem(e)
        return AddMessagesSuccess(
            message_ids=result.message_ids,
            added=[strawberry.ID(i) for i in result.added],
            updated=[strawberry.ID(i) for i in result.updated],
            superseded=[strawberry.ID(i) for i in result.superseded],
            unchanged=[strawberry.ID(i) for i in result.unchanged],
        )


schema = strawberry.Schema(
    query=Query,
    mutation=Mutation,
    extensions=[partial(QueryDepthLimiter, max_depth=10), MaskErrors],
)

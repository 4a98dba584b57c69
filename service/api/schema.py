"""The strawberry schema: resolvers translate GraphQL input to the Memory use cases."""

from __future__ import annotations

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
    Memory,
    MemoryHit,
    MessageInput,
    NotFound,
    ScopeInput,
    SearchHits,
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


def to_scope(scope: ScopeInput) -> domain.Scope:
    try:
        return domain.Scope(user_id=scope.user_id, agent_id=scope.agent_id, run_id=scope.run_id)
    except pydantic.ValidationError as e:
        raise ValidationError(f"scope: {e.errors()[0]['msg']}") from e


@strawberry.type
class Query:
    @strawberry.field(description="Memories closest in meaning to the query, within one scope.")
    async def search(
        self, info: Info[Any, None], query: str, scope: ScopeInput, limit: int = 10
    ) -> SearchResult:
        try:
            if not 1 <= limit <= 200:
                raise ValidationError("limit must be between 1 and 200")
            hits = await service(info).search(query, to_scope(scope), limit)
        except EngramError as e:
            return problem(e)
        return SearchHits(hits=[MemoryHit(memory=Memory.of(h.memory), score=h.score) for h in hits])


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
            unchanged=[strawberry.ID(i) for i in result.unchanged],
        )


schema = strawberry.Schema(
    query=Query,
    mutation=Mutation,
    extensions=[partial(QueryDepthLimiter, max_depth=10), MaskErrors],
)

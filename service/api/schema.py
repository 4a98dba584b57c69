"""The strawberry schema: resolvers translate GraphQL input to the Memory use cases."""

from __future__ import annotations

from datetime import datetime
from functools import partial
from typing import Annotated

import pydantic
import strawberry
from graphql import GraphQLError
from strawberry.extensions import (
    AddValidationRules,
    MaskErrors,
    MaxAliasesLimiter,
    MaxTokensLimiter,
    ParserCache,
    QueryDepthLimiter,
    ValidationCache,
)
from strawberry.tools import merge_types
from strawberry.types import Info

from service.api.audit import AuditQuery, ReadAuditExtension
from service.api.auth import actor, scope_for
from service.api.context import RequestContext
from service.api.dashboard import DashboardQuery
from service.api.export import ExportQuery
from service.api.graph import GraphQuery
from service.api.lifecycle import LifecycleMutation, LifecycleQuery
from service.api.metrics import GraphQLMetrics
from service.api.profile import ProfileQuery
from service.api.tracing import GraphQLTracing
from service.api.types import (
    AddMessagesSuccess,
    AddMode,
    Context,
    DatabaseUnavailable,
    Forbidden,
    InvalidInput,
    MemoryHit,
    MessageInput,
    NotFound,
    PendingWork,
    ScopeInput,
    SearchHits,
    TimedOut,
    TimeFilterInput,
    problem,
)
from service.core import domain
from service.core.config import Settings
from service.core.errors import DatabaseUnavailableError, EngramError, ValidationError
from service.memory import MemoryService
from service.observability import tracing
from service.observability.metrics import Metrics

AddMessagesResult = Annotated[
    AddMessagesSuccess | InvalidInput | DatabaseUnavailable | TimedOut | NotFound | Forbidden,
    strawberry.union("AddMessagesResult"),
]
ContextResult = Annotated[
    Context | InvalidInput | DatabaseUnavailable | TimedOut | NotFound | Forbidden,
    strawberry.union("ContextResult"),
]
PendingWorkResult = Annotated[
    PendingWork | InvalidInput | DatabaseUnavailable | TimedOut | NotFound | Forbidden,
    strawberry.union("PendingWorkResult"),
]
SearchResult = Annotated[
    SearchHits | InvalidInput | DatabaseUnavailable | TimedOut | NotFound | Forbidden,
    strawberry.union("SearchResult"),
]


def service(info: Info[RequestContext, None]) -> MemoryService:
    memory: MemoryService = info.context.memory
    return memory


def to_options(
    limit: int, when: TimeFilterInput | None, as_of: datetime | None
) -> domain.SearchOptions:
    """Search options from GraphQL arguments; bad values become ValidationError."""
    try:
        return domain.SearchOptions(
            limit=limit, when=when.to_domain() if when else None, as_of=as_of
        )
    except pydantic.ValidationError as e:
        first = e.errors()[0]
        raise ValidationError(f"{'.'.join(map(str, first['loc']))}: {first['msg']}") from e


@strawberry.type
class Query:
    @strawberry.field(description="Memories closest in meaning to the query, within one scope.")
    async def search(
        self,
        info: Info[RequestContext, None],
        query: str,
        scope: ScopeInput,
        limit: int = 10,
        when: TimeFilterInput | None = None,
        as_of: datetime | None = None,
    ) -> SearchResult:
        try:
            options = to_options(limit=limit, when=when, as_of=as_of)
            whose = scope_for(info, scope)
            hits = await service(info).search(query, whose, options=options)
        except EngramError as e:
            return problem(e)
        return SearchHits(hits=[MemoryHit.of(h) for h in hits], scope=whose)

    @strawberry.field(
        description="Deferred adds of the scope not written yet (addMessages mode DEFERRED)."
    )
    async def pending_work(
        self, info: Info[RequestContext, None], scope: ScopeInput
    ) -> PendingWorkResult:
        try:
            work = await service(info).pending_work(scope_for(info, scope))
        except EngramError as e:
            return problem(e)
        return PendingWork.of(work)

    @strawberry.field(description="The best hits as a dated prompt block within tokenBudget.")
    async def context(
        self,
        info: Info[RequestContext, None],
        query: str,
        scope: ScopeInput,
        token_budget: int = 1000,
        when: TimeFilterInput | None = None,
        as_of: datetime | None = None,
    ) -> ContextResult:
        try:
            options = to_options(limit=50, when=when, as_of=as_of)
            block = await service(info).context(
                query, scope_for(info, scope), token_budget, options
            )
        except EngramError as e:
            return problem(e)
        return Context(
            text=block.text,
            tokens=block.tokens,
            memory_ids=[strawberry.ID(i) for i in block.memory_ids],
        )


@strawberry.type
class Mutation:
    @strawberry.mutation(description="Store conversation messages; a repeat writes nothing new.")
    async def add_messages(
        self,
        info: Info[RequestContext, None],
        messages: list[MessageInput],
        scope: ScopeInput,
        mode: AddMode = AddMode.SYNC,
    ) -> AddMessagesResult:
        raw = [
            {
                "content": m.content,
                "role": m.role.value,
                "speaker": m.speaker,
                "timestamp": m.timestamp,
                "id": m.id,
                "session_id": m.session_id,
            }
            for m in messages
        ]
        try:
            result = await service(info).add(
                raw, scope_for(info, scope), actor=actor(info), mode=domain.AddMode(mode.value)
            )
        except EngramError as e:
            return problem(e)
        return AddMessagesSuccess.of(result)


QUERY_TEXTS_CACHED = 256


def build_schema(settings: Settings, metrics: Metrics | None = None) -> strawberry.Schema:
    """The schema with the depth, token and alias limits of Settings.

    A client sends the same few query texts with new variables, so each text is parsed and
    validated once (ParserCache, ValidationCache; a bounded LRU of query texts): that was a
    quarter of a search's time over HTTP. The validation cache is keyed by the rules too, so
    the limit rules are built here once rather than per request as the limiter extensions do.
    """
    limits = [
        *QueryDepthLimiter(max_depth=settings.max_query_depth).validation_rules,
        *MaxAliasesLimiter(max_alias_count=settings.max_query_aliases).validation_rules,
    ]
    return strawberry.Schema(
        query=merge_types(
            "Query",
            (
                Query,
                DashboardQuery,
                GraphQuery,
                ProfileQuery,
                LifecycleQuery,
                AuditQuery,
                ExportQuery,
            ),
        ),
        mutation=merge_types("Mutation", (Mutation, LifecycleMutation)),
        extensions=[
            # First, so its span holds the others' work (only while tracing is on).
            *([GraphQLTracing] if tracing.enabled() else []),
            partial(MaxTokensLimiter, max_token_count=settings.max_query_tokens),
            partial(AddValidationRules, limits),
            partial(ParserCache, maxsize=QUERY_TEXTS_CACHED),
            partial(ValidationCache, maxsize=QUERY_TEXTS_CACHED),
            partial(MaskErrors, should_mask_error=is_unexpected),
            ReadAuditExtension,  # records reads when Settings.audit_reads is on
            # After MaskErrors: it sees the errors before they are masked.
            *([partial(GraphQLMetrics, metrics=metrics)] if metrics else []),
        ],
    )


def is_unexpected(error: GraphQLError) -> bool:
    """Mask exceptions raised inside resolvers, except Engram's own expected errors; keep the
    client's mistakes readable (syntax, unknown fields, depth/token/alias limits)."""
    original = error.original_error
    if original is None or isinstance(original, GraphQLError):
        return False
    return not isinstance(original, EngramError) or isinstance(original, DatabaseUnavailableError)


# Default limits, for tests and embedding; no environment is read at import time.
schema = build_schema(Settings.model_construct())

"""The API's side of the metrics (service/observability/metrics.py): a schema extension that
times and counts each GraphQL operation and its failures, and the /metrics endpoint.

/metrics answers the X-API-Key of any configured principal, or ENGRAM_METRICS_KEY as a bearer
token (Prometheus' ``authorization`` setting), so a scraper needs no key that reads memories.
With ENGRAM_AUTH_MODE=local it is open, as everything is (loopback only).
"""

from __future__ import annotations

import hmac
import time
from collections.abc import Awaitable, Callable, Iterator
from inspect import isawaitable
from typing import Any

from fastapi import Request, Response
from graphql import DocumentNode, FieldNode, GraphQLError, GraphQLResolveInfo, get_operation_ast
from prometheus_client import CONTENT_TYPE_LATEST
from strawberry.extensions import SchemaExtension
from strawberry.types import ExecutionContext
from strawberry.utils.await_maybe import AwaitableOrValue

from service.api.types import DatabaseUnavailable, Forbidden, InvalidInput, NotFound, TimedOut
from service.core.auth import authenticate
from service.core.config import Settings
from service.memory import MemoryService
from service.observability.metrics import ErrorKind, Metrics, kind_of

PROBLEMS: dict[type, ErrorKind] = {
    InvalidInput: ErrorKind.INVALID_INPUT,
    NotFound: ErrorKind.NOT_FOUND,
    Forbidden: ErrorKind.FORBIDDEN,
    DatabaseUnavailable: ErrorKind.DATABASE_UNAVAILABLE,
    TimedOut: ErrorKind.TIMED_OUT,
}
# Label of an operation refused before it ran (its fields are not known to exist).
INVALID_OPERATION = "invalid"
MAX_LABELLED_FIELDS = 3


class GraphQLMetrics(SchemaExtension):
    """engram_graphql_* per operation, and engram_errors_total{surface="graphql"}: the typed
    errors root fields return, and the errors raised (masked or refused before running)."""

    def __init__(
        self, *, metrics: Metrics, execution_context: ExecutionContext | None = None
    ) -> None:
        super().__init__(execution_context=execution_context)
        self.metrics = metrics
        self.executed = False

    def on_execute(self) -> Iterator[None]:
        self.executed = True
        yield

    # Listed after MaskErrors, so this exits first and still sees the original exceptions.
    def on_operation(self) -> Iterator[None]:
        start = time.perf_counter()
        yield
        ctx = self.execution_context
        label = (
            operation_label(ctx.graphql_document, ctx.operation_name)
            if self.executed
            else INVALID_OPERATION
        )
        self.metrics.graphql_requests.labels(label).inc()
        self.metrics.graphql_seconds.labels(label).observe(time.perf_counter() - start)
        for error in getattr(ctx.result, "errors", None) or ():
            self.metrics.count_error("graphql", graphql_error_kind(error))

    def resolve(
        self,
        _next: Callable[..., Any],
        root: Any,
        info: GraphQLResolveInfo[Any],
        *args: str,
        **kwargs: Any,
    ) -> AwaitableOrValue[object]:
        result: AwaitableOrValue[object] = _next(root, info, *args, **kwargs)
        if info.path.prev is not None:  # typed errors are root fields' results
            return result
        if isawaitable(result):
            return self._counted(result)
        self._count_problem(result)
        return result

    async def _counted(self, pending: Awaitable[object]) -> object:
        result = await pending
        self._count_problem(result)
        return result

    def _count_problem(self, result: object) -> None:
        if (kind := PROBLEMS.get(type(result))) is not None:
            self.metrics.count_error("graphql", kind)


def operation_label(document: DocumentNode | None, operation_name: str | None) -> str:
    """The operation's root field names, sorted (a few at most): bounded by the schema, unlike
    a client's operation name."""
    operation = get_operation_ast(document, operation_name) if document else None
    if operation is None:
        return INVALID_OPERATION
    names = sorted(
        {s.name.value for s in operation.selection_set.selections if isinstance(s, FieldNode)}
    )
    if len(names) > MAX_LABELLED_FIELDS:
        names = [*names[:MAX_LABELLED_FIELDS], "..."]
    return ",".join(names) or INVALID_OPERATION


def graphql_error_kind(error: GraphQLError) -> ErrorKind:
    original = error.original_error
    if original is None or isinstance(original, GraphQLError):
        return ErrorKind.INVALID_REQUEST
    return kind_of(original)


def metrics_endpoint(settings: Settings, metrics: Metrics) -> Callable[[Request], Response]:
    """GET /metrics: the exposition text, behind the key check in the module docstring."""

    def exposition(request: Request) -> Response:
        if not _bearer_matches(settings, request.headers.get("Authorization")):
            authenticate(settings, request.headers.get("X-API-Key"))  # 401 unless a valid key
        return Response(metrics.exposition(), media_type=CONTENT_TYPE_LATEST)

    return exposition


def _bearer_matches(settings: Settings, authorization: str | None) -> bool:
    key = settings.metrics_key
    if key is None or not authorization or not authorization.startswith("Bearer "):
        return False
    return hmac.compare_digest(
        authorization.removeprefix("Bearer ").encode(), key.get_secret_value().encode()
    )


def observe(memory: MemoryService, metrics: Metrics) -> None:
    """Count the memory's writes and show how long its models took to load."""
    memory.write_observers.add(metrics)
    metrics.set_model_load(memory.model_load_ms)

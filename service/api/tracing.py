"""The API's side of tracing (service/observability/tracing.py): a span per GraphQL operation."""

from __future__ import annotations

from collections.abc import Iterator

from graphql import get_operation_ast
from strawberry.extensions import SchemaExtension
from strawberry.types import ExecutionContext

from service.api.metrics import INVALID_OPERATION, graphql_error_kind, operation_label
from service.observability.tracing import mark_failed, span


class GraphQLTracing(SchemaExtension):
    """One span per operation, named as OpenTelemetry's GraphQL conventions do: its type and
    (instead of the client's free-text operation name) its root fields, "query search"; an
    operation refused before it ran is "graphql invalid" (its fields may not exist)."""

    def __init__(self, *, execution_context: ExecutionContext | None = None) -> None:
        super().__init__(execution_context=execution_context)
        self.executed = False

    def on_execute(self) -> Iterator[None]:
        self.executed = True
        yield

    def on_operation(self) -> Iterator[None]:
        with span(f"graphql {INVALID_OPERATION}") as current:
            yield
            ctx = self.execution_context
            document, name = ctx.graphql_document, ctx.operation_name
            operation = get_operation_ast(document, name) if document else None
            if self.executed and operation is not None:
                kind = operation.operation.value
                current.update_name(f"{kind} {operation_label(document, name)}")
                current.set_attribute("graphql.operation.type", kind)
            if name:
                current.set_attribute("graphql.operation.name", name)
            errors = getattr(ctx.result, "errors", None)
            if errors:
                mark_failed(current, graphql_error_kind(errors[0]).value)

"""GraphQL run in process as an unrestricted caller, the way several integration tests ask it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import strawberry

from service.api.context import RequestContext
from service.core.auth import Principal
from service.memory import MemoryService

Caller = Callable[..., Awaitable[dict[str, Any]]]


def graphql_caller(schema: strawberry.Schema) -> Caller:
    """``gql(mem, query, **variables)``: the data of a query that must answer without errors."""

    async def gql(mem: MemoryService, query: str, **variables: Any) -> dict[str, Any]:
        result = await schema.execute(
            query,
            variable_values=variables,
            context_value=RequestContext(mem, Principal.unrestricted("test")),
        )
        assert result.errors is None, result.errors
        assert result.data is not None
        return result.data

    return gql

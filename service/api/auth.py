"""The GraphQL side of auth (service/core/auth.py): every resolver asks ``scope_for``; a
request's principal comes from its X-API-Key header."""

from __future__ import annotations

import pydantic
from fastapi import Request
from strawberry.types import Info

from service.api.context import RequestContext
from service.api.types import ScopeInput
from service.core import domain
from service.core.auth import Principal, authenticate, authorize
from service.core.config import Settings
from service.core.errors import ValidationError


def scope_for(info: Info[RequestContext, None], scope: ScopeInput) -> domain.Scope:
    """The GraphQL scope argument, validated and authorised for the caller."""
    try:
        asked = domain.Scope(user_id=scope.user_id, agent_id=scope.agent_id, run_id=scope.run_id)
    except pydantic.ValidationError as e:
        raise ValidationError(f"scope: {e.errors()[0]['msg']}") from e
    principal: Principal = info.context.principal
    return authorize(principal, asked)


def actor(info: Info[RequestContext, None]) -> str:
    """Who writes: the API key's principal, recorded on every MemoryEvent."""
    principal: Principal = info.context.principal
    return principal.name


def principal_from(request: Request) -> Principal:
    settings: Settings = request.app.state.settings
    if opens_the_ide(request):
        # The GraphiQL page runs no operation: a browser may load it without a key, and the
        # queries it sends carry one (its Headers tab) or are refused.
        return Principal.nobody()
    return authenticate(settings, request.headers.get("X-API-Key"))


def opens_the_ide(request: Request) -> bool:
    """A browser's GET of /graphql, which strawberry answers with the IDE page."""
    accept = request.headers.get("accept", "")
    return (
        request.method == "GET"
        and request.query_params.get("query") is None
        and ("text/html" in accept or "*/*" in accept)
    )

"""What every GraphQL resolver may read of its request: the use cases, the caller, its loaders."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from strawberry.fastapi import BaseContext

if TYPE_CHECKING:
    from service.core.auth import Principal
    from service.memory import MemoryService


class RequestContext(BaseContext):
    """The resolvers' context (``Info[RequestContext, None]``): the MemoryService whose use
    cases they call, the principal of the request's API key, and the request's DataLoaders
    (api/loaders.py), which live as long as the request."""

    def __init__(self, memory: MemoryService, principal: Principal) -> None:
        super().__init__()
        self.memory = memory
        self.principal = principal
        self.loaders: dict[object, Any] = {}

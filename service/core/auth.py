"""API keys → principals → the scopes they may touch. Shared by the GraphQL API and MCP.

Keys come from Settings (``ENGRAM_API_KEYS``, JSON): ``{"<key>": {"principal": "support-bot",
"user_ids": ["alice"], "agent_ids": ["*"]}}``. A list with "*" (or an omitted field) allows any
value of that field. When the principal is limited to some user ids and a request names none,
the request is narrowed to the principal's only user id, or refused if it has several: a key
never reads across users by leaving the field out. ``ENGRAM_AUTH_MODE=local`` turns auth off
(one local principal that may touch everything); it is never the default.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from fastapi import HTTPException

from service.core import domain
from service.core.config import ApiKey, Settings
from service.core.errors import ForbiddenError

ANY = "*"
LOCAL = "local"


@dataclass(frozen=True)
class Principal:
    name: str
    user_ids: frozenset[str]
    agent_ids: frozenset[str]
    run_ids: frozenset[str]

    @classmethod
    def unrestricted(cls, name: str) -> Principal:
        return cls(name, frozenset({ANY}), frozenset({ANY}), frozenset({ANY}))

    @classmethod
    def nobody(cls) -> Principal:
        """May touch no scope (authorize refuses every one)."""
        return cls("nobody", frozenset(), frozenset(), frozenset())

    @classmethod
    def of(cls, key: ApiKey) -> Principal:
        return cls(
            key.principal, frozenset(key.user_ids), frozenset(key.agent_ids), frozenset(key.run_ids)
        )


def authenticate(settings: Settings, presented: str | None) -> Principal:
    """The principal of an API key; local mode needs none."""
    if settings.auth_mode == LOCAL:
        return Principal.unrestricted(LOCAL)
    if not presented:
        raise HTTPException(status_code=401, detail="missing X-API-Key header")
    digest = hashlib.sha256(presented.encode()).digest()
    for key, entry in settings.api_keys.items():
        if hmac.compare_digest(digest, hashlib.sha256(key.encode()).digest()):
            return Principal.of(entry)
    raise HTTPException(status_code=401, detail="unknown API key")


def authorize(principal: Principal, scope: domain.Scope) -> domain.Scope:
    """The scope narrowed to what the principal may touch; ForbiddenError where it may not."""
    fields = {
        "user_id": principal.user_ids,
        "agent_id": principal.agent_ids,
        "run_id": principal.run_ids,
    }
    narrowed: dict[str, str | None] = {}
    for field, allowed in fields.items():
        asked = getattr(scope, field)
        if ANY in allowed:
            narrowed[field] = asked
        elif asked is None:
            if len(allowed) != 1:
                raise ForbiddenError(f"name a {field}: this key may touch several")
            narrowed[field] = next(iter(allowed))
        elif asked not in allowed:
            raise ForbiddenError(f"this key may not touch {field} {asked!r}")
        else:
            narrowed[field] = asked
    return domain.Scope(**narrowed)

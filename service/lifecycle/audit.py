"""The read audit (Settings.audit_reads): who read which scope, when, with what, how many results.

Each read use case wraps its work in ``ReadAudit.reading``; after the result is computed one
small CREATE stores a (:ReadEvent) in the scope that was read. Only the outermost read records:
``context`` searches, and a GraphQL field calls the Memory methods, yet each is one read. A
lookup that finds nothing (NotFoundError) is recorded with count 0; a request refused before it
reads (bad input, forbidden scope) records nothing.

The query text is stored as its sha256, never verbatim: an audit log must not become a second
copy of the private data it guards. A hash still lets an auditor confirm a suspected query.
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from service.core.domain import Scope, utcnow
from service.core.errors import NotFoundError
from service.core.paging import Page
from service.store.audit_queries import ReadEvent, ReadEventStore, ReadOp
from service.store.database import Database

__all__ = ["ReadAudit", "ReadEvent", "ReadOp", "ReadTally", "query_hash"]

# Set while a recorded read runs, in this task only: the reads nested in it are part of it.
_inside_read: ContextVar[bool] = ContextVar("engram_inside_read", default=False)


@dataclass
class ReadTally:
    """What a read found: set ``count`` once the result is there; None records nothing."""

    count: int | None = None


def query_hash(text: str | None) -> str | None:
    """The sha256 of a query text (hex), or None without one."""
    return None if text is None else hashlib.sha256(text.encode("utf-8")).hexdigest()


class ReadAudit:
    """Records reads when ``enabled``; lists the read events of a scope either way."""

    def __init__(self, db: Database, enabled: bool) -> None:
        self.store = ReadEventStore(db)
        self.enabled = enabled

    @asynccontextmanager
    async def reading(
        self, operation: ReadOp, actor: str, scope: Scope, query: str | None = None
    ) -> AsyncIterator[ReadTally]:
        """Around one read: records a ReadEvent after it when auditing is on and no recorded
        read encloses this one."""
        tally = ReadTally()
        if not self.enabled or _inside_read.get():
            yield tally
            return
        token = _inside_read.set(True)
        try:
            yield tally
        except NotFoundError:
            tally.count = 0  # looking up what is not there is a read too
            raise
        finally:
            _inside_read.reset(token)
            if tally.count is not None:
                await self.store.record(
                    scope, operation, actor, query_hash(query), tally.count, utcnow()
                )

    async def events(
        self, scope: Scope, first: int = 20, after: str | None = None
    ) -> Page[ReadEvent]:
        """The scope's read events, newest first, cursor-paged."""
        return await self.store.page(scope, first, after)

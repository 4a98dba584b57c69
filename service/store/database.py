"""Driver lifecycle: one async driver per process, one session per unit of work."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeVar

from neo4j.exceptions import (
    AuthError,
    ClientError,
    DatabaseUnavailable,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)
from neo4j.graph import Node

import neo4j
from neo4j import AsyncGraphDatabase
from service.core import bookmarks
from service.core.config import Settings
from service.core.deadline import deadline_passed, transaction_timeout
from service.core.errors import DatabaseUnavailableError, QueryTimeoutError, ValidationError
from service.store.catalog import bind_optional, fill_markers, query

Record = dict[str, Any]
# One row of a statement's UNWIND parameter, built from a typed record at the store's edge.
ParamRow = dict[str, Any]
T = TypeVar("T")
# DatabaseUnavailable is what a stopping server answers; the driver retries it, then gives up.
_UNAVAILABLE = (ServiceUnavailable, SessionExpired, DatabaseUnavailable, AuthError, OSError)
# What Neo4j answers when a transaction outlives the timeout it was given (the request's deadline).
_TIMED_OUT = "Neo.ClientError.Transaction.TransactionTimedOut"
# What it answers when it ends a transaction that waits for a lock: past our deadline, the
# timeout; otherwise an operator or a shutdown, which stays the driver's error.
_STOPPED = (
    "Neo.ClientError.Transaction.LockClientStopped",
    "Neo.ClientError.Transaction.Terminated",
)
# What Neo4j answers a bookmark it cannot parse (…InvalidBookmark, …InvalidBookmarkMixture).
_BAD_BOOKMARK = "Neo.ClientError.Transaction.InvalidBookmark"
# What a cluster member answers when it has not reached a query's bookmark in time.
_BOOKMARK_TIMEOUT = "Neo.TransientError.Transaction.BookmarkTimeout"
# Tries of a read that fails with an error the driver calls retryable (0.1 s, then 0.2 s apart).
READ_ATTEMPTS = 3


class NothingMatched(Exception):
    """A required step of write_many found nothing to act on; the transaction was rolled back."""


_PLAIN = frozenset({str, int, float, bool, type(None)})


def native(value: Any) -> Any:
    """Neo4j temporal values as Python ones and nodes as their property maps, inside maps and
    lists too; float lists (embeddings) are passed through untouched."""
    if type(value) in _PLAIN:
        return value
    if isinstance(value, dict):
        return {k: native(v) for k, v in value.items()}
    if isinstance(value, list):
        return value if value and type(value[0]) is float else [native(v) for v in value]
    if isinstance(value, Node):
        return native(dict(value))
    if hasattr(value, "to_native"):
        return value.to_native()
    return value


async def native_rows(cursor: neo4j.AsyncResult, plain: bool = False) -> list[Record]:
    """Every result leaves the store with native values: converted here, once. The records'
    raw values are read (``Result.data()`` would walk every value once more to convert graph
    types, a visible share of a search's Python time). ``plain``: the query returns nothing but
    strings, numbers, and lists and maps of them, which need no walk."""
    keys = cursor.keys()
    if plain:
        return [dict(zip(keys, record, strict=True)) async for record in cursor]
    return [native(dict(zip(keys, record, strict=True))) async for record in cursor]


class Database:
    """Runs catalogue queries by name; turns connection failures into DatabaseUnavailableError."""

    def __init__(self, settings: Settings) -> None:
        auth = None
        if settings.neo4j_password.get_secret_value():
            auth = (settings.neo4j_user, settings.neo4j_password.get_secret_value())
        self.settings = settings
        self.uri = settings.bolt_uri
        self.name = settings.neo4j_database
        self._driver = AsyncGraphDatabase.driver(
            self.uri,
            auth=auth,
            connection_timeout=5.0,
            connection_acquisition_timeout=10.0,
            max_transaction_retry_time=5.0,
            # "property key does not exist" on an empty graph is noise, not a problem.
            notifications_min_severity="OFF",
        )
        # Every session of the process starts after the writes its sessions have seen committed:
        # on a cluster a read that lands on a lagging follower waits for them (docs/cluster.md).
        self._bookmarks = AsyncGraphDatabase.bookmark_manager()

    async def close(self) -> None:
        await self._driver.close()

    async def bookmark(self) -> str | None:
        """A token for the writes this process has committed so far, for a client to send back
        to another process (core/bookmarks.py); None before the first."""
        return bookmarks.encode(await self._bookmarks.get_bookmarks())

    async def ping(self) -> bool:
        try:
            await self.read("ping")
        except DatabaseUnavailableError:
            return False
        return True

    async def open_connections(self, count: int) -> None:
        """Have the driver's pool hold ``count`` connections: it opens one when every open one
        is busy, and a search's first queries run side by side (a connection's handshake and
        login would fall on the first search)."""
        await asyncio.gather(*(self.read("ping") for _ in range(count)))

    async def read(
        self,
        name: str,
        params: Mapping[str, Any] | None = None,
        fills: Mapping[str, str] | None = None,
        plain: bool = False,
    ) -> list[Record]:
        """A read query by name; ``fills`` go at its /*marker*/ places (catalog.fill_markers).
        ``plain``: its answer holds only strings, numbers, and lists and maps of them (the search
        path's: times as text, nodes as map projections), taken as the driver gives it, without
        the walk for temporal types and nodes."""
        return await self._run(name, params, neo4j.READ_ACCESS, fills, plain)

    async def explain(
        self, name: str, params: Mapping[str, Any], fills: Mapping[str, str] | None = None
    ) -> None:
        """Have Neo4j plan a read query without running it. It keeps the plan, keyed by the
        statement's text and its parameters' types, for the runs that follow (planning costs
        far more than running)."""
        await self._run(name, params, neo4j.READ_ACCESS, fills, explain=True)

    async def write(self, name: str, params: Mapping[str, Any] | None = None) -> list[Record]:
        return await self._run(name, params, neo4j.WRITE_ACCESS)

    async def write_many(
        self, steps: list[tuple[str, Mapping[str, Any]]], required: Collection[str] = ()
    ) -> list[list[Record]]:
        """Several catalogue queries in one transaction: all land or none does. A step named in
        ``required`` that returns no row rolls the transaction back (NothingMatched)."""

        async def work(tx: neo4j.AsyncManagedTransaction) -> list[list[Record]]:
            results = []
            for name, params in steps:
                cursor = await tx.run(bind_optional(query(name), params), dict(params))
                results.append(await native_rows(cursor))
                if name in required and not results[-1]:
                    raise NothingMatched(name)
            return results

        return await self._write_transaction(work)

    async def run_statement(self, statement: str, params: Mapping[str, Any] | None = None) -> None:
        """A schema statement (auto-commit; schema commands cannot share a transaction)."""
        with self._translated_errors():
            async with self._session(neo4j.WRITE_ACCESS) as session:
                cursor = await session.run(statement, dict(params or {}))
                await cursor.consume()

    async def _run(
        self,
        name: str,
        params: Mapping[str, Any] | None,
        access: str,
        fills: Mapping[str, str] | None = None,
        plain: bool = False,
        explain: bool = False,
    ) -> list[Record]:
        cypher = query(name) if fills is None else fill_markers(query(name), fills)
        cypher = ("EXPLAIN " if explain else "") + bind_optional(cypher, params or {})

        async def work(tx: neo4j.AsyncManagedTransaction) -> list[Record]:
            cursor = await tx.run(cypher, dict(params or {}))
            return await native_rows(cursor)

        if access == neo4j.READ_ACCESS:
            with self._translated_errors():
                return await self._read_once(cypher, dict(params or {}), plain)
        return await self._write_transaction(work)

    async def _write_transaction(
        self, work: Callable[[neo4j.AsyncManagedTransaction], Awaitable[T]]
    ) -> T:
        """``work`` in one write transaction, retried by the driver on transient errors, and
        rolled back by Neo4j if it outlives what is left of the request's deadline."""
        with self._translated_errors():
            timed = neo4j.unit_of_work(timeout=transaction_timeout())(work)
            async with self._session(neo4j.WRITE_ACCESS) as session:
                return await session.execute_write(timed)

    def _session(self, access: str) -> neo4j.AsyncSession:
        """The one place sessions are opened: each shares the process's bookmark manager and
        waits for the bookmark the request brought (core/bookmarks.py). Bookmarks travel in the
        BEGIN or RUN message, so they add no round trip."""
        waited = bookmarks.awaited()
        return self._driver.session(
            database=self.name,
            default_access_mode=access,
            bookmark_manager=self._bookmarks,
            bookmarks=neo4j.Bookmarks.from_raw_values(waited) if waited else None,
        )

    @contextmanager
    def _translated_errors(self) -> Iterator[None]:
        """The driver's connection failures, timeouts and refused bookmarks as Engram's errors."""
        try:
            yield
        except _UNAVAILABLE as e:
            raise DatabaseUnavailableError(f"Neo4j at {self.uri} does not answer: {e}") from e
        except TransientError as e:
            if e.code != _BOOKMARK_TIMEOUT:
                raise
            raise DatabaseUnavailableError(
                f"Neo4j at {self.uri} has not caught up with the request's bookmark: {e.message}"
            ) from e
        except ClientError as e:
            code = e.code or ""
            if code.startswith(_BAD_BOOKMARK):
                raise ValidationError(f"{bookmarks.HEADER}: Neo4j refused it: {e.message}") from e
            if not (code.startswith(_TIMED_OUT) or (code in _STOPPED and deadline_passed())):
                raise
            raise QueryTimeoutError(
                "the request ran out of time in Neo4j; its transaction was rolled back"
            ) from e

    async def _read_once(
        self, cypher: str, params: dict[str, Any], plain: bool = False
    ) -> list[Record]:
        """One read statement in an auto-commit transaction: RUN and PULL in one round trip,
        where a managed transaction adds BEGIN and a COMMIT round trip (a search makes several
        reads; bench/RESULTS.md). Errors the driver calls retryable are retried as
        execute_read would, for at most READ_ATTEMPTS tries."""
        tries = 0
        while True:
            try:
                async with self._session(neo4j.READ_ACCESS) as session:
                    timed = neo4j.Query(cypher, timeout=transaction_timeout())
                    return await native_rows(await session.run(timed, params), plain)
            except (neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError) as e:
                tries += 1
                if tries == READ_ATTEMPTS or not e.is_retryable():
                    raise
                await asyncio.sleep(0.1 * 2 ** (tries - 1))

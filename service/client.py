"""A small Python client for Engram's GraphQL API, with the in-process API's semantics.

    async with EngramClient("http://127.0.0.1:8000", api_key="…") as engram:
        await engram.add([{"content": "I moved to Lisbon.", "speaker": "Ana"}], user_id="ana")
        hits = await engram.search("where does Ana live?", user_id="ana")

Typed errors: InvalidInput → ValidationError, Forbidden → ForbiddenError, NotFound →
NotFoundError, DatabaseUnavailable → DatabaseUnavailableError, TimedOut → QueryTimeoutError,
and a busy process's 503 → BusyError with its Retry-After (all EngramError). With
``busy_retries=n`` a Busy answer is retried up to n times, each after its Retry-After and up to
half as long again at random, so clients refused together do not come back together; a Busy
answer is given before any work, so a retried add cannot be written twice.

``export`` streams a scope's export file (docs/export.md) to a binary file object.

Read your own writes through several processes or a Neo4j cluster: pass the ``bookmark`` of an
AddResult to a later ``search`` or ``context`` (sent as X-Engram-Bookmark; docs/cluster.md).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Any, BinaryIO

import httpx

from service.core.bookmarks import HEADER as BOOKMARK_HEADER
from service.core.domain import AddMode, AddResult, ContextBlock, PendingWork, SearchHit
from service.core.errors import (
    BusyError,
    DatabaseUnavailableError,
    EngramError,
    ForbiddenError,
    NotFoundError,
    QueryTimeoutError,
    ValidationError,
)
from service.core.export_records import EXPORT_ROUTE

_ERRORS: dict[str, type[EngramError]] = {
    "InvalidInput": ValidationError,
    "Forbidden": ForbiddenError,
    "NotFound": NotFoundError,
    "DatabaseUnavailable": DatabaseUnavailableError,
    "TimedOut": QueryTimeoutError,
}
_PROBLEMS = " ".join(f"... on {name} {{ message }}" for name in _ERRORS)
_MEMORY = (
    "id text sourceText speaker saidAt createdAt validFrom validTo invalidatedAt "
    "timeGranularity confidence sourceIds"
)
ADD = f"""mutation($messages: [MessageInput!]!, $scope: ScopeInput!, $mode: AddMode!) {{
  addMessages(messages: $messages, scope: $scope, mode: $mode) {{ __typename
    ... on AddMessagesSuccess {{ messageIds added updated superseded unchanged bookmark pending }}
    {_PROBLEMS} }} }}"""
PENDING = f"""query($scope: ScopeInput!) {{ pendingWork(scope: $scope) {{ __typename
  ... on PendingWork {{ batches messages oldestAgeS failed }} {_PROBLEMS} }} }}"""
SEARCH = f"""query($q: String!, $scope: ScopeInput!, $limit: Int!, $when: TimeFilterInput,
  $asOf: DateTime) {{ search(query: $q, scope: $scope, limit: $limit, when: $when, asOf: $asOf) {{
  __typename ... on SearchHits {{ hits {{ score memory {{ {_MEMORY} }}
    retrievers {{ retriever rank score }} matchedEntities path
    sources {{ id externalId text speaker saidAt sessionId }} entities {{ name type extractor }}
  }} }} {_PROBLEMS} }} }}"""
CONTEXT = f"""query($q: String!, $scope: ScopeInput!, $budget: Int!) {{
  context(query: $q, scope: $scope, tokenBudget: $budget) {{ __typename
    ... on Context {{ text tokens memoryIds }} {_PROBLEMS} }} }}"""
DELETE = f"""mutation($id: ID!, $scope: ScopeInput!) {{
  deleteMemory(id: $id, scope: $scope) {{ __typename
    ... on DeletedMemory {{ memoryId }} {_PROBLEMS} }} }}"""


class EngramClient:
    """Async GraphQL client; ``transport`` lets tests and embedders skip the network."""

    def __init__(
        self,
        url: str,
        api_key: str | None = None,
        timeout_s: float = 30.0,
        transport: httpx.AsyncBaseTransport | None = None,
        busy_retries: int = 0,
    ) -> None:
        self.busy_retries = busy_retries
        headers = {"X-API-Key": api_key} if api_key else {}
        self._http = httpx.AsyncClient(
            base_url=url, headers=headers, timeout=timeout_s, transport=transport
        )

    async def __aenter__(self) -> EngramClient:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self._http.aclose()

    async def add(
        self, messages: Sequence[Mapping[str, object]], mode: str = "sync", **scope: str
    ) -> AddResult:
        """Add messages; ``mode="deferred"`` returns once they are stored as pending work."""
        variables = {"messages": messages, "scope": _scope(scope), "mode": AddMode(mode).name}
        data = await self._call(ADD, variables, "addMessages")
        return AddResult(
            message_ids=data["messageIds"],
            added=data["added"],
            updated=data["updated"],
            superseded=data["superseded"],
            unchanged=data["unchanged"],
            bookmark=data["bookmark"],
            pending=data["pending"],
        )

    async def pending(self, **scope: str) -> PendingWork:
        """Deferred adds of the scope not written yet."""
        data = await self._call(PENDING, {"scope": _scope(scope)}, "pendingWork")
        return PendingWork(
            batches=data["batches"],
            messages=data["messages"],
            oldest_age_s=data["oldestAgeS"],
            failed=data["failed"],
        )

    async def search(
        self,
        query: str,
        limit: int = 10,
        when: Mapping[str, object] | None = None,
        as_of: str | None = None,
        bookmark: str | None = None,
        **scope: str,
    ) -> list[SearchHit]:
        """Hits for ``query``; with ``bookmark`` (AddResult.bookmark) they include that write."""
        variables = {
            "q": query,
            "scope": _scope(scope),
            "limit": limit,
            "when": when,
            "asOf": as_of,
        }
        data = await self._call(SEARCH, variables, "search", bookmark)
        return [SearchHit.model_validate(_snake(hit)) for hit in data["hits"]]

    async def context(
        self, query: str, token_budget: int = 1000, bookmark: str | None = None, **scope: str
    ) -> ContextBlock:
        variables = {"q": query, "scope": _scope(scope), "budget": token_budget}
        data = await self._call(CONTEXT, variables, "context", bookmark)
        return ContextBlock(text=data["text"], tokens=data["tokens"], memory_ids=data["memoryIds"])

    async def delete(self, memory_id: str, **scope: str) -> None:
        """Delete one memory of the scope (its history stays); NotFoundError if it is not there."""
        await self._call(DELETE, {"id": memory_id, "scope": _scope(scope)}, "deleteMemory")

    async def export(self, destination: BinaryIO, **scope: str) -> int:
        """Stream the scope's export (JSON Lines, docs/export.md) into ``destination``; the
        bytes written. A download cut short lacks its end line, and `engram import` refuses it."""
        written = 0
        async with self._http.stream("GET", EXPORT_ROUTE, params=_scope(scope)) as response:
            if response.status_code != 200:
                await response.aread()
                raise _http_error(response)
            async for chunk in response.aiter_bytes():
                destination.write(chunk)
                written += len(chunk)
        return written

    async def _call(
        self, query: str, variables: dict[str, Any], field: str, bookmark: str | None = None
    ) -> dict[str, Any]:
        headers = {BOOKMARK_HEADER: bookmark} if bookmark else None
        payload = {"query": query, "variables": variables}
        for retries_left in range(self.busy_retries, -1, -1):
            try:
                response = await self._post(payload, headers)
                break
            except BusyError as busy:
                if not retries_left:
                    raise
                await asyncio.sleep(busy.retry_after_s * (1 + random.random() / 2))
        body = response.json()
        if body.get("errors"):
            raise EngramError(body["errors"][0]["message"])
        data: dict[str, Any] = body["data"][field]
        if data["__typename"] in _ERRORS:
            raise _ERRORS[data["__typename"]](data["message"])
        return data

    async def _post(
        self, payload: dict[str, Any], headers: dict[str, str] | None
    ) -> httpx.Response:
        """The GraphQL endpoint's answer; a refusal or an HTTP error raised as its error."""
        response = await self._http.post("/graphql", json=payload, headers=headers)
        if response.status_code == 401:
            raise ForbiddenError(response.json().get("detail", "unauthorised"))
        if response.status_code == 503 and "Retry-After" in response.headers:
            message = response.json()["errors"][0]["message"]
            raise BusyError(message, float(response.headers["Retry-After"]))
        response.raise_for_status()
        return response


def _http_error(response: httpx.Response) -> EngramError:
    """The typed error of a non-GraphQL endpoint's answer (FastAPI's ``detail``)."""
    try:
        detail = str(response.json().get("detail", response.text))
    except ValueError:
        detail = response.text
    kinds: dict[int, type[EngramError]] = {
        400: ValidationError,
        401: ForbiddenError,
        403: ForbiddenError,
        503: DatabaseUnavailableError,
    }
    return kinds.get(response.status_code, EngramError)(detail)


def _scope(scope: dict[str, str]) -> dict[str, str]:
    names = {"user_id": "userId", "agent_id": "agentId", "run_id": "runId"}
    unknown = set(scope) - set(names)
    if unknown:
        raise ValidationError(f"unknown scope fields {sorted(unknown)}")
    return {names[k]: v for k, v in scope.items()}


def _snake(value: Any) -> Any:
    """camelCase keys of a GraphQL answer as the snake_case of the domain models."""
    if isinstance(value, list):
        return [_snake(v) for v in value]
    if not isinstance(value, dict):
        return value
    return {
        "".join("_" + c.lower() if c.isupper() else c for c in k): _snake(v)
        for k, v in value.items()
    }

"""Admission: GraphQL and MCP requests take a read or a write slot before any work, each under
a deadline of Settings.request_timeout_s (service/core/deadline.py).

Reads and writes have their own slots (Settings.max_reads_in_flight, max_writes_in_flight),
so a burst of adds does not turn searches away, nor searches adds. Without a free slot a
request waits its turn only as long as service/api/slots.py allows; past that it is refused
at once with 503 and Retry-After. The request's kind is read from its body before anything
parses it as GraphQL or JSON-RPC, so a refusal costs no parsing, no resolver and no query.
/healthz, /metrics and static files are never limited, so a busy process still reports its
health.
"""

from __future__ import annotations

import json
import math
import re
import time
from enum import StrEnum

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.api.slots import SlotGate, SlotLimits
from service.core.config import Settings
from service.core.deadline import deadline_after
from service.observability.metrics import ErrorKind, Metrics


class Surface(StrEnum):
    """The limited endpoints, named as the metrics' ``surface`` label names them."""

    GRAPHQL = "graphql"
    MCP = "mcp"


class Work(StrEnum):
    """Which slots a request takes."""

    READ = "read"
    WRITE = "write"


# MCP tools that change memory (their annotations say readOnlyHint=False).
WRITE_TOOLS = frozenset({"add_messages", "add_memory", "update_memory", "delete_memory", "forget"})
# A mutation anywhere in a GraphQL document (a string holding the word errs toward a write).
_MUTATION = re.compile(r"\bmutation\b")


def limited_surface(scope: Scope) -> Surface | None:
    """Which limited endpoint an ASGI request is for, or None for the unlimited rest."""
    if scope["type"] != "http":
        return None
    path: str = scope["path"]
    if path == "/graphql" or path.startswith("/graphql/"):
        return Surface.GRAPHQL
    if path == "/mcp":
        return Surface.MCP
    return None


def work_of(surface: Surface, method: str, body: bytes) -> Work:
    """Read or write, from the request's method and raw body: a GraphQL document holding a
    mutation, or an MCP call of a tool that writes. A body that is not the JSON expected is a
    read here; the endpoint answers its own error."""
    if method != "POST":
        return Work.READ
    try:
        payload = json.loads(body)
    except ValueError:
        return Work.READ
    items = payload if isinstance(payload, list) else [payload]
    for item in (i for i in items if isinstance(i, dict)):
        if surface is Surface.GRAPHQL and _MUTATION.search(str(item.get("query", ""))):
            return Work.WRITE
        params = item.get("params")
        name = params.get("name") if isinstance(params, dict) else None
        if surface is Surface.MCP and item.get("method") == "tools/call" and name in WRITE_TOOLS:
            return Work.WRITE
    return Work.READ


def slot_limits(settings: Settings) -> dict[Work, SlotLimits]:
    waiting = settings.max_requests_waiting
    return {
        Work.READ: SlotLimits(settings.max_reads_in_flight, waiting, settings.read_wait_s),
        Work.WRITE: SlotLimits(settings.max_writes_in_flight, waiting, settings.write_wait_s),
    }


def busy_response(
    surface: Surface, work: Work, settings: Settings, retry_after_s: int | None = None
) -> JSONResponse:
    """503 with Retry-After (``retry_after_s``, else the least the settings allow), and a body
    the surface's clients read as an error: GraphQL's ``errors`` list, or a JSON-RPC error for
    MCP, both named Busy as the metrics name it."""
    slots = slot_limits(settings)[work].slots
    retry = settings.busy_retry_after_s if retry_after_s is None else retry_after_s
    message = (
        f"{ErrorKind.BUSY}: this process's {work.value} slots ({slots}) are taken and enough "
        f"requests wait for them; retry in {retry} s"
    )
    body: dict[str, object]
    if surface is Surface.GRAPHQL:
        extensions = {"code": ErrorKind.BUSY.value, "retryAfter": retry}
        body = {"data": None, "errors": [{"message": message, "extensions": extensions}]}
    else:
        body = {"jsonrpc": "2.0", "id": None, "error": {"code": -32000, "message": message}}
    headers = {"Retry-After": str(retry)}
    return JSONResponse(body, status_code=503, headers=headers)


async def read_body(receive: Receive) -> list[Message]:
    """The request's body messages, received whole (the app then gets them again)."""
    messages = [await receive()]
    while messages[-1]["type"] == "http.request" and messages[-1].get("more_body", False):
        messages.append(await receive())
    return messages


def replay(messages: list[Message], receive: Receive) -> Receive:
    """A receive that gives ``messages`` first, then what the connection sends next."""
    pending = list(messages)

    async def replayed() -> Message:
        return pending.pop(0) if pending else await receive()

    return replayed


class AdmissionLimit:
    """ASGI middleware: the read and write slots and the per-request deadline of the module
    doc."""

    def __init__(self, app: ASGIApp, settings: Settings, metrics: Metrics) -> None:
        self.app = app
        self.settings = settings
        self.metrics = metrics
        self.gates = {work: SlotGate(limits) for work, limits in slot_limits(settings).items()}
        gates = self.gates.values()  # read when /metrics is scraped
        metrics.requests_in_flight.set_function(lambda: sum(g.running for g in gates))
        metrics.requests_waiting.set_function(lambda: sum(g.waiting for g in gates))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        surface = limited_surface(scope)
        if surface is None:
            await self.app(scope, receive, send)
            return
        messages = await read_body(receive)
        body = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.request")
        work = work_of(surface, scope["method"], body)
        gate = self.gates[work]
        timeout = self.settings.request_timeout_s
        with deadline_after(timeout or None):  # a wait for a slot counts against the deadline
            if not await gate.enter(timeout or math.inf):
                self.metrics.count_error(surface, ErrorKind.BUSY)
                s = self.settings
                retry = gate.retry_after(s.busy_retry_after_s, s.busy_retry_after_max_s)
                await busy_response(surface, work, s, retry)(scope, receive, send)
                return
            began = time.monotonic()
            try:
                await self.app(scope, replay(messages, receive), send)
            finally:
                gate.leave(time.monotonic() - began)

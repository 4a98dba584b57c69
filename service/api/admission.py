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
from dataclasses import dataclass
from enum import StrEnum

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.api.slots import Entry, SlotGate, SlotLimits
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
    return surface_at(scope["path"]) if scope["type"] == "http" else None


def surface_at(path: str) -> Surface | None:
    """Which limited endpoint an HTTP request for ``path`` is for, or None."""
    if path == "/graphql" or path.startswith("/graphql/"):
        return Surface.GRAPHQL
    if path == "/mcp":
        return Surface.MCP
    return None


def work_of(surface: Surface, method: str, body: bytes) -> Work:
    """Read or write, from the request's method and raw body: a GraphQL document holding a
    mutation, or an MCP call of a tool that writes. A body that is not the JSON expected is a
    read here; the endpoint answers its own error."""
    if method != "POST" or not _may_write(surface, body):
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


def _may_write(surface: Surface, body: bytes) -> bool:
    """False when the raw body cannot name a write: the word, or a write tool's name, is not
    in it and no JSON escape could spell it. Most requests are reads; this spares them the
    JSON parse."""
    if b"\\u" in body:
        return True
    if surface is Surface.GRAPHQL:
        return b"mutation" in body
    return any(name.encode() in body for name in WRITE_TOOLS)


def slot_limits(settings: Settings) -> dict[Work, SlotLimits]:
    waiting = settings.max_requests_waiting
    return {
        Work.READ: SlotLimits(settings.max_reads_in_flight, waiting, settings.read_wait_s),
        Work.WRITE: SlotLimits(settings.max_writes_in_flight, waiting, settings.write_wait_s),
    }


def busy_body(surface: Surface, work: Work, settings: Settings, retry_s: int) -> dict[str, object]:
    """A Busy answer's body, read by the surface's clients as an error: GraphQL's ``errors``
    list, or a JSON-RPC error for MCP, both named Busy as the metrics name it."""
    slots = slot_limits(settings)[work].slots
    message = (
        f"{ErrorKind.BUSY}: this process's {work.value} slots ({slots}) are taken and enough "
        f"requests wait for them; retry in {retry_s} s"
    )
    if surface is Surface.GRAPHQL:
        extensions = {"code": ErrorKind.BUSY.value, "retryAfter": retry_s}
        return {"data": None, "errors": [{"message": message, "extensions": extensions}]}
    return {"jsonrpc": "2.0", "id": None, "error": {"code": -32000, "message": message}}


def busy_response(
    surface: Surface, work: Work, settings: Settings, retry_after_s: int | None = None
) -> JSONResponse:
    """503 with Retry-After (``retry_after_s``, else the least the settings allow) and
    busy_body."""
    retry = settings.busy_retry_after_s if retry_after_s is None else retry_after_s
    body = busy_body(surface, work, settings, retry)
    return JSONResponse(body, status_code=503, headers={"Retry-After": str(retry)})


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


# The key in an ASGI scope's "extensions" under which the door hands over a request it let in.
DOOR_PASS = "engram.door"


@dataclass(frozen=True)
class Passed:
    """A request the door let in (service/api/door.py): its kind, its gate's promise, and
    when it was let in (time.monotonic()): its deadline runs from then."""

    work: Work
    entry: Entry
    arrived: float


def passed_at_door(scope: Scope) -> Passed | None:
    passed = scope.get("extensions", {}).get(DOOR_PASS)
    return passed if isinstance(passed, Passed) else None


class Admission:
    """One app's read and write slots, shared by AdmissionLimit and the door
    (service/api/door.py), which decides before the app is called at all."""

    def __init__(self, settings: Settings, metrics: Metrics) -> None:
        self.settings = settings
        self.metrics = metrics
        self.gates = {work: SlotGate(limits) for work, limits in slot_limits(settings).items()}
        gates = self.gates.values()  # read when /metrics is scraped
        metrics.requests_in_flight.set_function(lambda: sum(g.running for g in gates))
        metrics.requests_waiting.set_function(lambda: sum(g.waiting for g in gates))
        self._refused = {s: metrics.errors.labels(s, ErrorKind.BUSY.value) for s in Surface}
        self._answers: dict[tuple[Surface, Work, int], bytes] = {}

    @property
    def budget_s(self) -> float:
        """How long a request may take, waiting for its slot included (no timeout: forever)."""
        return self.settings.request_timeout_s or math.inf

    def refuse(self, surface: Surface, work: Work) -> int:
        """Count a refusal; the Retry-After, in seconds, to answer it with."""
        self._refused[surface].inc()  # engram_errors_total{kind="Busy"}, as count_error counts
        s = self.settings
        return self.gates[work].retry_after(s.busy_retry_after_s, s.busy_retry_after_max_s)

    def busy_answer(self, surface: Surface, work: Work, retry_s: int) -> bytes:
        """busy_body as JSON bytes; the few there can be are made once."""
        key = (surface, work, retry_s)
        if (answer := self._answers.get(key)) is None:
            body = busy_body(surface, work, self.settings, retry_s)
            answer = self._answers[key] = json.dumps(body, separators=(",", ":")).encode()
        return answer


class AdmissionLimit:
    """ASGI middleware: the read and write slots and the per-request deadline of the module
    doc. A request the door let in has its slot, or its place in line, already."""

    def __init__(self, app: ASGIApp, admission: Admission) -> None:
        self.app = app
        self.admission = admission

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        surface = limited_surface(scope)
        if surface is None:
            await self.app(scope, receive, send)
            return
        budget_s = self.admission.budget_s
        if (passed := passed_at_door(scope)) is not None:
            work, entry = passed.work, passed.entry
            budget_s -= time.monotonic() - passed.arrived  # its wait at the door counts
        else:
            messages = await read_body(receive)
            body = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.request")
            work, entry = work_of(surface, scope["method"], body), None
            receive = replay(messages, receive)
        gate = self.admission.gates[work]
        with deadline_after(None if math.isinf(budget_s) else budget_s):  # the wait counts
            if not await (gate.enter(budget_s) if entry is None else gate.wait(entry)):
                retry = self.admission.refuse(surface, work)
                settings = self.admission.settings
                await busy_response(surface, work, settings, retry)(scope, receive, send)
                return
            began = time.monotonic()
            try:
                await self.app(scope, receive, send)
            finally:
                gate.leave(time.monotonic() - began)

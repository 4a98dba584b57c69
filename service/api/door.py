"""The door: uvicorn's httptools protocol, deciding a request's slot as soon as it is read,
before the app is called at all.

A crowd that arrives in one instant is decided one request after another on the one event
loop, so the last of it waits for every decision ahead of it. Through the app each costs an
asyncio task and the ASGI middleware stack, and none is decided until its task runs: the gates
still look free to the whole crowd when its data is read. Here a request to a limited endpoint
is held until its body is in (it usually comes in the same read), its kind read from the body,
and its gate asked at once (service/api/slots.py, SlotGate.admit): refused with a few bytes
written from the parser's callback, or started holding its slot or its place in line, which
AdmissionLimit (service/api/admission.py) then waits for. A request the door cannot hold (a
large or chunked body, Expect: 100-continue) is decided by AdmissionLimit alone, as without
the door.

Refusals at the door are counted in engram_errors_total like any Busy answer and carry an
X-Request-ID, but write no access line: a crowd refused thousands of times a second would be
as many lines (docs/operations.md).
"""

from __future__ import annotations

import asyncio
import contextvars
import math
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, cast

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle

from service.api.admission import (
    DOOR_PASS,
    Admission,
    Passed,
    Surface,
    Work,
    surface_at,
    work_of,
)
from service.api.slots import Entry, SlotGate
from service.observability.logs import REQUEST_ID_HEADER, request_id_for

# A body the door may hold whole before deciding: below uvicorn's high-water mark, past which
# it stops reading until the app asks for the body (a held request would then never finish).
MAX_HELD_BODY = 60_000
_REQUEST_ID = REQUEST_ID_HEADER.lower().encode("ascii")
_STATUS_503 = b"HTTP/1.1 503 Service Unavailable\r\n"


def admission_of(app: Any) -> Admission | None:
    """The Admission of the Engram app inside uvicorn's wrappers (each keeps the next in
    ``.app``), or None for an app without one."""
    for _ in range(8):
        state = getattr(app, "state", None)
        if state is not None:
            return getattr(state, "admission", None)
        app = getattr(app, "app", None)
    return None


def may_hold(headers: Iterable[tuple[bytes, bytes]]) -> bool:
    """Whether a request with these headers may be held until its body is in: a body of known,
    small length that the client sends without waiting for 100 Continue."""
    for name, value in headers:
        if name == b"content-length" and not (value.isdigit() and int(value) <= MAX_HELD_BODY):
            return False
        if name in (b"transfer-encoding", b"expect"):
            return False
    return True


@dataclass
class Decided:
    """A held request the door let in: what for, and its gate's promise."""

    cycle: RequestResponseCycle
    surface: Surface
    work: Work
    gate: SlotGate
    entry: Entry
    arrived: float  # time.monotonic() when it was let in
    timer: asyncio.TimerHandle | None = None  # the end of its wait in line


class DoorProtocol(HttpToolsProtocol):
    """HttpToolsProtocol with the door of the module doc (`engram serve` runs it)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.admission = admission_of(self.app)
        self.held: RequestResponseCycle | None = None  # until its body is in
        self.in_line: Decided | None = None  # until its slot comes

    def _start_asgi_task(self, cycle: RequestResponseCycle, app: Any) -> None:
        if app is not self.app or not self._may_hold(cycle):
            super()._start_asgi_task(cycle, app)
            return
        self.held = cycle
        if not cycle.more_body:  # a request that was queued behind another is complete
            self._decide()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        if self.held is not None and not self.held.more_body:
            self._decide()

    def connection_lost(self, exc: Exception | None) -> None:
        self.held = None  # never admitted: nothing to give back
        if (decided := self.in_line) is not None:
            self.in_line = None
            if decided.timer is not None:
                decided.timer.cancel()
            decided.gate.abandon(decided.entry)  # its place in line, or the slot just given
        super().connection_lost(exc)

    def _may_hold(self, cycle: RequestResponseCycle) -> bool:
        if self.admission is None or surface_at(cycle.scope["path"]) is None:
            return False
        return may_hold(cycle.scope["headers"])

    def _decide(self) -> None:
        """Refuse the held request, start it, or keep it until its place in line comes up.
        Kept in line it costs its bytes: a crowd's other requests are decided meanwhile."""
        cycle, self.held = self.held, None
        surface = surface_at(cycle.scope["path"]) if cycle is not None else None
        assert cycle is not None and surface is not None and self.admission is not None
        work = work_of(surface, cycle.scope["method"], bytes(cycle.body))
        gate = self.admission.gates[work]
        entry = gate.admit(self.admission.budget_s)
        if entry is None:
            self._refuse(cycle, surface, work)
            return
        decided = Decided(cycle, surface, work, gate, entry, time.monotonic())
        if entry.ticket is None:
            self._start(decided)
            return
        self.in_line = decided
        entry.ticket.add_done_callback(lambda _: self._slot_came(decided))
        if not math.isinf(entry.wait_s):
            decided.timer = self.loop.call_later(entry.wait_s, self._wait_over, decided)

    def _slot_came(self, decided: Decided) -> None:
        if decided.entry.claimed:  # abandoned: the connection went
            return
        if decided.timer is not None:
            decided.timer.cancel()
        self.in_line = None
        self._start(decided)

    def _wait_over(self, decided: Decided) -> None:
        """Its wait ran out in line: refused, unless a slot came as it did (then it starts)."""
        if decided.entry.claimed or decided.gate.withdraw(decided.entry):
            return  # abandoned, or _slot_came is on its way
        self.in_line = None
        self._refuse(decided.cycle, decided.surface, decided.work)

    def _start(self, decided: Decided) -> None:
        """Run the request's task, AdmissionLimit taking over its slot."""
        passed = Passed(decided.work, decided.entry, decided.arrived)
        cast(dict[str, Any], decided.cycle.scope).setdefault("extensions", {})[DOOR_PASS] = passed
        context = contextvars.Context() if self.config.reset_contextvars else None
        task = self.loop.create_task(decided.cycle.run_asgi(self.app), context=context)
        task.add_done_callback(self.tasks.discard)
        # A task that ends before AdmissionLimit takes the slot over (cancelled at shutdown,
        # failed in an outer middleware) gives it back.
        task.add_done_callback(lambda _: decided.gate.abandon(decided.entry))
        self.tasks.add(task)

    def _refuse(self, cycle: RequestResponseCycle, surface: Surface, work: Work) -> None:
        assert self.admission is not None
        retry = self.admission.refuse(surface, work)
        self._write_busy(cycle, self.admission.busy_answer(surface, work, retry), retry)

    def _write_busy(self, cycle: RequestResponseCycle, body: bytes, retry_s: int) -> None:
        asked = next((v for n, v in cycle.scope["headers"] if n == _REQUEST_ID), b"")
        rid = request_id_for(asked.decode("latin-1"))
        head = [_STATUS_503]
        head += [b"%s: %s\r\n" % pair for pair in self.server_state.default_headers]
        head.append(b"content-type: application/json\r\ncontent-length: %d\r\n" % len(body))
        head.append(b"retry-after: %d\r\n%s: %s\r\n" % (retry_s, _REQUEST_ID, rid.encode()))
        if not cycle.keep_alive:
            head.append(b"connection: close\r\n")
        self.transport.write(b"".join(head) + b"\r\n" + body)
        cycle.response_started = cycle.response_complete = True
        if not cycle.keep_alive:
            self.transport.close()
        self.on_response_complete()  # counts it, reads on, starts a request queued behind

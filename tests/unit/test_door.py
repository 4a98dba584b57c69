"""The door (service/api/door.py) without a server: bytes fed to the protocol as a socket
would, its answers read from a transport that keeps what is written. A refused request never
reaches the app, nor becomes a task; everything else reaches the app as under uvicorn."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from uvicorn.config import Config
from uvicorn.server import ServerState

from service.api.admission import Admission, AdmissionLimit, Work
from service.api.door import MAX_HELD_BODY, DoorProtocol, admission_of, may_hold
from service.core.config import Settings
from service.observability.metrics import Metrics

SEARCH = json.dumps({"query": 'query { search(query: "x") { __typename } }'}).encode()
ADD = json.dumps({"query": "mutation { addMessages(messages: []) { __typename } }"}).encode()


class Transport(asyncio.Transport):
    """Keeps what the protocol writes; closing is recorded."""

    def __init__(self) -> None:
        super().__init__()
        self.written = bytearray()
        self.closed = False

    def write(self, data: Any) -> None:
        self.written += data

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


class Link:
    """One client connection to the door: its protocol and its transport."""

    def __init__(self, config: Config, state: ServerState) -> None:
        self.protocol = DoorProtocol(config=config, server_state=state, app_state={})
        self.transport = Transport()
        self.protocol.connection_made(self.transport)

    def send(self, body: bytes, *headers: str, length: int | None = None) -> None:
        length = len(body) if length is None else length
        head = ["POST /graphql HTTP/1.1", "host: engram", f"content-length: {length}", *headers]
        self.protocol.data_received(("\r\n".join(head) + "\r\n\r\n").encode() + body)

    @property
    def status(self) -> int | None:
        line = bytes(self.transport.written).split(b"\r\n", 1)[0]
        return int(line.split()[1]) if line else None


class Door:
    """The door before an app that records the requests it is given, behind AdmissionLimit as
    in create_app."""

    def __init__(self, settings: Settings) -> None:
        self.seen: list[bytes] = []

        async def graphql(request: Request) -> JSONResponse:
            self.seen.append(await request.body())
            return JSONResponse({"data": {}})

        self.metrics = Metrics()
        self.admission = Admission(settings, self.metrics)
        app = Starlette(
            routes=[Route("/graphql", graphql, methods=["POST"])],
            middleware=[Middleware(AdmissionLimit, admission=self.admission)],
        )
        app.state.admission = self.admission
        self.state = ServerState()
        self.config = Config(app=app, http=DoorProtocol, lifespan="off")
        self.link = self.connect()
        self.protocol, self.transport = self.link.protocol, self.link.transport

    def connect(self) -> Link:
        return Link(self.config, self.state)

    def send(self, body: bytes, *headers: str, length: int | None = None) -> None:
        self.link.send(body, *headers, length=length)

    def take_read_slot(self) -> None:
        self.admission.gates[Work.READ].running = 1

    async def settle(self) -> None:
        for _ in range(20):  # the app's tasks, if there are any, answer
            await asyncio.sleep(0)

    def busy_answers(self) -> int:
        return int(self.metrics.errors.labels("graphql", "Busy")._value.get())


@pytest.fixture
def settings() -> Settings:
    return Settings.model_construct(
        max_reads_in_flight=1,
        max_writes_in_flight=1,
        max_requests_waiting=0,
        read_wait_s=1.0,
        write_wait_s=1.0,
        request_timeout_s=30.0,
        busy_retry_after_s=2,
        busy_retry_after_max_s=30,
    )


@pytest.fixture
async def full(settings: Settings) -> Door:
    """A door whose one read slot is taken, with no line: every search is refused."""
    door = Door(settings)
    door.take_read_slot()
    return door


async def test_a_request_the_slots_refuse_is_answered_busy_without_reaching_the_app(
    full: Door,
) -> None:
    door = full
    door.send(SEARCH, "x-request-id: asked-1")
    assert not door.state.tasks  # no task was made for it
    await door.settle()
    head, body = bytes(door.transport.written).split(b"\r\n\r\n", 1)
    lines = head.decode().split("\r\n")
    assert lines[0] == "HTTP/1.1 503 Service Unavailable"
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    assert 2 <= int(headers["retry-after"]) <= 30
    assert headers["x-request-id"] == "asked-1" and int(headers["content-length"]) == len(body)
    [error] = json.loads(body)["errors"]
    assert error["extensions"]["code"] == "Busy" and "read slots (1)" in error["message"]
    assert door.seen == [] and door.busy_answers() == 1
    assert not door.transport.closed  # kept alive: the client asks again on it

    door.admission.gates[Work.READ].running = 0  # the slot frees; the next request runs
    door.transport.written.clear()
    door.send(SEARCH)
    await door.settle()
    assert door.seen == [SEARCH] and bytes(door.transport.written).startswith(b"HTTP/1.1 200")


async def test_a_write_passes_while_the_reads_are_full(full: Door) -> None:
    door = full
    door.send(ADD)
    await door.settle()
    assert door.seen == [ADD] and door.busy_answers() == 0


async def test_a_request_is_decided_once_its_body_is_in(settings: Settings) -> None:
    door = Door(settings)
    door.send(SEARCH[:10], length=len(SEARCH))
    assert not door.state.tasks  # held: its kind is in the body
    door.protocol.data_received(SEARCH[10:])
    assert len(door.state.tasks) == 1 and door.admission.gates[Work.READ].running == 1
    await door.settle()
    assert door.seen == [SEARCH] and door.admission.gates[Work.READ].running == 0


async def test_a_crowd_is_decided_in_the_order_it_comes_before_any_of_it_runs(
    settings: Settings,
) -> None:
    door = Door(settings.model_copy(update={"max_requests_waiting": 1}))
    crowd = [door.connect() for _ in range(5)]
    for link in crowd:
        link.send(SEARCH)
    # One runs, one waits in line, and the rest are answered before either has started. The
    # one in line is only its bytes until its slot comes: no task.
    gate = door.admission.gates[Work.READ]
    assert [link.status for link in crowd] == [None, None, 503, 503, 503]
    assert len(door.state.tasks) == 1 and gate.waiting == 1 and door.busy_answers() == 3
    await door.settle()
    assert [link.status for link in crowd][:2] == [200, 200] and len(door.seen) == 2
    assert gate.running == 0 and gate.waiting == 0


async def test_a_request_whose_wait_in_line_runs_out_is_refused_at_the_door(
    settings: Settings,
) -> None:
    door = Door(settings.model_copy(update={"max_requests_waiting": 1, "request_timeout_s": 0.05}))
    door.take_read_slot()  # and it is never given back
    door.send(SEARCH)
    gate = door.admission.gates[Work.READ]
    assert gate.waiting == 1 and door.link.status is None
    for _ in range(500):  # its wait ends with its deadline (less a slot's time: none yet)
        await asyncio.sleep(0.01)
        if door.link.status is not None:
            break
    assert door.link.status == 503 and gate.waiting == 0 and door.seen == []


async def test_a_connection_that_goes_while_in_line_gives_its_place_back(
    settings: Settings,
) -> None:
    door = Door(settings.model_copy(update={"max_requests_waiting": 1}))
    door.take_read_slot()
    door.send(SEARCH)
    gate = door.admission.gates[Work.READ]
    assert gate.waiting == 1
    door.protocol.connection_lost(None)
    assert gate.waiting == 0
    gate.leave(0.1)  # the slot frees: nobody is started on the closed connection
    await door.settle()
    assert door.seen == [] and gate.running == 0


async def test_a_request_that_ends_before_it_runs_gives_its_slot_back(
    settings: Settings,
) -> None:
    door = Door(settings)
    door.send(SEARCH)
    [task] = door.state.tasks
    task.cancel()  # as at shutdown, before AdmissionLimit took the slot over
    await door.settle()
    assert door.seen == [] and door.admission.gates[Work.READ].running == 0


@pytest.mark.parametrize(
    ("body", "headers", "length"),
    [
        (SEARCH, ("expect: 100-continue",), None),  # its body comes only once the app reads
        (SEARCH[:10], (), MAX_HELD_BODY + 1),  # past uvicorn's high-water mark
    ],
)
async def test_a_request_the_door_cannot_hold_goes_to_the_app_which_decides(
    full: Door, body: bytes, headers: tuple[str, ...], length: int | None
) -> None:
    full.send(body, *headers, length=length)
    assert len(full.state.tasks) == 1


async def test_a_refusal_to_a_client_that_closes_closes_the_connection(full: Door) -> None:
    full.send(SEARCH, "connection: close")
    assert b"\r\nconnection: close\r\n" in bytes(full.transport.written)
    assert full.transport.closed


async def test_the_door_finds_the_admission_inside_uvicorns_wrappers(settings: Settings) -> None:
    door = Door(settings)
    assert door.protocol.admission is door.admission
    assert admission_of(Starlette()) is None  # another app: the door never holds anything


@pytest.mark.parametrize(
    ("headers", "held"),
    [
        ([(b"content-length", b"120")], True),
        ([], True),
        ([(b"content-length", str(MAX_HELD_BODY + 1).encode())], False),
        ([(b"content-length", b"12x")], False),
        ([(b"transfer-encoding", b"chunked")], False),
        ([(b"expect", b"100-continue")], False),
    ],
)
def test_which_requests_may_be_held_for_their_body(
    headers: list[tuple[bytes, bytes]], held: bool
) -> None:
    assert may_hold(headers) is held

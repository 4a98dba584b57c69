"""Admission without a database: which paths are limited, reads told from writes, how long a
request may wait for a slot, the gate's hand-over, the busy answers, the deadline."""

from __future__ import annotations

import asyncio
import json
import math
import time
from typing import Any

import pytest

from service.api.admission import (
    WRITE_TOOLS,
    Surface,
    Work,
    busy_response,
    limited_surface,
    slot_limits,
    work_of,
)
from service.api.slots import SlotGate, SlotLimits, allowed_wait, retry_after
from service.core.config import Settings
from service.core.deadline import deadline_after, deadline_passed, transaction_timeout
from service.core.errors import QueryTimeoutError
from service.mcp.tools import Binding, build_server


@pytest.mark.parametrize(
    ("scope_type", "path", "surface"),
    [
        ("http", "/graphql", Surface.GRAPHQL),
        ("http", "/graphql/", Surface.GRAPHQL),
        ("http", "/mcp", Surface.MCP),
        ("http", "/healthz", None),
        ("http", "/metrics", None),
        ("http", "/graphiql-assets/graphiql.min.js", None),
        ("http", "/graphqlx", None),
        ("websocket", "/graphql", None),
    ],
)
def test_only_graphql_and_mcp_are_limited(scope_type: str, path: str, surface: Surface) -> None:
    assert limited_surface({"type": scope_type, "path": path}) is surface


def graphql(query: str, **variables: object) -> bytes:
    return json.dumps({"query": query, "variables": variables}).encode()


def mcp_call(tool: str) -> bytes:
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool}}
    return json.dumps(message).encode()


@pytest.mark.parametrize(
    ("surface", "method", "body", "work"),
    [
        (Surface.GRAPHQL, "POST", graphql("mutation { addMessages }"), Work.WRITE),
        (Surface.GRAPHQL, "POST", graphql("mutation Add($m: [M!]!) { x }"), Work.WRITE),
        (Surface.GRAPHQL, "POST", graphql("query { a } mutation B { b }"), Work.WRITE),
        (Surface.GRAPHQL, "POST", graphql("{ search(query: $q) }", q="a mutation"), Work.READ),
        (Surface.GRAPHQL, "POST", graphql("query Mutations { search }"), Work.READ),
        (
            Surface.GRAPHQL,
            "POST",
            b"[%s, %s]" % (graphql("{ a }"), graphql("mutation { b }")),
            Work.WRITE,
        ),
        # Spelled with JSON escapes, a mutation is still one.
        (Surface.GRAPHQL, "POST", b'{"query": "\\u006dutation { b }"}', Work.WRITE),
        (Surface.MCP, "POST", mcp_call("add_messages").replace(b"add", b"\\u0061dd"), Work.WRITE),
        (Surface.GRAPHQL, "GET", b"", Work.READ),
        (Surface.GRAPHQL, "POST", b"not json", Work.READ),
        (Surface.GRAPHQL, "POST", b'"a string"', Work.READ),
        (Surface.MCP, "POST", mcp_call("add_messages"), Work.WRITE),
        (Surface.MCP, "POST", mcp_call("forget"), Work.WRITE),
        (Surface.MCP, "POST", mcp_call("search"), Work.READ),
        (Surface.MCP, "POST", b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}', Work.READ),
        (Surface.MCP, "POST", b'{"method": "tools/call", "params": []}', Work.READ),
    ],
)
def test_reads_and_writes_are_told_apart_from_the_raw_body(
    surface: Surface, method: str, body: bytes, work: Work
) -> None:
    assert work_of(surface, method, body) is work


async def test_the_write_tools_are_those_that_are_not_read_only() -> None:
    server = build_server(Binding(_unused, _unused))
    tools = await server.list_tools()
    writing = {t.name for t in tools if not (t.annotations and t.annotations.read_only_hint)}
    assert writing == WRITE_TOOLS


def _unused(_: object) -> Any:
    raise AssertionError("listing the tools calls none")


LIMITS = SlotLimits(slots=2, max_waiting=3, max_wait_s=5.0)


@pytest.mark.parametrize(
    ("running", "waiting", "held_s", "budget_s", "wait_s"),
    [
        (0, 0, 0.3, 30.0, 0.0),  # a free slot: at once
        (1, 0, 0.3, 30.0, 0.0),
        (2, 0, 0.3, 30.0, 29.7),  # full: in line, until only a slot's time is left
        (2, 2, 0.3, 30.0, 29.7),  # two ahead: 0.45 s expected
        (2, 3, 0.3, 30.0, None),  # as many wait as may
        (2, 1, 4.0, 30.0, 26.0),  # one ahead at 4 s a slot: 4 s expected, within the bound
        (2, 2, 4.0, 30.0, None),  # two ahead: 6 s expected, past it
        (2, 0, 0.3, 2.0, 1.7),  # a near deadline
        (2, 2, 1.0, 2.0, None),  # 1.5 s expected, 1 s left before a slot's work
        (2, 0, 3.0, 2.0, None),  # its deadline passes before a slot's work would end
    ],
)
def test_how_long_a_request_may_wait(
    running: int, waiting: int, held_s: float, budget_s: float, wait_s: float | None
) -> None:
    assert allowed_wait(LIMITS, running, waiting, held_s, budget_s) == pytest.approx(wait_s)


def test_no_limit_runs_everything_at_once() -> None:
    unlimited = SlotLimits(slots=0, max_waiting=0, max_wait_s=0.0)
    assert allowed_wait(unlimited, 1000, 0, 5.0, 1.0) == 0.0


def test_no_wait_allowed_refuses_at_once_when_full() -> None:
    no_wait = SlotLimits(slots=1, max_waiting=0, max_wait_s=5.0)
    assert allowed_wait(no_wait, 1, 0, 0.1, 30.0) is None


async def test_a_freed_slot_goes_to_the_first_waiter_in_turn() -> None:
    gate = SlotGate(SlotLimits(slots=1, max_waiting=5, max_wait_s=60.0))
    assert await gate.enter(60.0)
    order: list[int] = []

    async def waiter(i: int) -> None:
        assert await gate.enter(60.0)
        order.append(i)

    waiters = [asyncio.create_task(waiter(i)) for i in range(3)]
    while gate.waiting < 3:
        await asyncio.sleep(0)
    for _ in range(3):
        gate.leave(0.1)
        while len(order) < 3 - gate.waiting:
            await asyncio.sleep(0)
    await asyncio.gather(*waiters)
    assert order == [0, 1, 2] and gate.running == 1
    gate.leave(0.1)
    assert gate.running == 0 and gate.waiting == 0


async def test_a_waiter_whose_deadline_comes_is_refused_and_leaves_the_line() -> None:
    gate = SlotGate(SlotLimits(slots=1, max_waiting=5, max_wait_s=60.0))
    assert await gate.enter(60.0)
    assert not await gate.enter(0.01)
    assert gate.waiting == 0 and gate.running == 1
    gate.leave(0.1)
    assert gate.running == 0


async def test_a_cancelled_waiter_leaves_the_line_and_the_next_gets_the_slot() -> None:
    gate = SlotGate(SlotLimits(slots=1, max_waiting=5, max_wait_s=60.0))
    assert await gate.enter(60.0)
    gone = asyncio.create_task(gate.enter(60.0))
    stays = asyncio.create_task(gate.enter(60.0))
    while gate.waiting < 2:
        await asyncio.sleep(0)
    gone.cancel()
    with pytest.raises(asyncio.CancelledError):
        await gone
    gate.leave(0.1)
    assert await stays and gate.running == 1 and gate.waiting == 0


async def test_admission_decides_at_once_and_what_is_abandoned_is_given_back() -> None:
    gate = SlotGate(SlotLimits(slots=1, max_waiting=1, max_wait_s=60.0))
    runs, waits = gate.admit(60.0), gate.admit(60.0)
    assert runs is not None and waits is not None and gate.admit(60.0) is None
    assert gate.running == 1 and gate.waiting == 1  # decided before anything awaited
    gate.abandon(waits)  # its request ended before it came to wait
    assert gate.waiting == 0 and gate.running == 1
    gate.abandon(runs)
    assert gate.running == 0
    entry = gate.admit(60.0)
    assert entry is not None and await gate.wait(entry)
    gate.abandon(entry)  # claimed by wait(): the request gives it back itself, not abandon
    assert gate.running == 1


async def test_without_a_deadline_a_waiter_waits_for_its_turn() -> None:
    gate = SlotGate(SlotLimits(slots=1, max_waiting=5, max_wait_s=60.0))
    assert await gate.enter(math.inf)
    waiter = asyncio.create_task(gate.enter(math.inf))
    while gate.waiting < 1:
        await asyncio.sleep(0)
    gate.leave(0.1)
    assert await waiter and gate.running == 1


async def test_the_time_a_slot_is_held_follows_the_latest_requests() -> None:
    gate = SlotGate(SlotLimits(slots=1, max_waiting=5, max_wait_s=60.0))
    for _ in range(30):
        assert await gate.enter(60.0)
        gate.leave(2.0)
    assert gate.held_s == pytest.approx(2.0, rel=0.01)


def test_defaults_come_from_the_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("service.core.config.usable_cores", lambda: 3)
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    limits = slot_limits(settings)
    assert limits[Work.READ].slots == 6 and limits[Work.WRITE].slots == 3
    assert limits[Work.READ].max_waiting == 96


def test_busy_answers_say_busy_and_when_to_retry() -> None:
    settings = Settings.model_construct(
        max_reads_in_flight=3, max_writes_in_flight=1, busy_retry_after_s=5
    )
    graphql_busy = busy_response(Surface.GRAPHQL, Work.READ, settings)
    assert graphql_busy.status_code == 503 and graphql_busy.headers["Retry-After"] == "5"
    [error] = json.loads(bytes(graphql_busy.body))["errors"]
    assert error["extensions"] == {"code": "Busy", "retryAfter": 5}
    assert "read slots (3)" in error["message"]
    mcp = json.loads(bytes(busy_response(Surface.MCP, Work.WRITE, settings).body))
    assert mcp["jsonrpc"] == "2.0" and mcp["error"]["message"].startswith("Busy: ")
    assert "write slots (1)" in mcp["error"]["message"]


def test_no_deadline_outside_a_request() -> None:
    assert transaction_timeout() is None and not deadline_passed()
    with deadline_after(None):
        assert transaction_timeout() is None


def test_a_transaction_gets_what_is_left_of_the_deadline() -> None:
    with deadline_after(30.0):
        left = transaction_timeout()
        assert left is not None and 0 < left <= 30.0 and not deadline_passed()
    assert transaction_timeout() is None  # the block's deadline ends with it


def test_past_the_deadline_no_transaction_starts() -> None:
    with deadline_after(0.0):
        time.sleep(0.001)
        assert deadline_passed()
        with pytest.raises(QueryTimeoutError):
            transaction_timeout()


def test_retry_after_grows_with_the_line_ahead() -> None:
    limits = SlotLimits(slots=4, max_waiting=64, max_wait_s=1.0)
    # 64 waiting, a slot held 0.5 s: the line drains in 64 * 0.5 / 4 = 8 s.
    assert retry_after(limits, waiting=64, held_s=0.5, floor_s=1, ceiling_s=30) == 8
    assert retry_after(limits, waiting=3, held_s=0.5, floor_s=1, ceiling_s=30) == 1  # 0.375 s
    assert retry_after(limits, waiting=0, held_s=2.0, floor_s=2, ceiling_s=30) == 2
    assert retry_after(limits, waiting=64, held_s=9.0, floor_s=1, ceiling_s=30) == 30
    assert retry_after(limits, waiting=64, held_s=9.0, floor_s=5, ceiling_s=3) == 5
    unlimited = SlotLimits(slots=0, max_waiting=0, max_wait_s=0.0)
    assert retry_after(unlimited, waiting=10, held_s=1.0, floor_s=1, ceiling_s=30) == 1


def test_retry_after_spreads_a_crowd_over_up_to_twice_the_wait() -> None:
    limits = SlotLimits(slots=4, max_waiting=64, max_wait_s=1.0)
    spread = [
        retry_after(limits, waiting=64, held_s=0.5, floor_s=1, ceiling_s=30, spread=u / 10)
        for u in range(10)
    ]
    assert spread[0] == 8 and max(spread) == 16 and spread == sorted(spread)
    # Told 1 s, a crowd comes back over 1 and 2 s; never past the ceiling.
    assert {retry_after(limits, 0, 0.5, 1, 30, spread=u) for u in (0.0, 0.49, 0.5, 0.99)} == {1, 2}
    assert retry_after(limits, waiting=64, held_s=9.0, floor_s=1, ceiling_s=30, spread=0.9) == 30


async def test_a_refusal_says_when_the_line_has_drained() -> None:
    gate = SlotGate(SlotLimits(slots=1, max_waiting=2, max_wait_s=60.0))
    assert await gate.enter(60.0)
    gate.leave(3.0)  # a slot was held 3 s lately (the average moves a fifth of the way)
    assert await gate.enter(60.0)
    waiters = [asyncio.ensure_future(gate.enter(60.0)) for _ in range(2)]
    await asyncio.sleep(0)
    assert gate.waiting == 2 and not await gate.enter(60.0)  # the line is full: refused
    drained = math.ceil(2 * gate.held_s)
    assert drained <= gate.retry_after(1, 30) <= 2 * drained
    for _ in waiters:
        gate.leave(None)
    assert all(await asyncio.gather(*waiters))


def test_a_busy_answer_carries_the_retry_it_was_given() -> None:
    settings = Settings.model_construct(
        max_reads_in_flight=3, max_writes_in_flight=1, busy_retry_after_s=1
    )
    busy = busy_response(Surface.GRAPHQL, Work.READ, settings, retry_after_s=12)
    assert busy.headers["Retry-After"] == "12"
    [error] = json.loads(bytes(busy.body))["errors"]
    assert error["extensions"]["retryAfter"] == 12 and "retry in 12 s" in error["message"]

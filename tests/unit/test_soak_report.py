"""The soak's judgements (bench/soak/report.py): windows, recovery, the fate of writes."""

from __future__ import annotations

import httpx

from bench.soak import report
from bench.soak.records import (
    Attempt,
    Delete,
    Fault,
    FaultKind,
    Op,
    Outcome,
    Write,
    classify,
)
from bench.soak.report import Stored
from service.core.errors import BusyError, DatabaseUnavailableError, ValidationError

NEO4J_KILL = Fault(FaultKind.NEO4J_SIGKILL, at=100.0, restarted=110.0, settle_s=5.0)
SERVICE_KILL = Fault(FaultKind.SERVICE_SIGKILL, at=200.0, restarted=230.0, settle_s=5.0, server=1)


def attempt(
    op: Op, started: float, ended: float, outcome: Outcome = Outcome.OK, server: int = 0
) -> Attempt:
    return Attempt(op, server, started, ended, outcome)


def stored(created: dict[str, float] | None = None, live: set[str] | None = None) -> Stored:
    return Stored(created or {}, live or set(), {})


def test_errors_are_classified_by_type() -> None:
    assert classify(BusyError("busy", 1.0)) is Outcome.BUSY
    assert classify(DatabaseUnavailableError("down")) is Outcome.UNAVAILABLE
    assert classify(httpx.ConnectError("refused")) is Outcome.SERVER_GONE
    assert classify(httpx.ReadTimeout("hang")) is Outcome.FAILED
    assert classify(ValidationError("bad")) is Outcome.FAILED


def test_latency_splits_at_the_fault_windows() -> None:
    attempts = [
        attempt(Op.SEARCH, 10.0, 10.1),
        attempt(Op.SEARCH, 99.0, 101.0),  # overlaps the kill: inside
        attempt(Op.SEARCH, 114.0, 114.5),  # in the settle time: inside
        attempt(Op.SEARCH, 104.0, 104.1),  # while Neo4j was down
        attempt(Op.SEARCH, 116.0, 116.2),
        attempt(Op.SEARCH, 120.0, 120.3),
        attempt(Op.SEARCH, 50.0, 50.3, Outcome.BUSY),  # not answered: no latency
    ]
    split = report.latency_ms(attempts, [NEO4J_KILL])
    assert split["search"] == {
        "outside": {"n": 3, "p50": 200.0, "p95": 300.0, "p99": 300.0},
        "inside": {"n": 3, "p50": 500.0, "p95": 2000.0, "p99": 2000.0},
    }


def test_recovery_counts_from_the_kill_on_the_killed_process() -> None:
    attempts = [
        attempt(Op.ADD, 201.0, 202.0, server=0),  # the other process: does not count
        attempt(Op.ADD, 199.0, 240.0, server=1),  # started before the kill
        attempt(Op.ADD, 231.0, 233.5, server=1),
        attempt(Op.SEARCH, 232.0, 232.4, Outcome.BUSY, server=1),
    ]
    recovery = report.recovery_s(attempts, SERVICE_KILL, SERVICE_KILL.at)
    assert recovery["add"] == 33.5
    assert recovery["search"] is None
    assert report.recovery_s(attempts, SERVICE_KILL, SERVICE_KILL.restarted)["add"] == 3.5


def test_a_lost_connection_is_allowed_only_from_the_killed_process_while_down() -> None:
    gone_killed = attempt(Op.ADD, 205.0, 205.1, Outcome.SERVER_GONE, server=1)
    gone_other = attempt(Op.ADD, 205.0, 205.1, Outcome.SERVER_GONE, server=0)
    gone_later = attempt(Op.ADD, 300.0, 300.1, Outcome.SERVER_GONE, server=1)
    busy = attempt(Op.ADD, 105.0, 105.1, Outcome.BUSY)
    assert report.failures([gone_killed, gone_other, gone_later, busy], [SERVICE_KILL]) == [
        gone_other,
        gone_later,
    ]


def test_fates_of_writes_caught_by_a_fault() -> None:
    acked = Write(Op.ADD, "soak-0", ["a"], [attempt(Op.ADD, 99.0, 101.0)])
    failed_stored = Write(
        Op.ADD, "soak-0", ["b"], [attempt(Op.ADD, 99.0, 100.5, Outcome.UNAVAILABLE)]
    )
    failed_clean = Write(
        Op.ADD, "soak-0", ["c"], [attempt(Op.ADD, 99.0, 100.5, Outcome.UNAVAILABLE)]
    )
    [a], [b], [c] = (report.message_ids(w) for w in (acked, failed_stored, failed_clean))
    # b was committed before the answer was lost; c only by its retry, later.
    at_end = stored({a: 100.9, b: 99.5, c: 120.0})
    fates = report.in_flight(NEO4J_KILL, [acked, failed_stored, failed_clean], [], at_end)
    assert fates == {
        "add: acknowledged, stored": 1,
        "add: failed (typed) but stored anyway; the retry (same ids) wrote nothing twice": 1,
        "add: failed (typed), not stored by it": 1,
    }
    assert report.lost([acked], stored({})) == [a]
    acked.message_ids = [a]
    assert report.ids_not_as_computed([acked]) == 0
    acked.message_ids = ["c"]
    assert report.ids_not_as_computed([acked]) == 1


def test_a_deleted_memory_back_without_a_later_write_is_an_undone_delete() -> None:
    write = Write(Op.ADD, "soak-0", ["a"], [attempt(Op.ADD, 10.0, 11.0)])
    [source] = report.message_ids(write)
    gone = Delete("soak-0", "m1", [attempt(Op.DELETE, 20.0, 21.0)])
    back = Delete("soak-0", "m2", [attempt(Op.DELETE, 20.0, 21.0)])
    at_end = Stored({source: 10.5}, {"m2"}, {"m2": [source]})
    assert report.deletes_undone([gone, back], [write], at_end) == (["m2"], [])
    rewritten = Write(Op.ADD, "soak-0", ["a"], [attempt(Op.ADD, 19.0, 25.0)])
    assert report.deletes_undone([back], [rewritten], at_end) == ([], ["m2"])

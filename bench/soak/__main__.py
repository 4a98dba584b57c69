"""Soak with faults: 16 clients on two `engram serve` processes, one Neo4j SIGKILLed mid-run and
later one service process; nothing acknowledged may be lost or stored twice.

    .venv/bin/python -m bench.soak                       # ~4 minutes, then bench/results/soak.json
    .venv/bin/python -m bench.soak --seconds 90 --deferred-share 0

The soak runs its own Neo4j (ports 7699/7486, data in ~/.cache/engram/soak-data, emptied at
the start) and two `engram serve` processes (local auth) against it. Each client owns one of
--scopes scopes with another client on the other process, and mixes adds (synchronous or
deferred), searches and deletes of memories its adds created. A write answered busy (503),
DatabaseUnavailable or TimedOut is retried after a backoff with the same message ids (a
repeat writes nothing); a lost connection is retried on the other process.

At the end, once deferred adds have drained, it reads Neo4j over Bolt: every acknowledged
message id must exist exactly once, no scope may hold two current memories of one fact, and
an acknowledged delete must have held. soak.json reports those, errors by kind, latency
percentiles outside and inside the fault windows, time to recover from each fault per
operation, and what became of the writes each fault caught in flight.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from rich.console import Console

from bench.common import free_port, write_result
from bench.soak import report
from bench.soak.audit import Duplicates, drain_pending, read_stored
from bench.soak.faults import FaultPlan, inject
from bench.soak.processes import (
    BOLT_PORT,
    HTTP_PORT,
    SOAK_DATA,
    ServeProcess,
    SoakNeo4j,
    serve_processes,
    soak_settings,
)
from bench.soak.records import Fault
from bench.soak.report import Stored
from bench.soak.workload import Ledger, Workload, run_clients


async def soak(args: argparse.Namespace) -> dict[str, Any]:
    settings = soak_settings(args.data, args.bolt_port, args.http_port)
    neo4j = SoakNeo4j(settings)
    await asyncio.to_thread(neo4j.start_fresh)
    servers = serve_processes(settings, [free_port(), free_port()], args.lease_s)
    try:
        for server in servers:
            await asyncio.to_thread(server.start)
        workload = Workload(args.scopes, args.deferred_share)
        plan = FaultPlan(args.seconds * args.neo4j_kill_at, args.seconds * args.service_kill_at)
        began = time.time()
        ledger, faults = await asyncio.gather(
            run_clients([s.url for s in servers], args.clients, workload, began + args.seconds),
            inject(neo4j, servers[-1], plan, began),
        )
        ended = time.time()
        drain = await drain_pending(servers[0].url, args.drain_timeout_s)
        stored, duplicates, pending_left = await read_stored(
            settings.bolt_uri, ledger.writes, ledger.deletes
        )
    finally:
        stop_all(servers, neo4j)
    verdict = judge(ledger, faults, stored, duplicates)
    return {
        "clients": args.clients,
        "scopes": args.scopes,
        "servers": len(servers),
        "load_s": args.seconds,
        "ran_s": round(ended - began, 1),
        "deferred_share": args.deferred_share,
        **verdict,
        "deferred_drain": asdict(drain) | {"left_in_neo4j": asdict(pending_left)},
        "faults": [fault_summary(f, ledger, stored) for f in faults],
        "latency_ms": report.latency_ms(ledger.attempts, faults),
        "requests": len(ledger.attempts),
    }


def judge(ledger: Ledger, faults: list[Fault], stored: Stored, dup: Duplicates) -> dict[str, Any]:
    """The counts that must be zero, and what they were counted from."""
    acked = [w for w in ledger.writes if w.acknowledged]
    lost = report.lost(ledger.writes, stored)
    undone, re_added = report.deletes_undone(ledger.deletes, ledger.writes, stored)
    failures = report.failures(ledger.attempts, faults)
    return {
        "messages_acknowledged": sum(len(w.external_ids) for w in acked),
        "acknowledged_ids_not_as_computed": report.ids_not_as_computed(acked),
        "messages_stored": sum(
            1 for w in acked for i in report.message_ids(w) if i in stored.message_created
        ),
        "writes_never_acknowledged": sum(1 for w in ledger.writes if not w.acknowledged),
        "lost": len(lost),
        "lost_ids": lost[:20],
        "duplicated": len(dup.messages) + len(dup.memories),
        "duplicated_detail": {
            "messages": dup.messages[:20],
            "memories_same_scope_and_hash": dup.memories[:20],
            "extra_add_events_in_history": dup.extra_add_events,
        },
        "deletes_acknowledged": sum(1 for d in ledger.deletes if d.acknowledged),
        "deletes_undone": undone,
        "deleted_then_re_added_by_a_later_write": len(re_added),
        "errors_by_kind": report.errors_by_kind(ledger.attempts),
        "failures": len(failures),
        "failures_listed": [asdict(a) for a in failures[:30]],
    }


def fault_summary(fault: Fault, ledger: Ledger, stored: Stored) -> dict[str, Any]:
    start, end = fault.window
    return {
        "kind": fault.kind.value,
        "server": fault.server,
        "restart_took_s": round(fault.restarted - fault.at, 1),
        "failed_starts": list(fault.failed_starts),
        "window_s": round(end - start, 1),
        "recovery_from_kill_s": report.recovery_s(ledger.attempts, fault, fault.at),
        "recovery_from_restart_s": report.recovery_s(ledger.attempts, fault, fault.restarted),
        "in_flight": report.in_flight(fault, ledger.writes, ledger.deletes, stored),
    }


def stop_all(servers: list[ServeProcess], neo4j: SoakNeo4j) -> None:
    for server in servers:
        server.stop()
    neo4j.stop()


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--seconds", type=float, default=240, help="of client load")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--scopes", type=int, default=8)
    parser.add_argument("--deferred-share", type=float, default=0.5, help="of adds")
    parser.add_argument("--neo4j-kill-at", type=float, default=0.25, help="share of --seconds")
    parser.add_argument("--service-kill-at", type=float, default=0.6, help="share of --seconds")
    parser.add_argument("--lease-s", type=float, default=15, help="ENGRAM_PENDING_LEASE_S")
    parser.add_argument("--drain-timeout-s", type=float, default=180)
    parser.add_argument("--data", type=Path, default=SOAK_DATA, help="emptied at the start")
    parser.add_argument("--bolt-port", type=int, default=BOLT_PORT)
    parser.add_argument("--http-port", type=int, default=HTTP_PORT)
    parser.add_argument("--out", default="soak.json", help="file name in bench/results/")
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    result = asyncio.run(soak(args))
    Console().print(result)
    print(write_result(args.out, result, "bench.soak"))


if __name__ == "__main__":
    main()

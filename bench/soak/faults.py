"""The soak's faults, on a schedule: Neo4j SIGKILLed and started again, later one service
process SIGKILLed and started again; each comes back with its window."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from bench.soak.processes import ServeProcess, SoakNeo4j
from bench.soak.records import Fault, FaultKind

MAX_FAILED_STARTS = 3


@dataclass(frozen=True)
class FaultPlan:
    neo4j_kill_at_s: float  # from the clients' start
    service_kill_at_s: float
    down_s: float = 5.0  # how long what was killed stays down before the restart begins
    settle_s: float = 10.0  # after the restart, still inside the fault window


async def neo4j_fault(neo4j: SoakNeo4j, plan: FaultPlan) -> Fault:
    at = time.time()
    say(f"Neo4j (pid {neo4j.kill()}) SIGKILLed")
    await asyncio.sleep(plan.down_s)
    await asyncio.to_thread(neo4j.start)
    say(f"Neo4j answers again, {time.time() - at:.1f} s after the kill")
    return Fault(FaultKind.NEO4J_SIGKILL, at, time.time(), plan.settle_s)


async def service_fault(server: ServeProcess, plan: FaultPlan) -> Fault:
    at = time.time()
    await asyncio.to_thread(server.kill)
    say(f"engram serve on port {server.port} SIGKILLed")
    await asyncio.sleep(plan.down_s)
    failed_starts = await restart(server)
    say(f"engram serve on port {server.port} healthy again, {time.time() - at:.1f} s after")
    return Fault(
        FaultKind.SERVICE_SIGKILL, at, time.time(), plan.settle_s, server.index, failed_starts
    )


async def restart(server: ServeProcess) -> tuple[str, ...]:
    """Start it until it comes up (a failed start-up is a finding, not the soak's end); the
    failed starts' last log line each."""
    failed: list[str] = []
    while True:
        try:
            await asyncio.to_thread(server.start)
            return tuple(failed)
        except RuntimeError:
            failed.append(server.last_error())
            say(f"engram serve on port {server.port} failed to start: {failed[-1]}")
            if len(failed) == MAX_FAILED_STARTS:
                raise


def say(event: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} {event}", flush=True)


async def inject(
    neo4j: SoakNeo4j, victim: ServeProcess, plan: FaultPlan, began: float
) -> list[Fault]:
    """Run the plan from ``began`` (epoch s); the faults, each once it has recovered."""
    await asyncio.sleep(max(0.0, began + plan.neo4j_kill_at_s - time.time()))
    faults = [await neo4j_fault(neo4j, plan)]
    await asyncio.sleep(max(0.0, began + plan.service_kill_at_s - time.time()))
    faults.append(await service_fault(victim, plan))
    return faults

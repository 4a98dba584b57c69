"""Pure judgements over the soak's records and what Neo4j held at the end: latencies inside
and outside the fault windows, recovery times, what became of the writes a fault caught."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bench.common import percentile
from bench.soak.records import Attempt, Delete, Fault, FaultKind, Op, Outcome, Write
from service.core.domain import Scope
from service.core.ids import scoped_id

# Neo4j's datetime() and the client's clock are the same machine's; this covers rounding.
CLOCK_SLACK_S = 0.05


@dataclass(frozen=True)
class Stored:
    """What Neo4j held at the end, as the soak's checks need it."""

    message_created: dict[str, float]  # Engram message id -> created_at (epoch s)
    live_memories: set[str]  # of the memories whose deletion was acknowledged
    memory_sources: dict[str, list[str]]  # those memories' source message ids


def message_ids(write: Write) -> list[str]:
    """Engram's ids for the write's messages: the same on every attempt and in every mode."""
    scope = Scope(user_id=write.scope)
    return [scoped_id(scope, "msg", external) for external in write.external_ids]


def ids_not_as_computed(acknowledged: Iterable[Write]) -> int:
    """Acknowledged writes whose answer named other message ids than ``message_ids`` computes
    (sync and deferred adds must answer the same ids, the ones the audit looks for)."""
    return sum(1 for w in acknowledged if w.message_ids != message_ids(w))


def latency_ms(attempts: Iterable[Attempt], faults: Sequence[Fault]) -> dict[str, object]:
    """p50/p95/p99 of the answered requests per operation, outside and inside fault windows."""
    groups: dict[str, dict[str, list[float]]] = {}
    for a in attempts:
        if a.outcome is not Outcome.OK:
            continue
        where = "inside" if any(f.covers(a) for f in faults) else "outside"
        groups.setdefault(a.op.value, {"outside": [], "inside": []})[where].append(a.ms)
    return {
        op: {where: summary(values) for where, values in sides.items()}
        for op, sides in groups.items()
    }


def summary(values: list[float]) -> dict[str, float | int | None]:
    if not values:
        return {"n": 0, "p50": None, "p95": None, "p99": None}
    return {
        "n": len(values),
        **{f"p{q}": round(percentile(values, q), 1) for q in (50, 95, 99)},
    }


def errors_by_kind(attempts: Iterable[Attempt]) -> dict[str, int]:
    counts = Counter(f"{a.op.value}: {a.outcome.value}" for a in attempts if a.outcome != "ok")
    return dict(sorted(counts.items()))


def failures(attempts: Iterable[Attempt], faults: Sequence[Fault]) -> list[Attempt]:
    """Answers a client may not get: untyped ones, and lost connections no kill explains."""
    bad = []
    for a in attempts:
        if (
            a.outcome is Outcome.FAILED
            or (
                a.outcome is Outcome.SERVER_GONE
                and not any(f.kind is FaultKind.SERVICE_SIGKILL and f.allows(a) for f in faults)
            )
            or (a.outcome is Outcome.NOT_FOUND and a.op is not Op.DELETE)
        ):
            bad.append(a)
    return bad


def recovery_s(attempts: Sequence[Attempt], fault: Fault, since: float) -> dict[str, float | None]:
    """Per operation, from ``since`` (the kill, or the restart) to the end of the first answered
    request started after it (on the killed process, for a service kill)."""
    first: dict[str, float | None] = {op.value: None for op in Op}
    for a in sorted(attempts, key=lambda a: a.ended):
        if a.outcome is not Outcome.OK or a.started < since:
            continue
        if fault.server is not None and a.server != fault.server:
            continue
        if first[a.op.value] is None:
            first[a.op.value] = round(a.ended - since, 2)
    return first


def write_fate(write: Write, attempt: Attempt, stored: Stored) -> str:
    """What became of a write a fault caught in flight."""
    created = [stored.message_created.get(i) for i in message_ids(write)]
    at_end = all(c is not None for c in created)
    if attempt.outcome is Outcome.OK:
        return "acknowledged, stored" if at_end else "acknowledged, LOST"
    kind = "typed" if attempt.outcome.typed else attempt.outcome.value
    if write.op is Op.ADD_DEFERRED:
        # The worker writes the messages later: whether this attempt queued them is not seen.
        return f"failed ({kind}), retried with the same ids, stored at end: {at_end}"
    by_then = [c is not None and c <= attempt.ended + CLOCK_SLACK_S for c in created]
    if any(by_then):
        return f"failed ({kind}) but stored anyway; the retry (same ids) wrote nothing twice"
    return f"failed ({kind}), not stored by it"


def delete_fate(delete: Delete, attempt: Attempt, stored: Stored) -> str:
    gone = delete.memory_id not in stored.live_memories
    if attempt.outcome is Outcome.OK:
        return "acknowledged, stayed deleted" if gone else "acknowledged, back at the end"
    kind = "typed" if attempt.outcome.typed else attempt.outcome.value
    later = delete.attempts[delete.attempts.index(attempt) + 1 :]
    if any(a.outcome is Outcome.NOT_FOUND for a in later):
        return f"failed ({kind}) but deleted anyway; the retry found it gone"
    return f"failed ({kind}), retried"


def in_flight(
    fault: Fault, writes: Sequence[Write], deletes: Sequence[Delete], stored: Stored
) -> dict[str, int]:
    """The fates of the writes and deletes in flight at the kill (on the killed process, for a
    service kill), counted."""
    fates: Counter[str] = Counter()
    for write in writes:
        for attempt in caught(fault, write.attempts):
            fates[f"{write.op.value}: {write_fate(write, attempt, stored)}"] += 1
    for delete in deletes:
        for attempt in caught(fault, delete.attempts):
            fates[f"delete: {delete_fate(delete, attempt, stored)}"] += 1
    return dict(sorted(fates.items()))


def caught(fault: Fault, attempts: Iterable[Attempt]) -> list[Attempt]:
    """The requests running at the kill (on the killed process, for a service kill)."""
    return [
        a for a in attempts if a.started <= fault.at < a.ended and fault.server in (None, a.server)
    ]


def lost(writes: Iterable[Write], stored: Stored) -> list[str]:
    """Acknowledged message ids absent from Neo4j."""
    return [
        i
        for w in writes
        if w.acknowledged
        for i in message_ids(w)
        if i not in stored.message_created
    ]


def deletes_undone(
    deletes: Iterable[Delete], writes: Sequence[Write], stored: Stored
) -> tuple[list[str], list[str]]:
    """Acknowledged deletes whose memory was there at the end: (undone, re-added).

    Re-added: a write of one of its source messages ran after the delete began (its message
    created later, or one of its requests still running then) and stated the fact anew.
    Undone: nothing wrote it since, so the acknowledged delete did not hold.
    """
    sent: dict[str, list[Attempt]] = {}
    for w in writes:
        for i in message_ids(w):
            sent.setdefault(i, []).extend(w.attempts)
    undone: list[str] = []
    re_added: list[str] = []
    for d in deletes:
        if not d.acknowledged or d.memory_id not in stored.live_memories:
            continue
        began = d.attempts[0].started
        sources = stored.memory_sources.get(d.memory_id, [])
        later = any(
            stored.message_created.get(s, 0.0) > began
            or any(a.ended > began for a in sent.get(s, []))
            for s in sources
        )
        (re_added if later else undone).append(d.memory_id)
    return undone, re_added

"""The deferred-add queue's queries (cypher/*pending*): a batch is a (:PendingAdd) node in its
scope's (:PendingQueue); ingest/deferred.py's worker writes them."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from service.core.domain import MessageIn, PendingWork, Scope
from service.core.ids import text_hash
from service.store.database import Database, Record

# A failed batch keeps this much of its error.
ERROR_CHARS = 2000


@dataclass(frozen=True)
class PendingBatch:
    """One deferred add call, as the worker takes it from its queue."""

    id: str
    queue_key: str
    scope: Scope
    messages: list[MessageIn]
    infer: bool
    actor: str
    received_at: datetime
    attempts: int

    def finishes(self) -> tuple[str, dict[str, Any]]:
        """The step that ends this batch inside the transaction writing its result."""
        return "finish_pending_add", {"id": self.id}


def queue_key(scope: Scope) -> str:
    """The scope's queue: one per exact (user, agent, run); a hash, so no id is spelled out."""
    return text_hash(json.dumps([scope.user_id, scope.agent_id, scope.run_id]))


class PendingStore:
    """The queue's queries (cypher/*pending*)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def enqueue(
        self,
        scope: Scope,
        messages: list[MessageIn],
        message_ids: list[str],
        infer: bool,
        actor: str,
    ) -> None:
        """Store the batch; the same messages again while it waits are the same batch."""
        payload = json.dumps([m.model_dump(mode="json") for m in messages], ensure_ascii=False)
        key = queue_key(scope)
        await self.db.write(
            "enqueue_pending_add",
            {
                **scope.params(),
                "id": text_hash(json.dumps([key, infer, message_ids])),
                "queue_key": key,
                "messages": payload,
                "message_count": len(messages),
                "infer": infer,
                "actor": actor,
            },
        )

    async def claim(self, holder: str, lease_s: float) -> PendingBatch | None:
        """The next batch no other worker holds, with its queue leased to ``holder``."""
        rows = await self.db.write("claim_pending_add", {"holder": holder, "lease_s": lease_s})
        return _batch(rows[0]) if rows else None

    async def fail(self, batch: PendingBatch, error: str, max_attempts: int) -> bool:
        """Record a failure of ``batch``; whether it is now set aside for good."""
        params = {"id": batch.id, "error": error[:ERROR_CHARS], "max_attempts": max_attempts}
        rows = await self.db.write("fail_pending_add", params)
        return bool(rows and rows[0]["failed"])

    async def release(self, key: str, holder: str) -> None:
        await self.db.write("release_pending_queue", {"queue_key": key, "holder": holder})

    async def work(self, scope: Scope | None) -> PendingWork:
        """What waits in ``scope`` (a read's scope: unset ids match anything), or everywhere."""
        params = scope.params() if scope else {"user_id": None, "agent_id": None, "run_id": None}
        [row] = await self.db.read("count_pending_adds", params)
        oldest: datetime | None = row["oldest"]
        return PendingWork(
            batches=int(row["batches"]),
            messages=int(row["messages"] or 0),
            oldest_age_s=None if oldest is None else (row["now"] - oldest).total_seconds(),
            failed=int(row["failed"]),
        )


def _batch(row: Record) -> PendingBatch:
    scope = Scope(user_id=row["user_id"], agent_id=row["agent_id"], run_id=row["run_id"])
    return PendingBatch(
        id=row["id"],
        queue_key=row["queue_key"],
        scope=scope,
        messages=[MessageIn.model_validate(m) for m in json.loads(row["messages"])],
        infer=bool(row["infer"]),
        actor=row["actor"],
        # As an offset, not Neo4j's named zone: stored times must all read back alike.
        received_at=row["received_at"].astimezone(UTC),
        attempts=int(row["attempts"]),
    )

"""Lifecycle reads and writes: one memory by id, its history, update, delete, evict, forget, reset.

Every query is restricted to the caller's scope by its Cypher ({{in_scope}}: user_id / agent_id
/ run_id parameters; null matches anything, and a Scope always sets at least one). Writes that
belong together run in one transaction (Database.write_many).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from service.core.domain import Scope, StoredMemory
from service.store.database import Database
from service.store.repository import link_steps, to_memory

if TYPE_CHECKING:
    from service.nlp.entities.link_rows import LinkedBatch

RESET_BATCH = 10_000


class EventOp(StrEnum):
    """What happened to a memory; the op of every MemoryEvent."""

    ADD = "ADD"
    UPDATE = "UPDATE"
    SUPERSEDE = "SUPERSEDE"
    DELETE = "DELETE"
    FORGET = "FORGET"
    DECAY = "DECAY"


class MemoryEvent(BaseModel):
    """One entry of a memory's audit trail; texts are null once forget has redacted them.

    DECAY events carry no text, only the confidence before and after.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    op: EventOp
    memory_id: str
    old_text: str | None = None
    new_text: str | None = None
    actor: str | None = None
    at: datetime
    redacted_at: datetime | None = None
    old_confidence: float | None = None
    new_confidence: float | None = None


class FoundMemory(BaseModel):
    """A memory looked up by id, with the keys of the entities it mentions and the texts its
    vector is mixed with (service/ingest/write_plan.py: attach_contexts)."""

    memory: StoredMemory
    entity_keys: list[str]
    context_texts: list[str] = []


class Deletion(BaseModel):
    """Memories (by id) and the entities (by key) that only they mention."""

    memory_ids: list[str] = Field(default_factory=list)
    entity_keys: list[str] = Field(default_factory=list)


class EdgeRef(BaseModel):
    """One relationship: Neo4j element id, type, and the id (or entity key) of each end."""

    model_config = ConfigDict(frozen=True)

    id: str
    type: str
    source: str
    target: str


class ForgetTargets(BaseModel):
    """What forget(scope) removes, by id; events listed still hold text and get redacted.

    ``read_events`` counts the scope's read-audit events: all of them go (not listed by id,
    there can be one per read ever made).
    """

    messages: list[str] = Field(default_factory=list)
    memories: list[str] = Field(default_factory=list)
    entities: list[str] = Field(default_factory=list)
    edges: list[EdgeRef] = Field(default_factory=list)
    events: list[str] = Field(default_factory=list)
    read_events: int = 0


class ForgottenContent(BaseModel):
    """The forgotten texts, names and embeddings: kept in memory only to probe the indexes."""

    texts: list[str] = Field(default_factory=list)
    entity_names: list[str] = Field(default_factory=list)
    embeddings: list[list[float]] = Field(default_factory=list)


class Leftovers(BaseModel):
    """What the scope and the indexes still hold after forget; all zero proves absence."""

    nodes_left: int
    texts_left: int
    fulltext_hits: int
    entity_hits: int
    vector_hits: int

    @property
    def none(self) -> bool:
        return not any(self.model_dump().values())


class LifecycleStore:
    """The lifecycle's queries, each inside one scope."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def find(self, memory_id: str, scope: Scope) -> FoundMemory | None:
        rows = await self.db.read("get_memory", {**scope.params(), "id": memory_id})
        if not rows:
            return None
        node = rows[0]["memory"]
        return FoundMemory(
            memory=to_memory(node),
            entity_keys=rows[0]["entity_keys"],
            context_texts=node.get("context_texts") or [],
        )

    async def touch(self, memory_id: str, scope: Scope, now: datetime) -> StoredMemory | None:
        """The memory, with the read counted in access_count."""
        rows = await self.db.write("touch_memory", {**scope.params(), "id": memory_id, "now": now})
        return to_memory(rows[0]["memory"]) if rows else None

    async def same_text(self, memory_id: str, text_hash: str, scope: Scope) -> str | None:
        """The id of another memory of the scope with this text hash, if any."""
        rows = await self.db.read(
            "find_memory_by_hash", {**scope.params(), "id": memory_id, "hash": text_hash}
        )
        return str(rows[0]["id"]) if rows else None

    async def history(self, memory_id: str, scope: Scope) -> list[MemoryEvent]:
        rows = await self.db.read("list_memory_events", {**scope.params(), "id": memory_id})
        return [MemoryEvent.model_validate(r["event"]) for r in rows]

    async def update(
        self,
        found: FoundMemory,
        scope: Scope,
        props: Mapping[str, object],
        linked: LinkedBatch,
        actor: str,
        now: datetime,
    ) -> None:
        """New text, embedding and time tags; MENTIONS and the relations it supports replaced;
        orphaned entities removed."""
        memory_id = found.memory.id
        own = found.memory
        entity_scope = {
            k: v
            for k, v in {
                "user_id": own.user_id,
                "agent_id": own.agent_id,
                "run_id": own.run_id,
            }.items()
            if v is not None
        }
        scoped = {**scope.params(), "id": memory_id, "actor": actor, "now": now}
        steps: list[tuple[str, Mapping[str, Any]]] = [
            ("update_memory_text", {**scoped, "props": props}),
            ("delete_memory_relations", scoped),
            ("delete_memory_mentions", scoped),
            *link_steps(entity_scope, linked),
            ("delete_orphan_entities", {**scope.params(), "keys": found.entity_keys}),
        ]
        await self.db.write_many(steps)

    async def deletion_candidates(
        self,
        scope: Scope,
        *,
        everything: bool = False,
        older_than: datetime | None = None,
        max_access_count: int | None = None,
        min_confidence: float | None = None,
    ) -> Deletion:
        """Memories matching any criterion (or all, with ``everything``) and their orphans."""
        rows = await self.db.read(
            "list_eviction_candidates",
            {
                **scope.params(),
                "everything": everything,
                "older_than": older_than,
                "max_access_count": max_access_count,
                "min_confidence": min_confidence,
            },
        )
        return Deletion.model_validate(rows[0])

    async def delete_pending(self, scope: Scope) -> int:
        """The scope's deferred adds not written yet (ingest/deferred.py); how many."""
        rows = await self.db.write("delete_pending_adds", scope.params())
        return int(rows[0]["deleted"])

    async def delete(self, scope: Scope, deletion: Deletion, actor: str, now: datetime) -> Deletion:
        """Delete the memories (DELETE events keep their text), then entities left unmentioned."""
        if not deletion.memory_ids:
            return Deletion()
        results = await self.db.write_many(
            [
                (
                    "delete_memories",
                    {**scope.params(), "ids": deletion.memory_ids, "actor": actor, "now": now},
                ),
                ("delete_orphan_entities", {**scope.params(), "keys": deletion.entity_keys}),
            ]
        )
        return Deletion(
            memory_ids=sorted(results[0][0]["deleted"]),
            entity_keys=sorted(results[1][0]["deleted"]),
        )

    async def decay(
        self,
        scope: Scope,
        half_life_days: float,
        floor: float,
        dry_run: bool,
        actor: str,
        now: datetime,
    ) -> tuple[int, float | None]:
        """How many memories decay (or would, on a dry run) and the lowest new confidence; one
        statement, so the dry run counts exactly what the real run changes."""
        rows = await self.db.write(
            "decay_memories",
            {
                **scope.params(),
                "half_life_days": half_life_days,
                "floor": floor,
                "dry_run": dry_run,
                "actor": actor,
                "now": now,
            },
        )
        return int(rows[0]["changed"]), rows[0]["lowest"]

    async def fade_inferred_likes(
        self, scope: Scope, half_life_days: float, retire_below: float, dry_run: bool, now: datetime
    ) -> tuple[int, int]:
        """How many inferred LIKES fade (or would) and how many of them are retired."""
        rows = await self.db.write(
            "decay_inferred_likes",
            {
                **scope.params(),
                "half_life_days": half_life_days,
                "retire_below": retire_below,
                "dry_run": dry_run,
                "now": now,
            },
        )
        return int(rows[0]["faded"]), int(rows[0]["retired"])

    async def forget_targets(
        self, scope: Scope, with_content: bool
    ) -> tuple[ForgetTargets, ForgottenContent]:
        rows = await self.db.read(
            "list_forget_targets", {**scope.params(), "with_content": with_content}
        )
        row = rows[0]
        targets = ForgetTargets.model_validate(row)
        texts = [t for t in row["memory_texts"] + row["source_texts"] + row["message_texts"] if t]
        content = ForgottenContent(
            texts=sorted(set(texts)),
            entity_names=sorted(set(row["entity_names"])),
            embeddings=[e for e in row["embeddings"] if e],
        )
        return targets, content

    async def forget(
        self, scope: Scope, targets: ForgetTargets, actor: str, now: datetime
    ) -> ForgetTargets:
        """FORGET tombstones, redacted events, then the listed edges and nodes and every read
        event of the scope; one transaction.

        Returns what was actually removed or redacted (the listed ids that were still there).
        """
        params = {**scope.params(), "actor": actor, "now": now}
        results = await self.db.write_many(
            [
                ("record_forget_events", {**params, "ids": targets.memories}),
                ("redact_memory_events", {**params, "ids": targets.events}),
                ("delete_relationships", {**params, "ids": [e.id for e in targets.edges]}),
                (
                    "delete_scope_nodes",
                    {
                        **params,
                        "messages": targets.messages,
                        "memories": targets.memories,
                        "entities": targets.entities,
                    },
                ),
                ("delete_read_events", params),
                ("delete_pending_adds", params),  # their messages must not come back
            ]
        )
        deleted_edges = set(results[2][0]["deleted"])
        nodes = results[3][0]
        return ForgetTargets(
            messages=sorted(nodes["messages"]),
            memories=sorted(nodes["memories"]),
            entities=sorted(nodes["entities"]),
            edges=[e for e in targets.edges if e.id in deleted_edges],
            events=sorted(results[1][0]["redacted"]),
            read_events=int(results[4][0]["deleted"]),
        )

    async def leftovers(self, scope: Scope, content: ForgottenContent, probe_k: int) -> Leftovers:
        rows = await self.db.read(
            "count_forget_leftovers",
            {
                **scope.params(),
                "phrases": [lucene_phrase(t) for t in content.texts],
                "names": [lucene_phrase(n) for n in content.entity_names],
                "embeddings": content.embeddings,
                "probe_k": probe_k,
            },
        )
        return Leftovers.model_validate(rows[0])

    async def delete_everything(self) -> int:
        """Every Engram node of every scope, in batches; the schema stays."""
        total = 0
        while True:
            rows = await self.db.write("delete_engram_nodes", {"batch": RESET_BATCH})
            deleted = int(rows[0]["deleted"])
            total += deleted
            if deleted < RESET_BATCH:
                return total


def lucene_phrase(text: str) -> str:
    """``text`` as one exact Lucene phrase: only the quote and the backslash need escaping."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

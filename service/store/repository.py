"""The graph store: every read and write Engram makes, always inside one caller's scope."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any, NamedTuple

import neo4j
from service.core.domain import EntityRef, Scope, ScopeParams, SourceMessage, StoredMemory
from service.store.database import Database, Record
from service.store.index_shards import IndexShards
from service.store.params import Cover, SearchParams
from service.store.writes import (
    DOES,
    Activity,
    Closing,
    HeldRelation,
    InferredLike,
    MessageProps,
    PreferenceAsk,
    ReconcileAsk,
    Reconciled,
    SourceLink,
    Supersession,
    Update,
    WritePlan,
)

if TYPE_CHECKING:
    from service.nlp.entities.link_rows import KnownEntity, LinkedBatch


log = logging.getLogger(__name__)


def vector_index_unusable(error: neo4j.exceptions.ClientError) -> bool:
    """The vector index is missing or sized for another model (during `engram reembed`)."""
    unusable = "memory_embedding" in error.message or "dimensions" in error.message
    if unusable and error.code == "Neo.ClientError.Procedure.ProcedureCallFailed":
        log.warning("vector index unusable, searching without it: %s", error.message)
        return True
    return False


@dataclass(frozen=True)
class MessageRow:
    id: str
    props: MessageProps


class Ranking(NamedTuple):
    """A retriever's rows, best first: its first ``limit`` (``hits``), and the first ``limit``
    of the named speakers (``voiced``; none unless an embedding ranking was given speakers)."""

    hits: list[Record]
    voiced: list[Record]


class Evidence(NamedTuple):
    """A search hit's memory with the messages it came from and the entities it mentions."""

    memory: StoredMemory
    sources: list[SourceMessage]
    entities: list[EntityRef]


@dataclass(frozen=True)
class WindowCount:
    """A user's time window counted from its index (count_window_reads): the memories an
    exact ranking reads (the index seek), and those of them that can be in the window."""

    reads: int
    within: int


class GraphStore:
    """Domain-level operations over the query catalogue."""

    def __init__(self, db: Database, shards: IndexShards | None = None) -> None:
        self.db = db
        self.shards = shards or IndexShards(db.settings.index_shards)

    async def reconcile(
        self,
        scope: Scope,
        asks: list[ReconcileAsk],
        threshold: float,
        fetch_k: int,
        near_duplicates: bool = True,
    ) -> dict[str, Reconciled]:
        """Per candidate key: same-hash memory, nearest near-duplicate, current slot holders.
        Without ``near_duplicates`` the vector index is not asked (a bulk load's check)."""
        if not asks:
            return {}
        params = {
            **scope.params(),
            "candidates": [a.params() for a in asks],
            "threshold": threshold,
            "fetch_k": fetch_k,
            "near_duplicates": near_duplicates,
            "vector_index": self.shards.vector_index(scope.user_id),
        }
        try:
            found = await self.db.read("find_reconcile_candidates", params)
        except neo4j.exceptions.ClientError as e:
            if not vector_index_unusable(e):
                raise
            # Same-hash and slot checks still hold; near-duplicates wait for the index.
            found = await self.db.read(
                "find_reconcile_candidates", {**params, "near_duplicates": False}
            )
        return {r["key"]: Reconciled.from_record(r) for r in found}

    async def write_plan(
        self,
        scope: Scope,
        messages: list[MessageRow],
        plan: WritePlan,
        linked: LinkedBatch,
        actor: str,
        now: datetime,
        finishes: tuple[str, Mapping[str, Any]] | None = None,
    ) -> None:
        """Messages, memories, entities, mentions, updates and supersessions in one transaction.

        ``finishes``: a step that must find what it ends (a deferred add's pending batch,
        ingest/deferred.py) or nothing is written; it runs first, so its lock orders writers.
        """
        batch = WriteBatch(scope, messages, plan, linked, actor, now)
        steps = write_steps(batch, self.shards.label(scope.user_id))
        if finishes is not None:
            steps.insert(0, finishes)
        await self.db.write_many(steps, required={finishes[0]} if finishes else set())

    async def held_preferences(self, asks: list[PreferenceAsk]) -> list[HeldRelation]:
        """The current tastes, uses and things done a batch's preferences are decided against
        (cypher/find_held_preferences.cypher); nothing is read when nothing is asked."""
        if not asks:
            return []
        rows = await self.db.read("find_held_preferences", {"asks": [asdict(a) for a in asks]})
        return [
            HeldRelation(
                r["subject_key"],
                r["type"],
                r["target_key"],
                r["target_name"] or "",
                r["memory_id"],
                bool(r["inferred"]),
                r["said_at"],
                r["day"],
            )
            for r in rows
            if r["memory_id"] is not None
        ]

    async def link_entities(self, scope: Scope) -> list[KnownEntity]:
        """The scope's entities as the linker reads them (names, aliases, type)."""
        from service.nlp.entities.link_rows import KnownEntity

        params = {**scope.params(), "limit": self.db.settings.link_known_max}
        rows = await self.db.read("list_link_entities", params)
        # Reads are read-committed: an entity a concurrent delete removed after the MATCH found
        # it comes back with null properties. It is gone, so the linker does not know it.
        return [
            KnownEntity(
                r["key"],
                r["name"],
                r["type"],
                float(r["type_confidence"]),
                tuple(r["aliases"]),
                tuple(float(v) for v in r["type_votes"]),
                tuple(float(v) for v in r["label_votes"]),
            )
            for r in rows
            if r["key"] is not None and r["name"] is not None and r["type"] is not None
        ]

    async def retrieve(self, retriever: str, params: SearchParams) -> Ranking:
        """Run one retriever of the hybrid search (only the known ones exist): its ranking.
        Each returns its lists in one row: the Python driver spends its time per row it
        receives, a list's items cost it next to nothing. The embedding rankings (vector, time,
        scope_scan) also rank the named speakers and load the hits fusion can keep with their
        answer (``cover``: cypher/fragments/ranked_hits.cypher); a loaded hit's row holds its
        Evidence as ``hit``."""
        name, params = self._retriever(retriever, params)
        try:
            [row] = await self.db.read(name, params, plain=True)
            return Ranking(_with_evidence(row["hits"]), _with_evidence(row.get("voiced", [])))
        except neo4j.exceptions.ClientError as e:
            if retriever != "vector" or not vector_index_unusable(e):
                raise
            # The caller ranks the scope by exact cosine when the index gives it too little.
            return Ranking([], [])

    async def retrieve_text(self, params: SearchParams) -> dict[str, list[Record]]:
        """The full-text and graph retrievers' hits in one query (cypher/search_text.cypher),
        by retriever name; rows of the hits fusion can keep hold their Evidence as ``hit``."""
        [row] = await self.db.read("search_text", self._text(params), plain=True)
        return {name: _with_evidence(row[name]) for name in ("fulltext", "graph")}

    async def prepare(self, retriever: str, params: SearchParams) -> None:
        """Have Neo4j plan what ``retrieve`` (or, for "text", ``retrieve_text``; "hits",
        ``fetch_hits``; "size", ``scope_share`` for a user of any partition; "speakers",
        ``speaker_counts``; "window", ``window_reads``) would run with these parameters,
        without running it."""
        if retriever == "text":
            await self.db.explain("search_text", self._text(params))
        elif retriever == "hits":
            await self.db.explain("fetch_hits", params)
        elif retriever == "size":
            for label in self.shards.counted_labels():
                await self.db.explain("count_scope_memories", params, {"index_label": label})
        elif retriever == "speakers":
            await self.db.explain("count_scope_speakers", params)
        elif retriever == "window":
            await self.db.explain("count_window_reads", params)
        else:
            await self.db.explain(*self._retriever(retriever, params))

    def _retriever(self, retriever: str, params: SearchParams) -> tuple[str, SearchParams]:
        if retriever not in _RANKER_STATEMENTS:
            raise ValueError(f"unknown retriever {retriever!r}")
        if retriever != "speaker":
            params = {"cover": NO_COVER, **params}
        if retriever == "vector":
            params = {**params, "vector_index": self.shards.vector_index(params.get("user_id"))}
        return _RANKER_STATEMENTS[Ranker(retriever)], params

    def _text(self, params: SearchParams) -> SearchParams:
        return {**params, "text_index": self.shards.text_index(params.get("user_id"))}

    async def speaker_counts(self, names: list[str], params: ScopeParams) -> dict[str, int]:
        """How many memories of the caller's scope each of ``names`` speaks (0 for none)."""
        [row] = await self.db.read("count_scope_speakers", {**params, "names": names})
        return {r["name"]: int(r["memories"]) for r in row["speakers"]}

    async def window_reads(self, params: SearchParams) -> WindowCount:
        """How many memories ranking the user's time window exactly would read, and how many
        of those can be in the window."""
        [row] = await self.db.read("count_window_reads", params)
        return WindowCount(int(row["reads"]), int(row["within"]))

    async def scope_share(self, params: ScopeParams) -> tuple[int, int]:
        """(memories the scope's indexes hold, memories in the caller's scope): the global
        indexes hold the store, a user's partition the users that share it (index_shards.py)."""
        label = self.shards.counted_label(params.get("user_id"))
        [row] = await self.db.read("count_scope_memories", params, {"index_label": label})
        return int(row["total"]), int(row["scoped"])

    async def fetch_embeddings(
        self, ids: list[str], params: SearchParams
    ) -> dict[str, list[float]]:
        rows = await self.db.read("fetch_embeddings", {**params, "ids": ids})
        return {r["id"]: r["embedding"] for r in rows if r["embedding"]}

    async def fetch_hits(self, ids: list[str], params: SearchParams) -> dict[str, Evidence]:
        """Memories by id with their source messages and entities, still filtered for the reader."""
        if not ids:
            return {}
        [row] = await self.db.read("fetch_hits", {**params, "ids": ids}, plain=True)
        found = (to_evidence(hit) for hit in row["hits"] if still_there(hit))
        return {evidence.memory.id: evidence for evidence in found}

    async def counts(self, scope: Scope) -> dict[str, int]:
        rows = await self.db.read("count_nodes", scope.params())
        return {r["label"]: r["n"] for r in rows}

    async def delete_scope(self, scope: Scope) -> int:
        rows = await self.db.write("delete_scope", scope.params())
        return int(rows[0]["deleted"]) if rows else 0


@dataclass(frozen=True)
class WriteBatch:
    """What one add writes (GraphStore.write_plan), before it becomes Cypher steps."""

    scope: Scope
    messages: list[MessageRow]
    plan: WritePlan
    linked: LinkedBatch
    actor: str
    now: datetime


def write_steps(batch: WriteBatch, shard: str | None) -> list[tuple[str, Mapping[str, Any]]]:
    """The statements that write an add, in order: messages, memories, entities, then updates,
    sources and supersessions. ``shard``: the vector-index label of the scope's memories."""
    scoped = batch.scope.params()
    entity_scope = {k: v for k, v in scoped.items() if v is not None}
    common = {"scope": entity_scope, "actor": batch.actor, "now": batch.now}
    plan = batch.plan
    return [
        ("merge_messages", {"messages": _rows(batch.messages, scoped)}),
        ("merge_memories", {**common, "memories": _new_memories(plan, scoped, shard)}),
        *link_steps(entity_scope, batch.linked),
        *_when(plan.activities, "merge_activities", "activities"),
        ("apply_updates", {**common, "updates": _params(plan.updates)}),
        ("link_sources", {"links": _params(plan.source_links)}),
        ("apply_supersessions", {**common, "supersessions": _params(plan.supersessions)}),
        *_when(plan.closings, "close_relations", "closings"),
        *_when(plan.inferred, "merge_inferred_likes", "inferred"),
    ]


Rows = (
    list[Update]
    | list[Supersession]
    | list[SourceLink]
    | list[Activity]
    | list[Closing]
    | list[InferredLike]
)


def _params(rows: Rows) -> list[Record]:
    """Rows as the Cypher statements read them."""
    return [asdict(row) for row in rows]


def _when(rows: Rows, name: str, key: str) -> list[tuple[str, Mapping[str, Any]]]:
    """A step of the preference rows, only when there are any: most adds have none, and a
    statement costs a round trip even over an empty list."""
    return [(name, {key: _params(rows)})] if rows else []


def _rows(messages: list[MessageRow], scoped: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [{"id": m.id, "props": {**m.props, **scoped}} for m in messages]


def _new_memories(
    plan: WritePlan, scoped: Mapping[str, Any], shard: str | None
) -> list[dict[str, Any]]:
    return [
        {"id": m.id, "props": {**m.props, **scoped}, "source_ids": m.source_ids, "shard": shard}
        for m in plan.new
    ]


def link_steps(
    scope: Mapping[str, Any], linked: LinkedBatch
) -> list[tuple[str, Mapping[str, Any]]]:
    """The statements that write a linked batch: entities, then mentions, then relations."""
    return [
        (
            "merge_entities",
            {
                "scope": scope,
                "entities": [asdict(e) for e in linked.entities],
                "vote_types": list(linked.vote_types),
            },
        ),
        ("merge_mentions", {"mentions": [asdict(m) for m in linked.mentions]}),
        (
            "merge_relations",
            # Things done are written per day with the plan (merge_activities).
            {
                "relations": [
                    {**asdict(r), "type": r.type.value} for r in linked.relations if r.type != DOES
                ]
            },
        ),
    ]


class Ranker(StrEnum):
    """A query that ranks memories by the question's embedding (``retrieve``)."""

    VECTOR = "vector"  # the vector index, fetch_k deep, filtered to the caller
    TIME = "time"  # exact cosine over a time window, read through its index
    SCOPE_SCAN = "scope_scan"  # the same exact ranking, without a window
    SPEAKER = "speaker"  # exact cosine over the named speakers' memories


_RANKER_STATEMENTS = {
    Ranker.VECTOR: "search_vector",
    Ranker.TIME: "search_time_window",
    Ranker.SCOPE_SCAN: "search_time_window",
    Ranker.SPEAKER: "search_speaker",
}


# An embedding ranking alone: nothing loaded, no speakers (cypher/fragments/ranked_hits.cypher).
NO_COVER: Cover = {"first": 0, "known": [], "loaded": [], "speakers": []}


def _with_evidence(hits: list[Record]) -> list[Record]:
    """A retriever's rows, with each loaded hit (``hit``) as Evidence; a hit deleted while the
    query read it is left out (``still_there``)."""
    kept = []
    for row in hits:
        if row.get("hit") is not None:
            if not still_there(row["hit"]):
                continue
            row["hit"] = to_evidence(row["hit"])
        kept.append(row)
    return kept


def still_there(hit: Record) -> bool:
    """Reads are read-committed: a memory that a concurrent transaction deletes after the query
    found it comes back with null properties (an empty map). It is gone; no hit of it."""
    return hit["memory"].get("id") is not None


def to_evidence(record: Record) -> Evidence:
    """A hit as cypher/fragments/memory_hit.cypher loads it."""
    return Evidence(
        to_memory(record["memory"]),
        [SourceMessage.model_validate(_without_nulls(s)) for s in record["sources"]],
        [EntityRef.model_validate(e) for e in record["entities"]],
    )


def _without_nulls(record: Record) -> Record:
    return {k: v for k, v in record.items() if v is not None}


def to_memory(record: Record) -> StoredMemory:
    """A Memory node's properties as the domain model (Neo4j temporals made native)."""
    return StoredMemory.model_validate(_without_nulls(record))

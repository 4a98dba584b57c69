"""What the MCP tools return: plain models an agent can read, each built from a use case's result.

The SDK turns each into a tool's structured content (with its JSON schema) and a JSON text block.
Times are ISO 8601 in UTC; every memory carries its id, so an agent can get, update or delete it.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from service.core import domain
from service.core.paging import Page
from service.lifecycle import operations as lifecycle
from service.retrieval import traversal
from service.retrieval.context import memory_line


class Added(BaseModel):
    """What an add wrote: message ids in input order, memory ids by what happened to them."""

    message_ids: list[str]
    added: list[str]
    updated: list[str]
    superseded: list[str]
    unchanged: list[str]
    bookmark: str | None = Field(
        description="Send it back as the X-Engram-Bookmark HTTP header: that request's reads "
        "then see this write on any member of a Neo4j cluster"
    )
    pending: bool = Field(
        default=False,
        description="A deferred add: stored, written moments later; only message_ids are known",
    )

    @classmethod
    def of(cls, r: domain.AddResult) -> Added:
        return cls(
            message_ids=r.message_ids,
            added=r.added,
            updated=r.updated,
            superseded=r.superseded,
            unchanged=r.unchanged,
            bookmark=r.bookmark,
            pending=r.pending,
        )


class Hit(BaseModel):
    """One search hit: the fact, dated and attributed, with the evidence for it."""

    id: str
    line: str = Field(description="'[said date, speaker] fact (happened: date)', ready to quote")
    text: str
    speaker: str | None
    said_at: datetime | None
    happened_from: datetime | None
    happened_to: datetime | None
    current: bool = Field(description="False when a newer memory superseded it (asOf reads)")
    score: float
    entities: list[str]
    source_message_ids: list[str]

    @classmethod
    def of(cls, hit: domain.SearchHit) -> Hit:
        m = hit.memory
        return cls(
            id=m.id,
            line=memory_line(hit).removeprefix("- "),
            text=m.text,
            speaker=m.speaker,
            said_at=m.said_at,
            happened_from=m.valid_from,
            happened_to=m.valid_to,
            current=m.invalidated_at is None,
            score=round(hit.score, 6),
            entities=[e.name for e in hit.entities],
            source_message_ids=m.source_ids,
        )


class Hits(BaseModel):
    hits: list[Hit]


class Context(BaseModel):
    """The best hits as a dated prompt block within the token budget."""

    text: str
    tokens: int
    memory_ids: list[str]


class MemoryPage(BaseModel):
    """One page of memories, newest first; pass ``end_cursor`` as ``after`` for the next."""

    memories: list[domain.StoredMemory]
    total_count: int
    has_next_page: bool
    end_cursor: str | None

    @classmethod
    def of(cls, page: Page[domain.StoredMemory]) -> MemoryPage:
        return cls(
            memories=[e.node for e in page.edges],
            total_count=page.total_count,
            has_next_page=page.has_next_page,
            end_cursor=page.end_cursor,
        )


class Neighbor(BaseModel):
    """An entity some hops away: how far, through whom, and by which typed relations."""

    name: str
    type: str
    distance: int
    via: list[str]
    relations: list[str]
    support: int = Field(description="Memories linking it to the entities one hop closer")

    @classmethod
    def of(cls, n: traversal.Neighbor) -> Neighbor:
        return cls(
            name=n.entity.name,
            type=n.entity.type,
            distance=n.distance,
            via=n.via,
            relations=n.relations,
            support=n.support,
        )


class Entity(BaseModel):
    """An entity with the memories that mention it (newest first) and its neighbours."""

    name: str
    type: str
    aliases: list[str]
    first_seen: datetime | None
    last_seen: datetime | None
    mention_count: int
    memories: list[domain.StoredMemory]
    neighbors: list[Neighbor]

    @classmethod
    def of(
        cls,
        node: traversal.EntityNode,
        memories: list[domain.StoredMemory],
        neighbors: list[traversal.Neighbor],
    ) -> Entity:
        return cls(
            name=node.name,
            type=node.type,
            aliases=node.aliases,
            first_seen=node.first_seen,
            last_seen=node.last_seen,
            mention_count=node.mention_count,
            memories=memories,
            neighbors=[Neighbor.of(n) for n in neighbors],
        )


class PathStep(BaseModel):
    """One hop: a typed relation (WORKS_AT …) or MENTIONED_WITH, and the memories behind it."""

    source: str
    target: str
    kind: str
    forward: bool = Field(description="False when a typed relation points from target to source")
    memories: list[domain.StoredMemory]


class Path(BaseModel):
    """The shortest chain of entities between two, with its evidence."""

    entities: list[str]
    steps: list[PathStep]

    @classmethod
    def of(cls, path: traversal.EntityPath) -> Path:
        return cls(
            entities=[e.name for e in path.entities],
            steps=[
                PathStep(
                    source=s.from_entity.name,
                    target=s.to_entity.name,
                    kind=s.kind,
                    forward=s.forward,
                    memories=s.memories,
                )
                for s in path.steps
            ],
        )


class Deleted(BaseModel):
    """A deleted memory and the entities no other memory mentioned; its history stays."""

    memory_id: str
    entity_keys: list[str]


class Forgotten(BaseModel):
    """What forget removes (dry run) or removed and, on a real run, the proof that none is left."""

    dry_run: bool
    message_ids: list[str]
    memory_ids: list[str]
    entity_keys: list[str]
    relationships: int
    events_redacted: int
    verified: bool | None = Field(description="Null on a dry run; true when nothing is left")

    @classmethod
    def of(cls, r: lifecycle.ForgetReport) -> Forgotten:
        return cls(
            dry_run=r.dry_run,
            message_ids=r.messages,
            memory_ids=r.memories,
            entity_keys=r.entities,
            relationships=len(r.edges),
            events_redacted=len(r.events_redacted),
            verified=r.verified,
        )

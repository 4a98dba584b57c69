"""One Settings object for the whole service, read once from ENGRAM_* variables (or .env)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

NEO4J_VERSION = "5.26.29"
_CACHE = Path.home() / ".cache" / "engram"


class ApiKey(BaseModel):
    """What one API key may touch: lists of ids, "*" for any."""

    principal: str = Field(min_length=1, max_length=200)
    user_ids: list[str] = Field(default_factory=lambda: ["*"], min_length=1)
    agent_ids: list[str] = Field(default_factory=lambda: ["*"], min_length=1)
    run_ids: list[str] = Field(default_factory=lambda: ["*"], min_length=1)


@dataclass(frozen=True)
class FusionWeights:
    """Each retriever's weight in reciprocal-rank fusion."""

    vector: float
    fulltext: float
    graph: float
    time: float
    speaker: float


@dataclass(frozen=True)
class SearchKnobs:
    """The read path's settings, grouped (``Settings.search``): what retrieval/ reads.

    A view of Settings' flat fields rather than a nested settings model, so that the
    environment names (ENGRAM_WEIGHT_VECTOR, ENGRAM_RRF_K, …) stay as documented."""

    weights: FusionWeights
    rrf_k: int
    default_limit: int
    retriever_depth: int
    vector_overfetch: int
    fulltext_overfetch: int
    vector_fetch_max: int
    exact_scan_max: int
    time_window_cap: int
    context_weight: float
    diversity_weight: float
    informative_first: bool
    fulltext_word_forms: bool
    answer_type_boost: float
    graph_entities: int
    graph_hub_limit: int
    graph_hop_decay: float


# Settings that were replaced: setting one refuses to start rather than being ignored.
RENAMED = {
    "max_requests_in_flight": "ENGRAM_MAX_READS_IN_FLIGHT and ENGRAM_MAX_WRITES_IN_FLIGHT",
}


class Settings(BaseSettings):
    """Typed configuration; every field can be set as ENGRAM_<NAME>."""

    model_config = SettingsConfigDict(
        env_prefix="ENGRAM_",
        env_file=".env",
        extra="ignore",
        use_attribute_docstrings=True,
    )

    # Neo4j. No URI means: run the local server from the jars (see `engram neo4j`).
    neo4j_uri: str | None = None
    """Unset: run the local server from the jars. Set: use that server (your own Neo4j, a cluster
    with `neo4j://`, Aura with `neo4j+s://`).
    """
    neo4j_user: str = "neo4j"
    """Neo4j user name; with the password, required for a non-loopback URI."""
    neo4j_password: SecretStr = SecretStr("")
    """Neo4j password; required for a non-loopback URI."""
    neo4j_database: str = "neo4j"
    """The Neo4j database that holds the memory."""

    # The local server: jars in neo4j_home, data (and its conf, logs, pid) in data_dir.
    data_dir: Path = Path.home() / ".local" / "share" / "engram"
    """The local server's data, logs, conf and pid files."""
    neo4j_home: Path = _CACHE / f"neo4j-{NEO4J_VERSION}"
    """Where the local server's jars are laid out (`engram neo4j install`)."""
    neo4j_bolt_port: int = Field(default=7687, ge=1, le=65535)
    """Bolt port of the local server."""
    neo4j_http_port: int = Field(default=7474, ge=1, le=65535)
    """HTTP port of the local server (Neo4j Browser)."""
    neo4j_heap: str = "1g"
    """JVM heap of the local server."""
    neo4j_pagecache: str = "512m"
    """Page cache of the local server."""
    neo4j_start_timeout_s: float = Field(default=120.0, gt=0)
    """How long `engram neo4j start` waits for Bolt to answer."""

    # HTTP API. Auth is on unless ENGRAM_AUTH_MODE=local says otherwise (see service/core/auth).
    api_host: str = "127.0.0.1"
    """Interface the HTTP API listens on."""
    api_port: int = Field(default=8000, ge=1, le=65535)
    """Port of the HTTP API."""
    api_workers: int = Field(default=1, ge=1, le=64)
    """Processes `engram serve` runs on the API port (`--workers`). Each has its own models,
    admission limits and deferred-add worker; see docs/operations.md."""
    auth_mode: Literal["api_key", "local"] = "api_key"
    """`api_key`: every request needs an `X-API-Key`. `local`: no keys, allowed on a loopback host
    only.
    """
    api_keys: dict[str, ApiKey] = Field(default_factory=dict)
    """API keys as JSON, each with its principal and the ids it may touch ("*" for any): `{"<key>":
    {"principal": "app", "user_ids": ["alice"]}}`. Keys are at least 16 characters.
    """
    max_query_depth: int = Field(default=10, ge=2, le=50)
    """Deepest GraphQL query accepted."""
    max_query_tokens: int = Field(default=2000, ge=100)
    """Most tokens in a GraphQL query."""
    max_query_aliases: int = Field(default=20, ge=1)
    """Most aliases in a GraphQL query."""
    # /metrics also answers this key as a bearer token, so a scraper needs no key that reads
    # memories (docs/metrics.md).
    metrics_key: SecretStr | None = None
    """Prometheus metrics at `/metrics` need an API key (`X-API-Key`) or this key as a bearer token
    (at least 16 characters); open in `local` mode (docs/metrics.md).
    """
    # Reads and writes take separate slots (service/api/admission.py): a burst of adds does not
    # turn searches away. Writes run the models and a write transaction, so fewer run at once.
    max_reads_in_flight: int = Field(default_factory=lambda: 2 * usable_cores(), ge=0)
    """GraphQL queries and read-only `/mcp` tool calls that may run at once in a process; 0 = no
    limit. Default: two per usable core (docs/operations.md, "Under load")."""
    max_writes_in_flight: int = Field(default_factory=lambda: usable_cores(), ge=0)
    """GraphQL mutations and `/mcp` tool calls that write that may run at once in a process; 0 =
    no limit. Default: one per usable core."""
    max_requests_waiting: int = Field(default_factory=lambda: 32 * usable_cores(), ge=0)
    """Requests of each kind (reads, writes) that may wait for a slot; past it a request is
    answered at once with 503 Busy and `Retry-After`. Default: 32 per usable core."""
    read_wait_s: float = Field(default=1.0, ge=0.0)
    """How long a read may expect to wait for a slot: one whose expected wait (those ahead of it,
    at the pace slots have freed lately) is longer, or would leave it too little of its deadline,
    is refused at once."""
    write_wait_s: float = Field(default=30.0, ge=0.0)
    """How long a write may expect to wait for a slot, under the same rule: by default as long
    as its deadline allows, so a burst of adds is written rather than refused."""
    busy_retry_after_s: int = Field(default=1, ge=1, le=3600)
    """The least `Retry-After` seconds of a Busy answer. It grows with the line ahead (about
    when it will have drained), and each refusal draws it from that up to twice that, so a
    crowd refused together comes back spread out rather than all at once."""
    busy_retry_after_max_s: int = Field(default=30, ge=1, le=3600)
    """The most `Retry-After` seconds of a Busy answer (never below busy_retry_after_s)."""
    refuse_at_door: bool = True
    """`engram serve` refuses a request its slots would refuse as soon as the request is read,
    before the app runs: a refusal then costs a fraction of one through the app, but writes no
    access line. false: the app refuses it (service/api/door.py)."""
    request_timeout_s: float = Field(default=30.0, ge=0.0)
    """Each request's deadline, Neo4j's timeout for its transactions: a query still running
    then is rolled back and the request answers TimedOut. 0 = no deadline."""
    shutdown_grace_s: int = Field(default=30, ge=0)
    """On SIGTERM `engram serve` stops accepting connections and lets requests in flight finish
    for up to this long, then cancels them (their transactions roll back) and stops."""
    # A restarted Neo4j plans every query again and runs its first ones cold; the service warms
    # search up in the background when Neo4j comes back (service/retrieval/warm_up.py).
    neo4j_watch_s: float = Field(default=2.0, ge=0.0)
    """How often `engram serve` asks Neo4j whether it answers; when it answers again after it did
    not, the process warms search up in the background. 0 = never."""
    warm_up_searches: int = Field(default=8, ge=0, le=100)
    """How many of its last searches a process keeps (in memory only) to ask again when Neo4j
    comes back, before it prepares every search plan."""
    # Deferred adds (addMessages mode DEFERRED; service/ingest/deferred.py).
    pending_worker: bool = True
    """Run the worker that writes deferred adds in this `engram serve` process. Several processes
    may each run one: a scope's batches are taken by one worker at a time, in order."""
    pending_lease_s: float = Field(default=30.0, ge=1.0, le=3600.0)
    """How long a worker holds a scope's pending batches without writing one; work held by a
    process that died resumes in another (or the restarted one) after this."""
    pending_poll_s: float = Field(default=1.0, gt=0.0, le=60.0)
    """How often an idle worker looks for work other processes received."""
    pending_max_attempts: int = Field(default=3, ge=1, le=100)
    """Failures (other than Neo4j being away) after which a batch is set aside as failed, with
    its error, so that the scope's later batches go on."""
    # Log lines as text, or one JSON object each (ENGRAM_LOG_FORMAT=json), with a request id.
    log_format: Literal["text", "json"] = "text"
    """`json`: one JSON object a log line; every line carries the request id (`X-Request-ID`)."""
    otel_enabled: bool = False
    """Export OpenTelemetry traces over OTLP/HTTP, to where the standard `OTEL_EXPORTER_OTLP_*`
    variables say; needs `pip install 'engram[otel]'` (docs/metrics.md).
    """
    otel_service_name: str = Field(default="engram", min_length=1)
    """`service.name` of the exported traces."""

    # `engram mcp` (MCP over stdio, docs/mcp.md): the one scope its tools may touch, as an API
    # key's ids limit a principal. At least one is required there; a tool may name ids inside
    # it (another agent_id of the same user when only the user is set) but never outside.
    # MCP over HTTP (/mcp) ignores these and uses the API keys.
    mcp_user_id: str | None = Field(default=None, min_length=1, max_length=200)
    """User id of the scope `engram mcp` (stdio) serves; at least one of the three MCP ids is
    required there. `/mcp` over HTTP uses the API keys instead (docs/mcp.md).
    """
    mcp_agent_id: str | None = Field(default=None, min_length=1, max_length=200)
    """Agent id of the scope `engram mcp` (stdio) serves."""
    mcp_run_id: str | None = Field(default=None, min_length=1, max_length=200)
    """Run id of the scope `engram mcp` (stdio) serves."""
    # Recorded as the actor of what the stdio tools write (MemoryEvent.actor).
    mcp_principal: str = Field(default="mcp", min_length=1, max_length=200)
    """The actor recorded on what the stdio MCP tools write."""

    # Models, resolved offline through nlp_models/manifest.json.
    spacy_model: str = "en_core_web_sm"
    """A name from `manifest.json` in the package's NLP data, or a local folder."""
    embedding_model: str = "all-MiniLM-L6-v2"
    """A name from `manifest.json` in the package's NLP data, or a local folder; a change needs
    `engram reembed` (docs/operations.md).
    """
    embedding_dimensions: int = Field(default=384, gt=0)
    """Size of the embedding model's vectors (and of the vector indexes)."""
    # ONNX Runtime's threads do not spin between calls (embedding/onnx_encoder.py), so two help
    # batches (ingest 19.8 -> 27.8 msg/s) without slowing one query (bench/RESULTS.md).
    embedding_threads: int = Field(default=2, ge=1, le=64)
    """Threads of the ONNX Runtime session."""
    # onnx: the same weights exported once to ONNX (model_cache_dir) and run by onnxruntime;
    # same vectors as torch, faster per call. torch: sentence-transformers as shipped.
    embedding_backend: Literal["onnx", "onnx-int8", "torch"] = "onnx"
    """`onnx`: the model exported once to ONNX and run by onnxruntime; `onnx-int8`: the same,
    quantised (a model change); `torch`: sentence-transformers as shipped.
    """
    model_cache_dir: Path = _CACHE / "models"
    """Where the exported ONNX models are kept."""

    # reset() deletes every scope of the database; off unless ENGRAM_ALLOW_RESET=true.
    allow_reset: bool = False
    """`true` lets `Memory.reset` delete every scope of the database."""
    # Read audit: every read (search, context, get, lists, graph) leaves a (:ReadEvent) in the
    # scope it read: who, which operation, the sha256 of the query text, the result count, when.
    audit_reads: bool = False
    """`true`: every read (search, context, get, lists, graph, stats) leaves a `(:ReadEvent)` in the
    scope it read (principal, operation, sha256 of the query, result count, time); `forget` deletes
    them.
    """

    # Facts: sentences shorter than fact_min_words join their neighbour, up to fact_max_words.
    fact_min_words: int = Field(default=15, ge=1, le=100)
    """Fact granularity: sentences shorter than this join their neighbour."""
    fact_max_words: int = Field(default=60, ge=1, le=500)
    """Fact granularity: the most words a joined fact may have."""

    # Write path: a new fact this similar to a current memory updates it instead.
    duplicate_threshold: float = Field(default=0.95, gt=0.0, le=1.0)
    """Cosine from which a new fact updates a current memory of the scope instead of adding one."""
    duplicate_min_wording: float = Field(default=0.5, ge=0.0, le=1.0)
    """How alike a near-duplicate's words must be as well (difflib's ratio over characters):
    all-MiniLM-L6-v2 reads most short Chinese sentences as one vector, so cosine alone would
    fold 小李在腾讯工作 into 小李很喜欢喝咖啡. Below it the fact is a memory of its own."""
    reconcile_fetch_k: int = Field(default=10, ge=1, le=1000)
    """How many vector-index neighbours the near-duplicate check asks for."""
    # Slot conflicts: newer wins, then higher agent priority ({"planner": 2, "chat": 1}), then
    # higher confidence. The loser is kept as superseded.
    agent_priority: dict[str, int] = Field(default_factory=dict)
    """Slot conflicts: newer wins, then the higher agent priority (JSON, `{"planner": 2, "chat":
    1}`), then the higher confidence.
    """
    write_batch_size: int = Field(default=256, ge=1, le=10_000)
    """Not read by the service yet; `engram import --batch-size` sets an import's batch."""
    export_page_size: int = Field(default=500, ge=1, le=10_000)
    """Records an export (`engram export`, `/export`) reads per query (docs/export.md)."""
    # Extracted facts below this confidence are not stored as memories (their message still is);
    # 0.0 keeps every fact. Statements are extracted at 0.9, questions at 0.6.
    memory_min_confidence: float = Field(default=0.0, ge=0.0, le=1.0)
    """Extracted facts below it are not stored as memories (their message still is); statements are
    extracted at 0.9, questions at 0.6.
    """
    # Relations: each carries the confidence of the rule that found it (0.6-0.85; a "我们" subject
    # counts for less). Below this they are not stored.
    relation_min_confidence: float = Field(default=0.5, ge=0.0, le=1.0)
    """Typed relations found with less confidence than this are not stored (rules give 0.6 to
    0.85)."""
    # Inferred preferences (service/ingest/preferences.py, docs/graph.md): a thing the speaker
    # did (DOES) on this many separate days, never said to be liked or disliked, is an inferred
    # LIKES with confidence = max x (1 - 0.5 ^ (days / count_half)) x (0.5 + 0.5 x
    # min(1, spread / spread_days)); the decay operation fades it with the half life below.
    inferred_like_min_days: int = Field(default=3, ge=1, le=365)
    """Separate days (by the memories' event time) a thing must be done on before a LIKES is
    inferred from it."""
    inferred_like_count_half: float = Field(default=3.0, gt=0.0)
    """Evidence days at which the count factor of an inferred LIKES' confidence reaches one half."""
    inferred_like_spread_days: float = Field(default=28.0, gt=0.0)
    """Days between the first and the last evidence from which the spread counts in full (a
    shorter spread halves the confidence at worst)."""
    inferred_like_max_confidence: float = Field(default=0.8, gt=0.0, le=1.0)
    """The confidence an inferred LIKES tends to; below the rules' 0.8, so an explicit statement
    reads stronger."""
    inferred_like_half_life_days: float = Field(default=60.0, gt=0.0)
    """The decay operation halves an inferred LIKES' confidence for every this many days since
    its last evidence."""
    inferred_like_min_confidence: float = Field(default=0.2, ge=0.0, le=1.0)
    """An inferred LIKES that decay brings below this is retired (`invalidated_at`)."""
    # A memory's vector is unit(own + context_weight x mean of the vectors of the facts of the
    # message before it in the same add() call and session): a reply ("This has been great for
    # my mental health") is found by what it answers (running). 0 = each fact alone.
    context_weight: float = Field(default=0.5, ge=0.0, le=4.0)
    """How much of the previous message's facts a memory's vector carries; 0 = each fact alone
    (docs/write-path.md).
    """

    # Retrieval: each retriever returns max(3 x limit, retriever_depth) candidates; fusion is
    # weighted reciprocal rank (score = sum of weight / (rrf_k + rank)). rrf_k is 30, not the
    # 60 of the RRF paper (fused lists 1,000 deep): over lists 30 deep, 60 made rank 1 worth
    # 1.5 x rank 30, so a memory several retrievers put midway beat one that two put first
    # (bench/RESULTS.md).
    search_default_limit: int = Field(default=10, ge=1, le=200)
    """Hits a search returns when the caller gives no limit."""
    # The vector index is asked for retriever_depth x vector_overfetch (90) when the scope is
    # most of what the index holds; a smaller share asks deeper (embedding_route) and a short
    # answer asks again (deeper_fetch), so the over-fetch only pays for filtered-out memories.
    # 3 rather than 10: faster on the 100k store, LoCoMo dev recall unchanged
    # (bench/RESULTS.md).
    vector_overfetch: int = Field(default=3, ge=1, le=1000)
    """The vector index is asked for at least retriever_depth times this."""
    # The full-text index is asked for retriever_depth x fulltext_overfetch (300) at once: it
    # starts before the scope's share is known, so its margin stays wide (asking 75 instead of
    # 300 saved nothing measurable: bench/RESULTS.md, sixth session).
    fulltext_overfetch: int = Field(default=10, ge=1, le=1000)
    """The full-text index is asked for retriever_depth times this."""
    retriever_depth: int = Field(default=30, ge=1, le=1000)
    """Candidates each retriever returns at least (3 x limit when larger)."""
    rrf_k: int = Field(default=30, ge=1)
    """The k of reciprocal-rank fusion: score = sum of weight / (k + rank)."""
    weight_vector: float = Field(default=1.0, ge=0.0)
    """Fusion weight of the vector retriever."""
    weight_fulltext: float = Field(default=1.0, ge=0.0)
    """Fusion weight of the full-text retriever."""
    weight_graph: float = Field(default=0.1, ge=0.0)
    """Fusion weight of the graph retriever."""
    weight_time: float = Field(default=1.0, ge=0.0)
    """Fusion weight of the time-window retriever."""
    # A speaker named in the question who speaks in the scope: their memories, ranked by the
    # question without the name (bench/RESULTS.md: 1.5 lifts multi-hop questions on LoCoMo).
    weight_speaker: float = Field(default=1.5, ge=0.0)
    """Fusion weight of the speaker retriever (memories of a speaker the question names)."""
    # Maximal marginal relevance on the fused list: 1.0 = off, lower = more diverse top k.
    diversity_weight: float = Field(default=1.0, ge=0.0, le=1.0)
    """Maximal marginal relevance on the fused list: 1.0 = off, lower = more diverse top k."""
    informative_first: bool = True
    """Among the first 3 x limit fused hits, rank those that state nothing (only questions and
    bare reactions) and repeats of a message already shown after the rest
    (retrieval/informative.py). Off keeps the fused order."""
    fulltext_word_forms: bool = True
    """Also search the full-text indexes for the other forms of the query's English words
    ("camped" finds "camping", "bought" finds "buy"; retrieval/word_forms.py). Off searches the
    words as written."""
    answer_type_boost: float = Field(default=0.2, ge=0.0, le=4.0)
    """A question asking "when" or "where / which city" raises the fused score of the hits that
    hold a date or a place by this share of itself, among the first 3 x limit
    (retrieval/answer_type.py); 0 = off."""
    graph_entities: int = Field(default=8, ge=1, le=100)
    """Most entities named in the query the graph retriever starts from."""
    graph_hub_limit: int = Field(default=20, ge=1)
    """Entities mentioned by more memories than this are hubs: the graph retriever does not walk
    through them.
    """
    graph_hop_decay: float = Field(default=0.3, ge=0.0, le=1.0)
    """Score factor of memories reached through a second hop."""
    # How many of a scope's entities (the most recently seen) an add links against: the
    # linker's cost grows with them (bench/RESULTS.md, "Entity graph").
    link_known_max: int = Field(default=5000, ge=1)
    """How many of a scope's entities (the most recently seen) an add links against."""
    time_window_cap: int = Field(default=5000, ge=1)
    """Most memories of a time window the time retriever reads."""
    # The vector index's top-k is global: a scope holding a small share of the store gets few of
    # it. The index is asked for enough candidates that such a scope expects 2 x limit of its
    # own (at most vector_fetch_max); a scope of at most exact_scan_max memories that would
    # need more than the usual over-fetch is ranked by exact cosine instead (cheaper, and exact).
    # Where exact ranking costs less than a deep index ask is measured in bench/RESULTS.md.
    exact_scan_max: int = Field(default=300, ge=0)
    """A scope (or time window) of at most this many memories is ranked by exact cosine when the
    vector index would need a deep ask.
    """
    vector_fetch_max: int = Field(default=10000, ge=1, le=100000)
    """The deepest ask of the vector index."""
    # Neo4j 5.26's vector and full-text queries cannot filter, so users are also spread over
    # this many index partitions (service/store/index_shards.py): a user's search and
    # near-duplicate check ask the partition that holds the user, where its share is about this
    # many times larger. 0 turns them off (global indexes only); a change relabels at start-up.
    index_shards: int = Field(default=16, ge=0, le=256)
    """Per-user partitions of the vector and full-text indexes (0 = global indexes only); a change
    relabels every memory at the next start.
    """
    # How long a scope's size (which picks the route above) is reused before it is counted
    # again; 0 counts on every search. A stale size can only pick another of those routes (too
    # few vector hits still fall back to the exact scan).
    scope_size_ttl_s: float = Field(default=30.0, ge=0.0)
    """How long a scope's size (which picks the search route) is reused; 0 counts on every search.
    """

    @field_validator("data_dir", "neo4j_home", "model_cache_dir")
    @classmethod
    def _expand(cls, value: Path) -> Path:
        return value.expanduser().resolve()

    @model_validator(mode="after")
    def _remote_needs_credentials(self) -> Settings:
        for old, new in RENAMED.items():
            if f"ENGRAM_{old.upper()}" in os.environ:  # unknown names are ignored: say so
                raise ValueError(f"ENGRAM_{old.upper()} is gone; set {new} instead")
        # A user's own Neo4j (or Aura) runs with auth on: refuse to connect without a password.
        remote = self.neo4j_uri is not None and not _is_loopback(self.neo4j_uri)
        if remote and not self.neo4j_password.get_secret_value():
            raise ValueError("ENGRAM_NEO4J_PASSWORD is required for a non-local ENGRAM_NEO4J_URI")
        if self.auth_mode == "local" and self.api_host not in {"127.0.0.1", "localhost", "::1"}:
            raise ValueError("ENGRAM_AUTH_MODE=local is only allowed on a loopback ENGRAM_API_HOST")
        for key in self.api_keys:
            if len(key) < 16:
                raise ValueError("API keys must be at least 16 characters long")
        if self.metrics_key is not None and len(self.metrics_key.get_secret_value()) < 16:
            raise ValueError("ENGRAM_METRICS_KEY must be at least 16 characters long")
        return self

    @property
    def search(self) -> SearchKnobs:
        """The search settings, grouped for the read path."""
        return SearchKnobs(
            weights=FusionWeights(
                self.weight_vector,
                self.weight_fulltext,
                self.weight_graph,
                self.weight_time,
                self.weight_speaker,
            ),
            rrf_k=self.rrf_k,
            default_limit=self.search_default_limit,
            retriever_depth=self.retriever_depth,
            vector_overfetch=self.vector_overfetch,
            fulltext_overfetch=self.fulltext_overfetch,
            vector_fetch_max=self.vector_fetch_max,
            exact_scan_max=self.exact_scan_max,
            time_window_cap=self.time_window_cap,
            context_weight=self.context_weight,
            diversity_weight=self.diversity_weight,
            informative_first=self.informative_first,
            fulltext_word_forms=self.fulltext_word_forms,
            answer_type_boost=self.answer_type_boost,
            graph_entities=self.graph_entities,
            graph_hub_limit=self.graph_hub_limit,
            graph_hop_decay=self.graph_hop_decay,
        )

    @property
    def uses_local_server(self) -> bool:
        return self.neo4j_uri is None

    @property
    def bolt_uri(self) -> str:
        return self.neo4j_uri or f"bolt://127.0.0.1:{self.neo4j_bolt_port}"


def usable_cores() -> int:
    """The CPUs this process may run on (its affinity mask where the OS has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _is_loopback(uri: str) -> bool:
    host = uri.split("://", 1)[-1].split("/", 1)[0].rsplit(":", 1)[0].strip("[]")
    return host in {"localhost", "127.0.0.1", "::1"}


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read once."""
    return Settings()

"""One app's Prometheus metrics, in a registry of its own (never the process-wide default), so
that tests and several apps in one process each count only their own.

Label values are bounded by the schema: GraphQL operations are labelled by their root field
names (a client's operation name is free text), MCP calls by tool name.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from service.core.domain import AddResult, PendingWork
from service.core.errors import (
    DatabaseUnavailableError,
    EngramError,
    ForbiddenError,
    NotFoundError,
    QueryTimeoutError,
)

# Seconds; a search takes tens of milliseconds, an add of a long conversation seconds.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


class ErrorKind(StrEnum):
    """What went wrong, named as the GraphQL error unions name it."""

    INVALID_INPUT = "InvalidInput"
    NOT_FOUND = "NotFound"
    FORBIDDEN = "Forbidden"
    DATABASE_UNAVAILABLE = "DatabaseUnavailable"
    # Refused at once: the process already ran its limit of requests (service/api/admission.py).
    BUSY = "Busy"
    # The request's deadline passed while Neo4j ran its query; the transaction was rolled back.
    TIMED_OUT = "TimedOut"
    # Refused before running: syntax, unknown fields, depth / token / alias limits.
    INVALID_REQUEST = "InvalidRequest"
    # A bug or a foreign failure; the client saw it masked.
    UNEXPECTED = "Unexpected"


def kind_of(error: BaseException) -> ErrorKind:
    """The kind of an exception raised (not returned) while answering."""
    match error:
        case DatabaseUnavailableError():
            return ErrorKind.DATABASE_UNAVAILABLE
        case QueryTimeoutError():
            return ErrorKind.TIMED_OUT
        case NotFoundError():
            return ErrorKind.NOT_FOUND
        case ForbiddenError():
            return ErrorKind.FORBIDDEN
        case EngramError():
            return ErrorKind.INVALID_INPUT
        case _:
            return ErrorKind.UNEXPECTED


class Metrics:
    """The instruments; docs/metrics.md describes each name."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self._request_metrics(self.registry)
        self._write_metrics(self.registry)

    def _request_metrics(self, r: CollectorRegistry) -> None:
        """Requests, their latency and errors, per GraphQL operation and MCP tool."""
        self.graphql_requests = Counter(
            "engram_graphql_requests",
            "GraphQL operations answered, by root field(s).",
            ["operation"],
            registry=r,
        )
        self.graphql_seconds = Histogram(
            "engram_graphql_request_duration_seconds",
            "GraphQL operation latency.",
            ["operation"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.mcp_calls = Counter("engram_mcp_tool_calls", "MCP tool calls.", ["tool"], registry=r)
        self.mcp_seconds = Histogram(
            "engram_mcp_tool_duration_seconds",
            "MCP tool call latency.",
            ["tool"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.errors = Counter(
            "engram_errors",
            "Failed answers by surface (graphql, mcp) and kind.",
            ["surface", "kind"],
            registry=r,
        )
        self.requests_in_flight = Gauge(
            "engram_requests_in_flight", "GraphQL and MCP requests running now.", registry=r
        )
        self.requests_waiting = Gauge(
            "engram_requests_waiting",
            "GraphQL and MCP requests waiting for a read or write slot now.",
            registry=r,
        )

    def _write_metrics(self, r: CollectorRegistry) -> None:
        """What add writes, Neo4j's availability and the models' load time."""
        self.messages = Counter("engram_messages_written", "Messages stored by add.", registry=r)
        self.added = Counter("engram_memories_added", "New memories written.", registry=r)
        self.updated = Counter(
            "engram_memories_updated", "Near-duplicates that updated a memory.", registry=r
        )
        self.superseded = Counter(
            "engram_memories_superseded", "Memories superseded by a newer one.", registry=r
        )
        self.neo4j_up = Gauge(
            "engram_neo4j_up", "1 if Neo4j answered the last check, else 0.", registry=r
        )
        self.model_load = Gauge(
            "engram_model_load_seconds",
            "Seconds spent loading each model at start-up.",
            ["model"],
            registry=r,
        )
        self._pending_metrics(r)

    def _pending_metrics(self, r: CollectorRegistry) -> None:
        """Deferred adds: the queue (whole database, as the worker last saw it) and outcomes."""
        self.pending_batches = Gauge(
            "engram_pending_batches", "Deferred adds waiting to be written.", registry=r
        )
        self.pending_messages = Gauge(
            "engram_pending_messages", "Messages in the deferred adds waiting.", registry=r
        )
        self.pending_oldest_age = Gauge(
            "engram_pending_oldest_age_seconds",
            "Seconds the oldest waiting deferred add has waited (0 when none waits).",
            registry=r,
        )
        self.pending_failed = Gauge(
            "engram_pending_failed_batches",
            "Deferred adds set aside after Settings.pending_max_attempts failures.",
            registry=r,
        )
        self.deferred_outcomes = Counter(
            "engram_deferred_batches",
            "Deferred adds this process's worker took: written, retried (failed, will be tried "
            "again), failed (set aside), taken (written meanwhile by another worker).",
            ["outcome"],
            registry=r,
        )
        self.deferred_wait = Histogram(
            "engram_deferred_wait_seconds",
            "From receiving a deferred add to its result being written.",
            buckets=LATENCY_BUCKETS,
            registry=r,
        )

    def count_write(self, result: AddResult) -> None:
        """What one add() call wrote."""
        self.messages.inc(len(result.message_ids))
        self.added.inc(len(result.added))
        self.updated.inc(len(result.updated))
        self.superseded.inc(len(result.superseded))

    def count_deferred(self, outcome: StrEnum, waited_s: float | None) -> None:
        """One deferred batch the worker took, and how long it waited if it was written."""
        self.deferred_outcomes.labels(outcome).inc()
        if waited_s is not None:
            self.deferred_wait.observe(waited_s)

    def show_pending(self, work: PendingWork) -> None:
        self.pending_batches.set(work.batches)
        self.pending_messages.set(work.messages)
        self.pending_oldest_age.set(work.oldest_age_s or 0.0)
        self.pending_failed.set(work.failed)

    def count_error(self, surface: str, kind: ErrorKind) -> None:
        self.errors.labels(surface, kind.value).inc()
        if kind is ErrorKind.DATABASE_UNAVAILABLE:
            self.neo4j_up.set(0)

    def set_model_load(self, load_ms: Mapping[str, float]) -> None:
        for model, ms in load_ms.items():
            self.model_load.labels(model).set(ms / 1000)

    def exposition(self) -> bytes:
        """The registry in Prometheus' text format."""
        return generate_latest(self.registry)

"""What the soak's clients did, as typed records: one Attempt per request, grouped by the
logical operation (Write, Delete) it tried to do, and the faults the soak injected."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

import httpx

from service.core.errors import (
    BusyError,
    DatabaseUnavailableError,
    NotFoundError,
    QueryTimeoutError,
)


class Op(enum.StrEnum):
    ADD = "add"  # synchronous: acknowledged once stored
    ADD_DEFERRED = "add_deferred"  # acknowledged once queued as a pending batch
    SEARCH = "search"
    DELETE = "delete"


class Outcome(enum.StrEnum):
    """How one request ended, as a client sees it."""

    OK = "ok"
    BUSY = "Busy (503)"
    UNAVAILABLE = "DatabaseUnavailable"
    TIMED_OUT = "TimedOut"
    NOT_FOUND = "NotFound"
    # The process was gone (connection refused or reset): expected only from a killed process.
    SERVER_GONE = "server gone (connection)"
    FAILED = "failed"  # anything else: untyped, a bug until shown otherwise

    @property
    def typed(self) -> bool:
        """A typed answer that tells the client to retry later."""
        return self in (Outcome.BUSY, Outcome.UNAVAILABLE, Outcome.TIMED_OUT)


def classify(error: BaseException) -> Outcome:
    """The outcome a client's exception stands for."""
    if isinstance(error, BusyError):
        return Outcome.BUSY
    if isinstance(error, DatabaseUnavailableError):
        return Outcome.UNAVAILABLE
    if isinstance(error, QueryTimeoutError):
        return Outcome.TIMED_OUT
    if isinstance(error, NotFoundError):
        return Outcome.NOT_FOUND
    if isinstance(error, httpx.TimeoutException):
        return Outcome.FAILED  # no answer within the client's timeout: a hang
    if isinstance(error, httpx.TransportError):
        return Outcome.SERVER_GONE
    return Outcome.FAILED


@dataclass(frozen=True)
class Attempt:
    """One request; times are wall-clock epoch seconds, comparable with Neo4j's datetime()."""

    op: Op
    server: int
    started: float
    ended: float
    outcome: Outcome
    detail: str = ""  # the error's text, for FAILED

    @property
    def ms(self) -> float:
        return (self.ended - self.started) * 1000


@dataclass
class Write:
    """One logical add: the same message ids on every attempt, until one is acknowledged."""

    op: Op
    scope: str
    external_ids: list[str]
    attempts: list[Attempt] = field(default_factory=list)
    message_ids: list[str] = field(default_factory=list)  # Engram's, from the acknowledgment

    @property
    def acknowledged(self) -> bool:
        return any(a.outcome is Outcome.OK for a in self.attempts)


@dataclass
class Delete:
    """One logical delete of a memory the client saw added."""

    scope: str
    memory_id: str
    attempts: list[Attempt] = field(default_factory=list)

    @property
    def acknowledged(self) -> bool:
        """Deleted by one of its attempts, or found already gone after a failed one."""
        return any(
            a.outcome is Outcome.OK or (a.outcome is Outcome.NOT_FOUND and i > 0)
            for i, a in enumerate(self.attempts)
        )


class FaultKind(enum.StrEnum):
    NEO4J_SIGKILL = "neo4j SIGKILL"
    SERVICE_SIGKILL = "service SIGKILL"


@dataclass(frozen=True)
class Fault:
    """A fault and its window: from the kill until the soak had restarted what it killed and
    waited ``settle_s`` more (the window's latencies are the 'inside' ones)."""

    kind: FaultKind
    at: float
    restarted: float
    settle_s: float
    server: int | None = None  # the killed service process; None for Neo4j (all of them)
    failed_starts: tuple[str, ...] = ()  # restarts that did not come up, with their error

    @property
    def window(self) -> tuple[float, float]:
        return self.at, self.restarted + self.settle_s

    def covers(self, attempt: Attempt) -> bool:
        """Whether the request overlapped the window at all."""
        start, end = self.window
        return attempt.started < end and attempt.ended > start

    def allows(self, attempt: Attempt) -> bool:
        """A lost connection is expected from the killed process while it was down."""
        if attempt.outcome is not Outcome.SERVER_GONE:
            return True
        return (
            self.kind is FaultKind.SERVICE_SIGKILL
            and attempt.server == self.server
            and self.covers(attempt)
        )

"""A deadline for the work of one request, which Neo4j enforces as each transaction's timeout.

The API sets it per request (service/api/admission.py); the store reads what is left of it when
it opens a transaction. Work started without one (the CLI, bulk import) runs without a timeout.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from service.core.errors import QueryTimeoutError

# Monotonic time by which the current request's work must be done; None: no deadline.
_DEADLINE: ContextVar[float | None] = ContextVar("engram_deadline", default=None)


@contextmanager
def deadline_after(seconds: float | None) -> Iterator[None]:
    """Run the block (and the tasks it starts) under a deadline ``seconds`` from now."""
    token = _DEADLINE.set(None if seconds is None else time.monotonic() + seconds)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def transaction_timeout() -> float | None:
    """Seconds left for the next transaction, or None without a deadline; past the deadline
    QueryTimeoutError, before anything is sent."""
    deadline = _DEADLINE.get()
    if deadline is None:
        return None
    left = deadline - time.monotonic()
    if left <= 0:
        raise QueryTimeoutError("the request's deadline passed before its query ran")
    return left


def deadline_passed() -> bool:
    """Whether the current work has a deadline, and it has passed."""
    deadline = _DEADLINE.get()
    return deadline is not None and time.monotonic() >= deadline

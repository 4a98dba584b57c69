"""Bookmarks: read your own writes where reads may go to a lagging Neo4j follower.

Within one process every session shares the driver's bookmark manager (service/store/database.py),
so a search sees what an earlier add of the same process wrote. Across processes a client carries
the bookmark an add returned and sends it back (header ``X-Engram-Bookmark``); the reads of that
request then wait until the server they run on has applied that write.

A bookmark Engram hands out is opaque to clients: the base64url text of a JSON list of Neo4j's own
bookmark strings. This module only encodes and checks it; the store gives it to the driver.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from service.core.errors import ValidationError

HEADER = "X-Engram-Bookmark"
# Longer than any bookmark a cluster's few databases give, short enough to refuse junk at once.
MAX_LENGTH = 4096
MAX_VALUES = 16

# Neo4j bookmark strings the current request's reads must wait for (empty: none), or why the
# token the client sent is refused: raised by the first query, so the API answers InvalidInput.
_WAIT_FOR: ContextVar[tuple[str, ...] | ValidationError] = ContextVar(
    "engram_bookmarks", default=()
)


def encode(values: Iterable[str]) -> str | None:
    """Neo4j bookmark strings as one opaque token; None when there are none."""
    ordered = sorted(set(values))
    if not ordered:
        return None
    return base64.urlsafe_b64encode(json.dumps(ordered).encode()).decode().rstrip("=")


def decode(token: str) -> tuple[str, ...]:
    """The Neo4j bookmark strings in a token ``encode`` made; ValidationError for anything else."""
    refused = ValidationError(f"{HEADER}: not a bookmark that Engram returned")
    if len(token) > MAX_LENGTH:
        raise refused
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        values = json.loads(raw)
    except (binascii.Error, ValueError) as e:  # ValueError: JSON and UTF-8 errors
        raise refused from e
    if not (isinstance(values, list) and 0 < len(values) <= MAX_VALUES):
        raise refused
    if not all(isinstance(v, str) and v for v in values):
        raise refused
    return tuple(values)


@contextmanager
def reading_after(token: str | None) -> Iterator[None]:
    """Run the block (and the tasks it starts) so that its queries see the writes ``token``
    names; None or "" waits for nothing. A malformed token makes each query in the block raise
    ValidationError, so that the API answers it as the request's own typed error."""
    values: tuple[str, ...] | ValidationError = ()
    if token:
        try:
            values = decode(token)
        except ValidationError as e:
            values = e
    reset = _WAIT_FOR.set(values)
    try:
        yield
    finally:
        _WAIT_FOR.reset(reset)


def awaited() -> tuple[str, ...]:
    """The Neo4j bookmark strings the current work must wait for (reading_after); ValidationError
    when the token given was malformed."""
    values = _WAIT_FOR.get()
    if isinstance(values, ValidationError):
        raise ValidationError(str(values))
    return values

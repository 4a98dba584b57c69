"""The bookmark token a client carries between processes (service/core/bookmarks.py)."""

from __future__ import annotations

import pytest

from service.core import bookmarks
from service.core.errors import ValidationError

NEO4J_BOOKMARKS = ["FB:kcwQTjHVDoxzQ9GZRuZQMtUe/AWQ", "FB:kcwQTjHVDoxzQ9GZRuZQMtUe/AXA"]


def test_a_token_round_trips_whatever_the_order() -> None:
    token = bookmarks.encode(NEO4J_BOOKMARKS)
    assert token is not None
    assert token == bookmarks.encode(reversed(NEO4J_BOOKMARKS))
    assert bookmarks.decode(token) == tuple(NEO4J_BOOKMARKS)
    assert "=" not in token and "/" not in token and "+" not in token  # header- and URL-safe


def test_no_bookmarks_no_token() -> None:
    assert bookmarks.encode([]) is None


@pytest.mark.parametrize(
    "token",
    [
        "%%%",
        "junk",
        str(bookmarks.encode(NEO4J_BOOKMARKS))[:-6],  # cut short
        "e30",  # {}: JSON, not a list
        "W10",  # []: no bookmarks
        "WzFd",  # [1]: not strings
        "A" * (bookmarks.MAX_LENGTH + 1),
    ],
)
def test_a_malformed_token_is_refused(token: str) -> None:
    with pytest.raises(ValidationError, match="X-Engram-Bookmark"):
        bookmarks.decode(token)


def test_reading_after_sets_the_bookmarks_for_the_block_only() -> None:
    token = bookmarks.encode(NEO4J_BOOKMARKS)
    assert bookmarks.awaited() == ()
    with bookmarks.reading_after(token):
        assert bookmarks.awaited() == tuple(NEO4J_BOOKMARKS)
    assert bookmarks.awaited() == ()


def test_a_malformed_token_fails_the_queries_not_the_block() -> None:
    # The first query raises it, so the API answers it as the request's own InvalidInput.
    with (
        bookmarks.reading_after("junk"),
        pytest.raises(ValidationError, match="X-Engram-Bookmark"),
    ):
        bookmarks.awaited()
    assert bookmarks.awaited() == ()

"""The warm-up after a Neo4j restart, without a database: which searches it keeps, and when it
runs (a scripted answer to "does Neo4j answer?")."""

from __future__ import annotations

import asyncio

from service.core.domain import Scope, SearchOptions
from service.core.errors import DatabaseUnavailableError
from service.retrieval.warm_up import RecentSearch, RecentSearches, WarmUpWatch, came_back


def asked(query: str, user: str = "ana") -> RecentSearch:
    return RecentSearch(query, Scope(user_id=user), SearchOptions())


def test_the_last_distinct_searches_are_kept_newest_last() -> None:
    recent = RecentSearches(3)
    for query in ["a", "b", "a", "c", "d"]:
        recent.remember(asked(query))
    assert [r.query for r in recent.latest()] == ["a", "c", "d"]
    recent.remember(asked("a", user="bo"))  # another scope is another search
    assert [(r.query, r.scope.user_id) for r in recent.latest()] == [
        ("c", "ana"),
        ("d", "ana"),
        ("a", "bo"),
    ]


def test_none_kept_when_the_setting_is_zero() -> None:
    recent = RecentSearches(0)
    recent.remember(asked("a"))
    assert recent.latest() == []


def test_only_a_comeback_warms_up() -> None:
    assert came_back(was_up=False, up=True)
    assert not came_back(was_up=True, up=True)
    assert not came_back(was_up=False, up=False)
    assert not came_back(was_up=True, up=False)


async def watched(answers: list[bool], fails: set[int] | None = None) -> list[int]:
    """Run a watch over scripted ping answers; the indexes of the pings after which it warmed
    up (those in ``fails`` find Neo4j gone again)."""
    pings = iter(answers)
    done = asyncio.Event()
    warmed: list[int] = []
    count = 0

    async def ping() -> bool:
        nonlocal count
        count += 1
        answer = next(pings, None)
        if answer is None:
            done.set()
            await asyncio.Event().wait()  # the script is over
        return bool(answer)

    async def warm_up() -> None:
        if count - 1 in (fails or set()):
            raise DatabaseUnavailableError("gone again")
        warmed.append(count - 1)

    watch = WarmUpWatch(ping, warm_up, every_s=0)
    watch.start()
    await asyncio.wait_for(done.wait(), 10)
    await watch.stop()
    assert watch.warm_ups == len(warmed)
    return warmed


async def test_it_warms_up_once_each_time_neo4j_comes_back() -> None:
    assert await watched([True, True, False, False, True, True, False, True]) == [4, 7]


async def test_a_warm_up_that_finds_neo4j_gone_is_tried_at_the_next_comeback() -> None:
    assert await watched([False, True, True, False, True], fails={1}) == [2, 4]

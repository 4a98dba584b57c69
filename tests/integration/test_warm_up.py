"""The warm-up after a Neo4j restart, against a real Neo4j: it asks the recent searches again
and prepares the search plans, and a watch that sees Neo4j come back runs it."""

from __future__ import annotations

import asyncio

import pytest

from service.core.domain import Scope
from service.memory import MemoryService
from service.retrieval.warm_up import RecentSearches, WarmUpWatch

pytestmark = pytest.mark.integration

SCOPE = Scope(user_id="ana")


async def test_the_warm_up_asks_the_recent_searches_again(mem: MemoryService) -> None:
    await mem.add([{"content": "Ana walked her dog Rex in the park.", "speaker": "Ana"}], SCOPE)
    mem.recent_searches = RecentSearches(8)  # the shared service's earlier tests searched too
    await mem.search("Where did Ana walk the dog?", SCOPE)
    await mem.search("Who is Rex?", SCOPE)
    assert [r.query for r in mem.recent_searches.latest()] == [
        "Where did Ana walk the dog?",
        "Who is Rex?",
    ]
    asked: list[str] = []
    search = mem.store.retrieve_text

    async def counted(params: dict[str, object]) -> object:
        asked.append(str(params["memory_lucene"]))
        return await search(params)  # type: ignore[arg-type]

    mem.store.retrieve_text = counted  # type: ignore[method-assign,assignment]
    try:
        await mem.warm_up()
    finally:
        del mem.store.retrieve_text
    assert len(asked) == 4  # each recent search twice, against the real store


async def test_a_watch_that_sees_neo4j_come_back_warms_up(mem: MemoryService) -> None:
    answers = iter([False, True])
    warmed = asyncio.Event()

    async def ping() -> bool:
        return next(answers, True) and await mem.db.ping()

    async def warm_up() -> None:
        await mem.warm_up()
        warmed.set()

    watch = WarmUpWatch(ping, warm_up, every_s=0.01)
    watch.start()
    try:
        await asyncio.wait_for(warmed.wait(), 120)
    finally:
        await watch.stop()
    assert watch.warm_ups == 1 and not watch.warming

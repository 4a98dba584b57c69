"""Search warmed up again when Neo4j comes back after a restart, in the background.

A restarted Neo4j has no query plans, opens each index on its first query and runs its first
queries cold: the first searches after it comes back took seconds where a warm one takes a
tenth of one (bench/RESULTS.md, "First search after a Neo4j restart"). Preparing the plans
alone (HybridRetriever.prepare_plans) left the first search at 20-50 times a warm one; running
searches is what warms Neo4j. So the process keeps its last few searches (in memory only) and,
when Neo4j answers again after it did not, runs them once more, their hits unread, then
prepares the plans of every search shape. Nothing waits for it: /healthz answers as before,
and a search meanwhile plans what it needs itself.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from contextlib import suppress
from dataclasses import dataclass

from service.core.domain import Scope, SearchOptions
from service.core.errors import DatabaseUnavailableError

log = logging.getLogger("engram.warm_up")  # INFO shows under engram (observability/logs.py)


@dataclass(frozen=True)
class RecentSearch:
    """A search as it was asked: what a warm-up asks again."""

    query: str
    scope: Scope
    options: SearchOptions


class RecentSearches:
    """The last ``size`` distinct searches of this process, newest last."""

    def __init__(self, size: int) -> None:
        self._searches: deque[RecentSearch] = deque(maxlen=size)

    def remember(self, search: RecentSearch) -> None:
        with suppress(ValueError):
            self._searches.remove(search)
        if self._searches.maxlen:
            self._searches.append(search)

    def latest(self) -> list[RecentSearch]:
        return list(self._searches)


def came_back(was_up: bool, up: bool) -> bool:
    """Whether Neo4j answers now after it did not: the moment to warm up."""
    return up and not was_up


class WarmUpWatch:
    """Asks Neo4j every ``every_s`` whether it answers; runs ``warm_up`` when it comes back."""

    def __init__(
        self,
        ping: Callable[[], Awaitable[bool]],
        warm_up: Callable[[], Awaitable[None]],
        every_s: float,
    ) -> None:
        self.ping = ping
        self.warm_up = warm_up
        self.every_s = every_s
        self.warm_ups = 0  # done since start, for tests and logs
        self.warming = False  # /healthz tells it, without holding readiness
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="engram-warm-up-watch")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        was_up = True  # MemoryService.start warmed up against a Neo4j that answered
        while True:
            await asyncio.sleep(self.every_s)
            up = await self.ping()
            if came_back(was_up, up):
                up = await self._warm_up()
            was_up = up

    async def _warm_up(self) -> bool:
        """Warm up; False when Neo4j went away again meanwhile (then it is tried once more when
        it is back)."""
        began = time.monotonic()
        self.warming = True
        try:
            await self.warm_up()
        except DatabaseUnavailableError as e:
            log.warning("Neo4j went away again while search warmed up: %s", e)
            return False
        except Exception:  # a background task: the next comeback warms up again
            log.exception("warming search up failed")
            return True
        finally:
            self.warming = False
        self.warm_ups += 1
        log.info("Neo4j answers again: search warmed up in %.1f s", time.monotonic() - began)
        return True

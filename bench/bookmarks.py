"""Search latency with and without the shared bookmark manager, in one run (docs/cluster.md).

    ENGRAM_NEO4J_URI=bolt://127.0.0.1:7687 .venv/bin/python -m bench.bookmarks [--rounds 5]

Three ways to run the same searches on the same scope, interleaved search by search (in a
random order each time) so that the machine's drift falls on all of them alike:
- ``none``: sessions without a bookmark manager (the store before it shared one);
- ``shared``: the process's bookmark manager, as the service runs;
- ``header``: that, plus the bookmark of an add sent back (X-Engram-Bookmark).
It also counts the Bolt messages one search sends in each way: bookmarks travel inside RUN, so
the counts must match. Writes bench/results/bookmarks.json.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import re
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from bench.common import bench_settings, ensure_neo4j, summary_ms, write_result
from bench.synthetic import natural_questions, varied_messages
from service.core.bookmarks import reading_after
from service.core.domain import Scope
from service.memory import MemoryService

SCOPE = Scope(user_id="bookmarks-bench")
WAYS = ("none", "shared", "header")
_SENT = re.compile(r"C: ([A-Z]+)")


class BoltMessages(logging.Handler):
    """Counts the Bolt messages the driver sends (its DEBUG log lines 'C: RUN …')."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.sent: Counter[str] = Counter()

    def emit(self, record: logging.LogRecord) -> None:
        if found := _SENT.search(record.getMessage()):
            self.sent[found.group(1)] += 1


@contextmanager
def searching(memory: MemoryService, way: str, bookmark: str | None) -> Iterator[None]:
    """Searches run the given way (the module doc); the manager is set back after."""
    manager = memory.db._bookmarks  # the bench reaches in: the service has no switch for it
    if way == "none":
        memory.db._bookmarks = None  # type: ignore[assignment]
    try:
        with reading_after(bookmark if way == "header" else None):
            yield
    finally:
        memory.db._bookmarks = manager


async def seed(memory: MemoryService, messages: int) -> str:
    """The bench scope with ``messages`` messages; the bookmark of the last add."""
    if (await memory.store.counts(SCOPE)).get("Message", 0) < messages:
        rows = varied_messages(random.Random(5), messages, 0, datetime.now(UTC))
        batches = [(rows[i : i + 50], SCOPE) for i in range(0, messages, 50)]
        async for _ in memory.add_batches(batches):
            pass
    added = await memory.add([{"content": "I keep my bike in the garage."}], SCOPE)
    assert added.bookmark is not None
    return added.bookmark


async def messages_per_search(memory: MemoryService, way: str, bookmark: str) -> dict[str, int]:
    counter = BoltMessages()
    log = logging.getLogger("neo4j")
    log.addHandler(counter)
    log.setLevel(logging.DEBUG)
    try:
        with searching(memory, way, bookmark):
            await memory.search("Where do I keep my bike?", SCOPE)
    finally:
        log.removeHandler(counter)
        log.setLevel(logging.WARNING)
    return dict(sorted(counter.sent.items()))


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    settings = bench_settings()
    ensure_neo4j(settings)
    memory = await MemoryService.start(settings)
    try:
        bookmark = await seed(memory, args.messages)
        questions = natural_questions(random.Random(9), args.questions)
        for question in questions[:5]:  # plans and connections warm
            await memory.search(question, SCOPE)
        timings: dict[str, list[float]] = {way: [] for way in WAYS}
        for _ in range(args.rounds):
            for question in questions:
                for way in random.sample(WAYS, len(WAYS)):
                    with searching(memory, way, bookmark):
                        start = time.perf_counter()
                        await memory.search(question, SCOPE)
                        timings[way].append((time.perf_counter() - start) * 1000)
        bolt = {way: await messages_per_search(memory, way, bookmark) for way in WAYS}
    finally:
        await memory.close()
    summaries = {way: summary_ms(ms) for way, ms in timings.items()}
    base = summaries["none"]
    return {
        "searches_per_way": len(timings["none"]),
        "ms": summaries,
        "ratio_to_none": {
            way: {k: round(s[k] / base[k], 3) for k in ("p50", "p95", "mean")}
            for way, s in summaries.items()
        },
        "bolt_messages_per_search": bolt,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=500, help="messages in the bench scope")
    parser.add_argument("--questions", type=int, default=40, help="searches per way per round")
    parser.add_argument("--rounds", type=int, default=5)
    result = asyncio.run(measure(parser.parse_args()))
    path = write_result("bookmarks.json", result, "bench.bookmarks")
    print(path.read_text(encoding="utf-8"))


if __name__ == "__main__":
    main()

"""Where the first answers after a Neo4j crash go: planning queries on a cold server.

    .venv/bin/python -m bench.restart_plans [--warm]

A local Neo4j of its own (ports 7792/7592, data in a temporary folder) and one MemoryService
with a small scope. Neo4j is SIGKILLed and started again; then, with --warm, the search plans
are prepared (HybridRetriever.prepare_plans, what MemoryService.start does) before the first
search; without, the first search plans its own queries. Reports seconds from Bolt answering
to the first search answered, the warm-up's own time, and the searches and the add after it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import tempfile
import time
from typing import Any

from bench.common import write_result
from service.core.config import Settings
from service.core.domain import Scope
from service.core.errors import EngramError
from service.memory import MemoryService
from service.retrieval.hybrid import HybridRetriever
from service.store.local_server import LocalNeo4j

SCOPE = Scope(user_id="restart")
QUESTION = "Where did Ana walk the dog?"


async def seconds(work: Any) -> float:
    began = time.monotonic()
    await work
    return round(time.monotonic() - began, 2)


async def until_answered(memory: MemoryService) -> float:
    """Seconds until a search is answered, retrying while Neo4j is not there yet."""
    began = time.monotonic()
    while True:
        try:
            await memory.search(QUESTION, SCOPE)
            return round(time.monotonic() - began, 2)
        except EngramError:
            await asyncio.sleep(0.2)


async def main(warm: bool) -> None:
    with tempfile.TemporaryDirectory() as data:
        settings = Settings(  # type: ignore[call-arg]
            _env_file=None, data_dir=data, neo4j_bolt_port=7792, neo4j_http_port=7592
        )
        server = LocalNeo4j(settings)
        server.start()
        memory = await MemoryService.start(settings)
        try:
            said = [f"I walked my dog Rex to the park on day {i}." for i in range(30)]
            await memory.add([{"content": t, "speaker": "Ana"} for t in said], SCOPE)
            for _ in range(5):
                await memory.search(QUESTION, SCOPE)
            os.kill(server.status().pid or 0, signal.SIGKILL)
            await asyncio.sleep(2)
            await asyncio.to_thread(server.start)  # returns once Bolt answers
            result: dict[str, Any] = {"warm": warm}
            if warm:
                while not await memory.db.ping():
                    await asyncio.sleep(0.2)
                retriever = HybridRetriever(settings.search, memory.store, memory.embedder)
                result["prepare_plans_s"] = await seconds(retriever.prepare_plans())
            result["first_search_s"] = await until_answered(memory)
            result["next_searches_s"] = [
                await seconds(memory.search(f"What did Ana do on day {i}?", SCOPE))
                for i in range(3)
            ]
            message = {"content": "Ana moved to Lisbon in May.", "speaker": "Ana"}
            result["add_s"] = await seconds(memory.add([message], SCOPE))
        finally:
            await memory.close()
            server.stop()
    print(result)
    name = "restart_plans_warm.json" if warm else "restart_plans_cold.json"
    print(write_result(name, result, "bench.restart_plans"))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--warm", action="store_true", help="prepare the plans first")
    asyncio.run(main(parser.parse_args().warm))

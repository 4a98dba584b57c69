"""How long an agent waits for an add, synchronous against deferred, in one run.

    .venv/bin/python -m bench.deferred ../shared/data/locomo-dev.json [--messages 120]

An agent adds each message as it comes (one message per call, through GraphQL in process).
The same --messages LoCoMo messages go twice into fresh scopes: once synchronously, once
deferred while the service's worker writes them in the background. Reported: each mode's call
latency (p50 / p95), their ratio, and for the deferred run the time until the last batch was
written (the worker's throughput against the synchronous calls'), and that both modes stored
as many memories.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console

from bench.common import bench_settings, ensure_neo4j, summary_ms, write_result
from service.api.app import create_app
from service.client import EngramClient
from service.core.domain import Scope
from service.ingest.importers import read_locomo
from service.memory import MemoryService


async def add_each(
    client: EngramClient, messages: list[dict[str, Any]], mode: str, user: str
) -> list[float]:
    """Each message in its own add call; the milliseconds each call took."""
    took = []
    for message in messages:
        began = time.perf_counter()
        await client.add([message], mode=mode, user_id=user)
        took.append((time.perf_counter() - began) * 1000)
    return took


async def until_written(client: EngramClient, user: str) -> None:
    while (await client.pending(user_id=user)).batches:
        await asyncio.sleep(0.05)


async def main(args: argparse.Namespace) -> None:
    settings = bench_settings().model_copy(update={"auth_mode": "local"})
    ensure_neo4j(settings)
    memory = await MemoryService.start(settings)
    conversation = read_locomo(Path(args.locomo))[0]
    messages = [
        {
            "content": m.content,
            "speaker": m.speaker,
            "timestamp": m.timestamp.isoformat() if m.timestamp else None,
        }
        for m in conversation.messages[: args.messages]
    ]
    app = create_app(settings, memory=memory)
    result: dict[str, Any] = {"messages": len(messages)}
    try:
        async with EngramClient("http://bench", transport=httpx.ASGITransport(app=app)) as client:
            for mode in ("sync", "deferred"):
                user = f"bench-deferred-{mode}"
                await memory.store.delete_scope(Scope(user_id=user))  # pending adds too
                if mode == "deferred":
                    memory.start_worker()
                began = time.perf_counter()
                took = await add_each(client, messages, mode, user)
                answered_s = time.perf_counter() - began
                await until_written(client, user)
                written_s = time.perf_counter() - began
                stored = await memory.get_all(Scope(user_id=user), first=1)
                result[mode] = {
                    "call_ms": summary_ms(took),
                    "all_answered_s": round(answered_s, 2),
                    "all_written_s": round(written_s, 2),
                    "memories": stored.total_count,
                }
    finally:
        await memory.close()
    sync, deferred = result["sync"]["call_ms"], result["deferred"]["call_ms"]
    result["ratio_p50"] = round(sync["p50"] / deferred["p50"], 1)
    result["ratio_p95"] = round(sync["p95"] / deferred["p95"], 1)
    result["written_ratio"] = round(
        result["deferred"]["all_written_s"] / result["sync"]["all_written_s"], 2
    )
    Console().print(result)
    print(write_result("deferred.json", result, "bench.deferred"))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("locomo")
    parser.add_argument("--messages", type=int, default=120)
    asyncio.run(main(parser.parse_args()))

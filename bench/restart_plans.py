"""The first search after a Neo4j crash against a warm one, through `engram serve`.

    .venv/bin/python -m bench.restart_plans --out restart_plans-after.json

A local Neo4j of its own (ports from --bolt-port/--http-port, data in a temporary folder) and
one `engram serve` on it (local auth, --port), which stays up throughout. A 30-message scope
is added and searched until warm; the median of five more searches is the warm figure. Then
Neo4j is SIGKILLed and started again; --settle seconds after Bolt answers, and once /healthz
no longer says `"search": "warming up"` (a service that warms up in the background says so
there), the first search is sent, retried while the service answers that Neo4j is away, then
three more. Reports each in seconds, the wait from Bolt answering, and the first search over
the warm median.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import statistics
import tempfile
import time
from typing import Any

import httpx

from bench.common import start_server, write_result
from service.core.config import Settings
from service.store.local_server import LocalNeo4j

SCOPE = {"userId": "restart"}
QUESTION = "Where did Ana walk the dog?"
SEARCH = """query($q: String!, $scope: ScopeInput!) {
  search(query: $q, scope: $scope) { __typename } }"""
WARM_UP_WAIT_S = 300
ADD = """mutation($messages: [MessageInput!]!, $scope: ScopeInput!) {
  addMessages(messages: $messages, scope: $scope) { __typename } }"""


async def search_s(http: httpx.AsyncClient, question: str) -> float | None:
    """Seconds a search took, or None when it was not answered with hits."""
    began = time.monotonic()
    body = {"query": SEARCH, "variables": {"q": question, "scope": SCOPE}}
    response = await http.post("/graphql", json=body)
    data = response.json().get("data") or {}
    answered = (data.get("search") or {}).get("__typename") == "SearchHits"
    return round(time.monotonic() - began, 3) if answered else None


async def until_answered(http: httpx.AsyncClient) -> float:
    """Seconds until a search is answered, retrying while Neo4j is not there yet."""
    began = time.monotonic()
    while await search_s(http, QUESTION) is None:
        await asyncio.sleep(0.2)
    return round(time.monotonic() - began, 3)


async def until_warm(http: httpx.AsyncClient) -> None:
    """Until /healthz no longer says search is warming up (a service that warms up after a
    restart says so there), for at most WARM_UP_WAIT_S."""
    deadline = time.monotonic() + WARM_UP_WAIT_S
    while time.monotonic() < deadline:
        health = (await http.get("/healthz")).json()
        if health.get("search") != "warming up":
            return
        await asyncio.sleep(0.5)


async def measure(http: httpx.AsyncClient, server: LocalNeo4j, settle_s: float) -> dict[str, Any]:
    walks = [f"I walked my dog Rex to the park on day {i}." for i in range(30)]
    said = [{"content": text, "speaker": "Ana"} for text in walks]
    variables = {"messages": said, "scope": SCOPE}
    await http.post("/graphql", json={"query": ADD, "variables": variables})
    for _ in range(5):
        await search_s(http, QUESTION)
    warm = [await search_s(http, f"What did Ana do on day {i}?") for i in range(5)]
    os.kill(server.status().pid or 0, signal.SIGKILL)
    await asyncio.sleep(2)
    await asyncio.to_thread(server.start)  # returns once Bolt answers
    began = time.monotonic()
    await asyncio.sleep(settle_s)
    await until_warm(http)
    waited = round(time.monotonic() - began, 1)
    first = await until_answered(http)
    after = [await search_s(http, f"What did Ana do on day {i}?") for i in range(10, 13)]
    warm_median = statistics.median(s for s in warm if s is not None)
    return {
        "settle_s": settle_s,
        "bolt_to_first_search_s": waited,
        "warm_searches_s": warm,
        "first_search_s": first,
        "next_searches_s": after,
        "first_over_warm": round(first / warm_median, 1),
    }


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as data:
        settings = Settings(  # type: ignore[call-arg]
            _env_file=None,
            data_dir=data,
            neo4j_bolt_port=args.bolt_port,
            neo4j_http_port=args.http_port,
        )
        neo4j = LocalNeo4j(settings)
        neo4j.start()
        service = start_server(settings, args.port)
        try:
            url = f"http://127.0.0.1:{args.port}"
            async with httpx.AsyncClient(base_url=url, timeout=120) as http:
                result = await measure(http, neo4j, args.settle)
        finally:
            service.terminate()
            service.wait(timeout=60)
            neo4j.stop()
    result["label"] = args.label
    print(result)
    print(write_result(args.out, result, "bench.restart_plans"))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--settle", type=float, default=20, help="seconds after Bolt answers")
    parser.add_argument("--label", default="", help="recorded with the result")
    parser.add_argument("--out", default="restart_plans.json", help="file in bench/results/")
    parser.add_argument("--bolt-port", type=int, default=7792)
    parser.add_argument("--http-port", type=int, default=7592)
    parser.add_argument("--port", type=int, default=8131, help="the engram serve's")
    asyncio.run(main(parser.parse_args()))

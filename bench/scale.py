"""Search latency and ingest rate as one store grows (1k → 10k → 100k memories), with baselines.

    ENGRAM_NEO4J_URI=bolt://127.0.0.1:7702 .venv/bin/python -m bench.scale --sizes 1000 10000

The same store grows from size to size; memories go in through the fast path (infer=False, one
memory per message, batches of 1000) over --tenants users, one of them "small" (1% of the
memories). At each size: --queries questions against random tenants and the same questions
against the small tenant, timed in-process (Memory.search) and over HTTP (GraphQL under uvicorn).
With --reuse the last run's memories stay and only the sizes at or above them are measured
(the others are kept in search.json): latency can be measured again without reloading 100k.
Baselines, side by side: brute-force cosine in numpy over the tenant's embeddings fetched per
query (how Graphiti ranks), and the vector index alone (what fusion adds on top of it). Every
timing includes embedding the query.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import threading
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import uvicorn
from rich.console import Console
from rich.table import Table

from bench.common import RESULTS, bench_settings, ensure_neo4j, free_port, percentile, write_result
from bench.synthetic import natural_questions, varied_messages
from neo4j import AsyncGraphDatabase
from service.api.app import create_app
from service.client import EngramClient
from service.core.config import Settings
from service.core.domain import MessageIn, Scope, SearchOptions
from service.memory import MemoryService
from service.retrieval.query import QueryPlan, plan_query
from service.store.dashboard_queries import DashboardStore
from service.store.local_server import LocalNeo4j

BATCH = 1000
BULK_BATCH = 500
LIMIT = 10
SMALL_SHARE = 0.01
WARMUP = 5
NO_TIME_FILTER = QueryPlan(text="", lucene=None, window=None, as_of=None).filter_params()
Search = Callable[["Probe"], Awaitable[list[str]]]


@dataclass(frozen=True)
class Probe:
    """One question asked of one tenant."""

    query: str
    scope: Scope
    small: bool
    windowed: bool  # the question names a time ("last week"): fewer than 10 may be right
    baseline: bool  # brute force runs on it too (it is slow: a sample of the probes)


def mean(values: list[float] | list[int]) -> float:
    return round(statistics.fmean(values), 3) if values else float("nan")


@dataclass(frozen=True)
class Sample:
    method: str
    probe: Probe
    ms: float
    hits: int


@dataclass
class Step:
    """What one size measured: ingest of the growth step, then each search of each probe."""

    size: int
    memories: int = 0
    small_memories: int = 0
    ingest_s: float = 0.0
    messages: int = 0
    stages_ms: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    samples: list[Sample] = field(default_factory=list)
    recall: list[float] = field(default_factory=list)
    footprint: dict[str, int | None] = field(default_factory=dict)

    @property
    def messages_per_s(self) -> float:
        return self.messages / self.ingest_s if self.ingest_s else float("nan")

    def p(self, method: str, q: float, small: bool = False) -> float:
        ms = [s.ms for s in self.samples if s.method == method and s.probe.small == small]
        return round(percentile(ms, q), 2)

    def mean_hits(self, method: str, windowed: bool | None = False) -> float:
        """Mean hits of the small tenant's searches: with a time window, without, or all (None)."""
        hits = [
            s.hits
            for s in self.samples
            if s.method == method and s.probe.small and windowed in (None, s.probe.windowed)
        ]
        return mean(hits)

    def starved(self, method: str) -> int:
        """Small-tenant searches without a time window that got fewer than LIMIT hits."""
        return sum(
            1
            for s in self.samples
            if s.method == method and s.probe.small and not s.probe.windowed and s.hits < LIMIT
        )


# Tenants and loading


def tenant(index: int) -> Scope:
    """bench-scale-0 is the small tenant; the others share the rest evenly."""
    return Scope(user_id=f"bench-scale-{index}")


async def clear_tenants(memory: MemoryService, tenants: int) -> None:
    """Delete bench-scale-0, 1, … including those a run with more --tenants left behind."""
    index = 0
    while await memory.store.delete_scope(tenant(index)) or index < tenants:
        index += 1


TENANT_MEMORIES = """MATCH (m:Memory) WHERE m.user_id STARTS WITH 'bench-scale-'
RETURN count(m) AS memories"""


async def tenants_memories(settings: Settings) -> int:
    """What every bench-scale-* tenant holds, in one seek of the memory_user index (a stats
    read per tenant takes ~40 minutes over 10,000 tenants at 1M)."""
    password = settings.neo4j_password.get_secret_value()
    auth = (settings.neo4j_user, password) if password else None
    async with AsyncGraphDatabase.driver(settings.neo4j_uri or settings.bolt_uri, auth=auth) as d:
        records, _, _ = await d.execute_query(TENANT_MEMORIES)
    return int(records[0]["memories"])


def shares(total: int, tenants: int, small: int | None = None) -> list[int]:
    """How many of ``total`` new memories each tenant gets: ``small`` (default 1%) to the
    small one, the rest evenly."""
    small = max(1, round(total * SMALL_SHARE)) if small is None else min(small, total)
    rest, extra = divmod(total - small, tenants - 1)
    return [small] + [rest + (1 if i < extra else 0) for i in range(tenants - 1)]


class MessageSource:
    """An endless, seeded stream of distinct synthetic messages."""

    def __init__(self, seed: int, max_sentences: int = 3) -> None:
        self.rng = random.Random(seed)
        self.next_id = 0
        self.end = datetime.now(UTC)
        self.max_sentences = max_sentences

    def take(self, count: int) -> list[MessageIn]:
        messages = varied_messages(
            self.rng, count, self.next_id, self.end, max_sentences=self.max_sentences
        )
        self.next_id += count
        return messages


async def fill(
    memory: MemoryService,
    scope: Scope,
    target: int,
    source: MessageSource,
    stages_ms: dict[str, float],
) -> tuple[int, int]:
    """Add batches until ``target`` new memories exist (near-duplicates become updates)."""
    added = sent = 0
    while added < target:
        batch = source.take(min(BATCH, target - added))
        result = await memory.add(batch, scope, infer=False)
        sent += len(batch)
        for stage, ms in result.stage_ms.items():
            stages_ms[stage] += ms
        if not result.added:
            break
        added += len(result.added)
    return added, sent


async def grow(
    memory: MemoryService,
    scopes: list[Scope],
    step: Step,
    source: MessageSource,
    small: int | None = None,
) -> None:
    """Load the memories that take the store from the previous size to ``step.size``."""
    began = time.perf_counter()
    targets = shares(step.size - step.memories, len(scopes), small)
    for index, (scope, target) in enumerate(zip(scopes, targets, strict=True)):
        added, sent = await fill(memory, scope, target, source, step.stages_ms)
        step.memories += added
        step.messages += sent
        step.small_memories += added if index == 0 else 0
    step.ingest_s = time.perf_counter() - began


async def grow_bulk(
    memory: MemoryService,
    scopes: list[Scope],
    step: Step,
    source: MessageSource,
    small: int | None = None,
) -> None:
    """The same growth through the bulk loader (MemoryService.import_bulk): exact repeats
    are skipped, near-duplicates are stored."""
    began = time.perf_counter()
    targets = shares(step.size - step.memories, len(scopes), small)
    pairs = (
        (scope, message)
        for scope, target in zip(scopes, targets, strict=True)
        if target
        for message in source.take(target)
    )
    report = await memory.import_bulk(pairs, BULK_BATCH)
    step.ingest_s = time.perf_counter() - began
    step.memories += report.added
    step.messages += report.messages
    step.small_memories = (await DashboardStore(memory.db).stats(scopes[0])).memories
    for stage, ms in report.stage_ms.items():
        step.stages_ms[stage] += ms


# Search methods: each returns the hit ids of one probe.


async def engram(memory: MemoryService, probe: Probe) -> list[str]:
    hits = await memory.search(probe.query, probe.scope, limit=LIMIT)
    return [h.memory.id for h in hits]


async def over_http(client: EngramClient, probe: Probe) -> list[str]:
    hits = await client.search(probe.query, limit=LIMIT, user_id=probe.scope.user_id or "")
    return [h.memory.id for h in hits]


async def vector_only(memory: MemoryService, probe: Probe) -> list[str]:
    """The vector retriever alone, over-fetched exactly as the hybrid search does it."""
    s = memory.settings
    [embedding] = await memory.embedder.aembed([probe.query])
    fetch_k = max(LIMIT * 3, s.retriever_depth) * s.vector_overfetch
    params = {
        **probe.scope.params(),
        **NO_TIME_FILTER,
        "limit": LIMIT,
        "embedding": embedding,
        "fetch_k": fetch_k,
    }
    return [r["id"] for r in (await memory.store.retrieve("vector", params)).hits]


async def bruteforce(memory: MemoryService, probe: Probe) -> list[str]:
    """Fetch every embedding of the tenant and rank by cosine in numpy (Graphiti's way)."""
    [embedding] = await memory.embedder.aembed([probe.query])
    rows = await memory.db.read("fetch_scope_embeddings", probe.scope.params())
    if not rows:
        return []
    matrix = np.asarray([r["embedding"] for r in rows], dtype=np.float32)
    query = np.asarray(embedding, dtype=np.float32)
    scores = matrix @ query / (np.linalg.norm(matrix, axis=1) * np.linalg.norm(query) + 1e-12)
    top = np.argsort(-scores)[:LIMIT]
    return [rows[i]["id"] for i in top]


# Measuring


def make_probes(
    scopes: list[Scope], count: int, baseline_count: int, rng: random.Random
) -> list[Probe]:
    """Each question once against a random (not small) tenant and once against the small one."""
    probes = []
    for i, question in enumerate(natural_questions(rng, count)):
        windowed = plan_query(question, SearchOptions()).window is not None
        for scope in (rng.choice(scopes[1:]), scopes[0]):
            probes.append(Probe(question, scope, scope == scopes[0], windowed, i < baseline_count))
    return probes


async def measure(step: Step, probes: list[Probe], methods: dict[str, Search]) -> None:
    """Every method on every probe, interleaved so that load spikes hit them all alike."""
    for probe in probes[:WARMUP]:
        for search in methods.values():
            await search(probe)
    names = list(methods)
    for index, probe in enumerate(probes):
        found = {}
        # Each method goes first as often as the others: the first search of a tenant reads
        # its pages from disk (a cold page cache), the ones after it find them cached.
        turn = (index // 2) % len(names)  # probes come in pairs: a tenant, then the small one
        for name in names[turn:] + names[:turn]:
            search = methods[name]
            if name == "bruteforce" and not probe.baseline:
                continue
            began = time.perf_counter()
            ids = await search(probe)
            ms = (time.perf_counter() - began) * 1000
            step.samples.append(Sample(name, probe, ms, len(ids)))
            found[name] = ids
        if not probe.small and found.get("bruteforce"):
            exact = set(found["bruteforce"])
            step.recall.append(len(exact & set(found["vector_only"])) / len(exact))


# The HTTP server


class ApiThread:
    """The GraphQL app under uvicorn in a thread of its own.

    The app gets a Memory opened on that thread's event loop (an async driver belongs to one
    loop), sharing the models of the benchmark's Memory.
    """

    def __init__(self, settings: Settings, memory: MemoryService) -> None:
        self.settings = settings.model_copy(update={"auth_mode": "local"})
        self.shared = memory
        self.port = free_port()
        self.server: uvicorn.Server | None = None
        self.thread = threading.Thread(target=lambda: asyncio.run(self._serve()), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.thread.start()
        while self.server is None or not self.server.started:
            if not self.thread.is_alive():
                raise RuntimeError("the API server did not start")
            time.sleep(0.05)

    def stop(self) -> None:
        if self.server is not None:
            self.server.should_exit = True
        self.thread.join(timeout=10)

    async def _serve(self) -> None:
        memory = await MemoryService.start(
            self.settings, self.shared.embedder, self.shared.extractor
        )
        try:
            app = create_app(self.settings, memory=memory)
            config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning")
            self.server = uvicorn.Server(config)
            await self.server.serve()
        finally:
            await memory.close()


# The run


async def run_sizes(
    memory: MemoryService, client: EngramClient, args: argparse.Namespace, console: Console
) -> list[Step]:
    scopes = [tenant(i) for i in range(args.tenants)]
    stored = small_stored = 0
    if args.reuse:
        stored = await tenants_memories(memory.settings)
        small_stored = (await DashboardStore(memory.db).stats(scopes[0])).memories
        console.print(f"reusing {stored} memories of {len(scopes)} tenants")
    else:
        await clear_tenants(memory, args.tenants)
    source = MessageSource(args.seed, args.max_sentences)
    rng = random.Random(args.seed + 1)
    load = grow_bulk if args.bulk else grow
    methods: dict[str, Search] = {
        "engram": lambda p: engram(memory, p),
        "http": lambda p: over_http(client, p),
        "vector_only": lambda p: vector_only(memory, p),
        "bruteforce": lambda p: bruteforce(memory, p),
    }
    steps: list[Step] = []
    for size in sorted(args.sizes):
        if size < stored:
            console.print(f"{size}: skipped, the store already holds {stored}")
            continue
        last = steps[-1] if steps else Step(size=0, memories=stored, small_memories=small_stored)
        step = Step(size=size, memories=last.memories, small_memories=last.small_memories)
        small = None
        if args.small_memories is not None:
            small = max(0, args.small_memories - step.small_memories)
        await load(memory, scopes, step, source, small)
        console.print(
            f"{size}: {step.memories} memories, +{step.messages} messages in "
            f"{step.ingest_s:.0f}s ({step.messages_per_s:.0f}/s); searching"
        )
        await measure(
            step, make_probes(scopes, args.queries, args.bruteforce_queries, rng), methods
        )
        steps.append(step)
        step.footprint = footprint(memory.settings)
        # After every size, so that a long run that dies still leaves its figures.
        results = payload(steps, args, memory.settings)
        if args.reuse and (RESULTS / args.out).is_file():
            results = merge_by_size(json.loads((RESULTS / args.out).read_text()), results)
        path = write_result(args.out, results, "bench.scale")
        console.print(f"wrote {path} and {plot(results, Path(args.out).stem)}")
    return steps


async def main(args: argparse.Namespace) -> None:
    console = Console()
    if not console.is_terminal:  # a log file: room for the whole table
        console = Console(width=170)
    settings = bench_settings()
    ensure_neo4j(settings)
    memory = await MemoryService.start(settings)
    api = ApiThread(settings, memory)
    api.start()
    try:
        async with EngramClient(api.url) as client:
            steps = await run_sizes(memory, client, args, console)
    finally:
        api.stop()
        await memory.close()
    show(steps, console)


# Reporting


def percentiles(steps: list[Step], method: str, small: bool = False) -> dict[str, list[float]]:
    return {
        "p50": [s.p(method, 50, small) for s in steps],
        "p95": [s.p(method, 95, small) for s in steps],
    }


def payload(steps: list[Step], args: argparse.Namespace, settings: Settings) -> dict[str, Any]:
    return {
        "sizes": [s.size for s in steps],
        "memories": [s.memories for s in steps],
        "tenants": args.tenants,
        "queries_per_tenant_kind": args.queries,
        "limit": LIMIT,
        "retrieval_settings": {  # the over-fetch decides whether the small tenant is starved
            "vector_overfetch": settings.vector_overfetch,
            "retriever_depth": settings.retriever_depth,
            "fetch_k": max(LIMIT * 3, settings.retriever_depth) * settings.vector_overfetch,
        },
        "in_process_ms": percentiles(steps, "engram"),
        "http_ms": percentiles(steps, "http"),
        "small_tenant": {
            "p95_ms": [s.p("engram", 95, small=True) for s in steps],
            "http_p95_ms": [s.p("http", 95, small=True) for s in steps],
            "mean_hits": [s.mean_hits("engram") for s in steps],
            "mean_hits_note": "questions without a time window; those with one may rightly get "
            "fewer (only the memories said in the window qualify)",
            "mean_hits_time_window_questions": [s.mean_hits("engram", True) for s in steps],
            "searches_under_limit": [s.starved("engram") for s in steps],
            "memories": [s.small_memories for s in steps],
        },
        "ingest_messages_per_s": [round(s.messages_per_s, 1) for s in steps],
        "ingest_seconds": [round(s.ingest_s, 1) for s in steps],
        "ingest_messages": [s.messages for s in steps],
        "ingest_stage_share": [stage_share(s) for s in steps],
        "ingest_path": "bulk (MemoryService.import_bulk)" if args.bulk else "add(infer=False)",
        "footprint": [s.footprint for s in steps],
        "baselines": {
            "bruteforce_cosine_ms": percentiles(steps, "bruteforce"),
            "vector_only_ms": percentiles(steps, "vector_only"),
            "bruteforce_small_tenant_p95_ms": [s.p("bruteforce", 95, True) for s in steps],
            "bruteforce_questions_per_tenant_kind": args.bruteforce_queries,
            "vector_only_small_tenant_mean_hits": [s.mean_hits("vector_only", None) for s in steps],
            "vector_only_recall_at_10": [mean(s.recall) for s in steps],
        },
    }


def stage_share(step: Step) -> dict[str, float]:
    total = sum(step.stages_ms.values()) or 1.0
    return {stage: round(ms / total, 3) for stage, ms in step.stages_ms.items()}


def show(steps: list[Step], console: Console) -> None:
    table = Table(title=f"Search latency (ms, limit {LIMIT}) and ingest as the store grows")
    columns = (
        "memories",
        "ingest s",
        "msg/s",
        "engram p50/p95",
        "http p50/p95",
        "small p95",
        "small hits",
        "vector-only p50/p95",
        "vec small hits",
        "vec recall@10",
        "brute-force p50/p95",
    )
    for column in columns:
        table.add_column(column, justify="right")
    for s in steps:
        table.add_row(
            f"{s.memories:,}",
            f"{s.ingest_s:.0f}",
            f"{s.messages_per_s:.0f}",
            *(f"{s.p(m, 50):.1f} / {s.p(m, 95):.1f}" for m in ("engram", "http")),
            f"{s.p('engram', 95, True):.1f}",
            f"{s.mean_hits('engram'):.1f}",
            f"{s.p('vector_only', 50):.1f} / {s.p('vector_only', 95):.1f}",
            f"{s.mean_hits('vector_only', None):.1f}",
            f"{mean(s.recall):.2f}",
            f"{s.p('bruteforce', 50):.1f} / {s.p('bruteforce', 95):.1f}",
        )
    console.print(table)


def merge_by_size(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """``old`` results with the sizes ``new`` measured replaced: a --reuse run adds to a file."""
    sizes = sorted(set(old["sizes"]) | set(new["sizes"]))

    def merge(before: Any, after: Any) -> Any:
        if isinstance(after, dict):
            return {
                k: merge(before.get(k) if isinstance(before, dict) else None, v)
                for k, v in after.items()
            }
        if isinstance(after, list) and len(after) == len(new["sizes"]):
            was = (
                dict(zip(old["sizes"], before, strict=True))
                if (isinstance(before, list) and len(before) == len(old["sizes"]))
                else {}
            )
            now = dict(zip(new["sizes"], after, strict=True))
            return [now[size] if size in now else was.get(size) for size in sizes]
        return after

    merged: dict[str, Any] = merge(old, new)
    merged["sizes_from_earlier_run"] = [size for size in sizes if size not in new["sizes"]]
    merged["earlier_command"] = old.get("command")
    return merged


def footprint(settings: Settings) -> dict[str, int | None]:
    """The local Neo4j's size on disk (its data directory) and resident memory, when this run
    can see them (a server started by `engram neo4j start` with the same ENGRAM_DATA_DIR)."""
    server = LocalNeo4j(settings)
    store = server.data_dir / "data"
    on_disk = (
        sum(f.stat().st_size for f in store.rglob("*") if f.is_file()) if store.is_dir() else None
    )
    pid = server.status().pid
    rss = None
    if pid is not None:
        status = Path(f"/proc/{pid}/status").read_text()
        rss = int(
            next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:"))
        )
        rss *= 1024
    return {"store_bytes": on_disk, "neo4j_rss_bytes": rss}


def plot(results: dict[str, Any], name: str = "search") -> str:
    matplotlib.use("Agg")  # headless: a file, never a window
    from matplotlib import pyplot as plt

    sizes = results["sizes"]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    lines = {
        "Engram in-process": (results["in_process_ms"], "tab:blue"),
        "Engram over HTTP": (results["http_ms"], "tab:green"),
        "brute-force cosine (baseline)": (results["baselines"]["bruteforce_cosine_ms"], "tab:red"),
    }
    for label, (ms, colour) in lines.items():
        ax.plot(sizes, ms["p50"], "o-", color=colour, label=f"{label} p50")
        ax.plot(sizes, ms["p95"], "s--", color=colour, label=f"{label} p95")
    ax.set(
        xscale="log",
        yscale="log",
        xlabel="memories in the store",
        ylabel="search latency (ms)",
        title="Search latency against store size",
    )
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    path = RESULTS / f"{name}_latency.png"
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return str(path)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--tenants", type=int, default=20)
    parser.add_argument(
        "--bruteforce-queries",
        type=int,
        default=30,
        help="questions per tenant kind for the brute-force baseline",
    )
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--bulk", action="store_true", help="grow with the bulk loader")
    parser.add_argument(
        "--small-memories",
        type=int,
        default=None,
        help="the small tenant holds this many at every size (default: 1%% of each step)",
    )
    parser.add_argument(
        "--max-sentences", type=int, choices=(1, 2, 3), default=3, help="per message"
    )
    parser.add_argument("--out", default="search.json", help="file under bench/results/")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="keep the last run's memories; measure only sizes at or above "
        "what is stored; other sizes stay in search.json",
    )
    asyncio.run(main(parser.parse_args()))

"""Ingest throughput end to end (NLP, embeddings, Neo4j) and per stage, with baselines.

    .venv/bin/python -m bench.ingest ../shared/data/locomo-dev.json [--rounds 3] [--ratio-only]

First the ratio: on the LoCoMo conversation, the full pipeline (add_batches into a fresh
scope) --rounds times, each between two runs of the models alone (bench/models_alone.py:
spaCy over the messages and MiniLM over the facts, nothing else, the faster of two schedules
over both cores); per round the pipeline's rate over the models' (geometric mean of the runs
before and after it), and the median. Then, unless --ratio-only, the runs below, each into
a fresh scope of its own:
  engram        extraction on (facts, entities, time, reconcile), batches of --batch messages
                through Memory.add_batches (what `engram import` runs: batch n + 1 extracted
                while batch n is embedded and written)
  engram-add    the same batches through add(), one after the other (no overlap)
  raw-batched   baseline: infer=False, one memory per message (Mem0's fast path), same batches
  engram-single baseline: extraction on, one message per call (what a chatty client does)
  synthetic     extraction on, a synthetic stream of --synthetic messages
  synthetic-add the same stream through add(), batch after batch
"""

from __future__ import annotations

import argparse
import asyncio
import math
import statistics
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from bench import models_alone
from bench.common import bench_settings, ensure_neo4j, write_result
from bench.synthetic import synthetic_messages
from service.core.domain import MessageIn, Scope
from service.ingest.importers import read_locomo
from service.memory import MemoryService


async def run(
    memory: MemoryService,
    name: str,
    messages: list[MessageIn],
    batch: int,
    infer: bool = True,
    pipelined: bool = True,
    neo4j_pid: int | None = None,
) -> dict[str, Any]:
    scope = Scope(user_id=f"bench-ingest-{name}")
    await memory.store.delete_scope(scope)
    stages: dict[str, float] = defaultdict(float)
    facts = 0
    cpu = models_alone.CpuClock(neo4j_pid)
    began = time.perf_counter()
    batches = [(messages[i : i + batch], scope) for i in range(0, len(messages), batch)]
    if pipelined:
        results = [r async for r in memory.add_batches(batches, infer=infer)]
    else:
        results = [await memory.add(b, scope, infer=infer) for b, _ in batches]
    for result in results:
        facts += len(result.added) + len(result.updated)
        for stage, ms in result.stage_ms.items():
            stages[stage] += ms
    seconds = time.perf_counter() - began
    cpu_s = cpu.read()
    total_ms = sum(stages.values()) or 1.0
    await memory.store.delete_scope(scope)
    return {
        "messages": len(messages),
        "batch": batch,
        "infer": infer,
        "seconds": round(seconds, 3),
        "messages_per_s": round(len(messages) / seconds, 1),
        "memories_written": facts,
        "cpu_s": cpu_s,
        "stages_ms": {k: round(v, 1) for k, v in stages.items()},
        "stage_share": {k: round(v / total_ms, 3) for k, v in stages.items()},
    }


async def against_models(
    memory: MemoryService,
    messages: list[MessageIn],
    batch: int,
    rounds: int,
    neo4j_pid: int | None = None,
) -> dict[str, Any]:
    """The full pipeline ``rounds`` times, each between two runs of the models alone (M P M P
    M): each round's ratio is against the geometric mean of the models' rates just before and
    just after it, so a host that speeds up or slows down mid-round moves both sides."""
    batches = [messages[i : i + batch] for i in range(0, len(messages), batch)]
    inputs = await models_alone.model_inputs(memory, batches, Scope(user_id="bench-models"))
    before = await _models_alone_run(memory, inputs, len(messages), neo4j_pid)
    per_round = []
    for _ in range(rounds):
        pipeline = await run(memory, "ratio", messages, batch, neo4j_pid=neo4j_pid)
        after = await _models_alone_run(memory, inputs, len(messages), neo4j_pid)
        models_rate = math.sqrt(before["messages_per_s"] * after["messages_per_s"])
        per_round.append(
            {
                "models_before": before,
                "models_after": after,
                "models_messages_per_s": round(models_rate, 1),
                "pipeline_messages_per_s": pipeline["messages_per_s"],
                "pipeline_seconds": pipeline["seconds"],
                "pipeline_cpu": pipeline["cpu_s"],
                "pipeline_stages_ms": pipeline["stages_ms"],
                "ratio": round(pipeline["messages_per_s"] / models_rate, 3),
                # Load-independent: what the models alone burn against what the pipeline
                # burns in this process and in Neo4j (--neo4j-pid); wall ratios on a loaded
                # host flatter the pipeline, whose more threads win more of the cores' time.
                "cpu_ratio": _cpu_ratio(before["cpu_s"], pipeline["cpu_s"]),
            }
        )
        before = after
    return {
        "messages": len(messages),
        "batch": batch,
        "embedded_texts": sum(len(b.embed_texts) for b in inputs),
        "ratio_median": statistics.median(r["ratio"] for r in per_round),
        "rounds": per_round,
    }


async def _models_alone_run(
    memory: MemoryService,
    inputs: list[models_alone.ModelInputs],
    messages: int,
    neo4j_pid: int | None,
) -> dict[str, Any]:
    """Both schedules of the models alone; the faster one's rate, the overlapped one's CPU."""
    cpu = models_alone.CpuClock(neo4j_pid)
    overlapped = await models_alone.overlapped(memory, inputs)
    overlapped_cpu = cpu.read()
    sequential = await models_alone.sequential(memory, inputs)
    return {
        "overlapped_s": round(overlapped, 3),
        "sequential_s": round(sequential, 3),
        "messages_per_s": round(messages / min(overlapped, sequential), 1),
        "cpu_s": overlapped_cpu,
    }


async def main(args: argparse.Namespace) -> None:
    settings = bench_settings()
    ensure_neo4j(settings)
    conversation = read_locomo(args.data)[0]
    memory = await MemoryService.start(settings)
    try:
        # The whole conversation once: Neo4j's JIT is cold after a start, and a first run on
        # it spent twice the server CPU of the next (bench/RESULTS.md).
        await run(memory, "warmup", conversation.messages, args.batch)
        ratio = await against_models(
            memory, conversation.messages, args.batch, args.rounds, args.neo4j_pid
        )
        show_ratio(ratio)
        if args.ratio_only:
            path = write_result(
                "ingest-ratio.json",
                {"conversation": conversation.id, "against_models": ratio},
                "bench.ingest",
            )
            Console().print(f"wrote {path}")
            return
        runs = {
            "engram": await run(memory, "engram", conversation.messages, args.batch),
            "engram-add": await run(
                memory, "add", conversation.messages, args.batch, pipelined=False
            ),
            "raw-batched": await run(memory, "raw", conversation.messages, args.batch, False),
            "engram-single": await run(
                memory, "single", conversation.messages[:100], 1, pipelined=False
            ),
            "synthetic": await run(
                memory, "synthetic", synthetic_messages(args.synthetic), args.batch
            ),
            "synthetic-add": await run(
                memory,
                "synthetic-add",
                synthetic_messages(args.synthetic),
                args.batch,
                pipelined=False,
            ),
        }
    finally:
        await memory.close()
    show(runs)
    engram = runs["engram"]
    path = write_result(
        "ingest.json",
        {
            "messages_per_s": engram["messages_per_s"],
            "stages": engram["stage_share"],
            "stages_ms": engram["stages_ms"],
            "conversation": conversation.id,
            "against_models": ratio,
            "runs": runs,
        },
        "bench.ingest",
    )
    Console().print(f"wrote {path}")


def _cpu_ratio(models: dict[str, float], pipeline: dict[str, float]) -> float | None:
    if "neo4j_cpu_s" not in pipeline:
        return None
    return round(models["engram_cpu_s"] / (pipeline["engram_cpu_s"] + pipeline["neo4j_cpu_s"]), 3)


def show_ratio(ratio: dict[str, Any]) -> None:
    table = Table(title="Full pipeline against the models alone (messages/s, same messages)")
    columns = ("round", "models before", "pipeline", "models after", "ratio")
    for column in (*columns, "CPU s models / pipeline / Neo4j"):
        table.add_column(column, justify="right")
    for n, r in enumerate(ratio["rounds"], 1):
        cpu = (
            r["models_before"]["cpu_s"]["engram_cpu_s"],
            r["pipeline_cpu"]["engram_cpu_s"],
            r["pipeline_cpu"].get("neo4j_cpu_s", "-"),
        )
        table.add_row(
            str(n),
            f"{r['models_before']['messages_per_s']:.1f}",
            f"{r['pipeline_messages_per_s']:.1f}",
            f"{r['models_after']['messages_per_s']:.1f}",
            f"{100 * r['ratio']:.0f}%",
            " / ".join(str(x) for x in cpu),
        )
    Console().print(table)
    Console().print(
        "models alone: spaCy over the English message texts + MiniLM over the distinct texts "
        "add() embeds, nothing else; the faster of the two schedules (bench/models_alone.py)\n"
        "ratio: pipeline against the geometric mean of the models just before and after\n"
        f"median ratio (pipeline / models alone) {100 * ratio['ratio_median']:.0f}%"
    )


def show(runs: dict[str, dict[str, Any]]) -> None:
    table = Table(title="Ingest throughput (messages/s, end to end)")
    for column in (
        "run",
        "messages",
        "batch",
        "msg/s",
        "memories",
        "nlp",
        "embed",
        "reconcile",
        "write",
    ):
        table.add_column(column, justify="right")
    for name, r in runs.items():
        share = r["stage_share"]
        table.add_row(
            name,
            str(r["messages"]),
            str(r["batch"]),
            f"{r['messages_per_s']:.1f}",
            str(r["memories_written"]),
            *(f"{100 * share.get(s, 0):.0f}%" for s in ("nlp", "embedding", "reconcile", "write")),
        )
    Console().print(table)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", type=Path, help="a LoCoMo JSON file; its first conversation")
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--synthetic", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3, help="models alone, then pipeline")
    parser.add_argument("--ratio-only", action="store_true", help="skip the other runs")
    parser.add_argument("--neo4j-pid", type=int, help="to count the server's CPU seconds too")
    asyncio.run(main(parser.parse_args()))

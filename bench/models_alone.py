"""The two models alone on an ingest's messages: the rate the full pipeline is held against.

"Models alone" means exactly: spaCy's pipeline (``nlp.pipe``, the Extractor's English model,
all its components) over the batch's English message texts, and the embedder over the same
distinct texts ``add()`` embeds for that batch (each fact and the facts of its context). What
Engram does around them (fact splitting, patterns, time tags, linking, reconcile, Neo4j) is
not in it. Two schedules run and the faster counts, so the models get both cores as well as
this bench can give them:
  overlapped  spaCy over batch n + 1 on one thread while batch n is embedded on another (the
              shape of ``MemoryService.add_batches``)
  sequential  spaCy over every batch, then every batch embedded (ONNX Runtime on its threads)
"""

from __future__ import annotations

import asyncio
import os
import resource
import time
from dataclasses import dataclass

from service.core.domain import MessageIn, Scope
from service.memory import MemoryService
from service.nlp.entities.patterns import detect_lang


@dataclass(frozen=True)
class ModelInputs:
    """One batch as the two models see it."""

    spacy_texts: list[str]
    embed_texts: list[str]


async def model_inputs(
    memory: MemoryService, batches: list[list[MessageIn]], scope: Scope
) -> list[ModelInputs]:
    """Each batch's English texts and the distinct texts add() would embed (extracted once,
    untimed: extraction reads nothing stored)."""
    inputs = []
    for batch in batches:
        extracted = await memory.write_path.extract(batch, scope, True)
        texts = [c.fact.text for c in extracted.candidates]
        contexts = [c for cand in extracted.candidates for c in cand.context_texts]
        inputs.append(
            ModelInputs(
                [m.content for m in batch if detect_lang(m.content) == "en"],
                list(dict.fromkeys([*texts, *contexts])),
            )
        )
    return inputs


async def overlapped(memory: MemoryService, inputs: list[ModelInputs]) -> float:
    """Seconds for spaCy over batch n + 1 beside the embedding of batch n."""
    began = time.perf_counter()
    await asyncio.to_thread(_parse, memory, inputs[0].spacy_texts)
    for n, batch in enumerate(inputs):
        following = inputs[n + 1].spacy_texts if n + 1 < len(inputs) else []
        await asyncio.gather(
            asyncio.to_thread(_parse, memory, following),
            asyncio.to_thread(memory.embedder.embed, batch.embed_texts),
        )
    return time.perf_counter() - began


async def sequential(memory: MemoryService, inputs: list[ModelInputs]) -> float:
    """Seconds for spaCy over every batch, then the embedding of every batch."""
    began = time.perf_counter()
    for batch in inputs:
        await asyncio.to_thread(_parse, memory, batch.spacy_texts)
    for batch in inputs:
        await asyncio.to_thread(memory.embedder.embed, batch.embed_texts)
    return time.perf_counter() - began


def _parse(memory: MemoryService, texts: list[str]) -> None:
    for _ in memory.extractor.entities.english.pipe(texts, batch_size=64):
        pass


class CpuClock:
    """CPU seconds since it was made: this process's (every thread) and, given its pid, the
    Neo4j server's (Linux /proc), to say where a run's cycles went."""

    def __init__(self, neo4j_pid: int | None) -> None:
        self.neo4j_pid = neo4j_pid
        self._start = (_own_cpu(), _process_cpu(neo4j_pid))

    def read(self) -> dict[str, float]:
        spent = {"engram_cpu_s": round(_own_cpu() - self._start[0], 2)}
        if self.neo4j_pid is not None:
            spent["neo4j_cpu_s"] = round(_process_cpu(self.neo4j_pid) - self._start[1], 2)
        return spent


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _process_cpu(pid: int | None) -> float:
    if pid is None:
        return 0.0
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

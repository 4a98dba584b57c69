"""What the preference readers (service/nlp/preferences/) cost the extraction: the Extractor over
a LoCoMo conversation with them and without them (every fact read as saying nothing of tastes),
alternating in one process, in CPU seconds (independent of what else the host runs).

Run: ``python -m bench.preferences_cost ../shared/data/locomo-dev.json [--rounds 4]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.common import write_result
from service.core.config import Settings
from service.ingest.importers import read_locomo
from service.nlp import pipeline
from service.nlp.pipeline import Extractor
from service.nlp.preferences.reading import NO_READING

BATCH = 128


@contextmanager
def without_readers() -> Iterator[None]:
    """The pipeline with readers that find nothing and relations left as they are."""
    saved = pipeline.read_english, pipeline.read_chinese, pipeline.with_preferences
    pipeline.read_english = lambda *_a, **_k: NO_READING  # type: ignore[assignment]
    pipeline.read_chinese = lambda *_a, **_k: NO_READING  # type: ignore[assignment]
    pipeline.with_preferences = lambda relations, *_a: relations  # type: ignore[assignment]
    try:
        yield
    finally:
        pipeline.read_english, pipeline.read_chinese, pipeline.with_preferences = saved


def extract_cpu(extractor: Extractor, messages: list[Any]) -> float:
    """CPU seconds to extract the messages in batches, as add_batches does."""
    start = time.process_time()
    for i in range(0, len(messages), BATCH):
        batch = messages[i : i + BATCH]
        extractor.extract(batch, [m.timestamp for m in batch])
    return time.process_time() - start


def main(args: argparse.Namespace) -> None:
    conversation = read_locomo(args.data)[0]
    extractor = Extractor(Settings())
    extract_cpu(extractor, conversation.messages)  # warm: spaCy's and the tables' first use
    with_s, without_s = [], []
    for _ in range(args.rounds):
        with_s.append(extract_cpu(extractor, conversation.messages))
        with without_readers():
            without_s.append(extract_cpu(extractor, conversation.messages))
    result = {
        "conversation": conversation.id,
        "messages": len(conversation.messages),
        "with_readers_cpu_s": [round(s, 3) for s in with_s],
        "without_readers_cpu_s": [round(s, 3) for s in without_s],
        "median_ratio": round(
            statistics.median(w / o for w, o in zip(with_s, without_s, strict=True)), 3
        ),
    }
    print(result)
    print("wrote", write_result("preferences-cost.json", result, "bench.preferences_cost"))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("--rounds", type=int, default=4)
    main(parser.parse_args())

"""LoCoMo retrieval benchmark: Engram against BM25 and dense baselines over the raw turns.

Run: ``python -m bench.locomo ../shared/data/locomo-dev.json [--out FILE]
[--limit-conversations N] [--skip-engram]``. Scoring needs no LLM: each hit is mapped back to
the dia_ids of the turns it came from and compared with the questions' evidence.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from rank_bm25 import BM25Okapi
from rich.console import Console
from rich.table import Table

from bench.common import bench_settings, ensure_neo4j
from service.core.config import Settings
from service.core.domain import Scope, SearchHit, SearchOptions, TimeFilter
from service.core.ids import scoped_id
from service.embedding.embedder import Embedder
from service.ingest.importers import Conversation, Question, locomo_questions, read_locomo
from service.memory import MemoryService

KS = (5, 10, 20)
DEPTH = max(KS)
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
NOTES = [
    "Scored questions: categories 1-4 with at least one evidence dia_id; 5 is adversarial.",
    "recall@k = |gold ∩ dia_ids of the top-k hits| / |gold|, averaged over questions.",
    "k counts hits (memories for Engram, turns for the baselines), not dia_ids: a hit may map "
    "to several dia_ids, which are de-duplicated in rank order.",
    "hit@10: any gold dia_id in the top 10 hits. MRR: 1 / rank of the first hit holding a gold "
    "dia_id, 0 if none in the top 20.",
    "Recall, hit@10 and MRR are percentages (x100), one decimal.",
    "Baseline document for a turn: 'Speaker: text [shares image: caption]'; one index per "
    "conversation. BM25: rank_bm25.BM25Okapi over re.findall(r'\\w+', text.lower()). "
    "Dense: all-MiniLM-L6-v2 cosine.",
    "context_words: mean number of words in the text of Engram's top-k hits.",
    "latency_ms: wall time of each Memory.search call in process (query embedding + Neo4j).",
    "Questions are asked as of the conversation's last message (when.referenceTime), as the "
    "dataset poses them after its last session: 'recently' or 'in June' mean then, not the "
    "day the benchmark runs.",
]

Ranking = list[tuple[str, ...]]  # the dia_ids of each hit, best hit first


@dataclass(frozen=True)
class QuestionScore:
    category: int
    recall: dict[int, float]  # k -> fraction of the gold dia_ids in the top k hits
    hit10: float
    reciprocal_rank: float


@dataclass(frozen=True)
class Figures:
    """Mean scores over a set of questions, as percentages."""

    recall: dict[int, float]
    hit10: float
    mrr: float
    questions: int

    def as_json(self) -> dict[str, float]:
        recall = {f"recall@{k}": value for k, value in self.recall.items()}
        return {**recall, "hit@10": self.hit10, "mrr": self.mrr}


@dataclass(frozen=True)
class Report:
    overall: Figures
    by_category: dict[int, Figures]

    def as_json(self) -> dict[str, Any]:
        by_category = {str(c): f.as_json() for c, f in self.by_category.items()}
        return {"overall": self.overall.as_json(), "by_category": by_category}


@dataclass
class EngramRun:
    scores: list[QuestionScore] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)
    context_words: dict[int, list[int]] = field(default_factory=lambda: {k: [] for k in KS})


# -- scoring --------------------------------------------------------------------------------


def score_question(question: Question, ranking: Ranking) -> QuestionScore:
    """Recall@k, hit@10 and reciprocal rank of one question's ranking."""
    gold = set(question.evidence)
    recall = {k: len(gold & set(_dia_ids(ranking[:k]))) / len(gold) for k in KS}
    first = next((rank for rank, hit in enumerate(ranking[:DEPTH], 1) if gold & set(hit)), None)
    return QuestionScore(
        category=question.category,
        recall=recall,
        hit10=float(bool(gold & set(_dia_ids(ranking[:10])))),
        reciprocal_rank=1 / first if first else 0.0,
    )


def _dia_ids(ranking: Ranking) -> list[str]:
    """The dia_ids of the hits, de-duplicated in rank order."""
    return list(dict.fromkeys(dia_id for hit in ranking for dia_id in hit))


def summarise(scores: Sequence[QuestionScore]) -> Report:
    by_category = {
        category: _figures([s for s in scores if s.category == category])
        for category in CATEGORIES
        if any(s.category == category for s in scores)
    }
    return Report(overall=_figures(scores), by_category=by_category)


def _figures(scores: Sequence[QuestionScore]) -> Figures:
    def pct(values: list[float]) -> float:
        return round(100 * sum(values) / len(values), 1)

    return Figures(
        recall={k: pct([s.recall[k] for s in scores]) for k in KS},
        hit10=pct([s.hit10 for s in scores]),
        mrr=pct([s.reciprocal_rank for s in scores]),
        questions=len(scores),
    )


# -- baselines over raw turns ---------------------------------------------------------------


class TurnRanker(Protocol):
    def rank(self, queries: list[str]) -> list[list[int]]:
        """For each query, the indices of the best DEPTH turns, best first."""
        ...


def tokenize(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


class Bm25Ranker:
    def __init__(self, documents: list[str]) -> None:
        self._index = BM25Okapi([tokenize(d) for d in documents])

    def rank(self, queries: list[str]) -> list[list[int]]:
        return [_top(np.asarray(self._index.get_scores(tokenize(q)))) for q in queries]


class DenseRanker:
    def __init__(self, embedder: Embedder, documents: list[str]) -> None:
        self._embedder = embedder
        self._documents = np.asarray(embedder.embed(documents))

    def rank(self, queries: list[str]) -> list[list[int]]:
        similarities = np.asarray(self._embedder.embed(queries)) @ self._documents.T
        return [_top(row) for row in similarities]


def _top(scores: np.ndarray[Any, Any]) -> list[int]:
    # A stable sort breaks ties by turn order, so runs are reproducible.
    return [int(i) for i in np.argsort(-scores, kind="stable")[:DEPTH]]


def turn_document(conversation: Conversation, index: int) -> str:
    """A turn as the baselines index it: 'Speaker: text [shares image: caption]'."""
    message = conversation.messages[index]
    return f"{message.speaker}: {message.content}"


def run_baseline(
    ranker: TurnRanker, conversation: Conversation, questions: list[Question]
) -> list[QuestionScore]:
    dia_ids = [str(m.id) for m in conversation.messages]
    rankings = ranker.rank([q.question for q in questions])
    return [
        score_question(q, [(dia_ids[i],) for i in ranking])
        for q, ranking in zip(questions, rankings, strict=True)
    ]


# -- Engram ---------------------------------------------------------------------------------


async def run_engram(
    settings: Settings,
    embedder: Embedder,
    conversations: list[Conversation],
    questions: dict[str, list[Question]],
    reuse: bool = False,
    min_score: float = 0.0,
) -> EngramRun:
    """Ingest each conversation into its own scope, then ask it every scored question."""
    run = EngramRun()
    mem = await MemoryService.start(settings, embedder=embedder)
    try:
        for conversation in conversations:
            await _ask_engram(mem, conversation, questions[conversation.id], run, reuse, min_score)
    finally:
        await mem.close()
    return run


async def _ask_engram(
    mem: MemoryService,
    conversation: Conversation,
    questions: list[Question],
    run: EngramRun,
    reuse: bool,
    min_score: float,
) -> None:
    scope = Scope(user_id=f"locomo-{conversation.id}")
    if reuse:  # the scope holds this conversation already: ids are derived, not stored
        message_ids = [scoped_id(scope, "msg", str(m.id)) for m in conversation.messages]
    else:
        await mem.store.delete_scope(scope)
        message_ids = (await mem.add(conversation.messages, scope)).message_ids
    # Message node ids are Engram's own; AddResult keeps the input order, so map them back.
    to_dia_id = {
        node_id: str(m.id) for node_id, m in zip(message_ids, conversation.messages, strict=True)
    }
    options = SearchOptions(
        limit=DEPTH, when=TimeFilter(reference_time=asked_at(conversation)), min_score=min_score
    )
    for question in questions:
        started = time.perf_counter()
        hits = await mem.search(question.question, scope, options=options)
        run.latencies_ms.append((time.perf_counter() - started) * 1000)
        run.scores.append(score_question(question, _engram_ranking(hits, to_dia_id)))
        for k in KS:
            run.context_words[k].append(sum(len(h.memory.text.split()) for h in hits[:k]))


def asked_at(conversation: Conversation) -> datetime | None:
    """When the questions are asked: as the conversation's last message was said."""
    said = [m.timestamp for m in conversation.messages if m.timestamp is not None]
    return max(said, default=None)


def _engram_ranking(hits: list[SearchHit], to_dia_id: dict[str, str]) -> Ranking:
    ranking = []
    for hit in hits:
        # source_ids is the memory's provenance; the loaded source messages say the same.
        sources = hit.memory.source_ids or [s.id for s in hit.sources]
        ranking.append(tuple(to_dia_id[s] for s in sources if s in to_dia_id))
    return ranking


def engram_json(run: EngramRun) -> dict[str, Any]:
    latencies = np.asarray(run.latencies_ms)
    return {
        **summarise(run.scores).as_json(),
        "latency_ms": {
            "p50": round(float(np.percentile(latencies, 50)), 1),
            "p95": round(float(np.percentile(latencies, 95)), 1),
        },
        "context_words": {
            str(k): round(sum(words) / len(words), 1) for k, words in run.context_words.items()
        },
    }


# -- the command ----------------------------------------------------------------------------


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.locomo", description=__doc__)
    parser.add_argument("dataset", type=Path, help="a LoCoMo JSON file")
    parser.add_argument("--out", type=Path, help="JSON results (default bench/results/<name>)")
    parser.add_argument("--limit-conversations", type=int, metavar="N")
    parser.add_argument("--skip-engram", action="store_true", help="run the baselines only")
    parser.add_argument(
        "--reuse-ingest",
        action="store_true",
        help="ask the scopes a previous run ingested (to compare read-side settings quickly)",
    )
    parser.add_argument(
        "--only",
        choices=sorted(WEIGHTS),
        help="score one retriever alone: the others weigh 0 and their hits are dropped",
    )
    return parser.parse_args(argv)


# The fusion weight of each retriever (Settings), for --only.
WEIGHTS = {
    "vector": "weight_vector",
    "fulltext": "weight_fulltext",
    "graph": "weight_graph",
    "time": "weight_time",
    "speaker": "weight_speaker",
}
ALONE_MIN_SCORE = 1e-9  # above a zero-weight fusion score: only the chosen retriever's hits


def run_baselines(
    embedder: Embedder, conversations: list[Conversation], questions: dict[str, list[Question]]
) -> dict[str, list[QuestionScore]]:
    scores: dict[str, list[QuestionScore]] = {"bm25": [], "dense": []}
    for conversation in conversations:
        documents = [turn_document(conversation, i) for i in range(len(conversation.messages))]
        rankers: dict[str, TurnRanker] = {
            "bm25": Bm25Ranker(documents),
            "dense": DenseRanker(embedder, documents),
        }
        for name, ranker in rankers.items():
            scores[name] += run_baseline(ranker, conversation, questions[conversation.id])
    return scores


def print_table(console: Console, reports: dict[str, Report]) -> None:
    """One row per retriever, grouped overall and by category, so they read side by side."""
    table = Table(title="LoCoMo evidence retrieval (%)")
    for column in ("questions", "retriever", "R@5", "R@10", "R@20", "hit@10", "MRR"):
        table.add_column(
            column, justify="left" if column in {"questions", "retriever"} else "right"
        )
    for category in [None, *CATEGORIES]:
        for name, report in reports.items():
            figures = report.overall if category is None else report.by_category.get(category)
            if figures is None:
                continue
            label = "all" if category is None else f"{category} {CATEGORIES[category]}"
            values = [*figures.recall.values(), figures.hit10, figures.mrr]
            table.add_row(f"{label} (n={figures.questions})", name, *(f"{v:.1f}" for v in values))
        table.add_section()
    console.print(table)


def results_json(
    dataset: Path, command: str, engram: EngramRun | None, baselines: dict[str, Report]
) -> dict[str, Any]:
    skipped = {"overall": None, "by_category": None, "latency_ms": None, "context_words": None}
    return {
        **(skipped if engram is None else engram_json(engram)),
        "baselines": {name: report.as_json() for name, report in baselines.items()},
        "dataset": str(dataset),
        "questions": next(iter(baselines.values())).overall.questions,
        "command": command,
        "notes": NOTES,
    }


def load(dataset: Path, limit: int | None) -> tuple[list[Conversation], dict[str, list[Question]]]:
    """The conversations to run and, for each, its scored questions."""
    conversations = read_locomo(dataset)[:limit]
    questions = locomo_questions(dataset)
    scored = {c.id: [q for q in questions.get(c.id, []) if q.scored] for c in conversations}
    if not any(scored.values()):
        raise SystemExit(f"{dataset}: no scored questions (categories 1-4 with evidence)")
    return conversations, scored


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    console = Console()
    conversations, questions = load(args.dataset, args.limit_conversations)
    settings = bench_settings()
    if args.only:
        settings = settings.model_copy(
            update={field: float(name == args.only) for name, field in WEIGHTS.items()}
        )
    embedder = Embedder(settings)
    scores = run_baselines(embedder, conversations, questions)
    baselines = {name: summarise(s) for name, s in scores.items()}
    engram: EngramRun | None = None
    if not args.skip_engram:
        ensure_neo4j(settings)
        engram = asyncio.run(
            run_engram(
                settings,
                embedder,
                conversations,
                questions,
                args.reuse_ingest,
                ALONE_MIN_SCORE if args.only else 0.0,
            )
        )
    reports = baselines if engram is None else {"engram": summarise(engram.scores), **baselines}
    print_table(console, reports)
    command = shlex.join([".venv/bin/python", "-m", "bench.locomo", *argv])
    results = results_json(args.dataset, command, engram, baselines)
    if engram is not None:
        console.print(
            f"Engram search latency ms {results['latency_ms']}; "
            f"mean context words at k {results['context_words']}"
        )
    out = args.out or Path(__file__).parent / "results" / f"{args.dataset.stem}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    console.print(f"wrote {out}")


if __name__ == "__main__":
    main()

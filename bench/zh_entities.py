"""Chinese entity recall offline: the pattern table alone, then with ChineseEntityFinder.

Run: ``python -m bench.zh_entities [../shared/data/graph-dev.json] [--verbose]``. For each
``lang: "zh"`` conversation the nodes are the distinct normalised surfaces of every message's
non-temporal mentions plus the speakers, scored as ``shared/tools/graph_eval.py`` scores a
graph (without the alias layer: a short form found on its own is a node of its own).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import spacy

from service.nlp.entities.chinese import ChineseEntityFinder, merge_mentions
from service.nlp.entities.patterns import EntityExtractor, EntityLabel, EntityMention

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "graph-dev.json"
Extract = Callable[[str], list[EntityMention]]


def norm(text: str) -> str:
    """graph_eval.py's matching form: casefolded NFKC, no possessive or punctuation."""
    t = unicodedata.normalize("NFKC", text).casefold().strip()
    t = re.sub(r"[’']s\b", "", t)
    t = re.sub(r"[^\w\s+#]", " ", t)
    return " ".join(t.split())


@dataclass
class Score:
    gold: int = 0
    found: int = 0
    nodes: int = 0
    good: int = 0
    junk: int = 0

    def add(self, other: Score) -> None:
        for name in ("gold", "found", "nodes", "good", "junk"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def line(self) -> str:
        def pct(a: int, b: int) -> str:
            return f"{100 * a / b:.1f}" if b else "-"

        return (
            f"recall {pct(self.found, self.gold)} ({self.found}/{self.gold})  "
            f"precision {pct(self.good, self.nodes)} ({self.good}/{self.nodes})  "
            f"junk {pct(self.junk, self.nodes)} ({self.junk})"
        )


def conversation_nodes(conv: dict[str, Any], extract: Extract, speakers: bool) -> dict[str, str]:
    """Normalised surface -> first surface, for the mentions (and the speakers)."""
    nodes: dict[str, str] = {}
    for message in conv["messages"]:
        if speakers:
            nodes.setdefault(norm(message["speaker"]), message["speaker"])
        for mention in extract(message["content"]):
            if mention.label is not EntityLabel.TEMPORAL and norm(mention.text):
                nodes.setdefault(norm(mention.text), mention.text)
    return nodes


def score(conv: dict[str, Any], nodes: dict[str, str]) -> tuple[Score, list[str], list[str]]:
    """The conversation's figures, its missed gold names and its extra nodes."""
    gold = [{norm(x) for x in [g["name"], *g.get("aliases", [])]} for g in conv["entities"]]
    optional = {norm(x) for x in conv.get("optional_entities", [])}
    junk = {norm(x) for x in conv.get("junk", [])}
    matched = {n for forms in gold for n in nodes if n in forms}
    missed = [
        g["name"] for g, forms in zip(conv["entities"], gold, strict=True) if not forms & set(nodes)
    ]
    extra = [nodes[n] for n in nodes if n not in matched and n not in optional]
    result = Score(
        gold=len(gold),
        found=len(gold) - len(missed),
        nodes=len(nodes),
        good=sum(1 for n in nodes if n in matched or n in optional),
        junk=sum(1 for n in nodes if n in junk),
    )
    return result, missed, extra


def run(
    convs: list[dict[str, Any]], extract: Extract, title: str, args: argparse.Namespace
) -> Score:
    total = Score()
    for conv in convs:
        nodes = conversation_nodes(conv, extract, speakers=not args.no_speakers)
        result, missed, extra = score(conv, nodes)
        total.add(result)
        if args.verbose:
            print(f"  {conv['id']}: {result.line()}")
            print(f"    missed: {' '.join(missed) or '-'}")
            print(f"    extra:  {' '.join(extra) or '-'}")
    print(f"{title}: {total.line()}")
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--verbose", action="store_true", help="misses and extra nodes")
    parser.add_argument(
        "--no-speakers", action="store_true", help="score the text's mentions without the speakers"
    )
    args = parser.parse_args(argv)
    convs = [c for c in json.loads(args.data.read_text(encoding="utf-8")) if c["lang"] == "zh"]
    extractor = EntityExtractor(spacy.blank("en"))
    began = time.perf_counter()
    finder = ChineseEntityFinder()
    load_s = time.perf_counter() - began

    def patterns(text: str) -> list[EntityMention]:
        return extractor.extract(text, "zh")

    def combined(text: str) -> list[EntityMention]:
        return merge_mentions(extractor.extract(text, "zh"), finder.find(text))

    print(f"{len(convs)} zh conversations of {args.data}")
    run(convs, patterns, "before (pattern table)", args)
    run(convs, combined, "after (pattern table + ChineseEntityFinder)", args)
    texts = [m["content"] for c in convs for m in c["messages"]]
    costs = []
    for _ in range(5):
        began = time.perf_counter()
        for text in texts:
            finder.find(text)
        costs.append((time.perf_counter() - began) / len(texts) * 1000)
    print(f"finder load {load_s:.2f} s; find() {statistics.median(costs):.3f} ms a message")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

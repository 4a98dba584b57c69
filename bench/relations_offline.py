"""Relation recall of service/nlp/relations/ on graph-dev.json, offline (no Neo4j, no API).

    PYTHONPATH=$PWD .venv/bin/python bench/relations_offline.py \
        [--data ../shared/data/graph-dev.json] [--misses]

Facts are split as the pipeline splits them (English: fact_spans over the parsed message;
Chinese: split_chinese without filler). Two modes:

- oracle: the mentions are every occurrence of a gold entity's name or alias in the fact,
  labelled with its gold type (PRODUCT and EVENT as CONCEPT): the relation rules alone;
- real: the mentions the pipeline finds (Extractor: spaCy NER + the pattern table).

A gold (source, type, target) is found when some relation of that type has a source and a
target whose normalised name equals the gold name or one of its aliases (FAMILY_OF and
FRIEND_OF in either direction), as ../shared/tools/graph_eval.py scores the graph.
"""

from __future__ import annotations

import argparse
import json
import re
import time
import unicodedata
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any

from spacy.tokens import Span

from service.core.config import Settings
from service.nlp.entities.patterns import EntityLabel, EntityMention
from service.nlp.facts import is_filler, split_chinese
from service.nlp.pipeline import Extractor, fact_spans
from service.nlp.relations.extractor import SYMMETRIC, RelationExtractor, RelationMention

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "graph-dev.json"
GOLD_LABELS = {
    "PERSON": EntityLabel.PERSON,
    "ORG": EntityLabel.ORG,
    "PLACE": EntityLabel.PLACE,
    "PRODUCT": EntityLabel.CONCEPT,
    "EVENT": EntityLabel.CONCEPT,
}


def norm(text: str) -> str:
    """graph_eval's normalisation: casefold, NFKC, no possessive, no punctuation."""
    t = unicodedata.normalize("NFKC", text).casefold().strip()
    t = re.sub(r"[’']s\b", "", t)
    t = re.sub(r"[^\w\s+#]", " ", t)
    return " ".join(t.split())


def oracle_mentions(text: str, entities: list[dict[str, Any]]) -> list[EntityMention]:
    """Every occurrence of a gold name or alias, longest first, without overlaps."""
    forms = sorted(
        ((form, e["type"]) for e in entities for form in [e["name"], *e["aliases"]]),
        key=lambda item: -len(item[0]),
    )
    taken: list[tuple[int, int]] = []
    found = []
    for form, kind in forms:
        boundary = r"\b" if form[:1].isascii() and form[:1].isalnum() else ""
        pattern = re.compile(boundary + re.escape(form) + (boundary if form[-1:].isalnum() else ""))
        for match in pattern.finditer(text):
            start, end = match.span()
            if any(start < b and a < end for a, b in taken):
                continue
            taken.append((start, end))
            label = GOLD_LABELS.get(kind, EntityLabel.OTHER)
            found.append(EntityMention(form, label, start, end, "oracle", 1.0))
    return sorted(found, key=lambda m: m.start)


def english_facts(
    extractor: Extractor, content: str
) -> list[tuple[str, Span, list[EntityMention]]]:
    """(text, sentence, real mentions) per fact, as Extractor._english_facts makes them."""
    doc = extractor.entities.english(content)
    mentions = extractor.entities.extract_doc(doc)
    facts = []
    for sent in fact_spans(doc, *extractor.fact_words):
        source = sent.text.strip()
        start = sent.start_char + sent.text.index(source)
        inside = [
            replace(m, start=m.start - start, end=m.end - start)
            for m in mentions
            if m.start >= start and m.end <= start + len(source) and m.label != "TEMPORAL"
        ]
        facts.append((source, sent, inside))
    return facts


def chinese_facts(extractor: Extractor, content: str) -> list[tuple[str, list[EntityMention]]]:
    facts = []
    for start, end in split_chinese(content):
        source = content[start:end]
        if not is_filler(source, "zh"):
            mentions = extractor.entities.extract(source, "zh")
            facts.append((source, [m for m in mentions if m.label != "TEMPORAL"]))
    return facts


def relations_of(
    conv: dict[str, Any],
    extractor: Extractor,
    finder: RelationExtractor,
    oracle: bool,
    timing: list[float],
) -> list[RelationMention]:
    found: list[RelationMention] = []
    for message in conv["messages"]:
        speaker, content = message["speaker"], message["content"]
        if conv["lang"] == "en":
            items = [(t, s, m) for t, s, m in english_facts(extractor, content)]
        else:
            items = [(t, None, m) for t, m in chinese_facts(extractor, content)]
        for text, sentence, real in items:
            mentions = oracle_mentions(text, conv["entities"]) if oracle else real
            began = time.perf_counter()
            found += finder.find(text, conv["lang"], mentions, speaker, sentence)
            timing.append(time.perf_counter() - began)
    return found


def score(conv: dict[str, Any], found: list[RelationMention]) -> list[dict[str, str]]:
    """The gold relations not found."""
    forms = {e["name"]: {norm(x) for x in [e["name"], *e["aliases"]]} for e in conv["entities"]}
    pairs = defaultdict(set)
    for r in found:
        pairs[r.type.value].add((norm(r.source.name), norm(r.target.name)))
        if r.type in SYMMETRIC:
            pairs[r.type.value].add((norm(r.target.name), norm(r.source.name)))
    misses = []
    for gold in conv["relations"]:
        sources = forms.get(gold["source"], {norm(gold["source"])})
        targets = forms.get(gold["target"], {norm(gold["target"])})
        if not any(s in sources and t in targets for s, t in pairs[gold["type"]]):
            misses.append(gold)
    return misses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--misses", action="store_true", help="print every gold relation missed")
    parser.add_argument("--extra", action="store_true", help="print relations not in the gold")
    args = parser.parse_args()
    conversations = json.loads(args.data.read_text(encoding="utf-8"))
    extractor = Extractor(Settings())
    finder = RelationExtractor()
    for mode in ("oracle", "real"):
        totals: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
        timing: dict[str, list[float]] = defaultdict(list)
        for conv in conversations:
            oracle = mode == "oracle"
            found = relations_of(conv, extractor, finder, oracle, timing[conv["lang"]])
            misses = score(conv, found)
            total = totals[conv["lang"]]
            total[0] += len(conv["relations"]) - len(misses)
            total[1] += len(conv["relations"])
            total[2] += len(found)
            for miss in misses if args.misses else []:
                print(
                    f"  {mode} miss {conv['id']}: {miss['source']} {miss['type']} {miss['target']}"
                )
            if args.extra:
                for r in found:
                    print(
                        f"  {mode} got {conv['id']}: {r.source.name} {r.type} {r.target.name}"
                        f" [{r.extractor}]"
                    )
        for lang, (hit, gold, extracted) in sorted(totals.items()):
            print(
                f"{mode:6} {lang}: recall {100 * hit / gold:.1f} ({hit}/{gold}), "
                f"{extracted} relations extracted"
            )
        for lang, times in sorted(timing.items()):
            mean_us = 1e6 * sum(times) / max(len(times), 1)
            print(f"{mode:6} {lang} find(): {len(times)} facts, {mean_us:.0f} µs per fact")


if __name__ == "__main__":
    main()

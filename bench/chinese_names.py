"""The learned Chinese name reader against the finder's rules, on a held-out fifth of the corpus.

    .venv/bin/python -m bench.chinese_names [--thresholds 0 0.5 0.6 0.7 0.8]

Trains the reader (service/nlp/entities/chinese_names.py) as scripts/train_relation_model.py
does, on four fifths of ``nlp_models/relation_corpus/zh.jsonl`` (messages drawn with a fixed
seed), and reads the last fifth: names found with exactly the corpus's offsets, precision and
recall, for the rules alone (the finder without the reader), for the reader alone at each
threshold (whole jieba words only), and for the two together as the finder joins them (the
reader only where the rules found nothing). Prints a table; writes nothing.
"""

from __future__ import annotations

import argparse
import random
from dataclasses import dataclass, replace

from scripts.train_relation_model import (
    NAME_THRESHOLD,
    Example,
    Sample,
    character_labels,
    load_examples,
    trained,
)
from service.nlp.entities.chinese import ChineseEntityFinder
from service.nlp.entities.chinese_names import OUTSIDE, Reading, read_names
from service.nlp.entities.type_evidence import load_type_evidence

HELD_OUT = 5  # one message in five
SEED = 1

Offsets = set[tuple[int, int]]


@dataclass
class Score:
    found: int = 0
    right: int = 0
    gold: int = 0

    def add(self, got: Offsets, gold: Offsets) -> None:
        self.found += len(got)
        self.right += len(got & gold)
        self.gold += len(gold)

    def row(self, name: str) -> str:
        precision = self.right / self.found if self.found else 0.0
        return f"| {name} | {precision:.3f} | {self.right / self.gold:.3f} |"


def gold_names(example: Example) -> Offsets:
    labels = character_labels(example)
    starts = [i for i, label in enumerate(labels) if label.startswith("B-")]
    found = set()
    for start in starts:
        end = start + 1
        while end < len(labels) and labels[end].startswith("I-"):
            end += 1
        found.add((start, end))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--thresholds", type=float, nargs="+", default=[0, 0.5, 0.6, 0.7, 0.8])
    args = parser.parse_args()
    load_type_evidence()
    examples = load_examples("zh")
    order = list(range(len(examples)))
    random.Random(SEED).shuffle(order)
    held = set(order[: len(order) // HELD_OUT])
    finder = ChineseEntityFinder()
    readings = [Reading(e.text, finder.tokens(e.text), finder.lexicon) for e in examples]
    samples = []
    for n, example in enumerate(examples):
        if n in held:
            continue
        labels = character_labels(example)
        for i, label in enumerate(labels):
            before = labels[i - 1] if i else OUTSIDE
            samples.append(Sample(example.id, readings[n].features(i, before), label))
    model = trained(samples, 0.0, "zh")
    as_shipped = replace(model, threshold=NAME_THRESHOLD)
    rules, alone, joined = Score(), {t: Score() for t in args.thresholds}, Score()
    for n in sorted(held):
        example, reading = examples[n], readings[n]
        gold = gold_names(example)
        bounds = {w.start for w in reading.words} | {len(example.text)}
        ruled = {(m.start, m.end) for m in finder.find(example.text, learned=False)}
        rules.add(ruled, gold)
        spans = read_names(reading, model)
        for threshold, score in alone.items():
            got = {
                (s.start, s.end)
                for s in spans
                if s.probability >= threshold and s.start in bounds and s.end in bounds
            }
            score.add(got, gold)
        with_model = finder.find(example.text, model=as_shipped)
        joined.add({(m.start, m.end) for m in with_model}, gold)
    print(f"{len(held)} held-out messages, {rules.gold} names")
    print("| reader | precision | recall |\n|---|---|---|")
    print(rules.row("rules alone"))
    for threshold, score in alone.items():
        print(score.row(f"learned alone, threshold {threshold}"))
    print(joined.row(f"rules, then the learned reader at {NAME_THRESHOLD} (the finder)"))


if __name__ == "__main__":
    main()

"""Train the learned readers of a language from its corpus (service/nlp/linear.py).

    .venv/bin/python -m scripts.train_relation_model en [--folds 5] [--threshold 0.65]

Reads ``nlp_models/relation_corpus/<lang>.jsonl``: chat messages, each with its speaker (and
whom it addresses), its names typed and every relation it states. Writes two models beside it:

- ``model_<lang>.json``, the relation reader (service/nlp/relations/learned.py): every
  candidate pair of each sentence, described by the reader's own feature function, labelled
  with the relation the example states between the two, or NONE;
- ``model_types_<lang>.json``, the learned type vote (service/nlp/entities/type_features.py):
  every name, labelled with its type;
- ``model_names_zh.json`` (Chinese only), the learned name reader
  (service/nlp/entities/chinese_names.py): every character, labelled as the beginning or
  inside of a name of a type, or outside any, after the label of the one before.

Both are scikit-learn's logistic regression. With ``--folds`` it first prints the relation
reader's precision and recall per type, cross-validated over the corpus's examples.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from dataclasses import dataclass, field

import spacy
from pydantic import BaseModel, ConfigDict
from sklearn.feature_extraction import DictVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import classification_report
from sklearn.model_selection import GroupKFold
from spacy.tokens import Doc, Span

from service.core.config import Settings
from service.embedding.manifest import resolve_model_path
from service.nlp.entities.chinese import ChineseEntityFinder
from service.nlp.entities.chinese_names import OUTSIDE, Reading
from service.nlp.entities.patterns import EntityExtractor
from service.nlp.entities.stand_ins import disguise, given_names, restored, speaker_words
from service.nlp.entities.type_evidence import load_gazetteers, load_type_evidence
from service.nlp.entities.type_features import chinese_features, english_features
from service.nlp.facts import split_chinese
from service.nlp.linear import LinearModel, corpus_path, digest, model_path
from service.nlp.relations.chinese_pairs import Name, overlap
from service.nlp.relations.chinese_pairs import pairs as chinese_pairs
from service.nlp.relations.english_pairs import Anchor, pairs
from service.nlp.relations.learned import NO_RELATION, Party
from service.nlp.relations.table import SYMMETRIC, RelationType

# Weights smaller than this are dropped from the model file, and features seen in fewer
# examples than MIN_FEATURE_COUNT are not learned: the model file is a quarter of the size with
# the same cross-validated F1 (bench/RESULTS.md).
SMALLEST_WEIGHT = 0.01
MIN_FEATURE_COUNT = 3
# Inverse strength of the L2 penalty: 3 was best of 1, 3 and 10 in 5-fold cross-validation on
# the corpus (bench/RESULTS.md).
REGULARISATION = 3.0
# The learned type vote is cast when the model's guess is at least this likely.
TYPE_THRESHOLD = 0.5
# A Chinese name the learned reader finds is kept when each of its characters' labels is at
# least this likely: on held-out fifths of the corpus its names' precision passes 0.9 there
# (bench/RESULTS.md).
NAME_THRESHOLD = 0.6


class Example(BaseModel):
    """One line of the corpus."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    speaker: str
    addressee: str | None = None
    text: str
    entities: list[tuple[str, str]]
    relations: list[tuple[str, RelationType, str]]

    @property
    def parties(self) -> set[str]:
        return {p for p in (self.speaker, self.addressee) if p is not None}

    def label(self, source: str, target: str) -> str:
        """The relation the example states from ``source`` to ``target``, or NONE."""
        asked = (source.casefold(), target.casefold())
        for s, kind, t in self.relations:
            forward = (s.casefold(), t.casefold()) == asked
            backward = (t.casefold(), s.casefold()) == asked
            if forward or (kind in SYMMETRIC and backward):
                return kind.value
        return NO_RELATION

    def name_of(self, end: int | Party, surfaces: list[str]) -> str:
        if end is Party.SPEAKER:
            return self.speaker
        if end is Party.ADDRESSEE:
            return self.addressee or ""
        return surfaces[end]

    def names_in(self, text: str) -> list[tuple[str, str]]:
        """The example's typed names said in ``text`` (a party only when named in it)."""
        return [(n, kind) for n, kind in self.entities if n not in self.parties or n in text]


@dataclass(frozen=True)
class Sample:
    example: str
    features: list[str]
    label: str


@dataclass
class Samples:
    relations: list[Sample]
    types: list[Sample]
    names: list[Sample] = field(default_factory=list)


def load_examples(lang: str) -> list[Example]:
    lines = corpus_path(lang).read_text(encoding="utf-8").splitlines()
    return [Example.model_validate_json(line) for line in lines if line.strip()]


def english_samples(examples: list[Example]) -> Samples:
    nlp = spacy.load(resolve_model_path(Settings().spacy_model, "spacy"))
    english = EntityExtractor(nlp).english  # with the ruler, as the service parses
    gazetteers = load_gazetteers()
    samples = Samples([], [])
    # The parties' names parsed as the service parses a batch's speakers' (stand_ins.py).
    disguised = [
        disguise(e.text, speaker_words(e.parties) | given_names([e.text])) for e in examples
    ]
    docs = english.pipe(d.text for d in disguised)
    for example, doc, shown in zip(examples, docs, disguised, strict=True):
        doc = restored(doc, shown)
        for sentence in doc.sents:
            names = [
                (surface, kind, span)
                for surface, kind in example.names_in(sentence.text)
                if (span := _span(doc, sentence, surface)) is not None
            ]
            for surface, kind, span in names:
                first = surface.split()[0]
                described = english_features(
                    span, gazetteers.is_given_name(first), gazetteers.is_place(surface)
                )
                samples.types.append(Sample(example.id, described, kind))
            anchors = [Anchor(span.root, kind) for _, kind, span in names]
            surfaces = [surface for surface, _, _ in names]
            for pair in pairs(sentence, anchors, True, example.addressee is not None):
                source, target = (example.name_of(e, surfaces) for e in (pair.source, pair.target))
                label = example.label(source, target)
                samples.relations.append(Sample(example.id, pair.features, label))
    return samples


def _span(doc: Doc, sentence: Span, surface: str) -> Span | None:
    start = sentence.text.find(surface)
    if start < 0:
        return None
    start += sentence.start_char
    return doc.char_span(start, start + len(surface), alignment_mode="expand")


def chinese_samples(examples: list[Example]) -> Samples:
    gazetteers = load_gazetteers()
    samples = Samples([], [])
    finder = ChineseEntityFinder()
    for example in examples:
        reading = Reading(example.text, finder.tokens(example.text), finder.lexicon)
        labels = character_labels(example)
        for i, label in enumerate(labels):
            previous = labels[i - 1] if i else OUTSIDE
            samples.names.append(Sample(example.id, reading.features(i, previous), label))
        for start, end in split_chinese(example.text):
            clause = example.text[start:end]
            found = _chinese_names(clause, example.names_in(clause))
            for surface, name in found:
                described = chinese_features(
                    clause, name.start, name.end, gazetteers.is_place(surface)
                )
                samples.types.append(Sample(example.id, described, name.kind))
            surfaces = [surface for surface, _ in found]
            listener = example.addressee is not None
            for pair in chinese_pairs(clause, [n for _, n in found], True, listener):
                source, target = (example.name_of(e, surfaces) for e in (pair.source, pair.target))
                label = example.label(source, target)
                samples.relations.append(Sample(example.id, pair.features, label))
    return samples


def character_labels(example: Example) -> list[str]:
    """Each character's label: B-<type> or I-<type> in a name the example lists (the longest
    first where two overlap; not the parties, nor a kin word said to them: 妈，…), else O."""
    kin = set(load_type_evidence().zh.person_nouns)
    names = [(s, k) for s, k in example.entities if s not in example.parties and s not in kin]
    labels = [OUTSIDE] * len(example.text)
    for surface, kind in sorted(names, key=lambda n: -len(n[0])):
        at = example.text.find(surface)
        while at >= 0:
            end = at + len(surface)
            if all(label == OUTSIDE for label in labels[at:end]):
                labels[at:end] = [f"B-{kind}", *[f"I-{kind}"] * (len(surface) - 1)]
            at = example.text.find(surface, at + 1)
    return labels


def _chinese_names(clause: str, names: list[tuple[str, str]]) -> list[tuple[str, Name]]:
    """Each name's first place in the clause, longest names first, none overlapping."""
    found: list[tuple[str, Name]] = []
    for surface, kind in sorted(names, key=lambda n: -len(n[0])):
        at = clause.find(surface)
        name = Name(at, at + len(surface), kind)
        if at >= 0 and not any(overlap(name, other) for _, other in found):
            found.append((surface, name))
    return sorted(found, key=lambda f: f[1].start)


def fit(samples: list[Sample]) -> tuple[DictVectorizer, LogisticRegression]:
    seen = Counter(f for s in samples for f in set(s.features))
    vectorizer = DictVectorizer()
    x = vectorizer.fit_transform(
        [{f: 1 for f in s.features if seen[f] >= MIN_FEATURE_COUNT} for s in samples]
    )
    classifier = LogisticRegression(max_iter=3000, C=REGULARISATION)
    classifier.fit(x, [s.label for s in samples])
    return vectorizer, classifier


def cross_validate(samples: list[Sample], folds: int) -> None:
    groups = [s.example for s in samples]
    truth: list[str] = []
    guessed: list[str] = []
    for train, test in GroupKFold(n_splits=folds).split(samples, groups=groups):
        vectorizer, classifier = fit([samples[i] for i in train])
        x = vectorizer.transform([dict.fromkeys(samples[i].features, 1) for i in test])
        guessed += list(classifier.predict(x))
        truth += [samples[i].label for i in test]
    print(classification_report(truth, guessed, zero_division=0))


def trained(samples: list[Sample], threshold: float, lang: str) -> LinearModel:
    vectorizer, classifier = fit(samples)
    weights: dict[str, tuple[tuple[int, float], ...]] = {}
    for column, name in enumerate(vectorizer.get_feature_names_out()):
        row = classifier.coef_[:, column]
        kept = tuple(
            (k, round(float(w), 3)) for k, w in enumerate(row) if abs(w) >= SMALLEST_WEIGHT
        )
        if kept:
            weights[str(name)] = kept
    return LinearModel(
        classes=tuple(str(c) for c in classifier.classes_),
        intercept=tuple(round(float(b), 4) for b in classifier.intercept_),
        weights=weights,
        threshold=threshold,
        corpus_digest=digest(corpus_path(lang)),
    )


def counts(samples: list[Sample]) -> str:
    found: dict[str, int] = {}
    for s in samples:
        found[s.label] = found.get(s.label, 0) + 1
    return json.dumps(found, sort_keys=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lang", choices=["en", "zh"])
    parser.add_argument("--folds", type=int, default=0)
    parser.add_argument("--threshold", type=float, default=0.5)
    args = parser.parse_args()
    examples = load_examples(args.lang)
    samples = (english_samples if args.lang == "en" else chinese_samples)(examples)
    print(f"{len(examples)} examples; pairs {counts(samples.relations)}")
    print(f"names {counts(samples.types)}")
    if samples.names:
        print(f"characters {counts(samples.names)}")
    if args.folds:
        cross_validate(samples.relations, args.folds)
    models = {
        args.lang: trained(samples.relations, args.threshold, args.lang),
        f"types_{args.lang}": trained(samples.types, TYPE_THRESHOLD, args.lang),
    }
    if samples.names:
        models["names_zh"] = trained(samples.names, NAME_THRESHOLD, args.lang)
    for name, model in models.items():
        model_path(name).write_text(model.to_json() + "\n", encoding="utf-8")
        print(f"wrote {model_path(name)}: {len(model.weights)} features")


if __name__ == "__main__":
    main()

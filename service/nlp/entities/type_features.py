"""What a name and its context say of its type, as features of the learned type vote.

The type votes of ``type_evidence.py`` are frames someone wrote; this one is a linear model
(``service/nlp/linear.py``) trained on the names of the relation corpus, each typed by the
person who wrote it, from the name's own words and shape, the words around it, the word that
governs it, spaCy's label and the gazetteers. Its guess is one more vote, weighed by its
probability, never the decision alone. The same functions describe a name in training
(scripts/train_relation_model.py) and in reading.
"""

from __future__ import annotations

import jieba
from spacy.tokens import Span, Token

from service.nlp.entities.mentions import EntityLabel, TypeVote
from service.nlp.linear import load_model

# The types the model is trained to tell apart.
TYPES = frozenset(
    {EntityLabel.PERSON, EntityLabel.ORG, EntityLabel.PLACE, EntityLabel.PRODUCT, EntityLabel.EVENT}
)
WHY = "learned:type"
_WINDOW = 4  # words either side of a name read as a bag


def governor(token: Token) -> str:
    """What governs a token: "work_at" for the X of "I work at X", "hire" for "X hired me"."""
    head = token.head
    if token.dep_ == "pobj" and head.dep_ in {"prep", "agent"}:
        return f"{head.head.lemma_.lower()}_{head.lower_}"
    if token.dep_ in {"compound", "appos", "poss", "conj"}:
        return f"{token.dep_}_{head.lemma_.lower()}"
    return str(head.lemma_.lower())


def english_features(span: Span, given_name: bool, known_place: bool) -> list[str]:
    words = [t.lower_ for t in span]
    found = [f"word={w}" for w in words]
    found += [f"first={words[0]}", f"last={words[-1]}", f"suffix={words[-1][-3:]}"]
    found += [f"words={min(len(words), 4)}", f"shape={span[0].shape_[:5]}"]
    root = span.root
    found += [f"dep={root.dep_}", f"governor={governor(root)}"]
    doc = span.doc
    if span.start > 0:
        found.append(f"before={doc[span.start - 1].lower_}")
    if span.start > 1:
        found.append(f"before2={doc[span.start - 2].lower_}")
    if span.end < len(doc):
        found.append(f"after={doc[span.end].lemma_.lower()}")
    window = [*doc[max(0, span.start - _WINDOW) : span.start], *doc[span.end : span.end + _WINDOW]]
    found += [f"near={t.lemma_.lower()}" for t in window if t.is_alpha and not t.is_stop]
    found += [
        f"modifier={c.lower_}"
        for c in root.children
        if c.i < span.start and c.dep_ in {"det", "poss"}
    ]
    if given_name:
        found.append("given_name")
    if known_place:
        found.append("known_place")
    return found


def chinese_features(text: str, start: int, end: int, known_place: bool) -> list[str]:
    name = text[start:end]
    found = [f"last={name[-1]}", f"last2={name[-2:]}", f"first={name[0]}"]
    found.append(f"length={min(len(name), 6)}")
    if any(c.isascii() and c.isalpha() for c in name):
        found.append("latin")
    before = [w for w in jieba.cut(text[max(0, start - 6) : start], HMM=False) if w.strip()]
    after = [w for w in jieba.cut(text[end : end + 6], HMM=False) if w.strip()]
    if before:
        found.append(f"before={before[-1]}")
    if after:
        found.append(f"after={after[0]}")
    if known_place:
        found.append("known_place")
    return found


def learned_vote(lang: str, features: list[str], weight: float) -> list[TypeVote]:
    """The model's guess as a vote of ``weight`` × its probability, when sure enough."""
    model = load_model(f"types_{lang}")
    guess = model.best(features)
    if guess.probability < model.threshold:
        return []
    return [TypeVote(EntityLabel(guess.label), weight * guess.probability, WHY)]

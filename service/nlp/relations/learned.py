"""The learned relation reader: a linear model over a pair's features, trained on a corpus.

The table's rows read the phrasings someone wrote a rule for. The model reads the rest: it was
trained (scripts/train_relation_model.py; ``service/nlp/linear.py``) on
``nlp_models/relation_corpus/<lang>.jsonl``, chat messages written for it and for nothing else,
each naming its entities and every relation it states. No development conversation is in it.

It runs after the rules, on the pairs no rule linked, and states a relation only when its
probability reaches the model's threshold; the probability is the relation's confidence, and
its extractor is ``learned:<lang>``. Only relations whose ends' types fit (type_evidence.json's
relation_endpoints) are chosen among, and a family tie or a friendship only in a sentence that
has a word of one (``nlp_models/tie_words.json``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import cache, partial

from service.core.resources import NLP_MODELS_DIR
from service.nlp.entities.mentions import EntityLabel
from service.nlp.entities.type_evidence import TypeEvidenceTable, load_type_evidence
from service.nlp.linear import LinearModel
from service.nlp.linear import load_model as load_linear
from service.nlp.relations.chinese_words import alternation, load_relation_words
from service.nlp.relations.table import (
    Endpoint,
    Recipient,
    RelationMention,
    RelationType,
    links,
    load_relation_rows,
)
from service.nlp.relations.vocatives import vocative_table

NO_RELATION = "NONE"
TIE_WORDS_PATH = NLP_MODELS_DIR / "tie_words.json"


class Party(StrEnum):
    """The two people a message needs no name for: who says it (I, 我) and to whom (you, 你)."""

    SPEAKER = "SPEAKER"
    ADDRESSEE = "ADDRESSEE"


SPEAKER = Party.SPEAKER.value  # a pair end's kind when it is the speaker
ADDRESSEE = Party.ADDRESSEE.value


@dataclass(frozen=True)
class Pair:
    """A candidate: each end an index into the names, or a party; the kinds are the party's
    or the name's entity type."""

    source: int | Party
    target: int | Party
    features: list[str]
    source_kind: str = ""
    target_kind: str = ""
    asserted: bool = True  # not denied, asked, planned or hedged
    undoing: frozenset[str] = frozenset()  # words of the clause that may undo it (quit)


def load_model(lang: str) -> LinearModel:
    """The relation model of a language: classes NO_RELATION and the relation types."""
    return load_linear(lang)


def stated(
    lang: str,
    said: str,
    pairs: list[Pair],
    names: list[Endpoint],
    parties: Mapping[Party, Endpoint | None],
) -> list[RelationMention]:
    """The relations the language's model reads in ``pairs`` of ``names`` and the parties, in
    the sentence or clause ``said``."""
    if not pairs:
        return []
    model = load_model(lang)
    evidence = load_type_evidence()
    untied = frozenset(kind for kind, words in _tie_words(lang).items() if not words.search(said))
    found: list[RelationMention] = []
    for pair in pairs:
        allowed = partial(_fits, evidence, lang, pair, untied)
        guess = model.best(pair.features, allowed)
        if guess.label == NO_RELATION or guess.probability < model.threshold:
            continue
        if not _said(RelationType(guess.label), pair, lang):
            continue
        source, target = (
            parties.get(end) if isinstance(end, Party) else names[end]
            for end in (pair.source, pair.target)
        )
        if source is None or target is None or source.name.casefold() == target.name.casefold():
            continue  # a party unknown, or a name and the pronoun that stands for it
        kind = RelationType(guess.label)
        if kind is RelationType.STUDIES_AT and _business(evidence, lang, target.name):
            continue  # "I got a letter from Harbor Bank": no school
        found.append(RelationMention(kind, source, target, f"learned:{lang}", guess.probability))
    return found


def _business(evidence: TypeEvidenceTable, lang: str, name: str) -> bool:
    """Whether a name ends in a head that names a business (Harbor Bank, 蓝湾科技公司)."""
    heads = evidence.business_heads.get("en" if lang == "en" else "zh", frozenset())
    if lang == "en":
        words = name.split()
        return bool(words) and words[-1].casefold() in heads
    return name.endswith(tuple(heads))


# The types a name's context can give it: a name of one of these that a relation's ends exclude
# is not that relation's end ("我还在中行柜台坐着": 中行 is no place to live in).
_DECIDED = frozenset(
    {EntityLabel.PERSON, EntityLabel.ORG, EntityLabel.PLACE, EntityLabel.PRODUCT, EntityLabel.EVENT}
)


def _fits(
    evidence: TypeEvidenceTable,
    lang: str,
    pair: Pair,
    untied: frozenset[str],
    relation: str,
) -> bool:
    """Whether the pair may be the relation's: its two types fit the ends type_evidence.json's
    relation_endpoints give (the parties are people) and its no_person_target allows, a like
    or dislike has the clause's words of liking pointing its way, and a tie is not one the
    sentence has no word for (``untied``)."""
    if relation in untied:
        return False
    if relation in evidence.no_person_target and pair.target_kind in _PEOPLE:
        return False
    # A like needs no words of liking against it ("Jo says X is awful"); in English, where the
    # table's words of liking are read on the parse, it needs them for it: praise of something
    # else is none ("Lisbon has great pottery classes"). Chinese likes without one of
    # zh_relation_words.json's words are too many to lose (bench/RESULTS.md).
    if relation in _LIKING and _LIKING[relation][1] in pair.features:
        return False
    if relation in _LIKING and lang == "en" and _LIKING[relation][0] not in pair.features:
        return False
    if relation == _DISLIKES and _DENIED in pair.features and not _POLAR & set(pair.features):
        return False  # 好久没跑步了: a thing not done lately is no dislike without a word of one
    ends = evidence.relation_endpoints.get(relation)
    if ends is None:  # NO_RELATION
        return True
    kinds = (
        EntityLabel.PERSON.value if pair.source_kind == SPEAKER else pair.source_kind,
        pair.target_kind,
    )
    return all(
        end is None or kind not in _DECIDED or kind == end.value
        for end, kind in zip(ends, kinds, strict=True)
    )


POSITIVE = "polarity=positive"
NEGATIVE = "polarity=negative"
_DISLIKES = RelationType.DISLIKES.value
_DENIED = "clause=denied"
_POLAR = frozenset({POSITIVE, NEGATIVE})
_PEOPLE = frozenset({EntityLabel.PERSON.value, SPEAKER, ADDRESSEE})
# A like's and a dislike's polarity feature: (the one for it, the one against it).
_LIKING = {
    RelationType.LIKES.value: (POSITIVE, NEGATIVE),
    RelationType.DISLIKES.value: (NEGATIVE, POSITIVE),
}


def polarity(liked: bool, disliked: bool) -> list[str]:
    """The feature that says which way the clause's words of liking point, when only one way."""
    if liked == disliked:
        return []
    return [POSITIVE if liked else NEGATIVE]


def fresh(relation: RelationMention, found: list[RelationMention]) -> bool:
    """Whether a learned relation says something the rules' relations do not: they link
    neither its two names, nor, for a thing owned, its target to another owner ("Halvard
    bought me a Kindle": the rows read who of the two owns it)."""
    for old in found:
        if links(old, relation):
            return False
        same_target = old.target.name.casefold() == relation.target.name.casefold()
        if old.type is relation.type is RelationType.OWNS and same_target:
            return False
    return True


def _said(relation: RelationType, pair: Pair, lang: str) -> bool:
    """Whether the clause states the relation as the rows would have it: said as a fact (a
    dislike may be a denial: "can't stand X"), and not undone by a word the table's rows of
    the type list ("I quit my job at X", "dropped out of X") or give to a recipient only
    ("gave", "sent")."""
    if not pair.asserted and relation is not RelationType.DISLIKES:
        return False
    return pair.undoing.isdisjoint(_undoing_words(lang).get(relation, frozenset()))


@cache
def _undoing_words(lang: str) -> dict[RelationType, frozenset[str]]:
    words: dict[RelationType, set[str]] = {}
    for row in load_relation_rows():
        if row.lang == lang:
            words.setdefault(row.type, set()).update(row.cancelled_by)
            if row.recipient is Recipient.REQUIRED:  # "we gave a Kindle away": not ours now
                words[row.type].update(row.trigger)
    return {kind: frozenset(found) for kind, found in words.items()}


@cache
def _tie_words(lang: str) -> dict[str, re.Pattern[str]]:
    """For a family tie and a friendship, a pattern of the words that say one: tie_words.json's,
    the table's (English rows' triggers; the Chinese kin and friend classes) and, for kin, the
    vocatives' nouns."""
    listed = json.loads(TIE_WORDS_PATH.read_text(encoding="utf-8"))[lang]
    family, friend = (set(listed[kind]) for kind in _TIES)
    family.update(vocative_table(lang)["kin"])
    if lang == "en":
        for row in load_relation_rows():
            if row.lang == "en" and row.type.value in _TIES:
                (family if row.type is RelationType.FAMILY_OF else friend).update(row.trigger)
        return {
            kind: re.compile(rf"\b(?:{alternation(sorted(found))})(?:s|es)?\b", re.I)
            for kind, found in zip(_TIES, (family, friend), strict=True)
        }
    table = load_relation_words()
    family.update([*table.classes["KIN"], *table.classes["KIN_SHORT"]])
    friend.update(table.classes["FRIEND"])
    ranked = table.patterns["KIN_RANKED"]
    return {
        RelationType.FAMILY_OF.value: re.compile(f"{alternation(sorted(family))}|{ranked}"),
        RelationType.FRIEND_OF.value: re.compile(alternation(sorted(friend))),
    }


_TIES = (RelationType.FAMILY_OF.value, RelationType.FRIEND_OF.value)

"""What a fact says about its speaker's preferences, besides the relation rows: a change of mind
(what the speaker gave up, what replaces it), the things the speaker did (evidence that inferred
preferences count), and liked things the relation rows cannot name (English "I love coffee":
coffee is no entity mention).

The readers are ``english.py`` (over the parse) and ``chinese.py`` (regexes over word classes);
``with_preferences`` folds a reading into the fact's relations.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from service.nlp.entities.names import identity_form
from service.nlp.entities.patterns import EntityLabel
from service.nlp.preferences.lexicon import Item, lexicon
from service.nlp.relations.table import Endpoint, RelationMention, RelationType

# Confidence of what a reading adds: a thing taken up by a change ("switched to green tea") is
# said outright; a thing done is evidence, not a statement of taste.
ADOPTED_CONFIDENCE = 0.75
LIKED_CONFIDENCE = 0.8
ACTIVITY_CONFIDENCE = 0.7
# What a change retires: the speaker no longer likes, uses or does the thing.
_RETIRED_TYPES = frozenset({RelationType.LIKES, RelationType.USES, RelationType.DOES})
# Relation types whose target may name an item in other words (喝咖啡, "lattes" → coffee).
_ITEM_TARGETS = frozenset({RelationType.LIKES, RelationType.DISLIKES, RelationType.USES})
# A name of these types that holds an item's word is still the name (喜茶, "Coffee Island").
_NAMED = frozenset(
    {EntityLabel.PERSON, EntityLabel.ORG, EntityLabel.PLACE, EntityLabel.PRODUCT, EntityLabel.EVENT}
)


@dataclass(frozen=True)
class Change:
    """The speaker changed their mind: ``retired`` things (items, or names the fact mentions)
    are no longer liked, done or used; ``adopted`` items replace them. ``rule`` is the form
    that said it (``en_stop``, ``zh_switch_to`` …)."""

    rule: str
    retired: tuple[Item, ...] = ()
    adopted: tuple[Item, ...] = ()


@dataclass(frozen=True)
class PreferenceReading:
    """One fact's preference signals about its speaker."""

    change: Change | None = None
    activities: tuple[Item, ...] = ()
    likes: tuple[Item, ...] = ()
    dislikes: tuple[Item, ...] = ()


NO_READING = PreferenceReading()


def with_preferences(
    relations: list[RelationMention], reading: PreferenceReading, speaker: str | None, lang: str
) -> list[RelationMention]:
    """The fact's relations with their item targets named canonically, less the LIKES a change
    retires, plus LIKES of what it adopts or what the speaker said they like, and DOES of what
    the speaker did."""
    retired = {identity_form(i.name) for i in reading.change.retired} if reading.change else set()
    found = [_canonical(r, lang) for r in relations]
    found = [
        r
        for r in found
        if not (r.type in _RETIRED_TYPES and identity_form(r.target.name) in retired)
    ]
    if speaker is None:
        return found
    source = Endpoint(speaker, EntityLabel.PERSON)
    adopted = reading.change.adopted if reading.change else ()
    added = [
        *(_to_item(RelationType.LIKES, source, i, "change", ADOPTED_CONFIDENCE) for i in adopted),
        *(
            _to_item(RelationType.LIKES, source, i, "liked", LIKED_CONFIDENCE)
            for i in reading.likes
        ),
        *(
            _to_item(RelationType.DISLIKES, source, i, "disliked", LIKED_CONFIDENCE)
            for i in reading.dislikes
        ),
        *(
            _to_item(RelationType.DOES, source, i, "activity", ACTIVITY_CONFIDENCE)
            for i in reading.activities
        ),
    ]
    names = {(r.type, identity_form(r.target.name)) for r in found}
    for relation in added:
        key = (relation.type, identity_form(relation.target.name))
        if key not in names and identity_form(relation.target.name) not in retired:
            names.add(key)
            found.append(relation)
    return found


def _to_item(
    kind: RelationType, source: Endpoint, item: Item, why: str, confidence: float
) -> RelationMention:
    target = Endpoint(item.name, EntityLabel.CONCEPT)
    return RelationMention(kind, source, target, f"preference:{why}", confidence)


def _canonical(relation: RelationMention, lang: str) -> RelationMention:
    """A LIKES / DISLIKES / USES target that names an item names the item's entity, in its
    canonical name: 喝咖啡 → 咖啡, "lattes" → coffee."""
    if relation.type not in _ITEM_TARGETS or lang not in ("en", "zh"):
        return relation
    target = relation.target
    spans = lexicon("en" if lang == "en" else "zh").find(target.name)
    if len(spans) != 1:
        return relation
    whole = (spans[0].start, spans[0].end) == (0, len(target.name))
    if not whole and target.label in _NAMED:
        return relation  # 喜茶 is a tea shop, not tea
    # Spanless, so that it names the item's entity, not a mention around it (喝咖啡).
    return replace(relation, target=Endpoint(spans[0].item.name, EntityLabel.CONCEPT))

"""The targets of an English relation frame: the endpoints its object tokens name, typed by
the frame when only NER's guess says otherwise ("swears by Ableton": a tool, not a person).
"""

from __future__ import annotations

from collections.abc import Iterator

from spacy.tokens import Token

from service.nlp.entities.patterns import EntityLabel
from service.nlp.entities.type_evidence import load_type_evidence
from service.nlp.relations.english_clauses import FactContext, clause_verb, endpoint
from service.nlp.relations.table import Endpoint, RelationRow, RelationType

# Types whose target may be named by a modifier of the object: "works in Finch's office",
# "shipped the Pantry Pal beta", "with the Riverside Running Club" (not a visit: "went to a
# LGBTQ support group" is no visit of LGBTQ).
NAMED_BY_MODIFIER = frozenset(
    {
        RelationType.WORKS_AT,
        RelationType.STUDIES_AT,
        RelationType.MEMBER_OF,
        RelationType.CREATED,
        RelationType.OWNS,
    }
)
UNSEEN_NOT_TARGET = frozenset({EntityLabel.TEMPORAL})
# NER labels a relation frame may overrule: the small model calls unknown apps people,
# organisations, nationalities or places.
FRAME_MAY_RETYPE = frozenset(
    {EntityLabel.PERSON, EntityLabel.ORG, EntityLabel.CONCEPT, EntityLabel.PLACE}
)


def targets(fact: FactContext, row: RelationRow, objects: list[Token]) -> Iterator[Endpoint]:
    """Endpoints of object tokens; "at X's office" names X, "the Pantry Pal beta" Pantry Pal."""
    for obj in map(_named_part, objects):
        target = endpoint(fact, obj)
        called = _called(obj)
        if target is None and called is not None:  # "a band called The Night Owls"
            if not _kind_fits(row, obj):
                continue  # "runs a bakery called X": a bakery is not used like a tool
            target = endpoint(fact, called)
        if target is None and obj.pos_ == "NOUN" and row.type in NAMED_BY_MODIFIER:
            named = [c for c in obj.children if c.dep_ in {"poss", "compound"}]
            named = [c for c in named if c.text[:1].isupper()]
            target = endpoint(fact, named[0]) if named else None
        if target is None or target.label in UNSEEN_NOT_TARGET:
            continue
        if not row.target_labels or target.label in row.target_labels:
            yield target
        elif (framed := _typed_by_frame(fact, row, obj, target)) is not None:
            yield framed


def _named_part(obj: Token) -> Token:
    """The object, or the name it was parsed as a modifier of when it is an emoji ("got
    into Purdue 🎓🎓": the parser makes the last 🎓 the object, the other and Purdue its
    compounds)."""
    if any(c.isalnum() for c in obj.text):
        return obj
    for child in reversed([c for c in obj.children if c.dep_ == "compound"]):
        named = _named_part(child)
        if any(c.isalnum() for c in named.text):
            return named
    return obj


def _typed_by_frame(
    fact: FactContext, row: RelationRow, obj: Token, target: Endpoint
) -> Endpoint | None:
    """The target with its frame's type when that type fits the row and only NER's guess says
    otherwise: "I code in Zig" with Zig a GPE, "swears by Ableton" with Ableton a PERSON. A
    name whose own words or a gazetteer back NER's label keeps it ("I work in Boston")."""
    framed = load_type_evidence().frame_objects.get(row.type.value)
    mention = fact.covering(obj)
    if framed is None or framed not in row.target_labels or mention is None:
        return None
    if not mention.extractor.startswith("spacy:") or not _may_retype(target.label, framed):
        return None
    if target.label is EntityLabel.PLACE and not _takes_products(obj):
        return None  # "work in X", "be at X": a place preposition may well name a place
    if any(v.of_name and v.label is target.label for v in mention.votes):
        return None
    return Endpoint(target.name, framed, target.start, target.end)


def _may_retype(label: EntityLabel, framed: EntityLabel) -> bool:
    """Whether a frame may overrule NER's label: the labels it confuses, and PRODUCT for an
    employer or a school ("got into Purdue"), which the small model calls a product."""
    return label in FRAME_MAY_RETYPE or (label is EntityLabel.PRODUCT and framed is EntityLabel.ORG)


def _takes_products(obj: Token) -> bool:
    """An object of a verb that takes products ("use X", "code in X") or of a preposition
    of tools ("on X", "with X")."""
    words = load_type_evidence().en
    if obj.dep_ == "pobj" and obj.head.lower_ in words.product_preps:
        return True
    return clause_verb(obj).lemma_.lower() in words.product_verbs | words.product_prep_verbs


def _kind_fits(row: RelationRow, noun: Token) -> bool:
    """Whether the kind a noun names ("bakery": ORG) is the type the row's frame gives its
    object (USES: PRODUCT); a noun of no known kind fits any frame."""
    framed = load_type_evidence().frame_objects.get(row.type.value)
    kinds = load_type_evidence().en.kind_nouns
    kind = next((k for k, nouns in kinds.items() if noun.lemma_.lower() in nouns), None)
    return framed is None or kind is None or kind is framed


def _called(noun: Token) -> Token | None:
    """The name in "a bakery called Crumbs"."""
    for acl in (c for c in noun.children if c.dep_ == "acl" and c.lemma_ in {"call", "name"}):
        for name in acl.children:
            if name.dep_ == "oprd":
                return name
    return None

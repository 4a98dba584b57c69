"""Names a relation frame proposes: the object of "I use X", "grinding at X", "moved to X" that
no extractor marked becomes a mention, typed by the frame (nlp_models/type_evidence.json,
``frame_objects``: USES → PRODUCT, WORKS_AT → ORG, LIVES_IN → PLACE …).

The relation readers already read a name-shaped object the tagger missed as an endpoint
(service/nlp/relations/english_clauses.py); made a mention before the batch's names are
gathered, it is found again in the batch's other messages and typed by its frame there too.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from spacy.tokens import Span

from service.nlp.entities.mentions import (
    EntityLabel,
    EntityMention,
    casefold_name,
    load_stop_entities,
)
from service.nlp.entities.names import identity_form
from service.nlp.entities.type_evidence import TypeEvidenceTable
from service.nlp.relations.english_clauses import name_shaped
from service.nlp.relations.table import Endpoint, RelationMention

# Below NER's 0.85: a frame says what a name is, not that the words are one.
FRAME_CONFIDENCE = 0.7
FRAME_EXTRACTOR = "frame:"


def may_propose(sentence: Span, text: str, mentions: Sequence[EntityMention]) -> bool:
    """Whether a frame could propose a name in ``sentence`` (whose fact is ``text``, holding
    ``mentions``): only a word written as a name that no mention covers can be one, so a
    sentence without such a word needs no pass of the relation readers to find proposals."""
    base = sentence.start_char + max(sentence.text.find(text), 0)
    covered = [(base + m.start, base + m.end) for m in mentions]
    for token in sentence:
        named = (token.pos_ == "PROPN" and token.text[:1].isupper()) or name_shaped(token)
        if named and not any(start <= token.idx < end for start, end in covered):
            return True
    return False


def frame_mentions(
    text: str,
    relations: Iterable[RelationMention],
    mentions: Sequence[EntityMention],
    table: TypeEvidenceTable,
    speakers: Iterable[str] = (),
) -> list[EntityMention]:
    """The relations' objects that no mention covers in ``text``, as mentions typed by their frame.
    Never a speaker's name, a stop entity ("Cheers") or a kin word ("visited Mum")."""
    taken = [(m.start, m.end) for m in mentions]
    stop, people = load_stop_entities(), {identity_form(s) for s in speakers}
    kin = table.en.person_nouns | table.en.titles  # "visited Mum", "works with Coach"
    found: list[EntityMention] = []
    for relation in relations:
        label = table.frame_objects.get(relation.type.value)
        end = relation.target
        if label is None or end.start is None or end.end is None or not _unmarked(end, taken):
            continue
        if label is EntityLabel.PRODUCT and _after_place_word(text, end.start, table):
            continue  # "runs a cafe in Brevik": after "in", a place more often than a tool
        name = casefold_name(end.name)
        if name in stop or identity_form(end.name) in people or name in kin:
            continue
        extractor = FRAME_EXTRACTOR + relation.extractor.removeprefix("dep:")
        found.append(
            EntityMention(end.name, label, end.start, end.end, extractor, FRAME_CONFIDENCE)
        )
        taken.append((end.start, end.end))
    return found


def _after_place_word(text: str, start: int, table: TypeEvidenceTable) -> bool:
    """Whether the word before ``start`` is a preposition of places ("in", "from", "to")."""
    before = text[:start].split()
    return bool(before) and before[-1].casefold() in table.en.place_preps


def _unmarked(end: Endpoint, taken: list[tuple[int, int]]) -> bool:
    """A span of the fact's text that no mention overlaps, read as a name (label OTHER)."""
    if end.start is None or end.end is None or end.label is not EntityLabel.OTHER:
        return False
    return not any(s < end.end and end.start < e for s, e in taken)

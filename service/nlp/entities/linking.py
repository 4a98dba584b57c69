"""Entity linking: the mentions of a batch of facts become one entity node per real thing.

What the extractor found per fact (NER, the pattern table, the Chinese recogniser) is resolved
against the scope's entity directory: the entities already stored (their names, aliases and
short forms) and those the batch itself names, longest names first. The directory also works
as a gazetteer: once the scope knows an entity, a later fact that names it — at a sentence
start, as a possessive, by a short form, in another case — links to it even where NER saw
nothing. Speakers are PERSON entities, and a fact said in the first person mentions its
speaker (role ``subject``). Relations found between mentions are resolved the same way.

Pure logic over typed inputs; the write path reads the known entities and writes the rows.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import datetime

from service.core.domain import INFERRED_PREFIX, Scope
from service.nlp.entities.directory import EntityDirectory
from service.nlp.entities.gazetteer import GAZETTEER_CONFIDENCE, Gazetteer
from service.nlp.entities.link_rows import (
    ChangeRow,
    KnownEntity,
    LinkedBatch,
    LinkInput,
    MentionRow,
    RelationRow,
)
from service.nlp.entities.names import display_name, entity_key, identity_form
from service.nlp.entities.patterns import EntityLabel, EntityMention, load_stop_entities
from service.nlp.entities.type_evidence import label_weight, relation_votes
from service.nlp.preferences.reading import Change
from service.nlp.relations.extractor import Endpoint
from service.nlp.relations.table import RelationType, relation_words

# Stored on each memory (linker_version): `engram relink` relinks the memories of another.
LINKER_VERSION = 3  # 3: types are a vote over every mention (type_votes, label_votes)
SPEAKER_CONFIDENCE = 1.0
# A name the batch already knows, found again: its label repeats the entity's, so it casts no
# vote of its own (its context still does).
_ECHO_EXTRACTORS = frozenset({"gazetteer"})
# Labels of names that a SAME_AS word may say are one; what may follow the second name.
_NAMED = frozenset(
    {EntityLabel.PERSON, EntityLabel.ORG, EntityLabel.PLACE, EntityLabel.PRODUCT, EntityLabel.EVENT}
)
_CLAUSE_END = frozenset("，,。！？；;!?、 ")
# The speaker is part of "we" too: "we go way back" links the speaker to whoever is named.
_FIRST_PERSON_EN = re.compile(
    r"\b(?:I|[Mm]e|[Mm]y|[Mm]ine|[Mm]yself|[Ww]e|us|[Oo]ur|[Oo]urs)\b|\bI(?=['’](?:m|ve|d|ll)\b)"
)
_FIRST_PERSON_ZH = re.compile(r"我们?|咱们")


def _same_as(facts: Sequence[LinkInput]) -> dict[str, str]:
    """Names a fact says are one (Garmin就是佳明, 厦门马拉松也叫厦马): two mentions of names
    joined by a word of the class SAME_AS that ends the clause, each keyed to the other."""
    words = relation_words().classes.get("SAME_AS", ())
    pairs: dict[str, str] = {}
    for fact in facts:
        at = {m.start: m for m in fact.mentions if m.label in _NAMED}
        for a in (m for m in fact.mentions if m.label in _NAMED):
            copula = next((w for w in words if fact.text.startswith(w, a.end)), None)
            b = at.get(a.end + len(copula)) if copula else None
            ends = b is not None and (b.end == len(fact.text) or fact.text[b.end] in _CLAUSE_END)
            if b is not None and ends and identity_form(a.text) != identity_form(b.text):
                pairs[identity_form(a.text)] = b.text
                pairs[identity_form(b.text)] = a.text
    return pairs


def link(scope: Scope, facts: Sequence[LinkInput], known: Iterable[KnownEntity]) -> LinkedBatch:
    """Mentions, entities and relations of a batch of facts, resolved against the scope."""
    directory = EntityDirectory(scope)
    for entity in known:
        directory.add_known(entity)
    speaker_keys = {
        speaker: directory.link(speaker, EntityLabel.PERSON.value, SPEAKER_CONFIDENCE, at)
        for speaker, at in _speakers(facts)
    }
    for speaker, _ in _speakers(facts):  # each fact someone says is a vote that they are a person
        directory.drafts[speaker_keys[speaker]].vote(EntityLabel.PERSON.value, SPEAKER_CONFIDENCE)
    speakers = set(speaker_keys.values())
    addressees = _addressees(facts, speaker_keys)
    # Longest names first, so that "Acme Robotics" is the entity "Acme" later links to.
    found = sorted(
        ((f, m) for f in facts for m in f.mentions), key=lambda fm: -len(fm[1].text.strip())
    )
    same = _same_as(facts)
    for fact, mention in found:
        echo = mention.extractor in _ECHO_EXTRACTORS
        other = same.get(identity_form(mention.text))
        partner = directory.resolve(other, mention.label.value) if other else None
        if partner is not None:  # Garmin就是佳明: the name one already linked is also this
            directory.claim_alias(mention.text, partner[0])
        directory.link(
            mention.text,
            mention.label.value,
            0.0 if echo else label_weight(mention),
            fact.said_at,
            _trusted(mention),
            mention.votes,
            _vocative(fact, mention, addressees),
        )
    mentions: list[MentionRow] = []
    relations: list[RelationRow] = []
    gazetteer = Gazetteer(directory.gazetteer_forms())
    for fact in facts:
        spans = list(fact.mentions) + gazetteer.find(fact.text, fact.mentions)
        own = _mention_rows(directory, fact, spans, addressees)
        found_relations = _relation_rows(directory, fact, spans)
        mentions += own + _endpoint_mentions(fact, own, found_relations)
        relations += found_relations
    mentions, relations = _folded(directory.fold_short_forms(), mentions, relations)
    used = [m.key for m in mentions] + [k for r in relations for k in (r.source_key, r.target_key)]
    entities = directory.rows([*speakers, *used])
    kinds = {e.key: e.type for e in entities}
    relations = [_as_its_source_is(r, kinds.get(r.source_key)) for r in relations]
    changes = _change_rows(directory, facts, speaker_keys)
    return LinkedBatch(entities, _unique(mentions), relations, frozenset(speakers), changes=changes)


def _folded(
    folded: dict[str, str], mentions: list[MentionRow], relations: list[RelationRow]
) -> tuple[list[MentionRow], list[RelationRow]]:
    """The rows with each folded short form's key put for its entity's (fold_short_forms),
    less a relation that now links an entity to itself."""
    if not folded:
        return mentions, relations
    mentions = [
        replace(m, key=folded[m.key], link="short_form") if m.key in folded else m for m in mentions
    ]
    relations = [
        replace(
            r,
            source_key=folded.get(r.source_key, r.source_key),
            target_key=folded.get(r.target_key, r.target_key),
        )
        for r in relations
    ]
    return mentions, [r for r in relations if r.source_key != r.target_key]


def _as_its_source_is(relation: RelationRow, source_type: str | None) -> RelationRow:
    """A home read while its source looked like a person (陶溪川 in X: 陶 is a family name)
    is where a thing is, once the evidence made the source a place or an organisation; and
    where a person "is" (老陈在顺德开了家店) is their home."""
    if relation.type is RelationType.LIVES_IN and source_type in _THINGS_IN_PLACES:
        return replace(relation, type=RelationType.LOCATED_IN)
    if relation.type is RelationType.LOCATED_IN and source_type == EntityLabel.PERSON.value:
        return replace(relation, type=RelationType.LIVES_IN)
    return relation


_THINGS_IN_PLACES = frozenset(
    {EntityLabel.PLACE.value, EntityLabel.ORG.value, EntityLabel.EVENT.value}
)


def _change_rows(
    directory: EntityDirectory, facts: Sequence[LinkInput], speaker_keys: dict[str, str]
) -> list[ChangeRow]:
    """The batch's changes of mind, each its speaker's."""
    return [
        _change_row(directory, f, f.change, speaker_keys[f.speaker])
        for f in facts
        if f.change is not None and f.speaker in speaker_keys
    ]


def _change_row(
    directory: EntityDirectory, fact: LinkInput, change: Change, subject_key: str
) -> ChangeRow:
    """A change with its things named by their entities' keys: a known entity's, else the key
    the name would have (nothing of it is stored, so nothing is retired)."""

    def key(name: str) -> str:
        found = directory.resolve(display_name(name), EntityLabel.CONCEPT.value)
        return found[0] if found is not None else entity_key(directory.scope, display_name(name))

    return ChangeRow(
        fact.memory_id,
        subject_key,
        tuple(key(i.name) for i in change.retired),
        tuple(key(i.name) for i in change.adopted),
        tuple(dict.fromkeys(i.kind for i in change.adopted if i.kind)),
        change.rule,
    )


# Extractors whose PLACE label comes from a list of places, not a tagger's guess (jieba reads
# 大疆 and 墨大 as places, spaCy "Becca" as one).
_PLACE_LISTS = ("zh:city", "pattern:zh_place_major_city", "pattern:zh_place_country")


def _trusted(mention: EntityMention) -> bool:
    """Whether a mention's label comes from a list rather than a guess."""
    return mention.extractor.startswith(_PLACE_LISTS)


def _speakers(facts: Sequence[LinkInput]) -> list[tuple[str, datetime]]:
    return [(f.speaker, f.said_at) for f in facts if f.speaker and f.speaker.strip()]


def _addressees(facts: Sequence[LinkInput], speaker_keys: dict[str, str]) -> dict[str, str]:
    """Whom each fact is said to, by memory id: the next other speaker of the batch, who
    answers it."""
    found: dict[str, str] = {}
    for i, fact in enumerate(facts):
        after = (f.speaker for f in facts[i + 1 :] if f.speaker and f.speaker != fact.speaker)
        speaker = next(after, None)
        if speaker is not None and speaker in speaker_keys:
            found[fact.memory_id] = speaker_keys[speaker]
    return found


# After a name a message opens with, what makes it an address: 老周，…; 阿青你…
_VOCATIVE_END = re.compile(r"\s*(?:[，,！!：:、～~]|[你您])")


def _vocative(fact: LinkInput, mention: EntityMention, addressees: dict[str, str]) -> str | None:
    """The addressee's key when the mention opens the fact as an address, else None."""
    if fact.text[: mention.start].strip() or not _VOCATIVE_END.match(fact.text, mention.end):
        return None
    return addressees.get(fact.memory_id)


def _mention_rows(
    directory: EntityDirectory,
    fact: LinkInput,
    spans: list[EntityMention],
    addressees: dict[str, str],
) -> list[MentionRow]:
    rows = [_named_row(directory, fact, m, _vocative(fact, m, addressees)) for m in spans]
    speaker = _speaker_row(directory, fact)
    return rows if speaker is None else [*rows, speaker]


def _named_row(
    directory: EntityDirectory, fact: LinkInput, m: EntityMention, addressee: str | None
) -> MentionRow:
    """A name in the fact, linked to its entity, with how it was found."""
    key, why = directory.link_why(
        m.text,
        m.label.value,
        m.confidence,
        fact.said_at,
        _trusted(m),
        votes=None,
        addressee=addressee,
    )
    return MentionRow(
        fact.memory_id, key, m.text, m.start, m.end, m.extractor, m.confidence, "mention", why
    )


def _speaker_row(directory: EntityDirectory, fact: LinkInput) -> MentionRow | None:
    """The speaker, where the fact says I / 我: the subject it is about."""
    first_person = _first_person(fact)
    if first_person is None or not fact.speaker:
        return None
    key = directory.link(
        fact.speaker, EntityLabel.PERSON.value, SPEAKER_CONFIDENCE, fact.said_at, votes=None
    )
    start, end = first_person
    return MentionRow(
        fact.memory_id,
        key,
        fact.text[start:end],
        start,
        end,
        "speaker",
        SPEAKER_CONFIDENCE,
        "subject",
    )


def _first_person(fact: LinkInput) -> tuple[int, int] | None:
    pattern = _FIRST_PERSON_ZH if fact.lang == "zh" else _FIRST_PERSON_EN
    found = pattern.search(fact.text)
    return found.span() if found else None


def _relation_rows(
    directory: EntityDirectory, fact: LinkInput, spans: list[EntityMention]
) -> list[RelationRow]:
    rows = []
    for relation in fact.relations:
        source = _endpoint_key(directory, fact, relation.source, spans)
        target = _endpoint_key(directory, fact, relation.target, spans)
        if source is None or target is None or source == target:
            continue
        for key, vote in zip((source, target), relation_votes(relation.type.value), strict=True):
            if vote is not None:
                directory.drafts[key].vote(vote.label.value, vote.weight)
        rows.append(
            RelationRow(
                fact.memory_id,
                relation.type,
                source,
                target,
                relation.confidence,
                relation.extractor,
                relation.extractor.startswith(INFERRED_PREFIX),
            )
        )
    return rows


def _endpoint_key(
    directory: EntityDirectory, fact: LinkInput, end: Endpoint, spans: list[EntityMention]
) -> str | None:
    """The entity an endpoint names: the mention at its span, else its name resolved."""
    if end.start is not None and end.end is not None:
        for m in spans:
            if m.start < end.end and end.start < m.end:
                return directory.link(
                    m.text, m.label.value, m.confidence, fact.said_at, _trusted(m), votes=None
                )
    name = _without_fillers(display_name(end.name))
    if not name:
        return None
    return directory.link(name, end.label.value, GAZETTEER_CONFIDENCE, fact.said_at)


def _without_fillers(name: str) -> str:
    """A name without the stop words at its edges ("Yo Mei" -> Mei); empty when nothing else
    is left (nlp_models/stop_entities.txt)."""
    stop = load_stop_entities()
    words = name.split()
    while words and identity_form(words[0]) in stop:
        words.pop(0)
    while words and identity_form(words[-1]) in stop:
        words.pop()
    text = " ".join(words)
    return "" if not identity_form(text) or identity_form(text) in stop else text


def _endpoint_mentions(
    fact: LinkInput, own: list[MentionRow], relations: list[RelationRow]
) -> list[MentionRow]:
    """A relation's endpoints are always mentioned by its memory (superseding and deleting the
    memory find its relations through them)."""
    mentioned = {m.key for m in own}
    missing = [k for r in relations for k in (r.source_key, r.target_key) if k not in mentioned]
    return [
        MentionRow(fact.memory_id, key, "", -1, -1, "relation", 1.0, "relation")
        for key in dict.fromkeys(missing)
    ]


def _unique(rows: list[MentionRow]) -> list[MentionRow]:
    """One row per memory, entity and span (the MENTIONS edge's identity)."""
    seen: dict[tuple[str, str, int, int], MentionRow] = {}
    for row in rows:
        seen.setdefault((row.memory_id, row.key, row.start, row.end), row)
    return list(seen.values())

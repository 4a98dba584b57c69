"""The entity directory of one linking batch: the scope's known entities and those the batch
names, each a draft whose type is a vote over every mention (context votes and extractors'
labels, stored and new); names, aliases and short forms resolve to one key. link() in
linking.py fills it and turns it into rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from service.core.domain import Scope
from service.nlp.entities.link_rows import EntityRow, KnownEntity
from service.nlp.entities.mentions import VOTE_TYPES, TypeVote
from service.nlp.entities.names import display_name, entity_key, identity_form, short_forms
from service.nlp.entities.patterns import EntityLabel

# A label a mention's type vote counts for less than any other: OTHER is "a proper noun that
# nothing typed" and CONCEPT what NER guesses for names it does not know.
_WEAK_TYPES = {EntityLabel.OTHER.value: 0.5, EntityLabel.CONCEPT.value: 0.9}


@dataclass
class _Draft:
    """An entity while the batch is linked: name, type votes (stored and this batch's) and
    the forms seen. Its type is the one with the most weight. Context votes add up, each
    mention's frame being new evidence; an extractor's label and what the name says of itself
    (TypeVote.of_name) count once, at their strongest: the same guess made again about the
    same name says nothing new."""

    key: str
    name: str
    type: str
    type_confidence: float
    aliases: list[str] = field(default_factory=list)
    first_seen: datetime | None = None
    last_seen: datetime | None = None
    stored: bool = False
    stored_votes: list[float] = field(default_factory=lambda: [0.0] * len(VOTE_TYPES))
    new_votes: list[float] = field(default_factory=lambda: [0.0] * len(VOTE_TYPES))
    stored_labels: list[float] = field(default_factory=lambda: [0.0] * len(VOTE_TYPES))
    new_labels: list[float] = field(default_factory=lambda: [0.0] * len(VOTE_TYPES))

    def vote(self, label: str, weight: float, context: bool = True) -> None:
        """A vote of the context (added up) or of an extractor's label (the strongest kept)."""
        if label not in VOTE_TYPES or weight <= 0:
            return
        i, weight = VOTE_TYPES.index(label), weight * _WEAK_TYPES.get(label, 1.0)
        if context:
            self.new_votes[i] += weight
        else:
            self.new_labels[i] = max(self.new_labels[i], weight)
        self.tally()

    def tally(self) -> None:
        """The type with the most weight, and its share."""
        totals = [
            votes + max(stored, new)
            for votes, stored, new in zip(
                map(sum, zip(self.stored_votes, self.new_votes, strict=True)),
                self.stored_labels,
                self.new_labels,
                strict=True,
            )
        ]
        best = max(range(len(totals)), key=lambda i: (totals[i], -i))
        self.type, self.type_confidence = VOTE_TYPES[best], round(totals[best] / sum(totals), 3)

    def saw(self, surface: str, at: datetime | None) -> None:
        if surface and surface not in self.aliases:
            self.aliases.append(surface)
        if at is not None:
            self.first_seen = min(at, self.first_seen or at)
            self.last_seen = max(at, self.last_seen or at)


def _owner_form(name: str) -> list[str]:
    """ "Rosie's Bakery" is also called by its owner's name, Rosie's (and Rosie): asked only
    once types are final, so that the person Greta is not folded into Greta's Kitchen."""
    words = identity_form(name).split()
    if len(words) < 2 or not words[0].endswith(("'s", "’s")):
        return []
    return [words[0][:-2]]


class EntityDirectory:
    """The scope's entities by every name they answer to: exact forms (names and aliases,
    normalised) first, then short forms that exactly one entity claims."""

    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        self.drafts: dict[str, _Draft] = {}
        self._exact: dict[str, str] = {}
        self._short: dict[str, set[str]] = {}

    def add_known(self, known: KnownEntity) -> None:
        """A stored entity joins the directory, unless an older Engram keyed it (by type as
        well as name): such nodes are replaced by `engram relink`, not linked to."""
        if known.key != entity_key(self.scope, known.name):
            return
        draft = _Draft(
            known.key,
            known.name,
            known.type,
            known.type_confidence,
            list(known.aliases),
            stored=True,
            stored_votes=_stored(known.type_votes),
            stored_labels=_stored(known.label_votes) if known.label_votes else _legacy(known),
        )
        self.drafts[known.key] = draft
        for form in [known.name, *known.aliases]:
            self._claim(form, known.key, known.type)

    def resolve(
        self, surface: str, label: str, trusted: bool = False, addressee: str | None = None
    ) -> tuple[str, str] | None:
        """The key of the known entity this surface names, if exactly one does, and why:
        "name" (its name or an alias), "short_form" (it is one of the entity's short forms),
        "long_form" (the entity's name is one of the surface's short forms). A short form
        several entities claim names ``addressee`` (a key) when it is one of them."""
        form = identity_form(surface)
        if not form:
            return None
        if form in self._exact:
            return self._exact[form], "name"
        keys = {k for k in self._short.get(form, set()) if not trusted or self._fits(k, label)}
        if len(keys) > 1 and addressee in keys:
            keys = {addressee}
        if len(keys) == 1:
            return next(iter(keys)), "short_form"
        # "Acme Robotics" when the scope knows "Acme": the mention's own short form. A person's
        # must be the known one's name, not an alias: 郑悦 is not 郑大海 for both being 老郑.
        for short in short_forms(surface, label):
            key = self._exact.get(short)
            if key is None:
                continue
            if label != EntityLabel.PERSON.value or identity_form(self.drafts[key].name) == short:
                return key, "long_form"
        return None

    def _fits(self, key: str, label: str) -> bool:
        """Whether a mention typed ``label`` may be a short form of this entity: a place or a
        person is not the short form of something else (墨尔本 the city, not 墨尔本大学).
        Asked only of labels from a list of places (_PLACE_LISTS): a tagger's guess for a
        short name ("Becca" GPE, 墨大 ns) is too often wrong to keep it from its entity."""
        kind = self.drafts[key].type
        typed = {EntityLabel.PERSON.value, EntityLabel.PLACE.value}
        return label not in typed or kind == label or kind == EntityLabel.OTHER.value

    def link(
        self,
        surface: str,
        label: str,
        confidence: float,
        at: datetime | None,
        trusted: bool = False,
        votes: Sequence[TypeVote] | None = (),
        addressee: str | None = None,
    ) -> str:
        """The entity this surface names, made when no known one does; the votes and the
        form are recorded on it. ``trusted``: the label comes from a dictionary (``resolve``).
        ``votes``: the context's votes besides the label's; None for a surface already
        counted, which votes no more. ``addressee``: see ``resolve``."""
        return self.link_why(surface, label, confidence, at, trusted, votes, addressee)[0]

    def link_why(
        self,
        surface: str,
        label: str,
        confidence: float,
        at: datetime | None,
        trusted: bool = False,
        votes: Sequence[TypeVote] | None = (),
        addressee: str | None = None,
    ) -> tuple[str, str]:
        """``link``, and how the surface names the entity: "name" (its name), "short_form"
        (one of the entity's short forms), "long_form" (the entity's name is one of the
        surface's short forms: "Acme Robotics" when "Acme" is known) or "alias"."""
        name = display_name(surface)
        found = self.resolve(name, label, trusted, addressee)
        key = found[0] if found is not None else entity_key(self.scope, name)
        if key not in self.drafts:
            self.drafts[key] = _Draft(key, name, label, 0.0)
        draft = self.drafts[key]
        if votes is not None:
            draft.vote(label, confidence, context=False)
            for v in votes:
                draft.vote(v.label.value, v.weight, context=not v.of_name)
        draft.saw(name, at)
        self._claim(name, key, draft.type)
        return key, _reason(name, draft)

    def fold_short_forms(self) -> dict[str, str]:
        """A name the batch introduced that is a short form of exactly one other entity of the
        same final type is that entity ("Stardew" of Stardew Valley): asked once every
        mention has voted, since a short form depends on the type ("Stardew Valley" read as a
        place has none). People are left alone: a first name is many people's. Returns the
        folded keys, each with the key of the entity it is now."""
        folded: dict[str, str] = {}
        claims: dict[str, set[str]] = {}
        for draft in self.drafts.values():
            for short in [*short_forms(draft.name, draft.type), *_owner_form(draft.name)]:
                claims.setdefault(short, set()).add(draft.key)
        for key, draft in list(self.drafts.items()):
            if draft.stored or draft.type == EntityLabel.PERSON.value:
                continue
            owners = claims.get(identity_form(draft.name), set()) - {key}
            owner = self.drafts.get(next(iter(owners))) if len(owners) == 1 else None
            if owner is not None and owner.type == draft.type and owner.key not in folded:
                self._fold(draft, owner)
                folded[key] = owner.key
        return folded

    def _fold(self, short: _Draft, into: _Draft) -> None:
        for form, key in list(self._exact.items()):
            if key == short.key:
                self._exact[form] = into.key
        for keys in self._short.values():
            if short.key in keys:
                keys.discard(short.key)
                keys.add(into.key)
        into.new_votes = [a + b for a, b in zip(into.new_votes, short.new_votes, strict=True)]
        into.new_labels = [
            max(a, b) for a, b in zip(into.new_labels, short.new_labels, strict=True)
        ]
        into.tally()
        for alias in short.aliases:
            into.saw(alias, short.first_seen)
            into.saw(alias, short.last_seen)
        del self.drafts[short.key]

    def claim_alias(self, surface: str, key: str) -> None:
        """``surface`` is another name of the entity ``key`` (stated so: X就是Y)."""
        self._claim(surface, key, self.drafts[key].type)

    def _claim(self, surface: str, key: str, label: str) -> None:
        form = identity_form(surface)
        if form:
            self._exact.setdefault(form, key)
        for short in short_forms(surface, label):
            if short not in self._exact:
                self._short.setdefault(short, set()).add(key)

    def gazetteer_forms(self) -> dict[str, EntityLabel]:
        """Names to look for in text, with the type of the entity each names: every alias,
        and the short forms one entity alone claims."""
        forms: dict[str, EntityLabel] = {}
        for draft in self.drafts.values():
            for alias in draft.aliases:
                forms.setdefault(alias, _label(draft.type))
        for short, keys in self._short.items():
            if len(keys) == 1:
                forms.setdefault(short, _label(self.drafts[next(iter(keys))].type))
        return forms

    def rows(self, keys: Iterable[str]) -> list[EntityRow]:
        rows = []
        for key in dict.fromkeys(keys):
            d = self.drafts[key]
            alias_keys = {identity_form(a) for a in d.aliases} | set(short_forms(d.name, d.type))
            rows.append(
                EntityRow(
                    d.key,
                    d.name,
                    d.type,
                    d.type_confidence,
                    tuple(d.aliases),
                    tuple(sorted(k for k in alias_keys if k)),
                    d.first_seen,
                    d.last_seen,
                    tuple(d.new_votes),
                    tuple(d.new_labels),
                )
            )
        return rows


def _stored(votes: tuple[float, ...]) -> list[float]:
    return list(votes) if len(votes) == len(VOTE_TYPES) else [0.0] * len(VOTE_TYPES)


def _legacy(known: KnownEntity) -> list[float]:
    """An entity stored before votes were kept: its type, as one label vote."""
    votes = [0.0] * len(VOTE_TYPES)
    if known.type in VOTE_TYPES:
        votes[VOTE_TYPES.index(known.type)] = known.type_confidence
    return votes


def _reason(surface: str, draft: _Draft) -> str:
    form = identity_form(surface)
    if form == identity_form(draft.name):
        return "name"
    if form in short_forms(draft.name, draft.type):
        return "short_form"
    if identity_form(draft.name) in short_forms(surface, draft.type):
        return "long_form"
    return "alias"


def _label(value: str) -> EntityLabel:
    try:
        return EntityLabel(value)
    except ValueError:
        return EntityLabel.OTHER

"""English relations read from a noun that describes a name, with or without a verb: "Crumbs
is a tiny cafe in Leith", "Crumbs, a cafe in Leith", "a Tartu startup called Pellworth",
"Salt Roads is Halvard's first novel", "a podcast by Imani", "our choir, Voxtide"
(the speaker's group).

The row's ``trigger`` lists the describing nouns (a class of nouns, as data), its ``preps``
the slots of the noun that name the other end: a preposition ("in", "by"), "poss" (the
noun's possessor) or "compound" (a name before the noun). A possessor or an agent ("by") is
the relation's source and the described name its target ("Halvard's novel"); any other slot
is the target of the described name ("a cafe in Leith"). A modifier of the noun in the row's
``cancelled_by`` undoes it ("my favourite app" was not made by me). Rows of
nlp_models/relations.jsonl name the words; english.py runs them.
"""

from __future__ import annotations

from spacy.tokens import Token

from service.nlp.entities.patterns import EntityLabel
from service.nlp.relations.english_clauses import (
    FactContext,
    asserted,
    endpoint,
    name_beside,
    prep_objects,
)
from service.nlp.relations.english_frames import Pairs, matches
from service.nlp.relations.table import Endpoint, RelationRow

# Slots whose word is the maker or owner of the described name, so the relation's source.
OWNER_SLOTS = frozenset({"poss", "by"})
# Verbs between a describing noun and its place: "a cafe based in Leith", "tucked away in".
_PLACING_VERBS = frozenset({"base", "locate", "tuck", "hide", "situate", "set", "nestle"})


def described(fact: FactContext, row: RelationRow, token: Token) -> Pairs:
    """The described name and each named word in the noun's slots, by the row's types."""
    if not matches(row, token) or token.pos_ not in {"NOUN", "PROPN"}:
        return
    if fact.covering(token) is not None or not asserted(token):
        return  # the noun is part of a name ("Cafe Nero"), or the clause is denied or asked
    if any(c.lower_ in row.cancelled_by for c in token.children):
        return  # "my favourite app": liked, not made
    name = name_beside(token)
    thing = endpoint(fact, name) if name is not None else None
    if thing is None or thing.start is None or thing.label is EntityLabel.TEMPORAL:
        return
    for slot in row.preps:
        for word in _slot_words(token, name, slot):
            other = endpoint(fact, word)
            if other is None or other.label is EntityLabel.TEMPORAL or other == thing:
                continue
            source, target = (other, thing) if slot in OWNER_SLOTS else (thing, other)
            if _fits(row.source_labels, source) and _fits(row.target_labels, target):
                yield source, target


def _slot_words(noun: Token, name: Token | None, slot: str) -> list[Token]:
    """The words in one slot of the describing noun: "Halvard's" for "poss" in "Halvard's new
    app Nightjar" (the possessor hangs on the name the noun modifies)."""
    hosts = [noun]
    if noun.dep_ == "compound" and name is not None and noun.head.i == name.i:
        hosts.append(name)
    if slot == "poss":
        return [c for h in hosts for c in h.children if c.dep_ == "poss"]
    if slot == "compound":
        named = [c for c in noun.children if c.dep_ == "compound" and c.pos_ == "PROPN"]
        return [c for c in named if name is None or c.i != name.i]
    hosts += [c for c in noun.children if c.dep_ == "acl" and c.lemma_.lower() in _PLACING_VERBS]
    hosts += [p for h in list(hosts) for p in h.children if p.dep_ == "prt"]
    return [o for h in hosts for o in prep_objects(h, (slot,), depth=0)]


def _fits(labels: tuple[EntityLabel, ...], end: Endpoint) -> bool:
    return not labels or end.label in labels

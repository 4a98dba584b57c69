"""English context frames for an entity's type that read the words around a name in the parse
(service/nlp/entities/type_evidence.py casts them with the rest of a mention's votes):

- a possessive with no noun after it names a business: "pizza from Gino's", "Marlow's has been
  open since 1990" (ORG);
- a name after a place modifier is a place: "downtown Cleveland" (PLACE);
- a name with its town in brackets is a business's branch: "Taco Loco (Fresno)" (ORG);
- what tickets are for is an event: "Quinta tickets", "tickets to Riverbloom" (EVENT), and
  where a tour or a set is played, weakly: "open the tour at Riverbloom";
- where a job is held is an employer: "my notice at Kroger", "a shift at Kroger" (ORG);
- being on a name that is no place ("we're still on Grafana"), weakly, and a name described
  as an app in its clause ("Brenna plans my runs, the best app ever"), or
  named, not as a person, in a message about apps ("my streak", "the subscription"): PRODUCT.

The words are data (nlp_models/type_evidence.json); each frame is a few token comparisons on
the parse the mention already has.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from spacy.tokens import Span, Token

from service.nlp.entities.mentions import EntityLabel, TypeVote

if TYPE_CHECKING:
    from service.nlp.entities.type_evidence import EnglishWords, Weights

_POSSESSIVE = frozenset({"'s", "’s"})
_PLACE_ENTITIES = frozenset({"GPE", "LOC", "FAC"})


def english_frame_votes(
    span: Span,
    words: EnglishWords,
    weights: Weights,
    is_given_name: Callable[[str], bool],
    is_place: Callable[[str], bool],
) -> list[TypeVote]:
    """The votes of this module's frames for the mention ``span``."""
    votes = []
    if _business_possessive(span):
        # "at Emma's" may be her home; "from Lou Malnati's" is rarely anyone's
        words_in_name = sum(1 for t in span if t.lower_ not in _POSSESSIVE)
        weight = weights.business_possessive if words_in_name > 1 else weights.home_possessive
        votes.append(TypeVote(EntityLabel.ORG, weight, "frame:business"))
    if any(_is_place_modifier(t, span, words) for t in span.root.children):
        votes.append(TypeVote(EntityLabel.PLACE, weights.place_modifier, "frame:place_modifier"))
    if _branch(span, is_given_name):
        votes.append(TypeVote(EntityLabel.ORG, weights.branch, "frame:branch"))
    votes += _event_votes(span, words, weights)
    if _prep_object_of(span, {"at"}, words.employment_nouns):
        votes.append(TypeVote(EntityLabel.ORG, weights.org_frame, "frame:employment"))
    if _on_a_platform(span) and not is_place(span.text):
        votes.append(TypeVote(EntityLabel.PRODUCT, weights.product_context, "frame:on_platform"))
    if _holds_a_document(span, words) and not is_place(span.text):
        votes.append(TypeVote(EntityLabel.PRODUCT, weights.holds_contents, "frame:document_in"))
    if _way_of_doing(span) and not is_given_name(span.text):
        votes.append(TypeVote(EntityLabel.PRODUCT, weights.product_frame, "frame:way_of"))
    if _described_as_an_app(span, words):
        votes.append(TypeVote(EntityLabel.PRODUCT, weights.product_frame, "frame:described_app"))
    elif _in_app_talk(span, words):
        votes.append(TypeVote(EntityLabel.PRODUCT, weights.product_context, "context:app"))
    return votes


def _business_possessive(span: Span) -> bool:
    """ "from Gino's", "Marlow's has been open": a possessive that owns no noun after it."""
    root = span.root
    last = span[-1]
    mark = last if last.lower_ in _POSSESSIVE else None
    if mark is None and span.end < len(span.doc):
        after = span.doc[span.end]
        mark = after if after.lower_ in _POSSESSIVE and after.head == root else None
    if mark is None or root.dep_ == "poss":
        return False
    following = span.doc[mark.i + 1] if mark.i + 1 < len(span.doc) else None
    return following is None or root.head != following  # "Emma's place" parsed amiss


def _is_place_modifier(token: Token, span: Span, words: EnglishWords) -> bool:
    # lower case: "North" in "North Berwick" is part of a name
    return token.i < span.start and token.text.islower() and token.text in words.place_modifiers


def _branch(span: Span, is_given_name: Callable[[str], bool]) -> bool:
    """ "Taco Loco (Fresno)": a place in brackets right after the name; a name in brackets
    that is no given name is taken for one ("Jacob (Jake)" is a nickname)."""
    end = span.end
    doc = span.doc
    if end + 2 >= len(doc) or doc[end].text != "(" or doc[end + 2].text != ")":
        return False
    place = doc[end + 1]
    if place.ent_type_ in _PLACE_ENTITIES:
        return True
    return place.pos_ == "PROPN" and place.is_title and not is_given_name(place.text)


def _event_votes(span: Span, words: EnglishWords, weights: Weights) -> list[TypeVote]:
    root = span.root
    parts = words.event_part_nouns
    modifies = root.dep_ in {"compound", "amod", "nmod"}
    if modifies and root.head.lemma_.lower() in parts:  # "Quinta tickets"
        return [TypeVote(EntityLabel.EVENT, weights.event_frame, "frame:event_part")]
    if _prep_object_of(span, {"to", "for"}, parts):  # "tickets to Riverbloom"
        return [TypeVote(EntityLabel.EVENT, weights.event_frame, "frame:event_part")]
    if _prep_object_of(span, {"at"}, words.event_nouns):  # "the tour at Riverbloom"
        return [TypeVote(EntityLabel.EVENT, weights.event_venue, "frame:event_venue")]
    return []


def _prep_object_of(span: Span, preps: set[str], nouns: frozenset[str]) -> bool:
    """Whether the name is the object of one of ``preps`` that hangs off one of ``nouns``,
    or off a verb whose object is one ("got tickets to X", "quit my job at X")."""
    root = span.root
    prep = root.head
    if root.dep_ != "pobj" or prep.lower_ not in preps:
        return False
    attached = prep.head
    if attached.lemma_.lower() in nouns and attached.pos_ == "NOUN":
        return True
    before = span.doc[prep.i - 1] if prep.i > 0 else None  # a parse that hangs it elsewhere
    if before is not None and before.pos_ == "NOUN" and before.lemma_.lower() in nouns:
        return True
    objects = (c for c in attached.children if c.dep_ in {"dobj", "obj"})
    return attached.pos_ in {"VERB", "AUX"} and any(o.lemma_.lower() in nouns for o in objects)


def _on_a_platform(span: Span) -> bool:
    """ "we're still on Grafana", "are you on Quillo?": being on a named thing that is no
    place (the caller asks the gazetteer) is using it."""
    root = span.root
    prep = root.head
    on = root.dep_ == "pobj" and prep.lower_ == "on" and prep.head.lemma_ == "be"
    return on and root.ent_type_ not in _PLACE_ENTITIES  # "on Maui"


def _holds_a_document(span: Span, words: EnglishWords) -> bool:
    """ "I need the claims report in Smartsheet", "my notes in Keep": what a document is in,
    when no place of the world (the caller asks), is the tool that holds it."""
    root = span.root
    prep = root.head
    if root.dep_ != "pobj" or prep.lower_ not in {"in", "on"} or prep.head.i == prep.i:
        return False
    return prep.head.lemma_.lower() in words.document_nouns


def _way_of_doing(span: Span) -> bool:
    """ "Strida is how I track my runs": the subject of "be" whose complement is a "how"
    clause is a means, a tool (a given name is someone: the caller asks)."""
    root = span.root
    if root.dep_ != "nsubj" or root.head.lemma_ != "be":
        return False
    clauses = [c for c in root.head.children if c.dep_ == "ccomp"]
    return any(a.dep_ == "advmod" and a.lower_ == "how" for c in clauses for a in c.children)


def _described_as_an_app(span: Span, words: EnglishWords) -> bool:
    """ "Brenna plans my runs, honestly the best app ever": the subject's clause calls
    something in it a product kind, in apposition."""
    root = span.root
    if root.dep_ != "nsubj":
        return False
    kinds = words.kind_nouns.get(EntityLabel.PRODUCT, frozenset())
    return any(
        t.dep_ == "appos" and t.lemma_.lower() in kinds and t.head.pos_ != "PROPN"
        for t in root.head.subtree
        if t.i >= span.end
    )


def _in_app_talk(span: Span, words: EnglishWords) -> bool:
    """A name the tagger did not take for a person, in a message about an app ("my streak",
    "the subscription"): weak evidence of a product, a vote per mention."""
    if span.root.ent_type_ == "PERSON":
        return False
    return any(t.pos_ == "NOUN" and t.lemma_.lower() in words.app_nouns for t in span.doc)


# Pronouns that only ever stand for people.
_PERSONAL = frozenset({"i", "me", "he", "him", "she", "her", "you"})


def beside_a_person(span: Span) -> bool:
    """ "Ama and I went", "me and Ama": coordinated with a pronoun only people are."""
    root = span.root
    partners = [c for c in root.children if c.dep_ == "conj"]
    if root.dep_ == "conj":
        partners.append(root.head)
    return any(p.pos_ == "PRON" and p.lower_ in _PERSONAL for p in partners)


def someones(span: Span, person_nouns: frozenset[str]) -> bool:
    """ "Ama is Ravi's daughter", "Ama is my cousin": the subject of a copula whose attribute
    is a kin or role noun with an owner."""
    root = span.root
    if root.dep_ != "nsubj" or root.head.lemma_ != "be":
        return False
    return any(
        c.dep_ == "attr"
        and c.lemma_.lower() in person_nouns
        and any(p.dep_ == "poss" for p in c.children)
        for c in root.head.children
    )

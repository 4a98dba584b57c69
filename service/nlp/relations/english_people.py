"""English relation frames about people and what is theirs: kin beside a name ("my aunt
Carmen", "I'm Ana's brother"), a role at an organisation ("Denise, the Riverside coach"),
possession by a pronoun ("my Tesla", "my Figma mockups") and "we at X" / "at X, our …".
Rows of nlp_models/relations.jsonl name the words; english.py runs them.
"""

from __future__ import annotations

from spacy.tokens import Token

from service.nlp.entities.patterns import EntityLabel
from service.nlp.relations.english_clauses import (
    SUBJECT_DEPS,
    FactContext,
    asserted,
    clause_subjects,
    endpoint,
    name_beside,
    prep_objects,
    speaker_by_default,
)
from service.nlp.relations.english_frames import Pairs, matches
from service.nlp.relations.english_targets import targets
from service.nlp.relations.table import Endpoint, RelationRow, mention_endpoint

TOOL_NOT = frozenset({EntityLabel.PERSON, EntityLabel.PLACE, EntityLabel.TEMPORAL})
# A possessed name with a kin word beside it is a relative, not a thing owned ("your aunt Carmen").
_KIN_NOUNS = (
    "aunt uncle grandma grandpa grandad granddad gran cousin sister brother sis bro mom dad "
    "mother father wife husband twin friend bestie buddy homie roommate flatmate"
)
KIN_WORDS = frozenset(_KIN_NOUNS.split())


def kin(fact: FactContext, row: RelationRow, token: Token) -> Pairs:
    if not matches(row, token) or token.pos_ not in {"NOUN", "PROPN", "ADJ"}:
        return
    name = _not_the_owner(fact, token, name_beside(token))
    mention = fact.covering(name) if name is not None else None
    relative = mention_endpoint(mention) if mention else name and endpoint(fact, name)
    bare = name is None and (
        (token.dep_ == "attr" and speaker_by_default(token.head)) or _said_as(token)
    )
    if fact.speaker is not None and (bare or relative == fact.speaker):
        yield from _kin_of_speaker(fact, token)  # "I'm Ana's brother", "being her sister"
        return
    if name is None or relative is None:
        return  # "you're my best friend": whom the message answers (discourse.py) is kin too
    relative = Endpoint(relative.name, EntityLabel.PERSON, relative.start, relative.end)
    hosts = [token, name, token.head] if token.dep_ in {"amod", "compound"} else [token, name]
    owners = [c for h in hosts for c in h.children if c.dep_ == "poss" and c.i != name.i]
    default = fact.speaker if row.speaker_default else _owner_by_article(fact, token)
    owner = endpoint(fact, owners[0]) if owners else default
    if owner is None:
        return
    yield owner, relative
    if token.tag_ in {"NNS", "NNPS"}:  # "my sisters Ingrid and Bo": each of them
        for other in (e for c in name.conjuncts if (e := endpoint(fact, c)) is not None):
            yield owner, Endpoint(other.name, EntityLabel.PERSON, other.start, other.end)


def _owner_by_article(fact: FactContext, noun: Token) -> Endpoint | None:
    """ "Hamza, an old friend from school": a kin noun with "a" apposed to a name, nobody's by
    a possessive, is the speaker's, who tells of them; "a friend of Dev's" is Dev's."""
    if noun.dep_ != "appos" or not any(c.lower_ in {"a", "an"} for c in noun.children):
        return None
    for of in (c for c in noun.children if c.dep_ == "prep" and c.lower_ == "of"):
        for owner in (c for c in of.children if c.dep_ == "pobj"):
            return fact.speaker if owner.lower_ == "mine" else endpoint(fact, owner)
    return fact.speaker


def _not_the_owner(fact: FactContext, noun: Token, name: Token | None) -> Token | None:
    """The name beside a kin noun, unless it is the noun's owner called by name: in "I'm your
    father, Lois" Lois is whom "your" means, and the father is the subject."""
    owners = [c for c in noun.children if c.dep_ == "poss"]
    if name is None or not owners or fact.addressee is None:
        return name
    mention = fact.covering(name)
    called = mention is not None and mention_endpoint(mention).name == fact.addressee.name
    if not called or endpoint(fact, owners[0]) != fact.addressee:
        return name
    subjects = [c for c in noun.head.children if c.dep_ in SUBJECT_DEPS]
    return subjects[0] if noun.dep_ == "attr" and subjects else None


def _said_as(noun: Token) -> bool:
    """ "As your mother, I say no": the speaker speaks as the noun."""
    if noun.dep_ != "pobj" or noun.head.lower_ != "as":
        return False
    return any(c.dep_ in SUBJECT_DEPS and c.lower_ == "i" for c in noun.head.head.children)


def _kin_of_speaker(fact: FactContext, token: Token) -> Pairs:
    """The speaker is the kin of the noun's possessor: "I'm Ana's little brother"."""
    if fact.speaker is None or not asserted(token):
        return
    hosts = [token, token.head] if token.dep_ in {"amod", "compound"} else [token]
    owners = [endpoint(fact, c) for h in hosts for c in h.children if c.dep_ == "poss"]
    for owner in (o for o in owners if o is not None and o != fact.speaker):
        if owner.label is EntityLabel.PERSON:
            yield owner, fact.speaker


def role(fact: FactContext, row: RelationRow, token: Token) -> Pairs:
    """ "Maya Okafor, the Lanterns' drummer", "Denise, the Riverside coach", "their partner X"."""
    if not matches(row, token) or token.pos_ not in {"NOUN", "PROPN"}:
        return
    if token.dep_ == "compound" and token.head.pos_ == "NOUN":
        token = token.head  # "a nurse practitioner with Kaiser": the role is the whole noun
    name = name_beside(token)
    holder = endpoint(fact, name) if name is not None else None
    if holder is None and token.dep_ == "attr" and speaker_by_default(token.head):
        holder = fact.speaker  # "been a Rust dev at X for 2 years"
    if holder is None and token.dep_ == "pobj" and token.head.lower_ == "as":
        # "as a Harbour Choir member I get …": the subject of the clause "as" hangs on.
        holders = [endpoint(fact, s) for s in clause_subjects(token.head.head)]
        holder = next((h for h in holders if h is not None), None)
    if holder is None:
        return
    holder = Endpoint(holder.name, EntityLabel.PERSON, holder.start, holder.end)
    orgs = [c for c in token.children if _names_owner(c)]
    orgs += prep_objects(token, ("at", "of", "for"), depth=0)
    # "an engineer with Google": with an organisation, not with a beard or a friend
    orgs += [o for o in prep_objects(token, ("with",), depth=0) if _an_organisation(fact, o)]
    for target in targets(fact, row, orgs):
        if target.start is not None:
            yield holder, target


def _an_organisation(fact: FactContext, token: Token) -> bool:
    mention = fact.covering(token)
    return mention is not None and mention.voted_label is EntityLabel.ORG


def _names_owner(child: Token) -> bool:
    return bool(child.dep_ == "poss" or (child.dep_ == "compound" and child.pos_ == "PROPN"))


def possessed(fact: FactContext, row: RelationRow, token: Token) -> Pairs:
    """ "my Tesla", "his new Fujifilm": the possessor owns the named thing. Only a name (not
    "my painting") and only a pronoun possessor ("Ed Sheeran's Perfect" is his song)."""
    if not (token.pos_ == "PROPN" or token.text[:1].isupper()):
        return  # read on every token: the cheap test first
    owners = [c for c in token.children if c.dep_ == "poss" and c.tag_ == "PRP$"]
    mention = fact.covering(token) if owners else None
    if mention is None or mention.label is EntityLabel.TEMPORAL:
        return
    if any(c.lower_ in KIN_WORDS or (c.i > token.i and c.pos_ == "NOUN") for c in token.children):
        return  # "your aunt Carmen"; "my Ghent flat", parsed with "flat" under Ghent
    owner = endpoint(fact, owners[0])
    if owner is not None:
        yield owner, mention_endpoint(mention)


def possessed_modifier(fact: FactContext, row: RelationRow, token: Token) -> Pairs:
    """ "my Figma mockups", "I made a Spotify playlist": the named tool is used."""
    if token.pos_ != "NOUN" or fact.covering(token) is not None:
        return
    owners = [c for c in token.children if c.dep_ == "poss"]
    if token.dep_ == "dobj" and [o.lower_ for o in owners] in (["its"], ["their"]):
        # "X has its headquarters in Y": "its" is the subject of "has".
        owners = [s for s in clause_subjects(token.head) if s.pos_ in {"PROPN", "NOUN"}]
    if owners:
        user = endpoint(fact, owners[0])
    elif token.dep_ == "dobj" and matches(row, token.head) and asserted(token):
        users = [e for e in (endpoint(fact, s) for s in clause_subjects(token)) if e is not None]
        user = users[0] if users and users[0] == fact.speaker else None
    else:
        return
    for child in token.children:
        named = child.dep_ == "compound" and (child.pos_ == "PROPN" or child.text[:1].isupper())
        mention = fact.covering(child) if named else None
        if user is not None and mention is not None and mention.label not in TOOL_NOT:
            yield user, mention_endpoint(mention)


def our_prep(fact: FactContext, row: RelationRow, token: Token) -> Pairs:
    """ "At Finch Analytics, our cluster …", "At X we use Y": the speaker is one of X's."""
    if token.dep_ != "prep" or token.lower_ not in row.preps or fact.speaker is None:
        return
    verb = token.head
    if verb.lower_ in {"we", "us"}:  # "we at Haven have ten deadlines": whatever NER calls it
        named = [endpoint(fact, c) for c in token.children if c.dep_ == "pobj"]
        for target in (e for e in named if e is not None and e.start is not None):
            if target.label not in {EntityLabel.PERSON, EntityLabel.TEMPORAL}:
                yield fact.speaker, target
        return
    if verb.pos_ not in {"VERB", "AUX"} or token.i > min(t.i for t in verb.subtree) + 1:
        return
    if not any(t.lower_ in {"we", "our", "us"} for t in verb.subtree):
        return
    objects = [c for c in token.children if c.dep_ == "pobj"]
    for target in targets(fact, row, objects):
        yield fact.speaker, target

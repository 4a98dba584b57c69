"""English relation frames where the relation's source is not the clause's subject: an
employer that hires ("Brightwave took me on", "I was hired by Brightwave") and a home named
without a residence verb ("Halifax has been home for years", "I'm Sudbury-based", "here in
Moncton"); and frames without a relation verb: a place beside a name ("Crumbs (Leith)"), a
place's own noun ("X is Leith's best cafe"), "X is mine", a verdict ("Teams is the worst").
Rows of nlp_models/relations.jsonl name the words; english.py runs them.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

from spacy.tokens import Token

from service.nlp.entities.patterns import EntityLabel
from service.nlp.entities.type_evidence import load_gazetteers, load_type_evidence
from service.nlp.relations.english_clauses import (
    FIRST_PERSON,
    FactContext,
    asserted,
    clause_subjects,
    endpoint,
    prep_objects,
)
from service.nlp.relations.table import (
    Endpoint,
    RelationRow,
    RelationType,
    load_relation_rows,
    mention_endpoint,
    speaker_endpoint,
)

Pairs = Iterator[tuple[Endpoint, Endpoint]]


def matches(row: RelationRow, token: Token) -> bool:
    """Whether the token is one of the row's triggers, by lemma or by form."""
    return not row.trigger_set.isdisjoint(trigger_forms(token))


def trigger_forms(token: Token) -> tuple[str, ...]:
    """The token's lemma and form, and for a regular verb form the stems the small model
    sometimes misses ("hates" is lemmatised "hat")."""
    word = token.lower_
    forms = (token.lemma_.lower(), word)
    if (token.tag_ == "VBZ" and word.endswith("s")) or (
        token.tag_ in {"VBD", "VBN"} and word.endswith("ed")
    ):
        return (*forms, word[:-1], word[:-2])
    if (
        token.pos_ == "NOUN"
        and word.endswith("ing")
        and any(c.dep_ == "aux" for c in token.children)
    ):
        stem = word[:-3]  # "he's teaching at X", tagged a noun: teach, live (livE), run (runN)
        return (*forms, stem, stem + "e", stem[:-1])
    return forms


def employer_subject(fact: FactContext, row: RelationRow, token: Token) -> Pairs:
    """ "X hired me", "X took me on" (the row's ``preps`` are the particles it needs), and the
    passive "I was hired by X": the employer is the subject, the employee the object."""
    lemma = token.lemma_.lower()
    if lemma not in row.trigger or token.pos_ != "VERB" or not asserted(token):
        return
    objects = {c.i for c in token.children if c.dep_ == "dobj"}
    # "let me in last spring": the parser may hang the particle as a preposition of a time;
    # "took me on a tour" is no particle.
    particles = {
        c.lower_
        for c in token.children
        if c.dep_ == "prt"
        or (
            c.dep_ in {"prep", "advmod"}
            and c.i - 1 in objects
            and all(g.ent_type_ in {"DATE", "TIME"} for g in c.children if g.dep_ == "pobj")
        )
    }
    if row.preps and particles.isdisjoint(row.preps):
        return
    if any(c.dep_ == "nsubjpass" for c in token.children):
        people = [c for c in token.children if c.dep_ == "nsubjpass"]
        agents = [c for c in token.children if c.dep_ == "agent"]  # "hired by X"
        employers = [o for a in agents for o in a.children if o.dep_ == "pobj"]
    else:
        people = [c for c in token.children if c.dep_ == "dobj"]
        employers = clause_subjects(token)
    for employer in (e for t in employers if (e := endpoint(fact, t)) is not None):
        if employer.start is None or (
            row.target_labels and employer.label not in row.target_labels
        ):
            continue
        for person in (p for t in people if (p := endpoint(fact, t)) is not None):
            yield person, employer


def home(fact: FactContext, row: RelationRow, token: Token) -> Pairs:
    """ "X has been home (for six years)", "I'm X-based", "here in X": the speaker (or the
    subject) lives there. Triggers: "home", "based", "here"."""
    word = token.lower_
    if word not in row.trigger or not asserted(token):
        return
    if word == "home" and token.head.lemma_ == "be":  # "X has been home", "home is X"
        partner = "attr" if token.dep_ == "nsubj" else "nsubj"
        places = [c for c in token.head.children if c.dep_ == partner]
        people = [fact.speaker]
    elif (
        word == "based" and token.pos_ == "VERB" and token.dep_ != "amod"
    ):  # "I'm based in X", "based out of X"
        hosts = [token, *(c for c in token.children if c.lower_ == "out")]
        places = [o for h in hosts for o in prep_objects(h, ("in", "of"), depth=0)]
        if token.dep_ == "acl":  # "Kestrel, (a studio) based in X": the name described
            described = token.head.head if token.head.dep_ == "appos" else token.head
            people = [endpoint(fact, described)]
        else:
            subjects = [endpoint(fact, s) for s in clause_subjects(token)]
            people = [s for s in subjects if s is not None and s.label is EntityLabel.PERSON]
            people = people or ([fact.speaker] if not subjects else [])
    elif word == "based" and token.dep_ == "amod":  # "I'm Sudbury-based"
        places = [c for c in token.children if c.dep_ in {"npadvmod", "compound"}]
        people = [endpoint(fact, s) for s in clause_subjects(token.head)]
    elif word == "here":  # "here in Moncton it's freezing"
        places = prep_objects(token, ("in",), depth=0)
        people = [fact.speaker]
    else:
        return
    for place in (p for t in places if (p := endpoint(fact, t)) is not None):
        if place.start is None or (row.target_labels and place.label not in row.target_labels):
            continue
        for person in (p for p in people if p is not None and p.start != place.start):
            yield person, place


def mutual(fact: FactContext, row: RelationRow, token: Token) -> Pairs:
    """ "A and B got married", "A married B", "A is married to B", "A and I are friends"."""
    if not matches(row, token) or not asserted(token):
        return
    if token.pos_ not in {"VERB", "ADJ"} and token.dep_ != "attr":
        return
    if row.objects and not any(c.lemma_.lower() in row.objects for c in token.children):
        return  # "go" of "we go way back" needs its "back"; "know", its "each other"
    subjects = clause_subjects(token)
    people = [e for e in (endpoint(fact, s) for s in subjects) if e is not None]
    others = [c for c in token.children if c.dep_ == "dobj"] + prep_objects(token, row.preps, 0)
    people += [e for e in (endpoint(fact, o) for o in others) if e is not None]
    if row.type is RelationType.FAMILY_OF:  # "married to your son": his parent is family too
        people += _whose_kin(fact, others)
    if not others and [s.lower_ for s in subjects] == ["we"]:  # "we're cousins": and you
        people += [e for e in (_named_before(fact, token) or _listener(fact),) if e is not None]
    people = [Endpoint(e.name, EntityLabel.PERSON, e.start, e.end) for e in people]
    for i, first in enumerate(people):
        for later in people[i + 1 :]:
            yield first, later


def _whose_kin(fact: FactContext, others: list[Token]) -> list[Endpoint]:
    """The owners of kin nouns among ``others``: "your" of "married to your son"."""
    nouns = _kin_nouns()
    owners = [
        c for o in others if o.lemma_.lower() in nouns for c in o.children if c.dep_ == "poss"
    ]
    return [e for e in (endpoint(fact, c) for c in owners) if e is not None]


@cache
def _kin_nouns() -> frozenset[str]:
    """The en_kin row's trigger nouns (son, sister, …): no friend or boss."""
    return frozenset(w for r in load_relation_rows() if r.id == "en_kin" for w in r.trigger)


def _named_before(fact: FactContext, token: Token) -> Endpoint | None:
    """ "Hiro is great, we go way back": the one person the fact names before "we", who is
    the other of the two."""
    parties = {e.name.casefold() for e in (fact.speaker, fact.addressee) if e is not None}
    people = {
        m.text.casefold(): m
        for m in fact.before(token)
        if m.label is EntityLabel.PERSON and m.text.casefold() not in parties
    }
    return mention_endpoint(next(iter(people.values()))) if len(people) == 1 else None


def _listener(fact: FactContext) -> Endpoint | None:
    """The one person a fact speaks to: a name it calls, else the other of two speakers."""
    return fact.addressee or speaker_endpoint(fact.conversation.you)


def favourite(fact: FactContext, row: RelationRow, token: Token) -> Pairs:
    """ "My favorite band is Coldplay", "Coldplay is my favourite band": its possessor likes it.
    A trigger that is the noun itself names what is used: "our stack is Rust and Postgres"."""
    noun = token.head if token.dep_ == "amod" else token
    if not matches(row, token) or noun.pos_ not in {"NOUN", "PROPN"} or noun.head.lemma_ != "be":
        return
    owners = [c for c in noun.children if c.dep_ == "poss"]
    partner_dep = {"nsubj": "attr", "attr": "nsubj"}.get(noun.dep_)
    partners = [c for c in noun.head.children if c.dep_ == partner_dep]
    fan = endpoint(fact, owners[0]) if owners else None
    for partner in [*partners[:1], *(partners[0].conjuncts if partners else ())]:
        liked = endpoint(fact, partner)
        if fan is not None and liked is not None and liked.start is not None:
            yield fan, liked


def named_modifier(fact: FactContext, row: RelationRow, token: Token) -> Pairs:
    """ "my Ghent flat", "the Graz branch of Kestrel Bank": a name just before the trigger noun
    is its place; the possessor before the name, or the noun's "of" object, is the source.
    Read by position, as the small model often hangs the noun under the name."""
    doc = token.doc
    if not matches(row, token) or token.i == 0 or fact.covering(token) is not None:
        return
    mention = fact.covering(doc[token.i - 1])
    if mention is None or not _fits_place(row, mention.label, mention.text):
        return
    first = next(t for t in doc[: token.i] if t.idx - fact.base >= mention.start)
    before = doc[first.i - 1] if first.i > token.sent.start else None
    owners = prep_objects(token, ("of",), depth=0)
    if before is not None and (before.tag_ == "PRP$" or before.dep_ == "poss"):
        owners.append(before)
    if token.dep_ == "attr" and token.head.lemma_ == "be":  # "Rivet Labs is an Austin startup"
        owners += [s for s in clause_subjects(token.head) if s.pos_ in {"PROPN", "NOUN"}]
    if not asserted(token):
        return
    for owner in (e for o in owners if (e := endpoint(fact, o)) is not None):
        yield owner, mention_endpoint(mention)


def _fits_place(row: RelationRow, label: EntityLabel, name: str) -> bool:
    """The row's target labels, or a place of the world NER took for a person ("Austin")."""
    if not row.target_labels or label in row.target_labels:
        return True
    return label is EntityLabel.PERSON and load_gazetteers().is_place(name)


# Dependencies of a name that stands alone as a fragment or a clause's subject: a name that is
# some verb's object ("we went to X (Leith)") is not the one being placed.
_STANDING = frozenset({"ROOT", "nsubj", "nsubjpass", "appos", "npadvmod"})


def name_in(fact: FactContext, row: RelationRow, token: Token) -> Pairs:
    """ "Crumbs Bakery (Leith), best scones in town", "Haven Books, over in Leith": a named
    organisation and the place beside it, without a verb. The row's ``preps`` introduce the
    place; its ``trigger`` lists the adverbs that may lead into them ("over in", "right in")."""
    if token.pos_ not in {"PROPN", "NOUN"}:
        return
    if token.dep_ not in _STANDING:
        yield from _placed_after_comma(fact, row, token)
        yield from _the_name_in(fact, row, token)
        return
    source = endpoint(fact, token)
    if source is None or source.start is None or source.label is EntityLabel.TEMPORAL:
        return
    doc = token.doc
    # A place in brackets after a name is where the business is, whatever NER called the
    # name (shop names often read as people's); "X, over in Y" needs X to be no person.
    places = [
        c
        for c in token.children
        if c.dep_ == "appos" and c.i > 0 and doc[c.i - 1].text == "(" and c.pos_ == "PROPN"
    ]
    if source.label is not EntityLabel.PERSON:
        leads = [c for c in token.children if c.lower_ in row.trigger]
        places += [o for h in (token, *leads) for o in prep_objects(h, row.preps, depth=0)]
    for place in (e for t in places if (e := endpoint(fact, t)) is not None):
        if place.start is not None and place.label in _PLACES:
            yield source, place


_PLACES = frozenset({EntityLabel.PLACE, EntityLabel.OTHER})


def _placed_after_comma(fact: FactContext, row: RelationRow, token: Token) -> Pairs:
    """ "owns Hilltop Acres, out in Millbrook", "we ate at Lantern Noodle over in Leith": a
    name some verb took, then a comma or none, a lead adverb and a place. The parser hangs the
    place on the verb; the words in this order say where the name is."""
    mention = fact.covering(token)
    doc = token.doc
    comma = token.i + 1 < len(doc) and doc[token.i + 1].text == ","
    at = token.i + 1 + comma
    if mention is None or at + 2 > len(doc):
        return
    lead, prep = doc[at], doc[at + 1]
    if lead.lower_ not in row.trigger or prep.lower_ not in row.preps:
        return
    if not comma and lead.lower_ not in _DIRECTIONS:  # "runs X over in Y"; "saw X back in May"
        return
    yield from _placed(fact, token, [c for c in prep.children if c.dep_ == "pobj"])


_DIRECTIONS = frozenset({"over", "down", "up", "out"})


def _the_name_in(fact: FactContext, row: RelationRow, token: Token) -> Pairs:
    """ "works at the Kroger in Athens", "stayed at the Marigold Inn in Sedona": "the" before a
    named organisation and a place after it say which of its branches, so where it is."""
    if any(c.dep_ == "det" and c.lower_ == "the" for c in token.children):
        yield from _placed(fact, token, prep_objects(token, row.preps, depth=0))


def _placed(fact: FactContext, name: Token, objects: list[Token]) -> Pairs:
    """The name, when it may be placed, located in each object that is a place."""
    source = endpoint(fact, name)
    if source is None or source.start is None or source.label not in _PLACED_BY_COMMA:
        return
    for obj in objects:
        place = endpoint(fact, obj)
        if place is not None and place.start is not None and place.label in _PLACES:
            yield source, place


# What may be placed by a comma phrase: a person there is visiting or living, not located.
_PLACED_BY_COMMA = frozenset(
    {EntityLabel.ORG, EntityLabel.OTHER, EntityLabel.EVENT, EntityLabel.PLACE}
)


def mine(fact: FactContext, row: RelationRow, token: Token) -> Pairs:
    """ "The bakery is officially mine", "Rosie's is ours now": the subject of "be" whose
    complement is a first-person possessive pronoun belongs to the speaker."""
    if token.lower_ not in row.trigger or token.dep_ not in {"acomp", "attr"}:
        return
    if token.head.lemma_ != "be" or not asserted(token) or fact.speaker is None:
        return
    for subject in clause_subjects(token):
        owned = endpoint(fact, subject)
        if owned is not None and owned.start is not None and owned != fact.speaker:
            yield fact.speaker, owned


def way_of(fact: FactContext, row: RelationRow, token: Token) -> Pairs:
    """ "Strida is how I track my runs", "Tinder is how we met": the subject of "be" whose
    complement is a clause of the speaker's opened by the row's word is what the speaker uses
    to do it. A given name is someone ("Sarah is how I met Tom"), whatever NER said."""
    if token.lower_ not in row.trigger or token.dep_ != "advmod" or fact.speaker is None:
        return
    doing = token.head
    if doing.dep_ != "ccomp" or doing.head.lemma_ != "be" or not asserted(doing.head):
        return
    if not any(c.dep_ == "nsubj" and c.lower_ in FIRST_PERSON for c in doing.children):
        return
    for subject in clause_subjects(doing.head):
        way = endpoint(fact, subject)
        if way is None or way.start is None or load_gazetteers().is_given_name(way.name):
            continue
        if way.label in row.target_labels or way.label is EntityLabel.PERSON:
            yield fact.speaker, way


def verdict(fact: FactContext, row: RelationRow, token: Token) -> Pairs:
    """ "Teams is the worst", "honestly Siri is useless", "Kestrel is the best bank": the
    speaker's judgement of a named thing, from an adjective or a noun ("a lifesaver") of the
    row after "be". Only a clause of the speaker's own (not "Jo says X is great") and not a
    question or a denial."""
    if not matches(row, token) or token.pos_ not in {"ADJ", "NOUN"}:
        return
    host = token.head if token.dep_ == "amod" and token.head.dep_ == "attr" else token
    if host is not token and host.lemma_.lower() in load_type_evidence().en.person_nouns:
        return  # "Kofi is best friends with Dre", "the best dad": a tie, no verdict on a thing
    verb = host.head
    if host.dep_ not in {"acomp", "attr"} or verb.lemma_ != "be" or fact.speaker is None:
        return
    # "Siri is useless, I'm done with it" is parsed as a clause of the one after it.
    spliced = verb.dep_ == "ccomp" and verb.i < verb.head.i
    if (verb.dep_ not in {"ROOT", "conj"} and not spliced) or not asserted(verb):
        return
    for subject in (c for c in verb.children if c.dep_ == "nsubj"):
        if subject.pos_ != "PROPN" and fact.covering(subject) is None:
            continue  # "the food is amazing": no name judged
        judged = endpoint(fact, subject)
        if judged is not None and judged.start is not None and judged.label in _JUDGED:
            yield fact.speaker, judged


_JUDGED = frozenset(set(EntityLabel) - {EntityLabel.TEMPORAL})


def place_possessor(fact: FactContext, row: RelationRow, token: Token) -> Pairs:
    """ "Crumbs is Leith's best bakery", "Leith's oldest pub is the Shore Inn": a named thing
    described as a place's own noun is in that place. Triggered by "be"."""
    if not matches(row, token) or not asserted(token):
        return
    subjects = [c for c in token.children if c.dep_ == "nsubj"]
    attributes = [c for c in token.children if c.dep_ == "attr"]
    for first in subjects:
        for second in attributes:
            for named, noun in ((first, second), (second, first)):
                yield from _place_of(fact, row, named, noun)


def _place_of(fact: FactContext, row: RelationRow, named: Token, noun: Token) -> Pairs:
    if noun.pos_ != "NOUN" or (named.pos_ != "PROPN" and fact.covering(named) is None):
        return
    thing = endpoint(fact, named)
    if thing is None or thing.start is None or thing.label in _NOT_PLACED:
        return
    for owner in (c for c in noun.children if c.dep_ == "poss" and c.pos_ == "PROPN"):
        place = endpoint(fact, owner)
        if place is not None and place.start is not None and place.label in row.target_labels:
            yield thing, place


_NOT_PLACED = frozenset({EntityLabel.PERSON, EntityLabel.TEMPORAL})


# Where a tool's clause names the speaker's side: "saves me hours", "plans all my runs",
# "is clicking for me", "crashes on my laptop".
_SERVED_DEPS = frozenset({"dobj", "dative", "pobj"})
# Dependencies the small model gives a tool name it does not know, before its verb
# ("Ledgerly saves me hours": Ledgerly an adverb).
_SUBJECT_LIKE = frozenset({"nsubj", "advmod", "npadvmod"})
_PERSONAL = frozenset({"he", "she", "him", "his", "her", "hers", "himself", "herself"})


def tool_subject(fact: FactContext, row: RelationRow, token: Token) -> Pairs:
    """A named thing (not a person or place) that does something for the speaker, or to the
    speaker's things, is used by the speaker: "X plans all my runs", "X saves me hours"."""
    if token.pos_ != "VERB" or fact.speaker is None or token.lemma_.lower() in row.cancelled_by:
        return
    if not asserted(token) or not _serves_speaker(token):
        return
    if any(t.lower_ in _PERSONAL for t in token.subtree):
        return  # "Jake left his Switch at my place": the subject is someone
    named = [c for c in token.children if c.dep_ in _SUBJECT_LIKE and c.i < token.i]
    people = {p.casefold() for p in (*fact.conversation.recent, *fact.conversation.current)}
    people |= {e.name.casefold() for e in (fact.speaker, fact.addressee) if e is not None}
    for subject in [*clause_subjects(token), *named]:
        if fact.covering(subject) is None:
            continue
        tool = endpoint(fact, subject)
        if tool is None or tool.start is None or tool.name.casefold() in people:
            continue  # "Jake left his Switch at my place": Jake was named as a person lately
        if tool.label in row.target_labels:
            yield fact.speaker, tool


def _serves_speaker(verb: Token) -> bool:
    words = [c for c in verb.children if c.dep_ in _SERVED_DEPS]
    words += [o for p in verb.children if p.dep_ == "prep" for o in p.children if o.dep_ == "pobj"]
    for xcomp in (c for c in verb.children if c.dep_ == "xcomp"):  # "keeps crashing on my X"
        words += [o for p in xcomp.children if p.dep_ == "prep" for o in p.children]
    owners = [c for w in words for c in w.children if c.dep_ == "poss"]
    return any(t.lower_ in FIRST_PERSON for t in (*words, *owners))

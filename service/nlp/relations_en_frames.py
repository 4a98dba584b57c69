"""English relation frames where the relation's source is not the clause's subject: an
employer that hires ("Brightwave took me on", "I was hired by Brightwave") and a home named
without a residence verb ("Halifax has been home for years", "I'm Sudbury-based", "here in
Moncton"). Rows of nlp_models/relations.jsonl name the words; relations_en.py runs them.
"""

from __future__ import annotations

from collections.abc import Iterator

from spacy.tokens import Token

from service.nlp.english_clauses import (
    FactContext,
    asserted,
    clause_subjects,
    endpoint,
    prep_objects,
)
from service.nlp.relation_table import Endpoint, RelationRow

Pairs = Iterator[tuple[Endpoint, Endpoint]]


def employer_subject(fact: FactContext, row: RelationRow, token: Token) -> Pairs:
    """ "X hired me", "X took me on" (the row's ``preps`` are the particles it needs), and the
    passive "I was hired by X": the employer is the subject, the employee the object."""
    lemma = token.lemma_.lower()
    if lemma not in row.trigger or token.pos_ != "VERB" or not asserted(token):
        return
    particles = {c.lower_ for c in token.children if c.dep_ == "prt"}
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
    if word == "home" and token.head.lemma_ == "be":
        places = [c for c in token.head.children if c.dep_ == "nsubj"]
        people = [fact.speaker]
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

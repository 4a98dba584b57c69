"""What the parse says about two names in one English sentence: the learned reader's features.

The rows of the relation table name their trigger words; a sentence that says the same with
another verb ("Second Chance took me on", "I clock in at X") is missed. The learned reader
(``learned.py``) looks at every pair a rule did not link and weighs general evidence instead:
the dependency path between the two (its labels and words), the word that governs the target
and its preposition, the two types, and whether the clause is asserted, denied or planned. The
same function describes a pair when the model is trained (scripts/train_relation_model.py) and
when a sentence is read, so the two cannot drift.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache

from spacy.tokens import Span, Token

from service.nlp.entities.type_evidence import load_type_evidence
from service.nlp.entities.type_features import governor as governor_of
from service.nlp.relations.english_clauses import (
    FIRST_PERSON,
    PERSON_PRONOUNS,
    SECOND_PERSON,
    SUBJECT_DEPS,
    asserted,
    clause_verb,
    clause_words,
    denied,
    ends_with_question_mark,
    happened,
)
from service.nlp.relations.learned import ADDRESSEE, Pair, Party, polarity
from service.nlp.relations.table import load_relation_rows

# Words that carry no evidence of a relation on a path or between two names.
_PLAIN_POS = frozenset({"DET", "PUNCT", "SPACE", "CCONJ", "X", "SYM", "INTJ"})
# The dependents of a clause's verb that say what it predicates: "is awful", "hate it".
_PREDICATE_DEPS = frozenset({"acomp", "attr", "dobj", "advmod", "oprd", "xcomp", "neg"})
# Verbs that say nothing of a relation by themselves, however many rows list them.
_EMPTY_VERBS = frozenset({"be", "have", "do", "get", "'s", "’s"})
_MAX_BETWEEN = 6  # the words between two names read as a bag; farther apart, only the path


@dataclass(frozen=True)
class Anchor:
    """One end of a candidate pair: the token that stands for it and what it is."""

    token: Token
    kind: str  # a Party's value, or the entity type of the name (PERSON, ORG, PLACE, ...)


def pairs(sentence: Span, names: list[Anchor], speaker: bool, addressee: bool) -> list[Pair]:
    """Every ordered pair of names in the sentence, and each party with each name (and the
    speaker with the addressee), described by ``features``. A party stands at its word (I, you)
    nearest the name; the speaker, in a sentence without first person ("Just got hired at X
    lol"), at the sentence's root, marked implicit."""
    me = _words_of(sentence, FIRST_PERSON) if speaker else []
    you = _words_of(sentence, SECOND_PERSON) if addressee else []
    people = [n.token for n in names if n.kind == "PERSON"]
    found: list[Pair] = []
    for j, target in enumerate(names):
        if speaker:
            # A fact may hold two sentences: the implicit speaker stands at the target's own.
            anchor = _nearest(me, target.token) if me else target.token.sent.root
            implicit = [] if me else ["speaker=implicit"]
            found += _party_pair(Party.SPEAKER, anchor, j, target, people, implicit)
        found += _party_pair(Party.ADDRESSEE, _nearest(you, target.token), j, target, people)
        for i, source in enumerate(names):
            if i != j and _linked(source.token, target.token):
                found.append(_pair(i, j, source, target, people))
    if me and you:
        listener = Anchor(you[0], ADDRESSEE)
        speaker_word = _nearest(me, you[0])
        found += _party_pair(Party.SPEAKER, speaker_word, Party.ADDRESSEE, listener, people)
    return found


def _words_of(sentence: Span, words: frozenset[str]) -> list[Token]:
    return [t for t in sentence if t.lower_ in words and t.pos_ == "PRON"]


def _party_pair(
    party: Party,
    anchor: Token | None,
    target_index: int | Party,
    target: Anchor,
    people: list[Token],
    extra: list[str] | None = None,
) -> list[Pair]:
    if anchor is None or anchor.i == target.token.i:
        return []
    pair = _pair(party, target_index, Anchor(anchor, party.value), target, people)
    described = [*pair.features, *(extra or [])]
    # A party's pairs weigh their evidence apart from two names' as well: "hired" between
    # Dana and Stripe says nothing of the speaker.
    own = [f"{party.value}:{f}" for f in described]
    return [replace(pair, features=[*described, *own])]


def _pair(
    source_index: int | Party,
    target_index: int | Party,
    source: Anchor,
    target: Anchor,
    people: list[Token],
) -> Pair:
    """The pair described, with what its linking clause says of itself: whether it is said as a
    fact, and its words that may undo it ("I quit my job at X")."""
    described, top = _described(source, target)
    return Pair(
        source_index,
        target_index,
        described,
        source.kind,
        target.kind,
        asserted=not {"clause=not_asserted", "clause=question", "clause=imperative"}
        & set(described)
        and _said_of(source.token, target.token, people),
        undoing=clause_words(top),
    )


def _said_of(a: Token, b: Token, people: list[Token]) -> bool:
    """Whether the clause the target is in is about the source: it has no subject of its own,
    a subject holds one of the two (the parser may hang a name beside its noun as a second
    subject: "my bro Emeka is at X"), or it is he or she after the source, the one person
    its sentence names before it ("my cousin Anjali lives near, she's a nurse at X"; not in
    "Lena met Omar, and she works at X")."""
    verb = clause_verb(b)
    subjects = [c for c in verb.children if c.dep_ in SUBJECT_DEPS]
    if not subjects:
        return True
    # "Priya's dad owns X" is not about Priya; "Sione's mum and my mum are sisters" is about both.
    kin_of_both = _owns_person(a) and _owns_person(b)
    held = [t for s in subjects for t in s.subtree if t.i in {a.i, b.i}]
    if any(kin_of_both or not _owns_person(t) for t in held):
        return True
    subject = subjects[0]
    start = subject.sent.start
    named = [p for p in people if start <= p.i < subject.i]
    return subject.lower_ in PERSON_PRONOUNS and [p.i for p in named] == [a.i]


def _owns_person(token: Token) -> bool:
    """A possessor of a kin or role noun ("Priya's dad"): it only names whose the person is."""
    head = token.head
    return token.dep_ == "poss" and head.lemma_.lower() in load_type_evidence().en.person_nouns


def _linked(a: Token, b: Token) -> bool:
    up, down = _path(a, b)
    return bool(up or down)


def _nearest(tokens: list[Token], target: Token) -> Token | None:
    """The token of ``tokens`` with the shortest dependency path to ``target``."""
    best: tuple[int, int, Token] | None = None
    for token in tokens:
        up, down = _path(token, target)
        if up or down:
            rank = (len(up) + len(down), abs(token.i - target.i), token)
            best = rank if best is None or rank[:2] < best[:2] else best
    return None if best is None else best[2]


def _described(source: Anchor, target: Anchor) -> tuple[list[str], Token]:
    """The evidence about ``source`` → ``target`` in their sentence, as feature names, and the
    lowest token governing both (their linking clause)."""
    a, b = source.token, target.token
    up, down = _path(a, b)
    types = f"{source.kind}>{target.kind}"
    found = [f"types={types}", f"target={target.kind}", f"source={source.kind}"]
    found.append("order=" + ("source_first" if a.i < b.i else "target_first"))
    labels = "^".join(t.dep_ for t in up) + "|" + "v".join(t.dep_ for t in down)
    found += [f"path={labels}", f"path={labels}|{target.kind}"]
    top = _top(a, up)
    found += [f"top={top.lemma_.lower()}", f"top={top.lemma_.lower()}|{types}"]
    for token in _between_on_path(a, b, up, down):
        if token.pos_ not in _PLAIN_POS:
            found += [f"on_path={token.lemma_.lower()}", f"on_path={token.lemma_.lower()}|{types}"]
            lemma = token.lemma_.lower()
            if lemma not in _EMPTY_VERBS:
                found += [f"trigger={kind}" for kind in _triggers().get(lemma, ())]
    governor = governor_of(b)
    found += [f"target_dep={b.dep_}", f"governor={governor}", f"governor={governor}|{types}"]
    found.append(f"source_dep={a.dep_}")
    found += _between(a, b)
    found += _clause(top)
    found += _clause_triggers(b)
    found += _subject(top)
    found += _owner(a, b)
    found += _apposed(b)
    return found + polarity(
        "trigger=LIKES" in found or "clause_trigger=LIKES" in found,
        "trigger=DISLIKES" in found or "clause_trigger=DISLIKES" in found,
    ), top


def _path(a: Token, b: Token) -> tuple[list[Token], list[Token]]:
    """The tokens from ``a`` up to the lowest common head (excluded), and from ``b`` up to it;
    two empty lists when the two are in different sentences."""
    from_b = [b, *b.ancestors]
    above_b = {t.i: n for n, t in enumerate(from_b)}
    up: list[Token] = []
    for t in [a, *a.ancestors]:
        if t.i in above_b:
            return up, from_b[: above_b[t.i]]
        up.append(t)
    return [], []


def _top(a: Token, up: list[Token]) -> Token:
    """The lowest token that governs both."""
    return up[-1].head if up else a


def _between_on_path(a: Token, b: Token, up: list[Token], down: list[Token]) -> list[Token]:
    top = _top(a, up)
    inner = [t for t in [*up, *down] if t.i not in {a.i, b.i}]
    return [*inner, top] if top.i not in {a.i, b.i} else inner


def _between(a: Token, b: Token) -> list[str]:
    lo, hi = sorted((a.i, b.i))
    words = [t for t in a.doc[lo + 1 : hi] if t.pos_ not in _PLAIN_POS]
    if len(words) > _MAX_BETWEEN:
        return ["between=far"]
    return [f"between={t.lemma_.lower()}" for t in words]


def _clause(top: Token) -> list[str]:
    """Whether the clause that links the two is said as a fact, denied, planned or asked."""
    found = []
    if not asserted(top):
        found.append("clause=not_asserted")
    if denied(top):
        found.append("clause=denied")
    if not happened(top):
        found.append("clause=not_past")
    if ends_with_question_mark(top):
        found.append("clause=question")
    if _imperative(clause_verb(top)):
        found.append("clause=imperative")
    return found


def _imperative(verb: Token) -> bool:
    """ "Grab a Steam Deck then", "Try the Blue Kettle": a bare verb opening its sentence with
    no subject asks the listener to do it; nothing is said to be so."""
    opening = next((t.i for t in verb.sent if not t.is_punct and t.pos_ != "INTJ"), None)
    return (
        verb.tag_ == "VB"
        and verb.i == opening
        and verb.dep_ == "ROOT"
        and not any(c.dep_ in {"nsubj", "nsubjpass", "aux", "expl"} for c in verb.children)
    )


@cache
def _triggers() -> dict[str, frozenset[str]]:
    """The relation types whose English rows a lemma triggers ("hire": WORKS_AT): the model
    weighs the word's class where it has not seen the word."""
    found: dict[str, set[str]] = {}
    for row in load_relation_rows():
        if row.lang == "en" and not row.idiom:
            for word in row.trigger:
                found.setdefault(word, set()).add(row.type.value)
    return {word: frozenset(kinds) for word, kinds in found.items()}


def _clause_triggers(target: Token) -> list[str]:
    """What the target's clause says beside the path: its predicate's words ("Jo says X is
    awful") and the relation types they trigger in the table."""
    verb = clause_verb(target)
    words = {
        t.lemma_.lower()
        for t in (verb, *verb.children)
        if t.dep_ in _PREDICATE_DEPS or t.i == verb.i
    } - _EMPTY_VERBS
    found = {f"predicate={word}" for word in words}
    found |= {f"clause_trigger={kind}" for word in words for kind in _triggers().get(word, ())}
    return sorted(found)


def _subject(top: Token) -> list[str]:
    """Who the linking clause is about: "subject=first", "subject=name", "subject=none"..."""
    subjects = [c for c in top.children if c.dep_ in {"nsubj", "nsubjpass"}]
    if not subjects:
        return ["subject=none"]
    lower = subjects[0].lower_
    if lower in FIRST_PERSON:
        return ["subject=first"]
    if subjects[0].pos_ == "PRON":
        return [f"subject={lower}"]
    return ["subject=name" if subjects[0].pos_ == "PROPN" else "subject=noun"]


def _apposed(b: Token) -> list[str]:
    """The noun the target is set beside ("Hamza, an old friend from school"; "my cousin,
    Lena"), and the relation types the table's rows give it."""
    nouns = [c for c in b.children if c.dep_ == "appos"]
    if b.dep_ == "appos":
        nouns.append(b.head)
    lemmas = {n.lemma_.lower() for n in nouns if n.pos_ == "NOUN"}
    found = {f"apposed={lemma}" for lemma in lemmas}
    found |= {f"apposed_trigger={kind}" for lemma in lemmas for kind in _triggers().get(lemma, ())}
    return sorted(found)


def _owner(a: Token, b: Token) -> list[str]:
    """ "my Prius", "Dana's bakery": the source owns the target's noun phrase."""
    owners = [c for c in b.children if c.dep_ == "poss"]
    if any(o.i == a.i for o in owners):
        return ["owner=source"]
    return ["owner=other"] if owners else []

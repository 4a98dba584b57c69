"""English relations from the dependency parse of en_core_web_sm.

Each table row names trigger lemmas and a ``kind``, the parse shape that links the trigger to
its two endpoints. An endpoint token becomes an Endpoint through, in order: first person (the
speaker), second person (the person addressed by name in the fact, if any), a third-person
pronoun resolved inside the fact (one candidate only), the mention that covers the token, a
kin or role noun's named apposition, or a capitalised proper-noun run the mentions missed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

from spacy.tokens import Span, Token

from service.nlp.patterns import EntityLabel, EntityMention
from service.nlp.relations import (
    Endpoint,
    RelationKind,
    RelationMention,
    RelationRow,
    RelationType,
    keep_relation,
    mention_endpoint,
    speaker_endpoint,
)

FIRST_PERSON = frozenset({"i", "me", "my", "myself", "mine", "we", "us", "our", "ours"})
SECOND_PERSON = frozenset({"you", "your", "yours"})
PERSON_PRONOUNS = frozenset({"he", "she", "him", "her", "his", "hers"})
THING_PRONOUNS = frozenset({"it", "its", "they", "them", "their"})
SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass"})
# Dependents through which a verb's prepositions hang: "went hiking in X", "writing code in X".
PREP_HOSTS = frozenset({"dobj", "xcomp", "advmod", "npadvmod", "prt", "acomp", "attr", "oprd"})
# Prepositions crossed on the way to a place: "right on the river in Porto".
PASS_THROUGH = frozenset({"on", "at", "near", "by", "in", "inside", "like"})
# "my team uses X", "our company is in Y": a group named by its possessor stands for it.
COLLECTIVE = frozenset(
    {
        "team",
        "company",
        "lab",
        "group",
        "startup",
        "department",
        "office",
        "band",
        "crew",
        "squad",
        "family",
    }
)
# Last words of names that the small NER model calls PERSON but that are places or events.
NOT_PERSON_HEADS = frozenset(
    [
        "Park",
        "Street",
        "Avenue",
        "Road",
        "Lake",
        "River",
        "Bay",
        "Beach",
        "Island",
        "Mountain",
        "Mountains",
        "Hall",
        "Station",
        "Square",
        "University",
        "College",
        "School",
        "Festival",
        "Club",
        "Center",
        "Centre",
        "Museum",
        "Stadium",
        "Arena",
        "Airport",
        "Bridge",
        "Market",
        "Mall",
        "Valley",
        "Canyon",
        "Hills",
    ]
)
# Types whose target may be named by a modifier of the object: "works in Finch's office",
# "shipped the Pantry Pal beta", "with the Riverside Running Club".
NAMED_BY_MODIFIER = frozenset(
    {
        RelationType.WORKS_AT,
        RelationType.STUDIES_AT,
        RelationType.MEMBER_OF,
        RelationType.VISITED,
        RelationType.CREATED,
        RelationType.OWNS,
    }
)
# Kinds whose trigger is not the token being read (or that have none).
UNTRIGGERED = frozenset(
    {RelationKind.POSSESSED, RelationKind.POSSESSED_MODIFIER, RelationKind.OUR_PREP}
)
INTERROGATIVE = frozenset({"WDT", "WP", "WP$", "WRB"})
INHERITS_SUBJECT = frozenset({"xcomp", "conj", "advcl", "acomp"})
UNSEEN_NOT_TARGET = frozenset({EntityLabel.TEMPORAL})
TOOL_NOT = frozenset({EntityLabel.PERSON, EntityLabel.PLACE, EntityLabel.TEMPORAL})
# A possessed name with a kin word beside it is a relative, not a thing owned ("your aunt Carmen").
KIN_WORDS = frozenset(
    {
        "aunt",
        "uncle",
        "grandma",
        "grandpa",
        "cousin",
        "sister",
        "brother",
        "mom",
        "dad",
        "mother",
        "father",
        "wife",
        "husband",
    }
)
PLAN_VERBS = frozenset({"want", "plan", "hope", "wish", "like", "love", "need", "try", "would"})
FUTURE_AUX = frozenset({"will", "'ll", "’ll", "wo", "shall", "gonna", "would", "could", "might"})


@dataclass(frozen=True)
class _Fact:
    """One fact being read: its text, where it starts in the doc, what is known in it."""

    text: str
    base: int
    mentions: list[EntityMention]
    speaker: Endpoint | None
    addressee: Endpoint | None

    def covering(self, token: Token) -> EntityMention | None:
        start = token.idx - self.base
        end = start + len(token.text)
        hits = [m for m in self.mentions if m.start <= start and end <= m.end]
        return max(hits, key=lambda m: m.end - m.start) if hits else None

    def before(self, token: Token) -> list[EntityMention]:
        return [m for m in self.mentions if m.end <= token.idx - self.base]


class EnglishRelations:
    """The English rows of the relation table, applied to one parsed fact at a time."""

    def __init__(self, rows: list[RelationRow]) -> None:
        self.rows = rows
        # Rows by trigger word, so that a token is tried only against rows it can start.
        self._by_word: dict[str, list[RelationRow]] = {}
        self._always: list[RelationRow] = []
        for row in rows:
            if row.kind in UNTRIGGERED:
                self._always.append(row)
            for word in () if row.kind in UNTRIGGERED else row.trigger:
                self._by_word.setdefault(word, []).append(row)

    def find(
        self, text: str, mentions: list[EntityMention], speaker: str | None, sentence: Span
    ) -> list[RelationMention]:
        base = sentence.start_char + sentence.text.index(text) if text else sentence.start_char
        fact = _Fact(text, base, mentions, speaker_endpoint(speaker), None)
        fact = _Fact(text, base, mentions, fact.speaker, _addressee(fact))
        found: list[RelationMention] = []
        for token in sentence:
            for row in self._rows_for(token):
                for source, target in _READERS[row.kind](fact, row, token):
                    relation = RelationMention(
                        row.type, source, target, f"dep:{row.id}", row.confidence
                    )
                    keep_relation(found, relation)
        return found

    def _rows_for(self, token: Token) -> list[RelationRow]:
        lemma, lower = token.lemma_.lower(), token.lower_
        rows = self._by_word.get(lemma, []) + self._by_word.get(lower, [])
        return [*dict.fromkeys(rows), *self._always]


# --- endpoints ---------------------------------------------------------------------------


def endpoint(fact: _Fact, token: Token) -> Endpoint | None:
    """What a token names in this fact, or None when it names nothing that can be resolved."""
    lower = token.lower_
    if token.pos_ == "PRON" or token.tag_ in {"PRP", "PRP$"}:
        if lower in FIRST_PERSON:
            return fact.speaker
        if lower in SECOND_PERSON:
            return fact.addressee
        if lower in PERSON_PRONOUNS:
            return _resolve_person(fact, token)
        if lower in THING_PRONOUNS:
            return _resolve_thing(fact, token)
        return None
    appositive = [c for c in token.children if c.dep_ == "appos" and c.pos_ == "PROPN"]
    if token.pos_ == "NOUN" and appositive:
        return endpoint(fact, appositive[0])
    owners = [c for c in token.children if c.dep_ == "poss"]
    if token.lemma_.lower() in COLLECTIVE and owners:  # "my team works in X": the speaker
        return endpoint(fact, owners[0])
    mention = fact.covering(token)
    span = _proper_run(token, fact.base)
    if mention is not None:
        if mention.label is EntityLabel.PERSON and mention.text.split()[-1] in NOT_PERSON_HEADS:
            mention = replace(mention, label=EntityLabel.PLACE)  # "Grant Park", mislabelled
        if span is not None and span[0] < mention.start and mention.end <= span[1]:
            return Endpoint(fact.text[span[0] : span[1]], mention.label, span[0], span[1])
        return mention_endpoint(mention)
    if span is not None:
        return Endpoint(fact.text[span[0] : span[1]], EntityLabel.OTHER, span[0], span[1])
    return None


def _proper_run(token: Token, base: int) -> tuple[int, int] | None:
    """Offsets in the fact of the capitalised name a PROPN token heads."""
    if token.pos_ != "PROPN" or not token.text[:1].isupper():
        return None
    first = token
    doc = token.doc
    while first.i > token.sent.start:
        left = doc[first.i - 1]
        if not (_continues_name(left) and first.i <= left.head.i <= token.i):
            break
        first = left
    last = token
    # "University of Washington": a name that continues through "of" + a proper noun.
    for right in token.rights:
        if right.dep_ == "prep" and right.lower_ == "of" and right.i == token.i + 1:
            objects = [c for c in right.children if c.dep_ == "pobj" and c.pos_ == "PROPN"]
            if objects and token.text[:1].isupper():
                last = objects[0]
    return first.idx - base, last.idx + len(last.text) - base


def _continues_name(left: Token) -> bool:
    capitalised = left.pos_ == "PROPN" or (
        left.text[:1].isupper() and left.pos_ in {"ADJ", "NOUN", "VERB"}
    )
    return capitalised and left.dep_ in {"compound", "flat", "amod", "nmod"}


def _name_of(noun: Token) -> Token | None:
    """The proper name a kin or role noun stands beside: "sister Dana", "Dana, my sister",
    "aunt Carmen", "partner Hiro Tanaka"."""
    for child in noun.children:
        if child.dep_ == "appos" and child.pos_ == "PROPN":
            return child
    head = noun.head
    if noun.dep_ in {"compound", "appos", "amod"} and head.pos_ == "PROPN" and head.i != noun.i:
        return head
    doc = noun.doc
    if noun.i + 1 < len(doc) and doc[noun.i + 1].pos_ == "PROPN":
        run = doc[noun.i + 1]
        while run.i + 1 < len(doc) and doc[run.i + 1].pos_ == "PROPN":
            run = doc[run.i + 1]
        return run
    return None


def _resolve_person(fact: _Fact, token: Token) -> Endpoint | None:
    """he/she/his/her: the named subject of the clause ("Kwame took photos on his Fujifilm"),
    else the one person named before it in the fact."""
    if token.dep_ == "poss":
        for subject in _subjects(token):
            if subject.pos_ == "PROPN":
                return endpoint(fact, subject)
    skip = {e.name.casefold() for e in (fact.speaker, fact.addressee) if e is not None}
    people = {
        m.text.casefold(): m
        for m in fact.before(token)
        if m.label in {EntityLabel.PERSON, EntityLabel.OTHER} and m.text.casefold() not in skip
    }
    if len(people) == 1:
        return mention_endpoint(next(iter(people.values())), EntityLabel.PERSON)
    return None


def _resolve_thing(fact: _Fact, token: Token) -> Endpoint | None:
    """it/its/they/their: the one non-person thing named before it in the fact."""
    subjects = [fact.covering(s) for s in _subjects(token)]
    things = {
        m.text.casefold(): m
        for m in fact.before(token)
        if m.label not in {EntityLabel.PERSON, EntityLabel.PLACE, EntityLabel.TEMPORAL}
        and m not in subjects
    }
    if len(things) == 1:
        return mention_endpoint(next(iter(things.values())))
    return None


def _addressee(fact: _Fact) -> Endpoint | None:
    """The person a fact speaks to by name: "Diego, could we …" or "…, Jordan!"."""
    text = fact.text
    for m in fact.mentions:
        if m.label not in {EntityLabel.PERSON, EntityLabel.OTHER}:
            continue
        starts = m.start == 0 or text[: m.start].rstrip().endswith((".", "!", "?"))
        opens = starts and text[m.end : m.end + 1] in {",", "!"}
        closes = text[: m.start].rstrip().endswith(",") and not text[m.end :].strip(" !.?")
        if opens or closes:
            return mention_endpoint(m, EntityLabel.PERSON)
    return None


# --- clause structure --------------------------------------------------------------------


def _clause_verb(token: Token) -> Token:
    verb = token
    for _ in range(4):
        if verb.pos_ in {"VERB", "AUX"} or verb.dep_ == "ROOT" or verb.head.i == verb.i:
            return verb
        verb = verb.head
    return verb


def _subjects(token: Token) -> list[Token]:
    """The subject tokens of the clause a token belongs to, with their conjuncts."""
    verb = _clause_verb(token)
    for _ in range(4):
        subjects = [c for c in verb.children if c.dep_ in SUBJECT_DEPS]
        if subjects:
            found = [t for s in subjects for t in (s, *s.conjuncts)]
            return [t for t in found if not _is_interjection(t)] + _lost_conjuncts(subjects)
        if verb.dep_ not in INHERITS_SUBJECT or verb.head.i == verb.i:
            return []
        verb = verb.head
    return []


def _is_interjection(token: Token) -> bool:
    """ "Yep, Becca and Miguel got married": a lone word opening the sentence before a comma."""
    doc = token.doc
    following = doc[token.i + 1] if token.i + 1 < len(doc) else None
    alone = all(c.dep_ in {"conj", "cc", "punct"} for c in token.children)
    return token.i == token.sent.start and following is not None and following.text == "," and alone


def _lost_conjuncts(subjects: list[Token]) -> list[Token]:
    """ "Jake and I stream X", parsed with Jake outside the clause: the name before "and"."""
    doc = subjects[0].doc
    lost = []
    for subject in subjects:
        i = subject.i
        if i < 2 or doc[i - 1].lower_ not in {"and", "&"}:
            continue
        name = doc[i - 2]
        if name.pos_ == "PROPN" and name not in subjects and name.dep_ not in {"conj", "compound"}:
            lost.append(name)
    return lost


def _sources(fact: _Fact, row: RelationRow, token: Token) -> list[Endpoint]:
    found = [e for e in (endpoint(fact, s) for s in _subjects(token)) if e is not None]
    if found or not row.speaker_default or fact.speaker is None:
        return found
    # A diary-style statement without a subject: "Back from Lisbon!", "Just finished X".
    verb = _clause_verb(token)
    own = [c for c in verb.children if c.dep_ in SUBJECT_DEPS]
    if not own and verb.tag_ != "VB" and verb.dep_ in {"ROOT", "advcl", "conj"}:
        return [fact.speaker]
    return []


def _asserted(token: Token) -> bool:
    """Not negated, not asked, not a condition: "I don't work at X", "Do you use X?"."""
    verb = _clause_verb(token)
    chain = [token, verb, verb.head] if verb.dep_ in INHERITS_SUBJECT else [token, verb]
    for t in chain:
        if any(c.dep_ == "neg" or (c.dep_ == "mark" and c.lower_ == "if") for c in t.children):
            return False
    return not _asks(verb)


def _asks(verb: Token) -> bool:
    """A question clause: "?" and the auxiliary before the subject, or a wh-word first."""
    if not verb.sent.text.rstrip().endswith("?"):
        return False
    subjects = [c for c in verb.children if c.dep_ in SUBJECT_DEPS]
    auxiliaries = [c for c in verb.children if c.dep_ in {"aux", "auxpass"}]
    if verb.lemma_ == "be" and verb.pos_ == "AUX":
        auxiliaries.append(verb)
    inverted = bool(subjects and auxiliaries and min(a.i for a in auxiliaries) < subjects[0].i)
    first = min((t for t in verb.subtree), key=lambda t: t.i)
    return inverted or not subjects or first.tag_ in INTERROGATIVE


def _happened(token: Token) -> bool:
    """Past, not planned: "went hiking in X" yes; "I'll go to X", "want to visit X" no."""
    verb = _clause_verb(token)
    chain = [verb]
    while chain[-1].dep_ in INHERITS_SUBJECT and chain[-1].head.i != chain[-1].i:
        chain.append(chain[-1].head)
    for t in chain:
        if any(c.dep_ == "aux" and c.lower_ in FUTURE_AUX for c in t.children):
            return False
        if t.lemma_ in PLAN_VERBS and t.i != verb.i:
            return False
    top = chain[-1]
    progressive = top.tag_ == "VBG" and any(
        c.dep_ == "aux" and c.tag_ in {"VBP", "VBZ"} for c in top.children
    )
    return top.pos_ not in {"VERB", "AUX"} or (top.tag_ in {"VBD", "VBN"} and not progressive)


def _matches(row: RelationRow, token: Token) -> bool:
    return token.lemma_.lower() in row.trigger or token.lower_ in row.trigger


def _with_conjuncts(tokens: list[Token]) -> list[Token]:
    return [t for token in tokens for t in (token, *token.conjuncts)]


def _prep_objects(host: Token, preps: tuple[str, ...], depth: int = 2) -> list[Token]:
    """Objects of ``host``'s prepositions in ``preps``, through "on the river in X"."""
    found: list[Token] = []
    for prep in (c for c in host.children if c.dep_ == "prep"):
        objects = _with_conjuncts([c for c in prep.children if c.dep_ == "pobj"])
        if prep.lower_ in preps:
            found.extend(objects)
            if objects and host.pos_ == "NOUN":  # "code in C++ and Python": Python hangs on code
                last = max(o.i for o in objects)
                found.extend(c for c in host.conjuncts if c.i > last and c.pos_ == "PROPN")
        if depth > 0 and prep.lower_ in PASS_THROUGH:
            for obj in objects:
                if obj.pos_ != "PROPN":
                    found.extend(_prep_objects(obj, preps, depth - 1))
    return found


def _targets(fact: _Fact, row: RelationRow, objects: list[Token]) -> Iterator[Endpoint]:
    """Endpoints of object tokens; "at X's office" names X, "the Pantry Pal beta" Pantry Pal."""
    for obj in objects:
        target = endpoint(fact, obj)
        called = _called(obj)
        if target is None and called is not None:  # "a band called The Night Owls"
            target = endpoint(fact, called)
        if target is None and obj.pos_ == "NOUN" and row.type in NAMED_BY_MODIFIER:
            named = [c for c in obj.children if c.dep_ in {"poss", "compound"}]
            named = [c for c in named if c.pos_ == "PROPN" or fact.covering(c) is not None]
            target = endpoint(fact, named[0]) if named else None
        if target is None or target.label in UNSEEN_NOT_TARGET:
            continue
        if not row.target_labels or target.label in row.target_labels:
            yield target


def _called(noun: Token) -> Token | None:
    """The name in "a bakery called Crumbs"."""
    for acl in (c for c in noun.children if c.dep_ == "acl" and c.lemma_ in {"call", "name"}):
        for name in acl.children:
            if name.dep_ == "oprd":
                return name
    return None


# --- one reader per kind -----------------------------------------------------------------

Pairs = Iterator[tuple[Endpoint, Endpoint]]


def _verb_prep(fact: _Fact, row: RelationRow, token: Token) -> Pairs:
    if not _matches(row, token) or not _asserted(token):
        return
    if row.past_only and not _happened(token):
        return
    hosts = [token, *(c for c in token.children if c.dep_ in PREP_HOSTS)]
    objects = [o for host in hosts for o in _prep_objects(host, row.preps, depth=1)]
    if row.objects:  # "with the Riverside Running Club": the object must be a club
        objects = [o for o in objects if o.lemma_.lower() in row.objects]
    named = [c for c in token.children if c.dep_ == "oprd"]  # "It's called X, on Y"
    sources = [e for c in named if (e := endpoint(fact, c))] or _sources(fact, row, token)
    if row.past_only:  # "went hiking in X with Carol": Carol went too
        companions = [o for host in hosts for o in _prep_objects(host, ("with",), depth=0)]
        sources += [e for c in companions if (e := endpoint(fact, c)) and _is_person(e)]
    for target in _targets(fact, row, objects):
        for source in sources:
            yield source, target


def _verb_object(fact: _Fact, row: RelationRow, token: Token) -> Pairs:
    if not _matches(row, token) or token.pos_ not in {"VERB", "AUX"} or not _asserted(token):
        return
    if row.past_only and not _happened(token):
        return
    objects = [t for d in token.children if d.dep_ == "dobj" for t in _object_conjuncts(d)]
    sources = _sources(fact, row, token)
    for target in _targets(fact, row, objects):
        for source in sources:
            yield source, target


def _object_conjuncts(obj: Token) -> list[Token]:
    """The object and its conjuncts, but not one after a preposition of the object: in
    "writing code in C++ and Python", the parser makes Python a conjunct of code."""
    preps = [c.i for c in obj.children if c.dep_ == "prep"]
    return [obj, *(c for c in obj.conjuncts if not preps or c.i < min(preps))]


def _object_prep(fact: _Fact, row: RelationRow, token: Token) -> Pairs:
    if not _matches(row, token) or not _asserted(token):
        return
    if row.past_only and not _happened(token):
        return
    dobjs = [c for c in token.children if c.dep_ in {"dobj", "npadvmod"}]
    wanted = [d for d in dobjs if d.lemma_.lower() in row.objects or d.lower_ in row.objects]
    if not wanted:
        return
    objects = [o for host in (token, *wanted) for o in _prep_objects(host, row.preps, 0)]
    sources = _sources(fact, row, token)
    for target in _targets(fact, row, objects):
        for source in sources:
            yield source, target


def _noun_prep(fact: _Fact, row: RelationRow, token: Token) -> Pairs:
    if not _matches(row, token) or token.pos_ != "NOUN":
        return
    hosts = [token]
    if token.dep_ == "dobj":  # "I'll bring my team from X"
        hosts.append(token.head)
    if token.dep_ in SUBJECT_DEPS:  # "X's headquarters are (based) in Y"
        verb = token.head
        hosts += [verb, *(c for c in verb.children if c.dep_ in {"acomp", "advmod", "attr"})]
    objects = [o for host in hosts for o in _prep_objects(host, row.preps, depth=1)]
    if "compound" in row.preps:  # "Finch's Denver office"
        objects += [c for c in token.children if c.dep_ == "compound" and c.pos_ == "PROPN"]
    owners = [c for c in token.children if c.dep_ == "poss"]
    if owners:
        sources = [e for e in (endpoint(fact, o) for o in owners) if e is not None]
    else:
        sources = _sources(fact, row, token) if _asserted(token) else []
    for target in _targets(fact, row, objects):
        for source in sources:
            yield source, target


def _thing_in(fact: _Fact, row: RelationRow, token: Token) -> Pairs:
    """ "X is (right / based / located) in Y", "X is the best block in Y"."""
    if not _matches(row, token) or not _asserted(token):
        return
    hosts = [token]
    for child in token.children:
        if child.dep_ in {"acomp", "advmod"} or (
            child.dep_ == "attr" and child.lemma_.lower() in row.objects
        ):
            hosts.append(child)
    objects = [o for host in hosts for o in _prep_objects(host, row.preps, depth=1)]
    subjects = [s for s in _subjects(token) if s.pos_ in {"PROPN", "NOUN"}]
    sources = [e for e in (endpoint(fact, s) for s in subjects) if e is not None]
    sources = [s for s in sources if s.start is not None and s.label is not EntityLabel.PERSON]
    for target in _targets(fact, row, objects):
        for source in sources:
            yield source, target


def _kin(fact: _Fact, row: RelationRow, token: Token) -> Pairs:
    if not _matches(row, token) or token.pos_ not in {"NOUN", "PROPN", "ADJ"}:
        return
    name = _name_of(token)
    relative = endpoint(fact, name) if name is not None else None
    if name is None or relative is None or relative.start is None:
        return
    relative = Endpoint(relative.name, EntityLabel.PERSON, relative.start, relative.end)
    owners = [c for c in (*token.children, *name.children) if c.dep_ == "poss"]
    default = fact.speaker if row.speaker_default else None
    owner = endpoint(fact, owners[0]) if owners else default
    if owner is not None:
        yield owner, relative


def _role(fact: _Fact, row: RelationRow, token: Token) -> Pairs:
    """ "Maya Okafor, the Lanterns' drummer", "Denise, the Riverside coach", "their partner X"."""
    if not _matches(row, token) or token.pos_ != "NOUN":
        return
    name = _name_of(token)
    holder = endpoint(fact, name) if name is not None else None
    if holder is None or holder.start is None:
        return
    holder = Endpoint(holder.name, EntityLabel.PERSON, holder.start, holder.end)
    orgs = [c for c in token.children if _names_owner(c)]
    orgs += _prep_objects(token, ("at", "of", "for"), depth=0)
    for target in _targets(fact, row, orgs):
        if target.start is not None:
            yield holder, target


def _names_owner(child: Token) -> bool:
    return bool(child.dep_ == "poss" or (child.dep_ == "compound" and child.pos_ == "PROPN"))


def _possessed(fact: _Fact, row: RelationRow, token: Token) -> Pairs:
    """ "my Tesla", "his new Fujifilm": the possessor owns the named thing."""
    owners = [c for c in token.children if c.dep_ == "poss"]
    mention = fact.covering(token) if owners else None
    if mention is None or mention.label is EntityLabel.TEMPORAL:
        return
    if any(c.lower_ in KIN_WORDS for c in token.children):
        return
    owner = endpoint(fact, owners[0])
    if owner is not None:
        yield owner, mention_endpoint(mention)


def _possessed_modifier(fact: _Fact, row: RelationRow, token: Token) -> Pairs:
    """ "my Figma mockups", "I made a Spotify playlist": the named tool is used."""
    if token.pos_ != "NOUN" or fact.covering(token) is not None:
        return
    owners = [c for c in token.children if c.dep_ == "poss"]
    if owners:
        user = endpoint(fact, owners[0])
    elif token.dep_ == "dobj" and _matches(row, token.head) and _asserted(token):
        users = [e for e in (endpoint(fact, s) for s in _subjects(token)) if e is not None]
        user = users[0] if users and users[0] == fact.speaker else None
    else:
        return
    for child in token.children:
        mention = fact.covering(child) if child.dep_ == "compound" else None
        if user is not None and mention is not None and mention.label not in TOOL_NOT:
            yield user, mention_endpoint(mention)


def _mutual(fact: _Fact, row: RelationRow, token: Token) -> Pairs:
    """ "A and B got married", "A married B", "A is married to B"."""
    if not _matches(row, token) or token.pos_ not in {"VERB", "ADJ"} or not _asserted(token):
        return
    people = [e for e in (endpoint(fact, s) for s in _subjects(token)) if e is not None]
    others = [c for c in token.children if c.dep_ == "dobj"] + _prep_objects(token, row.preps, 0)
    people += [e for e in (endpoint(fact, o) for o in others) if e is not None]
    people = [Endpoint(e.name, EntityLabel.PERSON, e.start, e.end) for e in people]
    for i, first in enumerate(people):
        for later in people[i + 1 :]:
            yield first, later


def _our_prep(fact: _Fact, row: RelationRow, token: Token) -> Pairs:
    """ "At Finch Analytics, our cluster …", "At X we use Y": the speaker is one of X's."""
    if token.dep_ != "prep" or token.lower_ not in row.preps or fact.speaker is None:
        return
    verb = token.head
    if verb.pos_ not in {"VERB", "AUX"} or token.i > min(t.i for t in verb.subtree) + 1:
        return
    if not any(t.lower_ in {"we", "our", "us"} for t in verb.subtree):
        return
    objects = [c for c in token.children if c.dep_ == "pobj"]
    for target in _targets(fact, row, objects):
        yield fact.speaker, target


def _is_person(end: Endpoint | None) -> bool:
    return end is not None and end.label in {EntityLabel.PERSON, EntityLabel.OTHER}


_READERS = {
    RelationKind.VERB_PREP: _verb_prep,
    RelationKind.VERB_OBJECT: _verb_object,
    RelationKind.OBJECT_PREP: _object_prep,
    RelationKind.NOUN_PREP: _noun_prep,
    RelationKind.THING_IN: _thing_in,
    RelationKind.KIN: _kin,
    RelationKind.ROLE: _role,
    RelationKind.POSSESSED: _possessed,
    RelationKind.POSSESSED_MODIFIER: _possessed_modifier,
    RelationKind.MUTUAL: _mutual,
    RelationKind.OUR_PREP: _our_prep,
}

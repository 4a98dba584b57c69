"""English relations from the dependency parse of en_core_web_sm.

Each table row names trigger lemmas and a ``kind``, the parse shape that links the trigger to
its two endpoints; one reader per kind: the verb and noun frames below, those about people in
``english_people.py``, the rest in ``english_frames.py``. How a token becomes an endpoint and
when a clause counts as said is in ``english_clauses.py``; the frame's targets in
``english_targets.py``.
"""

from __future__ import annotations

from spacy.tokens import Span, Token

from service.nlp.entities.patterns import EntityLabel, EntityMention
from service.nlp.entities.type_evidence import load_type_evidence
from service.nlp.relations import english_frames as frames
from service.nlp.relations import english_people as people
from service.nlp.relations.discourse import NO_CONVERSATION, Conversation
from service.nlp.relations.english_clauses import (
    COLLECTIVE,
    FIRST_PERSON,
    PERSON_PRONOUNS,
    PREP_HOSTS,
    SECOND_PERSON,
    SUBJECT_DEPS,
    FactContext,
    addressee,
    asserted,
    cannot_do_without,
    clause_subjects,
    clause_verb,
    clause_words,
    denied,
    endpoint,
    happened,
    name_shaped,
    prep_objects,
    speaker_by_default,
)
from service.nlp.relations.english_described import described
from service.nlp.relations.english_frames import Pairs, matches, trigger_forms
from service.nlp.relations.english_learned import learned_relations
from service.nlp.relations.english_targets import targets
from service.nlp.relations.learned import fresh
from service.nlp.relations.table import (
    Endpoint,
    Recipient,
    RelationKind,
    RelationMention,
    RelationRow,
    RelationType,
    keep_relation,
    links,
    speaker_endpoint,
)

# Types whose source may be the organisation that names the trigger noun ("the Nissan plant").
OWNER_BY_NAME = frozenset({RelationType.LOCATED_IN})
# Types whose object is a thing, never a person said by a pronoun.
_THING_TARGETS = frozenset({RelationType.OWNS, RelationType.USES, RelationType.CREATED})
_TASTES = frozenset({RelationType.LIKES, RelationType.DISLIKES})
_PEOPLE_WORDS = FIRST_PERSON | SECOND_PERSON | PERSON_PRONOUNS | {"them", "u"}
# Verbs after which a trigger noun's place is where it is ("X's office is in Y").
_BEING_VERBS = frozenset({"be", "base", "locate", "headquarter", "situate", "sit"})
# Groups whose home is their members' ("my family moved to X"); an office's is not.
_HOUSEHOLDS = frozenset({"family"})
DURATION_NOUNS = frozenset({"year", "month", "week", "decade", "while", "age", "ages"})
SCHOOL_HEADS = frozenset({"university", "college", "school", "high", "academy", "institute"})
# Kinds whose trigger is not the token being read (or that have none).
UNTRIGGERED = frozenset(
    {
        RelationKind.POSSESSED,
        RelationKind.POSSESSED_MODIFIER,
        RelationKind.OUR_PREP,
        RelationKind.NAME_IN,
        RelationKind.TOOL_SUBJECT,
    }
)
# Kinds read last, whose relation stands only where no other row links the same two names: a
# tool that serves the speaker is used, unless a row said more ("X hired me").
FALLBACK = frozenset({RelationKind.TOOL_SUBJECT})
# The parts of speech a token must have for some untriggered kinds' readers to find anything
# in it (each reader checks again): these kinds are tried on every token, so most are skipped.
STARTS_ON = {
    RelationKind.POSSESSED_MODIFIER: frozenset({"NOUN"}),
    RelationKind.NAME_IN: frozenset({"PROPN", "NOUN"}),
    RelationKind.TOOL_SUBJECT: frozenset({"VERB"}),
}
# Particles the parser takes for prepositions: "based out of X", "moved over to X".
PARTICLES = frozenset({"out", "up", "over", "back", "down", "off"})
# Nouns that name an organisation, which is "based" in a place: "Our startup, X, is in Y".
_ORGANISATION_NOUNS = (
    "startup company firm business shop store restaurant cafe bakery bar band team club "
    "school university college lab agency studio brand"
)
ORGANISATION_NOUNS = frozenset(_ORGANISATION_NOUNS.split())


class EnglishRelations:
    """The English rows of the relation table, applied to one parsed fact at a time."""

    def __init__(self, rows: list[RelationRow]) -> None:
        self.rows = rows
        # Rows by trigger word, so that a token is tried only against rows it can start.
        self._by_word: dict[str, list[RelationRow]] = {}
        self._always: list[RelationRow] = []
        self._fallback = [row for row in rows if row.kind in FALLBACK]
        for row in rows:
            if row.kind in UNTRIGGERED and row.kind not in FALLBACK:
                self._always.append(row)
            for word in () if row.kind in UNTRIGGERED else row.trigger:
                self._by_word.setdefault(word, []).append(row)
        # The untriggered rows, then the fallback rows, a token of each part of speech may start.
        self._always_by_pos: dict[str, list[RelationRow]] = {}
        self._fallback_by_pos: dict[str, list[RelationRow]] = {}

    def find(
        self,
        text: str,
        mentions: list[EntityMention],
        speaker: str | None,
        sentence: Span,
        conversation: Conversation = NO_CONVERSATION,
    ) -> list[RelationMention]:
        whole = sentence.text  # built from the tokens on every read
        offset = whole.find(text) if text else -1
        if offset < 0:  # not the span's stripped text: count from its first non-space
            offset = len(whole) - len(whole.lstrip())
        base = sentence.start_char + offset
        fact = FactContext(text, base, mentions, speaker_endpoint(speaker), None)
        fact = FactContext(text, base, mentions, fact.speaker, addressee(fact), conversation)
        found: list[RelationMention] = []
        for token in sentence:
            for row in self._rows_for(token):
                for source, target in _READERS[row.kind](fact, row, token):
                    # An organisation that moves is located, not living, somewhere.
                    moved = row.type is RelationType.LIVES_IN and _organisation(fact, source)
                    kind = RelationType.LOCATED_IN if moved else row.type
                    stay = _a_stay(kind, token, target)
                    extractor = f"dep:{row.id}" + (":stay" if stay else "")
                    relation = RelationMention(
                        stay or kind,
                        source,
                        target,
                        extractor,
                        row.confidence,
                        token.lemma_.lower(),
                    )
                    keep_relation(found, relation)
        found = _one_frame_per_name(found)
        for relation in self._fallback_relations(fact, sentence):
            if not any(links(old, relation) for old in found):
                keep_relation(found, relation)
        for relation in learned_relations(fact, sentence):
            if fresh(relation, found):
                keep_relation(found, relation)
        return found

    def _fallback_relations(self, fact: FactContext, sentence: Span) -> list[RelationMention]:
        return [
            RelationMention(row.type, source, target, f"dep:{row.id}", row.confidence)
            for token in sentence
            for row in _starting_on(self._fallback_by_pos, self._fallback, token.pos_)
            for source, target in _READERS[row.kind](fact, row, token)
        ]

    def _rows_for(self, token: Token) -> list[RelationRow]:
        # Each row once, by its id: a row's own hash reads every field.
        rows = {r.id: r for form in trigger_forms(token) for r in self._by_word.get(form, [])}
        return [*rows.values(), *_starting_on(self._always_by_pos, self._always, token.pos_)]


def _starting_on(
    by_pos: dict[str, list[RelationRow]], rows: list[RelationRow], pos: str
) -> list[RelationRow]:
    """The rows a token tagged ``pos`` may start, in table order (kept in ``by_pos``)."""
    if pos not in by_pos:
        by_pos[pos] = [row for row in rows if pos in STARTS_ON.get(row.kind, (pos,))]
    return by_pos[pos]


def _organisation(fact: FactContext, source: Endpoint) -> bool:
    """An ORG source, unless only NER says so of a given name ("Ines lives in Leiden")."""
    if source.label is not EntityLabel.ORG:
        return False
    mention = next(
        (m for m in fact.mentions if (m.start, m.end) == (source.start, source.end)), None
    )
    if mention is None or not mention.extractor.startswith("spacy:"):
        return True
    return not any(v.label is EntityLabel.PERSON and v.of_name for v in mention.votes)


def _one_frame_per_name(found: list[RelationMention]) -> list[RelationMention]:
    """Without the weaker of two frames that type one name two ways in one fact: "my UNILAG
    lecture" is a school studied at (0.7), not a tool used (0.6)."""
    typed = load_type_evidence().frame_objects

    def rivals(a: RelationMention, b: RelationMention) -> bool:
        ends = [(e.name, e.start) for e in (a.source, a.target, b.source, b.target)]
        same = ends[:2] == ends[2:] and a.type is not b.type
        return same and a.type.value in typed and b.type.value in typed

    weaker = [r for r in found if any(rivals(r, o) and o.confidence > r.confidence for o in found)]
    return [r for r in found if r not in weaker]


def _sources(fact: FactContext, row: RelationRow, token: Token) -> list[Endpoint]:
    subjects = clause_subjects(token)
    if row.type is RelationType.LIVES_IN:  # "our office moved to X": no one's home
        subjects = [s for s in subjects if s.lemma_.lower() not in COLLECTIVE - _HOUSEHOLDS]
    found = [e for e in (endpoint(fact, s) for s in subjects) if e is not None]
    if found or fact.speaker is None:
        return found
    verb = clause_verb(token)
    if speaker_by_default(verb):
        return [fact.speaker]
    if not row.speaker_default:
        return []
    # A diary-style statement without a subject or verb: "Back from Lisbon!", "big fan of X".
    own = [c for c in verb.children if c.dep_ in SUBJECT_DEPS]
    if not own and verb.tag_ != "VB" and verb.dep_ in {"ROOT", "advcl", "conj"}:
        return [fact.speaker]
    return []


def _said(row: RelationRow, token: Token) -> bool:
    """Asserted; or, for a row read from a denial ("can't stand X", "not a fan of X"), denied;
    a denial with "without" is an ability denied, by "could" too ("couldn't live without X")."""
    if row.when_negated and "without" in row.preps:
        return cannot_do_without(token)
    return denied(token) if row.when_negated else asserted(token)


def _cancelled(row: RelationRow, token: Token) -> bool:
    """ "I lost my job at X", "I stopped working at X", "started college at X" (no job), "flew
    back from X" (no home): the clause's verb, its head, its object or an adverb undoes it;
    so does the adjective after the verb that the preposition is its ("been married to X")."""
    adjectives = {c.lemma_.lower() for c in token.children if c.dep_ == "acomp"}
    return not (clause_words(token) | adjectives).isdisjoint(row.cancelled_by)


# --- one reader per kind -----------------------------------------------------------------


def _verb_prep(fact: FactContext, row: RelationRow, token: Token) -> Pairs:
    if not matches(row, token) or not _said(row, token) or _cancelled(row, token):
        return
    if row.past_only and not happened(token):
        return
    if row.intransitive and any(_moved(fact, row, c) for c in token.children):
        return  # "got an offer from X", "got my app into X"
    hosts = [token, *(c for c in token.children if c.dep_ in PREP_HOSTS)]
    hosts += [c for c in token.children if c.dep_ == "prep" and c.lower_ in PARTICLES]
    objects = [o for host in hosts for o in prep_objects(host, row.preps, depth=1)]
    if row.objects:  # "with the Riverside Running Club": the object must be a club
        objects = [o for o in objects if o.lemma_.lower() in row.objects]
    if not objects:  # no target: its sources need not be read
        return
    named = [c for c in token.children if c.dep_ == "oprd"]  # "It's called X, on Y"
    sources = [e for c in named if (e := endpoint(fact, c))] or _sources(fact, row, token)
    if "into" in row.preps:  # "Ben got me into X": I am into X, Ben got me there
        led = [e for c in token.children if c.dep_ == "dobj" and (e := endpoint(fact, c))]
        sources = [e for e in led if _is_person(e)] or sources
    if row.past_only:  # "went hiking in X with Carol", "Bram took me to X": Carol, I went too
        companions = [o for host in hosts for o in prep_objects(host, ("with",), depth=0)]
        sources += [e for c in companions if (e := endpoint(fact, c)) and _is_person(e)]
        taken = [endpoint(fact, c) for c in token.children if c.dep_ == "dobj"]
        sources += [e for e in taken if e is not None and e.label is EntityLabel.PERSON]
    for target in targets(fact, row, objects):
        for source in sources:
            yield source, target


def _moved(fact: FactContext, row: RelationRow, child: Token) -> bool:
    """A direct object that the verb moves, not a person it leads ("Ben got me into X")."""
    if child.dep_ != "dobj":
        return False
    led = endpoint(fact, child) if "into" in row.preps else None
    return led is None or not _is_person(led)


def _verb_object(fact: FactContext, row: RelationRow, token: Token) -> Pairs:
    if not matches(row, token) or token.pos_ not in {"VERB", "AUX"} or not _said(row, token):
        return
    if row.past_only and not happened(token):
        return
    objects = [t for d in token.children if d.dep_ == "dobj" for t in _object_conjuncts(d)]
    if row.objects:  # "gave Linear a shot": the object is the phrase's, the dative the target
        if not any(o.lemma_.lower() in row.objects for o in objects):
            return
        given = [c for c in token.children if c.dep_ == "dative"]
        objects = [d for d in given if not _a_persons(fact, d)]  # "gave Marco a chance"
    if not objects and row.type in _TASTES:  # "I hate using Teams": the taste is for Teams
        objects = [o for o in _done_with(token) if not _a_persons(fact, o)]
    if row.type in _THING_TARGETS:  # "Ben got me into X": no one is got, owned or made
        objects = [o for o in objects if not (o.pos_ == "PRON" and o.lower_ in _PEOPLE_WORDS)]
    sources = _sources(fact, row, token)
    if row.recipient is not Recipient.IGNORED:
        recipients, objects = _recipients(fact, token, objects)
        if recipients or row.recipient is Recipient.REQUIRED:
            sources = recipients
    agents = [o for c in token.children if c.dep_ == "agent" for o in c.children]
    if agents:  # "X was founded by Ingrid": the agent does it to the passive subject
        objects = [c for c in token.children if c.dep_ == "nsubjpass"]
        sources = [e for e in (endpoint(fact, a) for a in agents if a.dep_ == "pobj") if e]
    elif not objects and token.dep_ == "relcl":  # "Habitly is an app I made"
        objects = [_copula_subject(token.head) or token.head]
    for target in targets(fact, row, objects):
        for source in sources:
            yield source, target


def _done_with(verb: Token) -> list[Token]:
    """What the -ing verb after a verb of taste is done with: "hate using X", "love playing
    X", "can't stand working in X"."""
    doings = [c for c in verb.children if c.dep_ == "xcomp" and c.tag_ == "VBG"]
    objects = [c for d in doings for c in d.children if c.dep_ == "dobj"]
    return objects + [o for d in doings for o in prep_objects(d, ("in", "on"), depth=0)]


def _a_persons(fact: FactContext, token: Token) -> bool:
    mention = fact.covering(token)
    return mention is not None and mention.voted_label is EntityLabel.PERSON


def _recipients(
    fact: FactContext, verb: Token, objects: list[Token]
) -> tuple[list[Endpoint], list[Token]]:
    """Whom a verb of giving gives to, and what it gives: "got me X", "bought X for Sam", and
    "bought Sam a X", which the small model parses as two objects."""
    given = [c for c in verb.children if c.dep_ == "dative"]
    if verb.dep_ == "relcl":  # "the Fitbit my son gave me": the parser makes "me" the object
        given += [c for c in verb.children if c.dep_ == "dobj" and c.lower_ in _PEOPLE_WORDS]
        objects = [o for o in objects if o.lower_ not in _PEOPLE_WORDS]
    if len(objects) > 1:
        given, objects = [*given, objects[0]], objects[1:]
    # "got a Kindle for Sam": the parser may hang "for" on the object.
    given += prep_objects(verb, ("for",), depth=0)
    given += [o for obj in objects for o in prep_objects(obj, ("for",), depth=0)]
    people = [e for e in (endpoint(fact, t) for t in given) if e is not None and _is_person(e)]
    return people, objects


def _copula_subject(noun: Token) -> Token | None:
    """The subject that a noun after "is" names: Habitly in "Habitly is an app"."""
    if noun.dep_ != "attr" or noun.head.lemma_ != "be":
        return None
    return next((c for c in noun.head.children if c.dep_ in SUBJECT_DEPS), None)


def _object_conjuncts(obj: Token) -> list[Token]:
    """The object and its conjuncts, but not one after a preposition of the object: in
    "writing code in C++ and Python", the parser makes Python a conjunct of code."""
    preps = [c.i for c in obj.children if c.dep_ == "prep"]
    return [obj, *(c for c in obj.conjuncts if not preps or c.i < min(preps))]


def _object_prep(fact: FactContext, row: RelationRow, token: Token) -> Pairs:
    if not matches(row, token) or not asserted(token):
        return
    if row.past_only and not happened(token):
        return
    dobjs = [c for c in token.children if c.dep_ in {"dobj", "npadvmod"}]
    # "did a port tasting at X": the parser may hang the wanted noun on the object as acl.
    dobjs += [c for d in dobjs for c in d.children if c.dep_ in {"acl", "compound"}]
    wanted = [d for d in dobjs if d.lemma_.lower() in row.objects or d.lower_ in row.objects]
    if not wanted:
        return
    objects = [o for host in (token, *wanted) for o in prep_objects(host, row.preps, 0)]
    sources = _sources(fact, row, token)
    for target in targets(fact, row, objects):
        for source in sources:
            yield source, target


def _noun_prep(fact: FactContext, row: RelationRow, token: Token) -> Pairs:
    # "HQ" is tagged a proper noun: a trigger word is a noun whatever its tag.
    if not matches(row, token) or token.pos_ not in {"NOUN", "PROPN"} or _cancelled(row, token):
        return
    if row.past_only and not happened(token):  # "our trip to X next month"
        return
    if row.objects and not any(c.lower_ in row.objects for c in token.children):
        return  # "my first day at X" needs its "first"
    if row.type is RelationType.LIVES_IN and token.dep_ == "appos":
        return  # "Lupa, this tiny place in X": the name's whereabouts, no one's home
    hosts = [token]
    if token.dep_ == "dobj":  # "I'll bring my team from X"
        hosts.append(token.head)
    governing = token.head.head
    # "hand in my notice at X"; a fragment's verb may be tagged a noun ("handing in my …").
    if token.dep_ == "pobj" and (governing.pos_ == "VERB" or governing.dep_ == "ROOT"):
        hosts.append(governing)
    if token.dep_ in SUBJECT_DEPS and token.head.lemma_ in _BEING_VERBS:
        # "X's headquarters are (based) in Y"; not "our team switched from X to Y"
        verb = token.head
        complements = [c for c in verb.children if c.dep_ in {"acomp", "advmod", "attr"}]
        hosts += [verb, *(c for c in complements if not _classifies(c))]
    objects = [o for host in hosts for o in prep_objects(host, row.preps, depth=1)]
    if "compound" in row.preps:  # "Finch's Denver office"
        named = [c for c in token.children if c.dep_ == "compound" and _names(c)]
        named = [c for c in named if not _one_name(fact, c, token)]  # "the App Store": a name
        objects += [c for c in named if c.lower_ not in row.trigger]  # "my MBA class": no one
    # "my evening MBA class": the parser may hang "my" on the first word of the compound.
    modifiers = [token, *(c for c in token.children if c.dep_ == "compound")]
    owners = [c for t in modifiers for c in t.children if c.dep_ == "poss"]
    if token.dep_ == "dobj" and [o.lower_ for o in owners] in (["its"], ["their"]):
        # "X has its headquarters in Y": "its" is the subject of "has".
        owners = [s for s in clause_subjects(token.head) if s.pos_ in {"PROPN", "NOUN"}]
    named_owner = _organisation_compound(fact, token) if row.type in OWNER_BY_NAME else None
    if named_owner is not None:  # "the Nissan plant in Canton": Nissan's plant
        owners = [named_owner]
        objects = [o for o in objects if o.i != named_owner.i]
    if owners:
        sources = [e for e in (endpoint(fact, o) for o in owners) if e is not None]
    elif _fragment(row, token):
        sources = [fact.speaker] if fact.speaker is not None else []
    elif _said(row, token):
        sources = _sources(fact, row, token) or _moved_people(fact, token)
    else:
        sources = []
    for target in targets(fact, row, objects):
        for source in sources:
            yield source, target


def _classifies(complement: Token) -> bool:
    """ "Liv's boss is a partner at Y": "a partner" says what the subject is, so the place
    after it is the boss's, not a place of the trigger's owner."""
    return complement.pos_ == "NOUN" and any(
        c.dep_ == "det" and c.lower_ in {"a", "an"} for c in complement.children
    )


def _one_name(fact: FactContext, a: Token, b: Token) -> bool:
    """Whether two tokens are words of one mention."""
    mention = fact.covering(a)
    return mention is not None and mention == fact.covering(b)


def _names(token: Token) -> bool:
    """A proper noun, or a word written as a name that the tagger took for a common noun."""
    return token.pos_ == "PROPN" or name_shaped(token)


def _fragment(row: RelationRow, token: Token) -> bool:
    """ "Twenty years in Tromso and I still hate the dark": a verbless phrase the parser hangs
    on the next clause as an adverb; it is the speaker's, whatever that clause's subject or
    negation."""
    return row.speaker_default and token.dep_ == "npadvmod" and token.head.pos_ in {"VERB", "AUX"}


def _a_stay(kind: RelationType, verb: Token, target: Endpoint) -> RelationType | None:
    """ "I've been at Corwell for fourteen years", "how long have you been with X": a stay of
    years at an organisation is a job there, or a school's studies; no visit."""
    if (
        kind is not RelationType.VISITED
        or verb.lemma_ != "be"
        or target.label is not EntityLabel.ORG
    ):
        return None
    if not _lasting(verb):
        return None
    school = target.name.split()[-1].lower() in SCHOOL_HEADS
    return RelationType.STUDIES_AT if school else RelationType.WORKS_AT


def _lasting(verb: Token) -> bool:
    """A duration said of the verb: "for two years", "since 2019", "since he graduated",
    "how long"."""
    for child in verb.children:
        if child.lower_ == "since":
            return True
        if child.dep_ == "advcl" and any(m.lower_ == "since" for m in child.children):
            return True
        if child.lower_ == "for" and any(
            o.lemma_.lower() in DURATION_NOUNS for o in child.children
        ):
            return True
        if child.lower_ == "long" and any(c.lower_ == "how" for c in child.children):
            return True
    return False


def _organisation_compound(fact: FactContext, noun: Token) -> Token | None:
    """The organisation a place noun is named by: "the Nissan plant", "the Acme offices"."""
    for child in (c for c in noun.children if c.dep_ == "compound" and c.pos_ == "PROPN"):
        mention = fact.covering(child)
        if mention is not None and mention.label is EntityLabel.ORG:
            return child
    return None


def _moved_people(fact: FactContext, noun: Token) -> list[Endpoint]:
    """ "They moved me to the night shift at X", "put her on the team at X": the person the
    clause moves, when its subject names no one."""
    if noun.dep_ != "pobj" or noun.head.head.pos_ != "VERB":
        return []
    verb = noun.head.head
    moved = [endpoint(fact, c) for c in verb.children if c.dep_ in {"dobj", "dative"}]
    return [e for e in moved if e is not None and e.label is EntityLabel.PERSON]


def _thing_in(fact: FactContext, row: RelationRow, token: Token) -> Pairs:
    """ "X is (right / based / located) in Y", "X is the best block in Y"."""
    if not matches(row, token) or not asserted(token):
        return
    hosts = [token]
    for child in token.children:
        if (
            child.dep_ in {"acomp", "advmod"}
            or (child.dep_ == "attr" and child.lemma_.lower() in row.objects)
            or (child.dep_ == "dobj" and token.lemma_ != "be")
        ):
            hosts.append(child)
    objects = [o for host in hosts for o in prep_objects(host, row.preps, depth=1)]
    if not objects:  # no target: its sources need not be read
        return
    sources = []
    subjects = clause_subjects(token)
    if token.dep_ == "relcl":  # "Blue Owl, which is in Bend, …": "which" is Blue Owl
        subjects = [token.head if s.tag_ == "WDT" else s for s in subjects]
    for subject in (s for s in subjects if s.pos_ in {"PROPN", "NOUN"}):
        source = endpoint(fact, subject)
        # "Our startup, Brightwave, is in Boston" may name an organisation NER calls a person.
        # People are in places but not "based" or "headquartered" there.
        organisation = subject.lemma_.lower() in ORGANISATION_NOUNS or token.lemma_ != "be"
        if row.source_labels and (source is None or source.label not in row.source_labels):
            continue  # "Grindhouse Coffee does the best cortado in Leeds": a business at work
        if source and source.start is not None and (organisation or source.label != "PERSON"):
            sources.append(source)
    for target in targets(fact, row, objects):
        for source in sources:
            yield source, target


def _is_person(end: Endpoint | None) -> bool:
    return end is not None and end.label in {EntityLabel.PERSON, EntityLabel.OTHER}


_READERS = {
    RelationKind.EMPLOYER_SUBJECT: frames.employer_subject,
    RelationKind.HOME: frames.home,
    RelationKind.NAMED_MODIFIER: frames.named_modifier,
    RelationKind.VERB_PREP: _verb_prep,
    RelationKind.VERB_OBJECT: _verb_object,
    RelationKind.OBJECT_PREP: _object_prep,
    RelationKind.NOUN_PREP: _noun_prep,
    RelationKind.THING_IN: _thing_in,
    RelationKind.KIN: people.kin,
    RelationKind.ROLE: people.role,
    RelationKind.POSSESSED: people.possessed,
    RelationKind.POSSESSED_MODIFIER: people.possessed_modifier,
    RelationKind.MUTUAL: frames.mutual,
    RelationKind.OUR_PREP: people.our_prep,
    RelationKind.FAVOURITE: frames.favourite,
    RelationKind.NAME_IN: frames.name_in,
    RelationKind.MINE: frames.mine,
    RelationKind.VERDICT: frames.verdict,
    RelationKind.WAY_OF: frames.way_of,
    RelationKind.PLACE_POSSESSOR: frames.place_possessor,
    RelationKind.DESCRIBED: described,
    RelationKind.TOOL_SUBJECT: frames.tool_subject,
}

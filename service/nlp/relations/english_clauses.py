"""English clauses, read from the dependency parse: who a token names, and how a clause is said.

An endpoint token becomes an Endpoint through, in order: first person (the speaker), second
person (the person addressed by name in the fact, if any), a third-person pronoun resolved
inside the fact (one candidate only), the mention that covers the token, a noun's named
apposition, or a capitalised proper-noun run the mentions missed. A clause is asserted unless
it is negated, asked or conditional, and it happened unless it is planned or in the future.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import wraps
from typing import TypeVar

from spacy.lang.en.stop_words import STOP_WORDS as SPACY_STOP_WORDS
from spacy.tokens import Token

from service.nlp.entities.junk import shouted
from service.nlp.entities.mentions import load_stop_entities
from service.nlp.entities.patterns import EntityLabel, EntityMention
from service.nlp.relations.discourse import NO_CONVERSATION, Conversation
from service.nlp.relations.table import Endpoint, mention_endpoint, speaker_endpoint

FIRST_PERSON = frozenset({"i", "me", "my", "myself", "mine", "we", "us", "our", "ours"})
SECOND_PERSON = frozenset({"you", "your", "yours"})
DEMONSTRATIVES = frozenset({"this", "that", "these", "those", "here"})
# What may follow a name called at the end of a sentence: "…, Lois. You don't …", "…, Jordan!"
_SENTENCE_END = re.compile(r"[\s!.?…]*(?:$|(?<=[!.?…])\s)")
PERSON_PRONOUNS = frozenset({"he", "she", "him", "her", "his", "hers"})
THING_PRONOUNS = frozenset({"it", "its", "they", "them", "their"})
SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass"})
# Dependents through which a verb's prepositions hang: "went hiking in X", "writing code in X".
PREP_HOSTS = frozenset({"dobj", "xcomp", "advmod", "npadvmod", "prt", "acomp", "attr", "oprd"})
# Prepositions crossed on the way to a place: "right on the river in Porto".
PASS_THROUGH = frozenset({"on", "at", "near", "by", "in", "inside", "like", "as", "from"})
# "my team uses X", "our company is in Y": a group named by its possessor stands for it.
_COLLECTIVE_NOUNS = "team company lab group startup department office band crew squad family"
COLLECTIVE = frozenset(_COLLECTIVE_NOUNS.split())
# Last words of names that the small NER model calls PERSON but that are places or events.
_PLACE_AND_EVENT_HEADS = (
    "Park Street Avenue Road Lake River Bay Beach Island Mountain Mountains Hall Station "
    "Square University College School Festival Club Center Centre Museum Stadium Arena "
    "Airport Bridge Market Mall Valley Canyon Hills"
)
NOT_PERSON_HEADS = frozenset(_PLACE_AND_EVENT_HEADS.split())
# Nouns that, after "this" or "that", stand for a thing just named: "I hate that app".
_GENERIC_THING_NOUNS = (
    "app apps tool software program platform service site website game show series book "
    "album song film movie brand product device gadget phone watch thing"
)
GENERIC_THINGS = frozenset(_GENERIC_THING_NOUNS.split())
NOT_NAMES = frozenset({"DATE", "TIME", "CARDINAL", "ORDINAL", "MONEY", "PERCENT", "QUANTITY"})
# Fillers the parser takes for a noun: "at Larkspur Dental lol", "out of Oaxaca tbh".
STOP_WORDS = load_stop_entities()
_NOT_NAME_POS = frozenset({"PRON", "DET", "ADP", "CCONJ", "SCONJ", "PART", "PUNCT", "INTJ", "AUX"})
_QUOTES = frozenset({'"', "'", "“", "‘"})
# Shouted words are not acronyms: "AGAIN", "NOT", "WHAT".
_ENGLISH_STOP_WORDS = frozenset(SPACY_STOP_WORDS)
RELATIVE_PRONOUNS = frozenset({"who", "that", "which"})
INTERROGATIVE = frozenset({"WDT", "WP", "WP$", "WRB"})
# "How long have you been at X?", "Why did you move to X?": they ask about what they take as so.
PRESUPPOSING = frozenset({"why", "when", "how"})
_HOW_WHAT = frozenset({"long", "often", "come"})  # how long, how often, how come
INHERITS_SUBJECT = frozenset({"xcomp", "conj", "advcl", "acomp"})
PLAN_VERBS = frozenset({"want", "plan", "hope", "wish", "like", "love", "need", "try", "would"})
HYPOTHETICAL_AUX = frozenset({"might", "may", "could", "would", "should", "'d", "’d"})
UNREAL_VERBS = frozenset({"wish", "imagine", "pretend", "dream", "suppose"})
# What a verb governs after it, beside a clause: "dreaming about X", "imagine the view".
_COMPLEMENT_DEPS = frozenset({"dobj", "prep", "xcomp", "ccomp", "attr"})
FUTURE_AUX = frozenset({"will", "'ll", "’ll", "wo", "shall", "gonna", "would", "could", "might"})
# Where a parsed doc keeps the answers of _once_per_token (Doc.user_data).
_ANSWERS = "engram.relations.clause_answers"

_Answer = TypeVar("_Answer")


def _once_per_token(read: Callable[[Token], _Answer]) -> Callable[[Token], _Answer]:
    """``read`` computed once per token of a doc and kept with the doc: every row a trigger
    word starts asks the same clause question of it again. Answers must not be mutated."""
    question = read.__name__

    @wraps(read)
    def answer(token: Token) -> _Answer:
        answers = token.doc.user_data.setdefault(_ANSWERS, {})
        key = (question, token.i)
        if key not in answers:
            answers[key] = read(token)
        found: _Answer = answers[key]
        return found

    return answer


@dataclass(frozen=True)
class FactContext:
    """One fact being read: its text, where it starts in the doc, what is known in it."""

    text: str
    base: int
    mentions: list[EntityMention]
    speaker: Endpoint | None
    addressee: Endpoint | None
    conversation: Conversation = NO_CONVERSATION

    def covering(self, token: Token) -> EntityMention | None:
        start = token.idx - self.base
        end = start + len(token.text)
        hits = [m for m in self.mentions if m.start <= start and end <= m.end]
        return max(hits, key=lambda m: m.end - m.start) if hits else None

    def before(self, token: Token) -> list[EntityMention]:
        return [m for m in self.mentions if m.end <= token.idx - self.base]


# --- endpoints ---------------------------------------------------------------------------


def endpoint(fact: FactContext, token: Token) -> Endpoint | None:
    """What a token names in this fact, or None when it names nothing that can be resolved."""
    lower = token.lower_
    if token.pos_ == "PRON" or token.tag_ in {"PRP", "PRP$"}:
        if lower in FIRST_PERSON:
            return fact.speaker
        if lower in SECOND_PERSON:
            return fact.addressee or _answered(fact, token)
        if lower in PERSON_PRONOUNS:
            return _resolve_person(fact, token)
        if lower in THING_PRONOUNS:
            return _resolve_thing(fact, token)
        named = _relative_antecedent(token)
        return endpoint(fact, named) if named is not None else None
    appositive = [c for c in token.children if c.dep_ == "appos" and c.pos_ == "PROPN"]
    if token.pos_ in {"NOUN", "ADJ"} and appositive:  # "my sister Ana", "my eldest Ana"
        return endpoint(fact, appositive[0])
    if token.pos_ == "NOUN" and fact.covering(token) is None:
        shown = _demonstrated(fact, token)
        if shown is not None:
            return shown
    owners = [c for c in token.children if c.dep_ == "poss"]
    if token.lemma_.lower() in COLLECTIVE and owners:  # "my team works in X": the speaker
        return endpoint(fact, owners[0])
    if token.pos_ == "NOUN" and owners and fact.covering(token) is None:
        named = _relative(fact, token, owners[0])
        if named is not None:  # "my brother works at X", after "my brother Sam"
            return named
    mention = fact.covering(token)
    # "at Larkspur Dental lol", "Oaxaca tbh", "at Halden College 😩": a filler or an emoji the
    # parser took for the noun that the name modifies.
    filler = lower in STOP_WORDS or not any(ch.isalnum() for ch in token.text)
    if mention is None and filler:
        # Not its possessor: "Liv's mom works at X" says nothing of Liv's work.
        named = [c for c in token.lefts if c.dep_ != "poss" and fact.covering(c) is not None]
        return endpoint(fact, named[-1]) if named else None
    span = _proper_run(token, fact.base) or _name_run(token, fact.base)
    if mention is not None:
        if mention.label is EntityLabel.PERSON and mention.text.split()[-1] in NOT_PERSON_HEADS:
            mention = replace(mention, label=EntityLabel.PLACE)  # "Grant Park", mislabelled
        if span is not None and span[0] < mention.start and mention.end <= span[1]:
            return Endpoint(fact.text[span[0] : span[1]], mention.label, span[0], span[1])
        return mention_endpoint(mention)
    if span is None or token.ent_type_ in NOT_NAMES:  # "in May" names no thing
        return None
    if not shouted(fact.text[span[0] : span[1]].split()):  # "won the grant, UNREAL"
        return Endpoint(fact.text[span[0] : span[1]], EntityLabel.OTHER, span[0], span[1])
    return None


def _relative(fact: FactContext, noun: Token, owner: Token) -> Endpoint | None:
    """The person the batch named earlier as the owner's kin or friend by this noun."""
    whose = endpoint(fact, owner)
    if whose is None:
        return None
    name = fact.conversation.kin_of(whose.name, noun.lemma_.lower())
    return Endpoint(name, EntityLabel.PERSON) if name is not None else None


def _relative_antecedent(pronoun: Token) -> Token | None:
    """What a relative pronoun stands for: "Imani, who works at X" (Imani), "Obsidian is what I
    use" (Obsidian)."""
    lower, clause = pronoun.lower_, pronoun.head
    if lower in RELATIVE_PRONOUNS and clause.dep_ == "relcl" and clause.head.i != pronoun.i:
        return _cleft_subject(clause.head) or clause.head
    if lower == "what" and clause.dep_ in {"ccomp", "xcomp"} and clause.head.lemma_ == "be":
        subjects = [c for c in clause.head.children if c.dep_ in SUBJECT_DEPS]
        return subjects[0] if subjects else None
    return None


def _cleft_subject(antecedent: Token) -> Token | None:
    """ "Felix is the one who started X": "the one" is the subject of "is"."""
    if antecedent.lower_ not in {"one", "person", "guy", "girl"} or antecedent.dep_ != "attr":
        return None
    subjects = [c for c in antecedent.head.children if c.dep_ in SUBJECT_DEPS]
    return subjects[0] if subjects else None


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


def _name_run(token: Token, base: int) -> tuple[int, int] | None:
    """Offsets in the fact of a name the tagger did not call a proper noun, with the name-shaped
    words before it: "grinding at Sage", "my SOAS dissertation", "a Roland TD-17"."""
    if not name_shaped(token):
        return None
    doc, first, last = token.doc, token, token
    while first.i > token.sent.start:
        left = doc[first.i - 1]
        shaped = name_shaped(left) or _continues_name(left)
        if not shaped or not first.i <= left.head.i <= token.i:
            break
        first = left
    while last.i + 1 < token.sent.end and _model_number(doc[last.i + 1]):
        last = doc[last.i + 1]  # "Roland TD-17": the parser hangs the number on the brand
    return first.idx - base, last.idx + len(last.text) - base


def name_shaped(token: Token) -> bool:
    """A word written as a name where a common word would not be: capitalised inside a
    sentence ("at Sage"), an acronym that is no shouted word ("SOAS", not "AGAIN"), or a model
    number ("TD-17"). Not a pronoun, a stop word, or the first word of a sentence."""
    text = token.text
    if token.pos_ in _NOT_NAME_POS or token.lower_ in STOP_WORDS or token.is_sent_start:
        return False
    if _model_number(token):
        return True
    if not text[:1].isupper() or not text.replace("-", "").replace("&", "").isalpha():
        return False
    shouted = text.isupper() and len(text) > 1 and token.lower_ in _ENGLISH_STOP_WORDS
    return not shouted and not (token.i > 0 and token.doc[token.i - 1].text in _QUOTES)


def _model_number(token: Token) -> bool:
    """ "TD-17", "PS5", "X100V": capitals and digits in one word."""
    text = token.text
    return any(c.isdigit() for c in text) and any(c.isupper() for c in text) and text.isascii()


def _continues_name(left: Token) -> bool:
    capitalised = left.pos_ == "PROPN" or (
        left.text[:1].isupper() and left.pos_ in {"ADJ", "NOUN", "VERB"}
    )
    return capitalised and left.dep_ in {"compound", "flat", "amod", "nmod"}


def name_beside(noun: Token) -> Token | None:
    """The proper name a kin or role noun stands beside: "sister Dana", "Dana, my sister",
    "aunt Carmen", "partner Hiro Tanaka"."""
    head = noun.head
    if noun.dep_ == "appos" and head.pos_ == "PROPN" and head.i < noun.i:
        return head  # "Dana Ruiz, my big sister, ...": the name it stands after
    for child in noun.children:
        if child.dep_ == "appos" and child.pos_ == "PROPN":
            return child
    said_of = _copula_subject(noun)
    if said_of is not None:
        return said_of
    if noun.dep_ == "pobj" and head.lower_ == "of" and head.head.lower_ == "one":
        return name_beside(head.head)  # "Zeynep is one of my closest friends"
    if noun.dep_ in {"compound", "appos", "amod"} and head.pos_ == "PROPN" and head.i != noun.i:
        return head
    if noun.dep_ == "attr" and head.lemma_ == "be":  # "Priya is my best friend", "I'm a nurse"
        subjects = [c for c in head.children if c.dep_ in SUBJECT_DEPS]
        # "This is my cousin Pru": a demonstrative names nobody; the name after the noun does.
        if not subjects or subjects[0].lower_ not in DEMONSTRATIVES:
            return subjects[0] if subjects else None
    doc = noun.doc
    after = noun.i + 1 + _in_law_tail(noun)
    if after < len(doc) and doc[after].pos_ == "PROPN":
        run = doc[after]
        while run.i + 1 < len(doc) and doc[run.i + 1].pos_ == "PROPN":
            run = doc[run.i + 1]
        return run
    return None


def _in_law_tail(noun: Token) -> int:
    """How many tokens of "-in-law" follow a kin noun ("my brother-in-law Tom"): the tokenizer
    splits the word, so the name comes after the tail."""
    tail = [t.lower_ for t in noun.doc[noun.i + 1 : noun.i + 5]]
    return 4 if tail == ["-", "in", "-", "law"] else 0


def _copula_subject(noun: Token) -> Token | None:
    """ "Ruairi's my flatmate", "Ottilie's a data analyst": the parser reads the "'s" of "is"
    as a possessive; before a determiner it is the verb, and the "possessor" the subject."""
    doc = noun.doc
    for host in (noun, noun.head) if noun.dep_ in {"amod", "compound"} else (noun,):
        for child in (c for c in host.children if c.dep_ == "poss" and c.pos_ == "PROPN"):
            after = doc[child.i + 2] if child.i + 2 < len(doc) else None
            is_verb = doc[child.i + 1].lower_ in {"'s", "’s"}
            if is_verb and after is not None and after.tag_ in {"DT", "PRP$"}:
                return child
    return None


def speaker_by_default(verb: Token) -> bool:
    """A statement without a subject, diary style ("started at X", "been using Y", "was in X
    last month"): the speaker's own. An order ("Move to X!") or a plan is not."""
    if any(c.dep_ in SUBJECT_DEPS | {"expl"} for c in verb.children):
        return False
    if verb.dep_ == "csubj":  # "Buying X was the best move I made": a past doing of one's own
        return bool(verb.tag_ == "VBG" and verb.head.lemma_ == "be" and verb.head.tag_ == "VBD")
    if verb.dep_ != "ROOT":
        return False
    if verb.tag_ in {"VBD", "VBN"}:
        return True
    if verb.tag_ == "VB" and cannot_do_without(verb):
        return True  # "Can't do my budget without X anymore": a diary's denial
    if verb.tag_ != "VBG":
        return False
    # "been using Y"; "still grinding at X", "loving my new Y": a bare progressive is the
    # speaker's present (a bare future, "going to X", fails the rows that need a past).
    auxiliaries = [c for c in verb.children if c.dep_ in {"aux", "auxpass"}]
    return all(c.lower_ == "been" for c in auxiliaries)


def _resolve_person(fact: FactContext, token: Token) -> Endpoint | None:
    """he/she/his/her: the named subject of the clause ("Kwame took photos on his Fujifilm"),
    else the one person named before it in the fact."""
    if token.dep_ == "poss":
        for subject in clause_subjects(token):
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
    if _names_someone(fact, token, skip):
        return None  # the fact names someone else: the conversation does not decide
    name = fact.conversation.antecedent([*skip, fact.conversation.answers or ""])
    return Endpoint(name, EntityLabel.PERSON) if name else None


def _names_someone(fact: FactContext, token: Token, skip: set[str]) -> bool:
    """A person mention before the pronoun other than the speaker or the addressed, or a
    proper-noun subject ("Ysolde said she …", whatever label NER gave Ysolde). A name after it
    is no antecedent: "she works at Nike now", whatever NER makes of Nike."""
    # The voted label: "He's great, Corvid Labs hired him", NER taking the firm for a person.
    if any(
        m.voted_label in {EntityLabel.PERSON, EntityLabel.OTHER} and m.text.casefold() not in skip
        for m in fact.before(token)
    ):
        return True
    end = fact.base + len(fact.text)
    return any(
        t.dep_ in SUBJECT_DEPS and t.pos_ == "PROPN" and t.lower_ not in skip
        for t in token.doc
        if fact.base <= t.idx < end
    )


def _answered(fact: FactContext, token: Token) -> Endpoint | None:
    """ "you" as a subject or owner ("you've been my best friend"), when no name in the fact is
    addressed: whom the message answers. "I can get you passes" names no relation's end."""
    if token.dep_ in SUBJECT_DEPS or token.dep_ == "poss":
        return speaker_endpoint(fact.conversation.answers)
    return None


def _resolve_thing(fact: FactContext, token: Token) -> Endpoint | None:
    """it/its/they/their: the one non-person thing named before it in the fact."""
    subjects = [fact.covering(s) for s in clause_subjects(token)]
    neuter = token.lower_ in {"it", "its"}
    things = {
        m.text.casefold(): m
        for m in fact.before(token)
        if (_thing(m) or (neuter and _guessed_person(m)) or _voted_thing(m)) and m not in subjects
    }
    if len(things) == 1:
        return mention_endpoint(next(iter(things.values())))
    return None


def _thing(mention: EntityMention) -> bool:
    return mention.label not in {EntityLabel.PERSON, EntityLabel.PLACE, EntityLabel.TEMPORAL}


def _guessed_person(mention: EntityMention) -> bool:
    """A name only NER calls a person, which "it" may stand for ("I hate Jira, we use it")."""
    guessed = mention.extractor.startswith("spacy:") and mention.label is EntityLabel.PERSON
    return guessed and not any(v.label is EntityLabel.PERSON for v in mention.votes)


def _voted_thing(mention: EntityMention) -> bool:
    """A name only NER calls a person, with no vote for a person and one for a thing ("I quit
    Uber Eats, I can't stand them"): "they" may stand for it. A name a given-name list backs
    may be the singular they of a person, and stays one."""
    if not _guessed_person(mention):
        return False
    return any(v.label in _THING_VOTES for v in mention.votes)


_THING_VOTES = frozenset({EntityLabel.ORG, EntityLabel.PRODUCT, EntityLabel.EVENT})


def _demonstrated(fact: FactContext, noun: Token) -> Endpoint | None:
    """ "I hate that app", "this tool saved me": the one thing the fact named before it."""
    if noun.lemma_.lower() not in GENERIC_THINGS:
        return None
    if not any(c.dep_ == "det" and c.lower_ in {"this", "that"} for c in noun.children):
        return None
    return _resolve_thing(fact, noun)


def addressee(fact: FactContext) -> Endpoint | None:
    """The person a fact speaks to by name: "Diego, could we …" or "…, Jordan!"."""
    text = fact.text
    for m in fact.mentions:
        if m.label not in {EntityLabel.PERSON, EntityLabel.OTHER}:
            continue
        starts = m.start == 0 or text[: m.start].rstrip().endswith((".", "!", "?"))
        opens = starts and text[m.end : m.end + 1] in {",", "!"}
        closes = text[: m.start].rstrip().endswith(",") and bool(_SENTENCE_END.match(text, m.end))
        if opens or closes:
            return mention_endpoint(m, EntityLabel.PERSON)
    return None


# --- clause structure --------------------------------------------------------------------


def clause_verb(token: Token) -> Token:
    verb = token
    for _ in range(4):
        if verb.pos_ in {"VERB", "AUX"} or verb.dep_ == "ROOT" or verb.head.i == verb.i:
            return verb
        verb = verb.head
    return verb


@_once_per_token
def clause_words(token: Token) -> frozenset[str]:
    """The lemmas of the clause's verb, its head, its objects and adverbs: the words that may
    undo what the clause says ("I lost my job at X", "flew back from X"), and the verbs with
    their particles ("work out" is no work)."""
    verb = clause_verb(token)
    words = {verb.lemma_.lower(), verb.head.lemma_.lower()}
    words |= {c.lemma_.lower() for c in verb.children if c.dep_ in {"dobj", "advmod"}}
    words |= {phrasal for v in {token, verb} for phrasal in _phrasal(v)}
    return frozenset(words)


def _phrasal(verb: Token) -> set[str]:
    """The verb with each of its particles: "work out", "take on"."""
    return {f"{verb.lemma_.lower()} {c.lower_}" for c in verb.children if c.dep_ == "prt"}


def clause_subjects(token: Token) -> list[Token]:
    """The subject tokens of the clause a token belongs to, with their conjuncts."""
    return list(_clause_subjects(token))


@_once_per_token
def _clause_subjects(token: Token) -> tuple[Token, ...]:
    return tuple(_read_clause_subjects(token))


def _read_clause_subjects(token: Token) -> list[Token]:
    verb = clause_verb(token)
    misread = _name_before_misread_verb(verb)
    if misread is not None:
        return [misread]
    for _ in range(4):
        subjects = [c for c in verb.children if c.dep_ in SUBJECT_DEPS]
        if subjects:
            found = [t for s in subjects for t in (s, *s.conjuncts)]
            return [t for t in found if not _is_interjection(t)] + _lost_conjuncts(subjects)
        if verb.dep_ not in INHERITS_SUBJECT or verb.head.i == verb.i:
            return []
        verb = verb.head
    return []


def _name_before_misread_verb(root: Token) -> Token | None:
    """ "Dara sings with X", "Omar studies at Y": the small parser reads the verb as a plural
    noun and the name as its compound; "Jonah's obsessed with X": the "'s" of "is" as a
    possessive. The name is the subject."""
    if root.dep_ != "ROOT" or root.i == root.sent.start:
        return None
    owners = [c for c in root.children if c.dep_ == "poss" and c.pos_ == "PROPN"]
    if owners and owners[0].i + 2 == root.i and root.pos_ in {"VERB", "ADJ", "NOUN"}:
        is_verb = root.doc[root.i - 1].lower_ in {"'s", "’s"} and root.tag_ != "NNS"
        return owners[0] if is_verb and not _has_subject(root) else None
    if root.tag_ != "NNS":
        return None
    name = root.doc[root.i - 1]
    named = name.dep_ == "compound" and name.head.i == root.i and name.pos_ == "PROPN"
    return name if named and name.text[:1].isupper() else None


def _has_subject(token: Token) -> bool:
    return any(c.dep_ in SUBJECT_DEPS for c in token.children)


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


@_once_per_token
def asserted(token: Token) -> bool:
    """Not negated, asked, conditional or only possible: "I don't work at X", "Do you use X?",
    "if I move to X", "I might try X"."""
    verb = clause_verb(token)
    chain = _hedge_chain(token, verb)
    for t in chain:
        if any(_hedges(c) for c in t.children):
            return False
    if _wished(verb):
        return False
    return not _asks(verb)


def _wished(verb: Token) -> bool:
    """ "I wish I owned X", "X is in Lyon, I suppose": the clause is what an unreal verb
    governs. Not when that verb has a complement of its own after it: the parser joined two
    sentences ("we're back from X, I'm still dreaming about the food")."""
    if verb.dep_ != "ccomp" or verb.head.lemma_ not in UNREAL_VERBS:
        return False
    head = verb.head
    return verb.i > head.i or not any(
        c.dep_ in _COMPLEMENT_DEPS and c.i > head.i for c in head.children
    )


@_once_per_token
def denied(token: Token) -> bool:
    """Said and negated, not asked or conditional: "I can't stand X", "not a fan of X"."""
    verb = clause_verb(token)
    chain = _hedge_chain(token, verb)
    children = [c for t in chain for c in t.children]
    if not any(c.dep_ == "neg" for c in children) or _asks(verb):
        return False
    return not any(_hedges(c) for c in children if c.dep_ != "neg")


def cannot_do_without(token: Token) -> bool:
    """ "I can't live without X", "couldn't do my budget without X": a verb that cannot or
    could not be done without something, said, not asked or supposed ("if I couldn't …")."""
    verb = clause_verb(token)
    children = list(verb.children)
    if not any(c.dep_ == "neg" for c in children) or _asks(verb):
        return False
    modal = any(c.dep_ == "aux" and c.lower_ in _ABLE for c in children)
    return modal and not any(c.dep_ == "mark" and c.lower_ == "if" for c in children)


_ABLE = frozenset({"ca", "can", "could", "wo", "would"})


def _hedge_chain(token: Token, verb: Token) -> list[Token]:
    """The tokens whose negation or hedge undoes a clause: a clause that borrows its subject
    ("want to move to X") takes its head's too; one with a subject of its own does not ("since
    I moved to X, I never see you")."""
    own_subject = any(c.dep_ in SUBJECT_DEPS for c in verb.children)
    if verb.dep_ in INHERITS_SUBJECT and not own_subject:
        return [token, verb, verb.head]
    return [token, verb]


def _hedges(child: Token) -> bool:
    return (
        child.dep_ == "neg"
        or (child.dep_ == "mark" and child.lower_ == "if")
        or (child.dep_ == "aux" and child.lower_ in HYPOTHETICAL_AUX)
    )


def _asks(verb: Token) -> bool:
    """A question clause: "?" and the auxiliary before the subject, or a wh-word first. "Do you
    still work at X?" asks only whether it goes on, and "How long have you been at X?" or "Why
    did you move to X?" only about it: that it was so is taken as said (not with a modal:
    "Why would you move to X?")."""
    if not ends_with_question_mark(verb):
        return False
    subjects = [c for c in verb.children if c.dep_ in SUBJECT_DEPS]
    auxiliaries = [c for c in verb.children if c.dep_ in {"aux", "auxpass"}]
    if verb.lemma_ == "be" and verb.pos_ == "AUX":
        auxiliaries.append(verb)
    inverted = bool(subjects and auxiliaries and min(a.i for a in auxiliaries) < subjects[0].i)
    if inverted and any(c.lower_ == "still" for c in verb.children):
        return False
    first = min((t for t in verb.subtree), key=lambda t: t.i)
    if (
        subjects
        and not any(a.tag_ == "MD" for a in auxiliaries)
        and _presupposes(verb, subjects[0])
    ):
        return False
    return inverted or not subjects or first.tag_ in INTERROGATIVE


def _presupposes(verb: Token, subject: Token) -> bool:
    """A how, why or when of the verb's own before the subject ("Roberta, how long have you
    been …"), not of a clause under it ("When I was in X, did you …")."""
    children = list(verb.children)
    own = [*children, *(g for c in children if c.lower_ in _HOW_WHAT for g in c.children)]
    return any(t.lower_ in PRESUPPOSING and t.i < subject.i for t in own)


def ends_with_question_mark(token: Token) -> bool:
    """Whether the token's sentence ends with "?" (its text right-stripped): read from its last
    tokens, since building the sentence's text costs a Token object per word."""
    sentence, doc = token.sent, token.doc
    for i in range(sentence.end - 1, sentence.start - 1, -1):
        text: str = doc[i].text.rstrip()
        if text:
            return text.endswith("?")
    return False


@_once_per_token
def happened(token: Token) -> bool:
    """Past, not planned: "went hiking in X" yes; "I'll go to X", "want to visit X" no."""
    verb = clause_verb(token)
    chain = [verb]
    while chain[-1].dep_ in INHERITS_SUBJECT and chain[-1].head.i != chain[-1].i:
        if any(c.dep_ in SUBJECT_DEPS for c in chain[-1].children):
            break  # "I looked it up, and X's offices are in Y": its own clause, its own tense
        chain.append(chain[-1].head)
    for t in chain:
        if any(c.dep_ == "aux" and c.lower_ in FUTURE_AUX for c in t.children):
            return False
        if t.lemma_ in PLAN_VERBS and t.i != verb.i:
            return False
    top = chain[-1]
    auxiliaries = [c for c in top.children if c.dep_ == "aux"]
    if top.tag_ == "VBG" and any(c.lower_ == "been" for c in auxiliaries):
        return True  # "I've been eating at X for years" has happened; "I'm eating at X" not yet
    progressive = top.tag_ == "VBG" and any(c.tag_ in {"VBP", "VBZ"} for c in auxiliaries)
    return top.pos_ not in {"VERB", "AUX"} or (top.tag_ in {"VBD", "VBN"} and not progressive)


def with_conjuncts(tokens: list[Token]) -> list[Token]:
    return [t for token in tokens for t in (token, *token.conjuncts)]


def _stray(prep: Token) -> list[Token]:
    """The name right after a preposition the parser left without an object: the small model
    reads an unknown name as an adverb ("budgeting in Ledgerly")."""
    doc = prep.doc
    after = doc[prep.i + 1] if prep.i + 1 < len(doc) else None
    if after is None or after.dep_ not in {"advmod", "npadvmod"} or not after.text[:1].isupper():
        return []
    return [after]


def _active_by(child: Token) -> bool:
    """ "we stopped by X": the parser may take "by" for a passive's agent in an active clause."""
    head = child.head
    return child.dep_ == "agent" and not any(
        c.dep_ in {"auxpass", "nsubjpass"} for c in head.children
    )


def prep_objects(host: Token, preps: tuple[str, ...], depth: int = 2) -> list[Token]:
    """Objects of ``host``'s prepositions in ``preps``, through "on the river in X"."""
    found: list[Token] = []
    for prep in (c for c in host.children if c.dep_ == "prep" or _active_by(c)):
        objects = with_conjuncts([c for c in prep.children if c.dep_ == "pobj"]) or _stray(prep)
        if prep.lower_ in preps:
            found.extend(objects)
            if objects and host.pos_ == "NOUN":  # "code in C++ and Python": Python hangs on code
                last = max(o.i for o in objects)
                found.extend(c for c in host.conjuncts if c.i > last and c.pos_ == "PROPN")
        if depth > 0 and prep.lower_ in PASS_THROUGH:
            for obj in objects:
                if obj.pos_ != "PROPN":
                    found.extend(prep_objects(obj, preps, depth - 1))
    return found

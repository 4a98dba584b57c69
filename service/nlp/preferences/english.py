"""English preference signals: changes of mind from the forms of the language (stop, quit,
gave up, no longer, not … anymore, switched from X to Y, X instead of Y, off X, used to … but),
things done and things liked from the dependency parse.

A change is the speaker's when its clause has a first-person subject or none ("Quit coffee in
May"); a denied, wished or planned one ("I should quit", "I never stopped") is no change.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import lemminflect
from spacy.tokens import Span, Token

from service.nlp.preferences.lexicon import Item, ItemSpan, lexicon, with_names, within
from service.nlp.preferences.reading import Change, PreferenceReading

_ADVERBS = (
    r"(?:so|and|also|just|finally|recently|lately|actually|honestly|well|yeah|now|then|\w+ly)"
)
_CLAUSE_END = re.compile(r"[,;.!?]|\s(?:but|and|so|though|although|because)\s|\s[-–—]\s")
# What may stand before a change in its clause: the speaker, then a few words ("I finally",
# "I've completely"), or nothing but adverbs ("Recently quit coffee").
_FIRST_PERSON = re.compile(
    r"(?:\b(?:I|I'm|I've|I'd|I am|I have|we|we're|we've)\s+(?:[a-z']+\s+){0,3}|"
    rf"^\s*(?:{_ADVERBS}\s+){{0,2}})$",
    re.IGNORECASE,
)
_DENIED_OR_WISHED = re.compile(
    r"\b(?:not|n't|never|should|shouldn't|would|could|might|may|must|will|'ll|wanna|gonna|if|"
    r"(?:want|wants|wanted|trying|try|tried|going|plan|planning|hope|hoping|need|needs|decide)"
    r"\s+to)\s+(?:[a-z']+\s+){0,2}$",
    re.IGNORECASE,
)
_WISHED = re.compile(
    r"\b(?:should|would|could|might|may|wanna|gonna|if|(?:want|wants|trying|try|plan|planning|"
    r"hope|hoping)\s+to)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class _Rule:
    """A form of change: its marker, and whether what follows it is retired or adopted."""

    id: str
    marker: re.Pattern[str]
    adopts: bool = False


_RULES = (
    _Rule(
        "en_stop",
        re.compile(
            r"\b(?:stop(?:ped|ping|s)?|quit(?:s|ting)?|gave up|give up|giving up|given up|"
            r"cut out|cutting out|ditched|kicked|dropped)\b(?!\s+(?:by|at|in|over|to|on it)\b)",
            re.IGNORECASE,
        ),
    ),
    _Rule("en_no_longer", re.compile(r"\b(?:no longer|not any longer)\b", re.IGNORECASE)),
    _Rule(
        "en_off",
        re.compile(
            r"\b(?:I'm|I am|been|I've been|went|going)\s+(?:\w+\s+)?off\b(?!\s+(?:to|work|for)\b)",
            re.IGNORECASE,
        ),
    ),
    _Rule(
        "en_switch_to",
        re.compile(
            r"\b(?:switch(?:ed|ing)?|mov(?:ed|ing)|chang(?:ed|ing))\s+(?:over\s+)?to\b",
            re.IGNORECASE,
        ),
        adopts=True,
    ),
)
_SWITCH_FROM = re.compile(
    r"\b(?:switch(?:ed|ing)?|mov(?:ed|ing)|chang(?:ed|ing)|went)\s+(?:over\s+)?from\s+"
    r"(?P<old>.+?)\s+to\s+(?P<new>.+)",
    re.IGNORECASE,
)
_INSTEAD_OF = re.compile(r"\binstead of\b", re.IGNORECASE)
_INSTEAD = re.compile(r"\binstead\b(?!\s+of)", re.IGNORECASE)
_ANYMORE = re.compile(r"\b(?:any ?more|any longer)\b", re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:not|never)\b|n't\b", re.IGNORECASE)
_USED_TO = re.compile(r"\bused to\b", re.IGNORECASE)
_USED_TO_TURN = re.compile(r"\b(?:but|now|these days|anymore|any more)\b", re.IGNORECASE)


def read_english(
    text: str,
    sentence: Span | None,
    question: bool,
    future: bool,
    names: Sequence[ItemSpan] = (),
) -> PreferenceReading:
    """The preference signals of one English fact (its source text and parsed span);
    ``names`` are its mentions, which a change may retire too ("stopped using Notion")."""
    if question:
        return PreferenceReading()
    change = find_change(text, names)
    retired = {i.name for i in change.retired} if change else set()
    if sentence is None:
        return PreferenceReading(change)
    items = _item_tokens(sentence)
    done = () if future or change else _things_done(sentence, items)
    liked = _things_liked(items, _LIKING)
    disliked = _things_liked(items, _DISLIKING)
    return PreferenceReading(
        change,
        tuple(i for i in done if i.name not in retired),
        tuple(i for i in liked if i.name not in retired),
        disliked,
    )


def find_change(text: str, names: Sequence[ItemSpan] = ()) -> Change | None:
    """The change of mind a fact states, if any: what it retires and what it adopts."""
    items = with_names(lexicon("en").find(text), names)
    retired: list[ItemSpan] = []
    adopted: list[ItemSpan] = []
    rules: list[str] = []
    for clause_start, clause_end in _clauses(text):
        clause = text[clause_start:clause_end]
        inside = [s for s in items if clause_start <= s.start < clause_end]
        found = _clause_change(clause, clause_start, inside, text)
        if found is not None:
            rule, old, new = found
            rules.append(rule)
            retired += old
            adopted += new
    if not rules:
        return None
    return _change(rules[0], retired, adopted, items, text)


def _change(
    rule: str, retired: list[ItemSpan], adopted: list[ItemSpan], items: list[ItemSpan], text: str
) -> Change | None:
    """A change from what its clauses retire and adopt; another item of a retired item's kind,
    named elsewhere in the fact and not denied, is what replaces it ("off coffee, it's green
    tea for me now")."""
    old = _unique(s.item for s in retired)
    kinds = {i.kind for i in old}
    taken = {(s.start, s.end) for s in retired}
    new = _unique(
        [s.item for s in adopted]
        + [
            s.item
            for s in items
            if s.item.kind in kinds
            and (s.start, s.end) not in taken
            and s.item not in old
            and not _denied_before(text, s.start)
        ]
    )
    new = tuple(i for i in new if i not in old)
    if not old and not new:
        return None
    return Change(rule, old, new)


def _clause_change(
    clause: str, offset: int, items: list[ItemSpan], text: str
) -> tuple[str, list[ItemSpan], list[ItemSpan]] | None:
    """The rule a clause states a change by, with what it retires and adopts."""

    def at(a: int, b: int) -> list[ItemSpan]:
        return within(items, offset + a, offset + b)

    switch = _SWITCH_FROM.search(clause)
    if switch and _speaker_says(clause, switch.start()):
        return "en_switch_from", at(*switch.span("old")), at(*switch.span("new"))
    instead = _INSTEAD_OF.search(clause)
    denied = instead is not None and _NEGATION.search(clause[: instead.start()]) is not None
    if instead and not denied and _speaker_says(clause, 0, anywhere=True):
        return "en_instead_of", at(instead.end(), len(clause)), at(0, instead.start())
    used = _USED_TO.search(clause)
    if used and _speaker_says(clause, used.start()):
        turn = _USED_TO_TURN.search(text, offset + used.end())
        if turn is not None:
            return "en_used_to", at(used.end(), len(clause)), []
    anymore = _ANYMORE.search(clause)
    negated = _NEGATION.search(clause[: anymore.start()]) if anymore else None
    if anymore and negated and _speaker_says(clause, _word_start(clause, negated.start()), True):
        return "en_not_anymore", at(negated.end(), anymore.start()), []
    for rule in _RULES:
        marker = rule.marker.search(clause)
        if marker is None or not _speaker_says(clause, marker.start()):
            continue
        after = at(marker.end(), len(clause))
        return (rule.id, [], after) if rule.adopts else (rule.id, after, [])
    plain = _INSTEAD.search(clause)
    if plain and _speaker_says(clause, 0, anywhere=True):
        return "en_instead", [], at(0, plain.start())
    return None


def _speaker_says(clause: str, at: int, negation: bool = False, anywhere: bool = False) -> bool:
    """Whether the clause states, as fact, that the speaker did what stands at ``at``
    (``negation``: what stands there is the denial the form is made of; ``anywhere``: the
    speaker may be named anywhere in the clause)."""
    before = clause[:at]
    if anywhere:
        return re.search(r"\b(?:I|I'm|I've|I'd|we|me|my)\b", clause) is not None and not (
            _WISHED.search(clause)
        )
    if negation:
        return bool(_FIRST_PERSON.search(before)) and not _WISHED.search(before)
    return bool(_FIRST_PERSON.search(before)) and not _DENIED_OR_WISHED.search(before)


def _word_start(text: str, at: int) -> int:
    """Where the word holding ``at`` begins ("don't" for its "n't")."""
    return text.rfind(" ", 0, at) + 1


def _denied_before(text: str, at: int) -> bool:
    clause_start = max((m.end() for m in _CLAUSE_END.finditer(text, 0, at)), default=0)
    return _NEGATION.search(text, clause_start, at) is not None


def _clauses(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for match in _CLAUSE_END.finditer(text):
        spans.append((start, match.start()))
        start = match.end()
    spans.append((start, len(text)))
    return [(s, e) for s, e in spans if text[s:e].strip()]


def _unique(items: Iterable[Item]) -> tuple[Item, ...]:
    return tuple(dict.fromkeys(items))


# -- things done and things liked, from the parse ------------------------------------------

# Verbs that say the speaker did something with the item beside them.
_DOING = frozenset(
    [
        "go",
        "do",
        "play",
        "practice",
        "practise",
        "drink",
        "have",
        "grab",
        "sip",
        "eat",
        "take",
        "hit",
        "train",
        "make",
        "brew",
        "smoke",
        "join",
        "attend",
        "finish",
        "start",
        "try",
        "order",
        "get",
    ]
)
_LIKING = frozenset(["like", "love", "adore", "prefer", "enjoy"])
_DISLIKING = frozenset(["hate", "dislike", "detest", "loathe", "despise"])
_MODALS = frozenset(["will", "would", "should", "could", "might", "may", "must", "shall"])
_FIRST = frozenset({"i", "we"})


def _things_done(sentence: Span, items: list[tuple[Token, Item]]) -> tuple[Item, ...]:
    """Items the speaker did: "went climbing", "had a latte", "climbed", "played tennis"."""
    found = []
    for token, item in items:
        verb = token if _lemma(token) in lexicon("en").verbs and token.pos_ == "VERB" else None
        verb = verb or _governor(token)
        taste = _governor(token, liking=True)
        if verb is None or (taste is not None and _lemma(taste) in _LIKING | _DISLIKING):
            continue
        doing = _lemma(verb) in _DOING or lexicon("en").verbs.get(_lemma(verb)) == item
        if doing and _by_speaker(verb) and not _undone(verb):
            found.append(item)
    return _unique(found) or _diary(sentence)


def _diary(sentence: Span) -> tuple[Item, ...]:
    """A diary-style statement that opens with a verb in the past ("Played chess online until
    midnight", "Drank way too much coffee"), which the small parser often misreads: the items
    of its first clause, done by the speaker."""
    words = [t for t in sentence if not t.is_punct and not t.is_space]
    if not words or words[0].tag_ == "PRP" or not words[0].is_title:
        return ()
    opener = words[0]
    lemma = _lemma(opener)
    past = lemminflect.getInflection(lemma, tag="VBD") + lemminflect.getInflection(lemma, "VBN")
    if opener.lower_ not in past or (lemma not in _DOING and lemma not in lexicon("en").verbs):
        return ()
    clause_end = next((t.idx for t in sentence if t.text in {",", ";"}), sentence.end_char)
    text = sentence.doc.text[sentence.start_char : clause_end]
    items = [s.item for s in lexicon("en").find(text)]
    own = lexicon("en").verbs.get(lemma)
    return _unique([*items, *([own] if own else [])])


def _lemma(token: Token) -> str:
    """The token's lemma; for a verb the small model lemmatises wrongly ("swam", "Drank"),
    LemmInflect's."""
    lemma: str = token.lemma_.lower()
    if token.pos_ not in {"VERB", "AUX"}:
        return lemma
    return _verb_lemma(token.lower_, lemma)


@lru_cache(maxsize=4096)  # bounded: the words come from users
def _verb_lemma(word: str, lemma: str) -> str:
    if lemma in _DOING | _LIKING | _DISLIKING or lemma in lexicon("en").verbs:
        return lemma
    verbs: tuple[str, ...] = lemminflect.getAllLemmas(word, upos="VERB").get("VERB", ())
    return verbs[0] if verbs else lemma


def _things_liked(items: list[tuple[Token, Item]], verbs: frozenset[str]) -> tuple[Item, ...]:
    """Items the speaker says they like (or, with the verbs of dislike, dislike): "I love
    coffee", "I really enjoy a good latte", "I hate running"."""
    found = []
    for token, item in items:
        verb = _governor(token, liking=True)
        said = verb is not None and verb.lemma_ in verbs and _by_speaker(verb, strict=True)
        if said and verb is not None and not _undone(verb):
            found.append(item)
    return _unique(found)


def _item_tokens(sentence: Span) -> list[tuple[Token, Item]]:
    """Each item the sentence names (by a form, or a verb that says doing it), at its head."""
    found = []
    text = sentence.text
    for s in lexicon("en").find(text):
        span = sentence.doc.char_span(
            sentence.start_char + s.start, sentence.start_char + s.end, alignment_mode="expand"
        )
        if span is not None and (span.root.pos_ != "VERB" or _plain(span.root, s.item)):
            found.append((span.root, s.item))
    for token in sentence:
        item = lexicon("en").verbs.get(_lemma(token))
        if item is not None and token.pos_ == "VERB" and _plain(token, item):
            found.append((token, item))
    return found


# Phrasal uses that are not the activity: "ran into Tom", "ran out of milk", "run a shop".
_NOT_THE_ACTIVITY = frozenset(["into", "out", "over", "up", "off", "down"])


def _plain(verb: Token, item: Item) -> bool:
    """The verb says the activity itself: no particle, no "into"/"out"; a sport's verb no
    object other than a distance or a count ("ran 10k", "swam 40 laps"; not "ran the shop").
    A craft's object is what it makes ("baked bread")."""
    for child in verb.children:
        if child.dep_ == "prt" or child.lower_ in _NOT_THE_ACTIVITY:
            return False
        counted = any(c.isdigit() for c in child.text) or any(
            c.like_num or c.dep_ == "nummod" for c in child.children
        )
        if child.dep_ == "dobj" and item.kind == "sport" and not counted:
            return False
    return True


def _governor(token: Token, liking: bool = False) -> Token | None:
    """The verb an item belongs to, a few steps up: "went [climbing]", "had a [latte]",
    "love drinking [coffee]" (``liking``: up through the verb of doing to the liking)."""
    current = token
    for _ in range(4):
        if current.head is current:
            return current if current.pos_ in {"VERB", "AUX"} else None
        current = current.head
        if current.pos_ in {"VERB", "AUX"}:
            taste = _LIKING | _DISLIKING
            if liking and current.dep_ in {"xcomp", "ccomp"} and current.head.lemma_ in taste:
                return current.head
            return current
    return None


def _by_speaker(verb: Token, strict: bool = False) -> bool:
    """The verb's subject is I or we; or, unless ``strict``, it has none and opens a diary-style
    statement ("Went climbing today")."""
    current = verb
    for _ in range(3):
        subjects = [c for c in current.children if c.dep_ in {"nsubj", "nsubjpass"}]
        if subjects:
            return subjects[0].lower_ in _FIRST
        if current.dep_ not in {"conj", "xcomp", "advcl"} or current.head is current:
            break
        current = current.head
    return not strict and current.dep_ == "ROOT" and current.tag_ in {"VBD", "VBG", "VBN"}


def _undone(verb: Token) -> bool:
    """Denied, wished or planned: "didn't go", "will go", "want to go", "would love"."""
    chain = [verb, *([verb.head] if verb.dep_ in {"xcomp", "conj"} else [])]
    for current in chain:
        for child in current.children:
            if child.dep_ == "neg" or (child.dep_ == "aux" and child.lemma_ in _MODALS):
                return True
        if current.dep_ == "xcomp" and current.head.lemma_ in {"want", "plan", "hope", "need"}:
            return True
    return verb.tag_ == "VB" and any(c.dep_ == "aux" and c.lower_ == "to" for c in verb.children)

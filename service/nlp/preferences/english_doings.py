"""English things done and things liked, from the dependency parse of en_core_web_sm: "went
climbing", "had a latte", "Played chess online until midnight" (done); "I love coffee", "I hate
running" (liked, disliked). The speaker is the clause's I or we, or nobody in a diary-style
statement; denied, wished and planned doings are none.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

import lemminflect
from spacy.tokens import Span, Token

from service.nlp.preferences.lexicon import Item, lexicon

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
LIKING = frozenset(["like", "love", "adore", "prefer", "enjoy"])
DISLIKING = frozenset(["hate", "dislike", "detest", "loathe", "despise"])
_MODALS = frozenset(["will", "would", "should", "could", "might", "may", "must", "shall"])
_FIRST = frozenset({"i", "we"})


def things_done(sentence: Span, items: list[tuple[Token, Item]]) -> tuple[Item, ...]:
    """Items the speaker did: "went climbing", "had a latte", "climbed", "played tennis"."""
    found = []
    for token, item in items:
        verb = token if _lemma(token) in lexicon("en").verbs and token.pos_ == "VERB" else None
        verb = verb or _governor(token)
        taste = _governor(token, liking=True)
        if verb is None or (taste is not None and _lemma(taste) in LIKING | DISLIKING):
            continue
        doing = _lemma(verb) in _DOING or lexicon("en").verbs.get(_lemma(verb)) == item
        if doing and _by_speaker(verb) and not _undone(verb):
            found.append(item)
    return _unique(found) or _diary(sentence)


def _diary(sentence: Span) -> tuple[Item, ...]:
    """A diary-style statement that opens with a verb in the past ("Played chess online until
    midnight", "Drank way too much coffee"), which the small parser often misreads: the items
    of its first clause, done by the speaker."""
    opener = next((t for t in sentence if not t.is_punct and not t.is_space), None)
    if opener is None or opener.tag_ == "PRP" or not opener.is_title:
        return ()
    lemma = _lemma(opener)
    # A verb of doing first: LemmInflect runs a model for a word it does not know ("Caroline").
    if lemma not in _DOING and lemma not in lexicon("en").verbs:
        return ()
    past = lemminflect.getInflection(lemma, tag="VBD") + lemminflect.getInflection(lemma, "VBN")
    if opener.lower_ not in past:
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
    if lemma in _DOING | LIKING | DISLIKING or lemma in lexicon("en").verbs:
        return lemma
    verbs: tuple[str, ...] = lemminflect.getAllLemmas(word, upos="VERB").get("VERB", ())
    return verbs[0] if verbs else lemma


def things_liked(items: list[tuple[Token, Item]], verbs: frozenset[str]) -> tuple[Item, ...]:
    """Items the speaker says they like (or, with the verbs of dislike, dislike): "I love
    coffee", "I really enjoy a good latte", "I hate running"."""
    found = []
    for token, item in items:
        verb = _governor(token, liking=True)
        said = verb is not None and verb.lemma_ in verbs and _by_speaker(verb, strict=True)
        if said and verb is not None and not _undone(verb):
            found.append(item)
    return _unique(found)


def item_tokens(sentence: Span) -> list[tuple[Token, Item]]:
    """Each item the sentence names (by a form, or a verb that says doing it), at its head."""
    found = []
    text = sentence.text
    for s in lexicon("en").find(text):
        span = sentence.doc.char_span(
            sentence.start_char + s.start, sentence.start_char + s.end, alignment_mode="expand"
        )
        if span is not None and (span.root.pos_ != "VERB" or _plain(span.root, s.item)):
            found.append((span.root, s.item))
    for token in (t for t in sentence if t.pos_ == "VERB"):
        item = lexicon("en").verbs.get(_lemma(token))
        if item is not None and _plain(token, item):
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
            taste = LIKING | DISLIKING
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


def _unique(items: Iterable[Item]) -> tuple[Item, ...]:
    return tuple(dict.fromkeys(items))

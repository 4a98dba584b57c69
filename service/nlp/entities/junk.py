"""What never becomes an English entity, and how a span is cut into the entities it names.

The small English model tags interjections and sentence-initial verbs as names ("Woohoo" ORG,
"Felt" PERSON, "Yep John" PERSON) and reads a coordination as one name ("Alice and Bob").
The stop list (nlp_models/stop_entities.txt) is the data; these are the rules around it:

- filler words at a span's edges are trimmed ("Hey Marcus" -> Marcus);
- a span that is only interjections, one letter or digits is junk, and so is one shouted
  stop word ("AGAIN") or a shouted phrase of dictionary words ("PACKED", "SEATS BOOKED");
- a one-word span opening a sentence that is a form of an English verb ("Felt so good …") is
  junk unless the pattern table made it; a known name there is found again by the gazetteer
  (service/nlp/entities/linking.py), so a person called Mark is not lost;
- "Alice and Bob", "Fetch and Frisbee" are split at and/or/commas when every part is
  capitalised; organisations and places are not split ("Barnes and Noble", "Trinidad and
  Tobago"), nor are rows of the pattern table;
- a one-word "name" ending in -ing ("Kickboxing has been great") is an activity: CONCEPT;
- "from Slack to Teams" read as one name is two.
"""

from __future__ import annotations

from itertools import pairwise

import lemminflect
from spacy.lang.en.stop_words import STOP_WORDS as SPACY_STOP_WORDS
from spacy.language import Language
from spacy.tokens import Span, Token

from service.nlp.entities.mentions import EntityLabel
from service.nlp.entities.type_evidence import load_gazetteers
from service.nlp.facts import verb_exceptions

_COORDINATION = {"and", "or", ",", "&"}
_SPLIT_LABELS = {EntityLabel.PERSON, EntityLabel.PRODUCT, EntityLabel.CONCEPT, EntityLabel.OTHER}
_INTERJECTION_TAGS = {"UH", "INTJ"}
_COMMON_POS = {"VERB", "AUX", "ADJ", "ADV", "PRON", "DET", "ADP", "CCONJ", "SCONJ"}
_COMMON_NOUN_MODIFIERS = {"det", "amod", "poss"}
# Verbs that open a sentence to introduce, greet or thank someone, whose name comes next.
_ADDRESSING_VERBS = frozenset({"meet", "thank", "thanks", "congrats", "congratulate", "welcome"})


def _range_ends(span: Span) -> tuple[Span, Span] | None:
    """ "from A to B" read as one name: A and B, when both are capitalised."""
    doc = span.doc
    if span.start == 0 or doc[span.start - 1].lower_ != "from":
        return None
    tos = [t.i for t in span if t.lower_ == "to"]
    if len(tos) != 1:
        return None
    left, right = doc[span.start : tos[0]], doc[tos[0] + 1 : span.end]
    if not left or not right or not (left.text[:1].isupper() and right.text[:1].isupper()):
        return None
    return left, right


class JunkFilter:
    def __init__(self, nlp: Language, stop: frozenset[str]) -> None:
        self._stop = stop
        self._verb_forms, self._verb_bases = _verb_tables(nlp)

    def split(self, ent: Span, label: EntityLabel) -> list[Span]:
        """The span without filler at its edges, cut at coordinations where that is safe."""
        trimmed = self._trim(ent)
        if trimmed is None:
            return []
        if (label is EntityLabel.PERSON and self._leading_verb(trimmed)) or self._leading_gerund(
            trimmed
        ):
            trimmed = trimmed[1:]  # "Meet Ravi, my cousin", "Visiting Kyoto was …": the verb
        ends = _range_ends(trimmed)
        if ends is not None:  # "switched from Slack to Teams": NER's one span names two
            return [p for p in (self._trim(p) for p in ends) if p is not None]
        verbs = [t.i for t in trimmed if t.pos_ == "VERB" and t.text.islower()]
        if verbs:  # "Felix loves Arsenal" as one name: no name holds a lower-case verb
            cuts = [trimmed.start - 1, *verbs, trimmed.end]
            pieces = [trimmed.doc[a + 1 : b] for a, b in pairwise(cuts)]
            named = [p for p in pieces if len(p) and p[0].text[:1].isupper()]
            return [p for p in (self._trim(p) for p in named) if p is not None]
        if label not in _SPLIT_LABELS:
            return [trimmed]
        parts: list[Span] = []
        start = trimmed.start
        for token in trimmed:
            if token.lower_ in _COORDINATION:
                if token.i > start:
                    parts.append(trimmed.doc[start : token.i])
                start = token.i + 1
        if start < trimmed.end:
            parts.append(trimmed.doc[start : trimmed.end])
        if len(parts) > 1 and all(p[0].text[:1].isupper() for p in parts):
            return [p for p in (self._trim(p) for p in parts) if p is not None]
        return [trimmed]

    def is_junk(self, span: Span, surface: str, from_table: bool) -> bool:
        if all(t.tag_ in _INTERJECTION_TAGS or t.pos_ in _INTERJECTION_TAGS for t in span):
            return True
        if surface.isdigit() or (surface.isascii() and len(surface.strip(".")) < 2):
            return True
        if not any(c.isalnum() for c in surface):  # an emoji or symbols only
            return True
        if from_table or len(span) != 1:
            return False
        token = span[0]
        if len(surface) > 2 and surface.isupper() and token.lower_ in SPACY_STOP_WORDS:
            return True  # a shouted word ("AGAIN", "STILL"), not an acronym
        if token.is_sent_start and self._is_verb_form(token.lower_):
            return True
        if _opening_adjective(token):
            return True
        return self._common_word(token, surface) or self._exclamation(token)

    @staticmethod
    def _common_word(token: Token, surface: str) -> bool:
        """One lower-case word that the tagger reads as a common word, not a proper noun: NER's
        "come" of "come yell", or a noun with an article or adjective ("a chilly bin"; a
        lower-case tool name takes none: "I use pandas"). Activities (-ing) stay concepts."""
        if not (surface.isalpha() and surface.islower()) or surface.endswith("ing"):
            return False
        if token.pos_ == "NOUN":
            return any(child.dep_ in _COMMON_NOUN_MODIFIERS for child in token.children)
        return token.pos_ in _COMMON_POS

    @staticmethod
    def _exclamation(token: Token) -> bool:
        """ "Yikes, …", "Hongera!", "Bet.": one capitalised word alone before a comma or a
        stop at a sentence's start, that no list of given names or places knows, is an
        interjection or an address in any language ("Tyler, did you …" keeps Tyler)."""
        if not token.is_sent_start or token.i + 1 >= len(token.doc):
            return False
        after = token.doc[token.i + 1]
        if after.text not in {",", "!", "?", ".", "…", "!!", "?!"}:
            return False
        known = load_gazetteers()
        word = token.lower_
        if word in known.places:
            return False
        # A sentence that is this word alone ("Bet.", "Janey!") names no one, a given name or not.
        alone = all(t.is_punct for t in token.doc[token.i + 1 : token.sent.end])
        return alone or word not in known.given_names

    @staticmethod
    def relabel(surface: str, label: EntityLabel) -> EntityLabel:
        one_word = " " not in surface.strip()
        if one_word and surface.lower().endswith("ing") and label in _SPLIT_LABELS:
            return EntityLabel.CONCEPT
        return label

    def _trim(self, span: Span) -> Span | None:
        if shouted(_capitals_around(span)):
            return None  # KEYS of "KEYS COLLECTED", before its edges are trimmed
        start, end = span.start, span.end
        doc = span.doc
        while start < end and self._filler(doc[start]):
            start += 1
        while end > start and self._filler(doc[end - 1]):
            end -= 1
        # ... nor in a plain lower-case word once fillers are gone ("Twitch every Fri").
        while end - start > 1 and doc[end - 1].is_lower and doc[end - 1].is_alpha:
            end -= 1
        # ... nor in shouted words at its edges ("SHUT UP Priya", "Bags PACKED").
        start += _shouted_run([t.text for t in doc[start : end - 1]])
        end -= _shouted_run([t.text for t in reversed(doc[start + 1 : end])])
        return doc[start:end] if start < end else None

    def _filler(self, token: Token) -> bool:
        return (
            token.lower_ in self._stop
            or token.tag_ in _INTERJECTION_TAGS
            or token.is_punct
            or token.lower_ in _COORDINATION
            or not any(c.isalnum() for c in token.text)  # an emoji NER took in: Glasgow 📚
        )

    def _leading_verb(self, span: Span) -> bool:
        """A verb opening its sentence before a given name: "Meet Ravi", "Tell Priya Sharma";
        not itself a given name (Mark Twain, Bill Gates stay). A verb that introduces or
        addresses someone ("Meet Kwame") comes before any name."""
        if len(span) < 2 or not span[0].is_sent_start:
            return False
        names = load_gazetteers().given_names
        verb, name = span[0].lower_, span[1].lower_
        if verb in _ADDRESSING_VERBS:
            return True
        return verb in self._verb_bases and verb not in names and name in names

    def _leading_gerund(self, span: Span) -> bool:
        """ "Visiting Kyoto was …", "Meeting Priya changed …": an -ing verb opening its sentence
        before a known given name or place is the doing, not part of the name (Rolling Stones,
        whose second word is neither, stays whole)."""
        if len(span) < 2 or not span[0].is_sent_start or not span[0].lower_.endswith("ing"):
            return False
        return self._is_verb_form(span[0].lower_) and _known_name(span[1].text)

    def _is_verb_form(self, word: str) -> bool:
        if word in self._verb_forms:
            return True
        stems = (word[:-2], word[:-1], word[:-3], word[:-3] + "e") if len(word) > 4 else ()
        return word.endswith(("ed", "d", "ing")) and any(s in self._verb_bases for s in stems)


def _opening_adjective(token: Token) -> bool:
    """ "Smart man.", "Big news!": a capitalised adjective that opens its sentence before the
    lower-case noun it modifies is no name, unless a list of given names or places knows it."""
    if not token.is_sent_start or token.dep_ != "amod":
        return False
    head = token.head
    if head.i <= token.i or not (head.is_lower and head.is_alpha):
        return False
    return not _known_name(token.text) and "ADJ" in lemminflect.getAllLemmas(token.lower_)


def _known_name(word: str) -> bool:
    """Whether a list of given names or of the world's places knows the word."""
    known = load_gazetteers()
    return known.is_given_name(word) or known.is_place(word)


def shouted(words: list[str]) -> bool:
    """Capitals used for emphasis ("Bags PACKED", "SEATS BOOKED", "so EXCITED"), not an
    acronym: every word is in the dictionary, and one of them only as a verb, adjective or
    adverb. A shouted noun may be a name in capitals (GAP, SHELL, CARE), so it stays."""
    if not words or not all(w.isalpha() and w.isupper() for w in words):
        return False
    # Two letters are an acronym alone (US, UK), a word beside another ("SHUT UP").
    if any(len(w) < 2 or (len(w) == 2 and len(words) == 1) for w in words):
        return False
    # A stop word ("SHUT UP") is read as a word that is no noun.
    readings = [
        {"ADV": ()} if w.lower() in SPACY_STOP_WORDS else lemminflect.getAllLemmas(w.lower())
        for w in words
    ]
    if not all(readings):
        return False
    known = load_gazetteers()
    if any(w.lower() in known.places or w.lower() in known.given_names for w in words):
        return False
    return any("NOUN" not in r for r in readings)


def _capitals_around(span: Span) -> list[str]:
    """The words in capitals the span is part of, with those beside it ("KEYS COLLECTED" for
    KEYS); nothing when a word of the span is not in capitals."""
    doc, start, end = span.doc, span.start, span.end
    if not all(t.text.isupper() for t in span):
        return []
    while start > 0 and doc[start - 1].text.isupper():
        start -= 1
    while end < len(doc) and doc[end].text.isupper():
        end += 1
    return [t.text for t in doc[start:end]]


def _shouted_run(words: list[str]) -> int:
    """How many of ``words``, from the first, are a shout (the longest such run)."""
    return next((n for n in range(len(words), 0, -1) if shouted(words[:n])), 0)


def _verb_tables(nlp: Language) -> tuple[frozenset[str], frozenset[str]]:
    """Irregular verb forms (felt, went) and verb base forms, from the English lemmatizer's
    own tables; empty when the pipeline has no rule lemmatizer."""
    if "lemmatizer" not in nlp.pipe_names:
        return frozenset(), frozenset()
    lookups = nlp.get_pipe("lemmatizer").lookups
    if not (lookups.has_table("lemma_exc") and lookups.has_table("lemma_index")):
        return frozenset(), frozenset()
    bases = lookups.get_table("lemma_index").get("verb", [])
    return frozenset(verb_exceptions(nlp)), frozenset(bases)

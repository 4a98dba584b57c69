"""Entity mentions: spaCy NER plus the pattern table in ``nlp_models/patterns.jsonl``.

The table is data, one JSON object a line, shaped like spaCy's span_ruler JSONL:
``{"id", "label", "lang", "pattern"}`` and, optionally, ``"ent"`` and ``"confidence"``.
``pattern`` is one of

- a phrase string, matched on lower-cased tokens (both languages);
- a spaCy token pattern (English only). ``"ent": [i, j]`` keeps pattern elements i..j-1 as the
  entity, so "my name is X" yields X alone (the matcher's alignments map tokens to elements);
- ``{"regex": "..."}``, used for Chinese: a Python regex over the text whose named group ``ent``
  marks the entity (else the whole match). Chinese runs on spaCy's character segmenter, so any
  character span is a token span. Regexes rather than token patterns because word segmentation
  cuts names unpredictably: jieba reads 张伟说明天下雨 as 张伟/说明/天下/雨.

The English ruler is a pipeline component named ``engram_patterns_v1`` placed after ``ner``:
its token patterns may test NER's ``ENT_TYPE`` as well as lemma, POS and the parse, and its
matches replace every overlapping NER entity in ``doc.ents``. Between matches the longest wins,
then the earlier row in the table. Confidence is a row's own value, else 0.9; NER mentions get
0.85. Mentions whose normalised text is in ``nlp_models/stop_entities.txt`` are dropped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from spacy.language import Language
from spacy.matcher import Matcher, PhraseMatcher
from spacy.schemas import validate_token_pattern
from spacy.tokens import Doc, Span, Token
from spacy.util import filter_spans

from service.core.errors import ConfigurationError
from service.core.resources import NLP_MODELS_DIR
from service.nlp.entities.chinese import ChineseEntityFinder, merge_mentions
from service.nlp.entities.chinese_frames import FrameObjects
from service.nlp.entities.junk import JunkFilter
from service.nlp.entities.mentions import (
    STOP_ENTITIES_PATH,
    EntityLabel,
    EntityMention,
    casefold_name,
    load_stop_entities,
)
from service.nlp.entities.type_evidence import load_type_evidence
from service.nlp.language import Lang, blank_chinese, detect_lang
from service.nlp.tables import load_table

__all__ = [
    "EntityExtractor",
    "EntityLabel",
    "EntityMention",
    "Lang",
    "PatternRow",
    "PatternRuler",
    "casefold_name",
    "detect_lang",
    "load_patterns",
    "load_stop_entities",
    "trim_span",
]

PATTERNS_PATH = NLP_MODELS_DIR / "patterns.jsonl"
PROPN_CONFIDENCE = 0.6
RULER_FACTORY = "engram_pattern_ruler"
RULER_NAME = "engram_patterns_v1"
PATTERN_CONFIDENCE = 0.9
NER_CONFIDENCE = 0.85


# spaCy's OntoNotes labels; those not listed (CARDINAL, ORDINAL, QUANTITY, MONEY, PERCENT) drop.
NER_LABELS: Mapping[str, EntityLabel] = MappingProxyType(
    {
        "PERSON": EntityLabel.PERSON,
        "ORG": EntityLabel.ORG,
        "GPE": EntityLabel.PLACE,
        "LOC": EntityLabel.PLACE,
        "FAC": EntityLabel.PLACE,
        "NORP": EntityLabel.CONCEPT,
        "PRODUCT": EntityLabel.PRODUCT,
        "WORK_OF_ART": EntityLabel.PRODUCT,
        "EVENT": EntityLabel.EVENT,
        "LANGUAGE": EntityLabel.CONCEPT,
        "DATE": EntityLabel.TEMPORAL,
        "TIME": EntityLabel.TEMPORAL,
    }
)


class RegexPattern(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    regex: str = Field(min_length=1)

    @field_validator("regex")
    @classmethod
    def _compiles(cls, value: str) -> str:
        try:
            re.compile(value)
        except re.error as e:
            raise ValueError(f"invalid regex: {e}") from e
        return value


class PatternRow(BaseModel):
    """One row of the pattern table."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$", max_length=80)
    label: EntityLabel
    lang: Lang
    pattern: RegexPattern | str | list[dict[str, Any]]
    ent: tuple[int, int] | None = None
    confidence: float = Field(default=PATTERN_CONFIDENCE, gt=0.0, le=1.0)

    @model_validator(mode="after")
    def _consistent(self) -> PatternRow:
        if isinstance(self.pattern, str) and not self.pattern.strip():
            raise ValueError("a phrase pattern must not be blank")
        if isinstance(self.pattern, list):
            if self.lang != "en":
                raise ValueError("token patterns are for English; use a regex for Chinese")
            errors = validate_token_pattern(self.pattern) if self.pattern else ["empty pattern"]
            if errors:
                raise ValueError(f"invalid token pattern: {'; '.join(errors)}")
        if self.ent is not None:
            if not isinstance(self.pattern, list):
                raise ValueError("'ent' applies to token patterns only")
            start, end = self.ent
            if not 0 <= start < end <= len(self.pattern):
                raise ValueError(f"'ent' {list(self.ent)} is outside the pattern's elements")
        return self


def load_patterns(path: Path = PATTERNS_PATH) -> list[PatternRow]:
    """The validated rows of a table; a bad row raises ConfigurationError naming its line."""
    return load_table(path, PatternRow, "pattern table")


class PatternRuler:
    """spaCy component: the pattern table's matches become ``doc.ents``, winning over NER."""

    def __init__(self, nlp: Language, name: str = RULER_NAME) -> None:
        self.name = name
        self._vocab = nlp.vocab
        self._make_doc = nlp.make_doc
        self._token_matcher = Matcher(nlp.vocab)
        self._phrase_matcher = PhraseMatcher(nlp.vocab, attr="LOWER")
        self._regexes: list[tuple[PatternRow, re.Pattern[str]]] = []
        self._rows: dict[str, PatternRow] = {}
        self._rank: dict[str, int] = {}

    @property
    def rows(self) -> Mapping[str, PatternRow]:
        return MappingProxyType(self._rows)

    def add_rows(self, rows: Iterable[PatternRow]) -> None:
        for row in rows:
            if row.id in self._rows:
                raise ConfigurationError(f"pattern id {row.id!r} is already in {self.name}")
            self._rows[row.id] = row
            self._rank[row.id] = len(self._rank)
            if isinstance(row.pattern, RegexPattern):
                self._regexes.append((row, re.compile(row.pattern.regex)))
            elif isinstance(row.pattern, str):
                self._phrase_matcher.add(row.id, [self._make_doc(row.pattern)])
            else:
                self._token_matcher.add(row.id, [row.pattern], greedy="LONGEST")

    def __call__(self, doc: Doc) -> Doc:
        # Sorted by table order first: filter_spans keeps the first of equally long spans.
        found = filter_spans(sorted(self.match(doc), key=lambda span: self._rank[span.id_]))
        taken = {i for span in found for i in range(span.start, span.end)}
        kept = [ent for ent in doc.ents if taken.isdisjoint(range(ent.start, ent.end))]
        doc.ents = sorted([*found, *kept], key=lambda span: span.start)
        return doc

    def match(self, doc: Doc) -> list[Span]:
        """Every match of every row, overlaps included, labelled and carrying the row id."""
        spans: list[Span] = []
        # Empty matchers are skipped: spaCy warns on every call to one.
        tokens = self._token_matcher
        for key, start, _end, alignment in tokens(doc, with_alignments=True) if tokens else []:
            row = self._rows[self._vocab.strings[key]]
            spans.extend(_entity_tokens(doc, row, start, alignment))
        for key, start, end in self._phrase_matcher(doc) if self._phrase_matcher else []:
            row = self._rows[self._vocab.strings[key]]
            spans.append(Span(doc, start, end, label=row.label.value, span_id=row.id))
        for row, regex in self._regexes:
            group = "ent" if "ent" in regex.groupindex else 0
            for found in regex.finditer(doc.text):
                start_char, end_char = found.span(group)
                if start_char >= end_char:
                    continue
                span = doc.char_span(
                    start_char, end_char, row.label.value, span_id=row.id, alignment_mode="expand"
                )
                if span is not None:
                    spans.append(span)
        return spans


def _entity_tokens(doc: Doc, row: PatternRow, start: int, alignment: list[int]) -> list[Span]:
    """The entity part of a token-pattern match: the tokens aligned to the row's ``ent`` slice."""
    if row.ent is None:
        return [Span(doc, start, start + len(alignment), label=row.label.value, span_id=row.id)]
    first, stop = row.ent
    picked = [start + offset for offset, element in enumerate(alignment) if first <= element < stop]
    if not picked:
        return []
    return [Span(doc, picked[0], picked[-1] + 1, label=row.label.value, span_id=row.id)]


def _make_ruler(nlp: Language, name: str) -> PatternRuler:
    return PatternRuler(nlp, name)


if not Language.has_factory(RULER_FACTORY):
    Language.factory(RULER_FACTORY, func=_make_ruler)


def add_ruler(nlp: Language, rows: Iterable[PatternRow]) -> PatternRuler:
    """Put a ruler with ``rows`` after ``ner`` (last if there is none), replacing an older one."""
    if RULER_NAME in nlp.pipe_names:
        nlp.remove_pipe(RULER_NAME)
    where = {"after": "ner"} if "ner" in nlp.pipe_names else {}
    ruler: PatternRuler = nlp.add_pipe(RULER_FACTORY, name=RULER_NAME, **where)
    ruler.add_rows(rows)
    return ruler


# Characters trimmed from either end of a mention ("#" and "+" stay: C#, C++).
_EDGE = frozenset(" \t\r\n.,;:!?\"'`“”‘’()[]{}<>«»「」『』《》（）【】，。！？；：、…—–-*_/\\|~")
_POSSESSIVE = ("'s", "’s", "'S", "’S")


def trim_span(text: str, start: int, end: int) -> tuple[int, int]:
    """Offsets without surrounding punctuation, a possessive "'s" or a lower-case leading "the"."""
    while True:
        before = (start, end)
        while start < end and text[start] in _EDGE:
            start += 1
        while end > start and text[end - 1] in _EDGE:
            end -= 1
        if end - start > 2 and text[start:end].endswith(_POSSESSIVE):
            end -= 2
        if end - start > 4 and text.startswith("the ", start):
            start += 4
        if (start, end) == before:
            return start, end


def whole_name(span: Span) -> Span:
    """The span with the capitalised proper nouns its last word is a compound of: NER often
    tags the first words of a name alone ("Harbour" of "Harbour Choir", "Second Chance" of
    "Second Chance Shelter"), and a possessive business name as its owner ("Rosie's Bakery")."""
    doc, end = span.doc, span.end
    # A name does not end in a plain lower-case word: NER's "Twitch every" is Twitch.
    while end - span.start > 1 and doc[end - 1].is_lower and doc[end - 1].is_alpha:
        end -= 1
    if (
        end + 1 < len(doc)
        and doc[end].lower_ in {"'s", "’s"}
        and doc[end + 1].text[:1].isupper()
        and doc[end + 1].lower_ in load_type_evidence().en.org_heads
    ):
        return doc[span.start : end + 2]
    start = span.start
    while start > 0 and _continues_leftward(doc[start - 1], span.start, end):
        start -= 1
    while (
        end < len(doc)
        and doc[end].pos_ == "PROPN"
        and doc[end].text[:1].isupper()
        and doc[end - 1].dep_ == "compound"
        and doc[end - 1].head.i >= end
    ):
        end += 1
    return span if (start, end) == (span.start, span.end) else doc[start:end]


_ARGUMENT_DEPS = frozenset(
    {"nsubj", "nsubjpass", "dobj", "iobj", "dative", "pobj", "appos", "conj", "attr"}
)


def _continues_leftward(token: Token, start: int, end: int) -> bool:
    """A word before a name that is part of it: a capitalised proper noun that modifies a word
    of the name ("Ancoats" of "Ancoats Run Club"), or a hyphen joining two of its parts with no
    space ("M-Pesa")."""
    if token.text == "-" and not token.whitespace_ and token.i > 0:
        before = token.doc[token.i - 1]
        return before.text[:1].isupper() and not before.whitespace_
    capitalised = token.pos_ == "PROPN" and token.text[:1].isupper()
    if not capitalised:
        return False
    if token.dep_ in {"compound", "prep"} and start <= token.head.i < end:
        return True
    # "founded Ancoats Run Club": a proper noun the parser hung elsewhere, right before a name
    # that ends in an organisation's head, is its first word unless it is a clause's argument.
    heads = load_type_evidence().en.org_heads
    return (
        token.i == start - 1
        and token.doc[end - 1].lower_ in heads
        and token.dep_ not in _ARGUMENT_DEPS
        and not token.is_sent_start
    )


class EntityExtractor:
    """Entity mentions in English (spaCy NER + patterns) and Chinese (patterns) text.

    The ruler is added to ``nlp`` in place (an earlier one is replaced), so ``english.pipe``
    gives docs that ``extract_doc`` reads without parsing again.
    """

    def __init__(
        self,
        nlp: Language,
        patterns_path: Path = PATTERNS_PATH,
        stop_path: Path = STOP_ENTITIES_PATH,
    ) -> None:
        rows = load_patterns(patterns_path)
        self._rows = {row.id: row for row in rows}
        self._stop = load_stop_entities(stop_path)
        self._junk = JunkFilter(nlp, self._stop)
        self._english = nlp
        add_ruler(nlp, [row for row in rows if row.lang == "en"])
        self._chinese = blank_chinese()
        self._finder = ChineseEntityFinder()
        self._frame_objects = FrameObjects(self._finder.word_counts)
        add_ruler(self._chinese, [row for row in rows if row.lang == "zh"])

    @property
    def english(self) -> Language:
        """The English pipeline with the ruler: pipe texts through it, then call extract_doc."""
        return self._english

    @property
    def chinese(self) -> Language:
        return self._chinese

    def extract(self, text: str, lang: str) -> list[EntityMention]:
        """Mentions in ``text``; only the pipeline of ``lang`` ("en" or "zh") runs."""
        if lang == "en":
            return self.extract_doc(self._english(text))
        if lang == "zh":
            found = merge_mentions(self.extract_doc(self._chinese(text)), self._finder.find(text))
            words = self._finder.tokens(text)
            found = self._frame_objects.retyped(text, words, found)
            objects = self._frame_objects.find(text, words, found)
            return merge_mentions(found, objects)  # 梅溪湖 of 搬到梅溪湖 over 溪湖
        raise ValueError(f"unsupported language {lang!r}: use 'en' or 'zh'")

    def extract_doc(self, doc: Doc) -> list[EntityMention]:
        """Mentions in a doc that has already run through ``english`` (or ``chinese``)."""
        found = [m for ent in doc.ents for m in self._mentions(doc, ent)]
        return sorted(found + self._proper_nouns(doc, found), key=lambda m: m.start)

    def _proper_nouns(self, doc: Doc, found: list[EntityMention]) -> list[EntityMention]:
        """Capitalised proper-noun runs the small NER model missed ("Priya recommended …"),
        typed OTHER with a low confidence: the graph still links memories through them."""
        taken = {i for m in found for i in range(m.start, m.end)}
        result, run = [], []
        for token in [*doc, None]:
            if token is not None and token.pos_ == "PROPN" and token.text[:1].isupper():
                run.append(token)
                continue
            if run and not any(t.idx in taken for t in run):
                span = doc[run[0].i : run[-1].i + 1]
                result += self._mentions(
                    doc, span, (EntityLabel.OTHER, "spacy:PROPN", PROPN_CONFIDENCE)
                )
            run = []
        return result

    def _mentions(
        self, doc: Doc, ent: Span, typed: tuple[EntityLabel, str, float] | None = None
    ) -> list[EntityMention]:
        """An entity span as mentions: fillers trimmed from its edges ("Yep John" -> John), a
        coordination split ("Alice and Bob" -> two), junk dropped."""
        row = self._rows.get(ent.id_) if ent.id_ else None
        if row is not None and _common_word(row) and ent.text[:1].isupper():
            named = whole_name(ent)  # "Juniper Yoga", "Hot Yoga Collective": not the hobby
            if len(named) > len(ent):
                return self._mentions(
                    doc, named, (EntityLabel.OTHER, "spacy:PROPN", PROPN_CONFIDENCE)
                )
        if typed is not None:
            label, extractor, confidence = typed
        elif row is not None:
            label, extractor, confidence = row.label, f"pattern:{row.id}", row.confidence
        else:
            mapped = NER_LABELS.get(ent.label_)
            if mapped is None:
                return []
            label, extractor, confidence = mapped, f"spacy:{ent.label_}", NER_CONFIDENCE
        if row is None and label is not EntityLabel.TEMPORAL:
            ent = whole_name(ent)
        parts = [ent] if row is not None else self._junk.split(ent, label)
        result = []
        for part in parts:
            start, end = trim_span(doc.text, part.start_char, part.end_char)
            surface = doc.text[start:end]
            if not surface or casefold_name(surface) in self._stop:
                continue
            if self._junk.is_junk(part, surface, from_table=row is not None):
                continue
            result.append(
                EntityMention(
                    surface, self._junk.relabel(surface, label), start, end, extractor, confidence
                )
            )
        return result


def _common_word(row: PatternRow) -> bool:
    """A row that is a lower-case phrase ("yoga") or one word by its lower case ("running"):
    capitalised inside a longer name, the word is part of that name."""
    if isinstance(row.pattern, str):
        return row.pattern.islower()
    return isinstance(row.pattern, list) and len(row.pattern) == 1 and "LOWER" in row.pattern[0]

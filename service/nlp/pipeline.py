"""The extraction pipeline: messages in, facts with entities and time tags out (no LLM)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime

import spacy
from spacy.tokens import Doc, Span

from service.config import Settings
from service.domain import MessageIn
from service.models import resolve_model_path
from service.nlp.facts import (
    SlotValue,
    find_slot,
    is_filler,
    resolve_first_person,
    resolve_first_person_tokens,
    split_chinese,
)
from service.nlp.patterns import EntityExtractor, EntityMention, detect_lang
from service.nlp.temporal import TimeTag, find_time_tags

STATEMENT_CONFIDENCE = 0.9
QUESTION_CONFIDENCE = 0.6
# A sentence shorter than Settings.fact_min_words ("It was great.", "Why?") says little alone:
# it joins its neighbour in the same message, up to fact_max_words. Fewer, fuller facts embed
# better and cost less.


@dataclass(frozen=True)
class Fact:
    """One self-contained statement; offsets of mentions and time tags are into source_text."""

    text: str
    source_text: str
    message_index: int
    lang: str
    confidence: float
    mentions: list[EntityMention] = field(default_factory=list)
    times: list[TimeTag] = field(default_factory=list)
    slot: SlotValue | None = None


def fact_spans(doc: Doc, min_words: int = 6, max_words: int = 40) -> list[Span]:
    """Contiguous runs of non-filler sentences, short ones joined to their neighbour. A sentence
    that sets a slot ("I moved to Boston") stays alone, so that a newer value supersedes it and
    nothing else."""
    groups: list[tuple[Span, int]] = []
    previous_end = -1
    standalone_end = -1
    for sent in doc.sents:
        if not sent.text.strip() or is_filler(sent.text, "en"):
            continue
        words = sum(t.is_alpha for t in sent)
        if find_slot(sent.text, "en") is not None:
            groups.append((sent, words))
            previous_end = standalone_end = sent.end
            continue
        if groups and sent.start == previous_end and previous_end != standalone_end:
            group, group_words = groups[-1]
            short = words < min_words or group_words < min_words
            if short and group_words + words <= max_words:
                groups[-1] = (doc[group.start : sent.end], group_words + words)
                previous_end = sent.end
                continue
        groups.append((sent, words))
        previous_end = sent.end
    return [group for group, _ in groups]


class Extractor:
    """spaCy (English NER, sentences) + the pattern table + the time resolver."""

    def __init__(self, settings: Settings) -> None:
        nlp = spacy.load(resolve_model_path(settings.spacy_model, "spacy"))
        self.entities = EntityExtractor(nlp)
        self.fact_words = (settings.fact_min_words, settings.fact_max_words)

    def extract(self, messages: list[MessageIn], said_at: list[datetime]) -> list[list[Fact]]:
        """Facts per message, in input order; English messages are parsed in one batch."""
        langs = [detect_lang(m.content) for m in messages]
        english = [i for i, lang in enumerate(langs) if lang == "en"]
        docs = self.entities.english.pipe([messages[i].content for i in english], batch_size=64)
        facts: list[list[Fact]] = [[] for _ in messages]
        for i, doc in zip(english, docs, strict=True):
            facts[i] = self._english_facts(doc, i, messages[i].speaker, said_at[i])
        for i, lang in enumerate(langs):
            if lang != "en":
                facts[i] = self._chinese_facts(messages[i], i, said_at[i])
        return facts

    def _english_facts(
        self, doc: spacy.tokens.Doc, index: int, speaker: str | None, said_at: datetime
    ) -> list[Fact]:
        mentions = self.entities.extract_doc(doc)
        facts = []
        for sent in fact_spans(doc, *self.fact_words):
            source = sent.text.strip()
            start = sent.start_char + sent.text.index(source)
            inside = [
                replace(m, start=m.start - start, end=m.end - start)
                for m in mentions
                if m.start >= start and m.end <= start + len(source)
            ]
            text = resolve_first_person_tokens(sent, speaker)
            facts.append(self._fact(source, text, index, "en", said_at, inside))
        return facts

    def _chinese_facts(self, message: MessageIn, index: int, said_at: datetime) -> list[Fact]:
        facts = []
        for start, end in split_chinese(message.content):
            source = message.content[start:end]
            if is_filler(source, "zh"):
                continue
            mentions = self.entities.extract(source, "zh")
            text = resolve_first_person(source, message.speaker, "zh")
            facts.append(self._fact(source, text, index, "zh", said_at, mentions))
        return facts

    @staticmethod
    def _fact(
        source: str,
        text: str,
        index: int,
        lang: str,
        said_at: datetime,
        mentions: list[EntityMention],
    ) -> Fact:
        question = source.rstrip().endswith(("?", "？"))
        return Fact(
            text=text,
            source_text=source,
            message_index=index,
            lang=lang,
            confidence=QUESTION_CONFIDENCE if question else STATEMENT_CONFIDENCE,
            mentions=[m for m in mentions if m.label != "TEMPORAL"],
            times=find_time_tags(source, said_at, lang),
            slot=None if question else find_slot(source, lang),
        )

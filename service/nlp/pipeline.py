"""The extraction pipeline: messages in, facts with entities and time tags out (no LLM)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

import spacy
from spacy.tokens import Doc, Span

from service.core.config import Settings
from service.core.domain import MessageIn
from service.embedding.manifest import resolve_model_path
from service.nlp.entities.chinese import LEARNED
from service.nlp.entities.frame_objects import FRAME_EXTRACTOR, frame_mentions, may_propose
from service.nlp.entities.gazetteer import Gazetteer, batch_forms
from service.nlp.entities.mentions import TypeVote, casefold_name
from service.nlp.entities.patterns import EntityExtractor, EntityLabel, EntityMention, detect_lang
from service.nlp.entities.row_names import EXTRACTOR as ROW_NAME
from service.nlp.entities.row_names import widened
from service.nlp.entities.stand_ins import disguise, given_names, restored, speaker_words
from service.nlp.entities.type_evidence import TypeEvidence
from service.nlp.facts import (
    SlotValue,
    find_slot,
    irregular_forms,
    is_filler,
    resolve_first_person,
    resolve_first_person_tokens,
    split_chinese,
)
from service.nlp.preferences.chinese import read_chinese
from service.nlp.preferences.english import read_english
from service.nlp.preferences.lexicon import Item, ItemSpan
from service.nlp.preferences.reading import NO_READING, PreferenceReading, with_preferences
from service.nlp.relations.been_there import been_there, went_there
from service.nlp.relations.chinese_kin import kin_named
from service.nlp.relations.confirmed import CONFIRMED, CONFIRMED_WEIGHT, says_yes, statements
from service.nlp.relations.discourse import (
    Conversation,
    History,
    Kin,
    english_kin_named,
    nearest_speaker,
    people_named,
    second_person,
)
from service.nlp.relations.extractor import (
    Endpoint,
    RelationExtractor,
    RelationMention,
    RelationType,
)
from service.nlp.relations.family import family_circles
from service.nlp.relations.filled import FILLED, FILLED_WEIGHT, filled
from service.nlp.relations.named_before import EXTRACTOR as NAMED_BEFORE
from service.nlp.relations.named_before import WEIGHT as NAMED_BEFORE_WEIGHT
from service.nlp.relations.named_before import WINDOW, antecedent, reference, restated
from service.nlp.relations.surname_kin import Line as KinLine
from service.nlp.relations.surname_kin import surname_kin
from service.nlp.relations.table import keep_relation
from service.nlp.relations.vocatives import (
    Address,
    addressed_kin,
    friends_addressed,
    kin_relations,
    shared_parents,
)
from service.nlp.relations.where_is import Said, asked_of_another, where_answered
from service.nlp.relations.who_is import answered
from service.nlp.time.calendar import TimeTag
from service.nlp.time.tags import find_time_tags

STATEMENT_CONFIDENCE = 0.9
QUESTION_CONFIDENCE = 0.6
# A question that speaks to its listener: what it leaves unsaid is theirs (Extractor._confirmed).
_YOU = re.compile(r"\b(?:you|your|u)\b|[你您]", re.IGNORECASE)
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
    relations: list[RelationMention] = field(default_factory=list)
    # What it says of its speaker's tastes: a change of mind, things done, things liked.
    preferences: PreferenceReading = NO_READING


# A fact while its batch is read: the parsed sentence it came from (English) and its speaker.
_Parsed = tuple[Fact, Span | None, str | None]


def fact_spans(doc: Doc, min_words: int = 6, max_words: int = 40) -> list[Span]:
    """Contiguous runs of non-filler sentences, short ones joined to their neighbour. A sentence
    that sets a slot ("I moved to Boston") stays alone, so that a newer value supersedes it and
    nothing else."""
    groups: list[tuple[Span, int]] = []
    previous_end = -1
    standalone_end = -1
    for sent in doc.sents:
        text = sent.text  # built from the tokens on every read
        if not text.strip() or is_filler(text, "en"):
            continue
        words = sum(t.is_alpha for t in sent)
        if find_slot(text, "en") is not None:
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


# Relations that are a slot of their speaker (the names of nlp_models/slots.jsonl): a slot rule
# and a relation are one notion of "the same fact", so "I moved to Boston" supersedes "I live
# in Lisbon" whichever of the two found it. A slot retires an older fact, so only a target of a
# fitting type sets one ("I work in Beijing" names where, not an employer).
_SLOT_OF_RELATION = {
    RelationType.WORKS_AT: ("works_at", {EntityLabel.ORG, EntityLabel.OTHER}),
    RelationType.LIVES_IN: ("lives_in", {EntityLabel.PLACE}),
}
# A learned reading retires an older fact only when the model is this sure of it: below, it
# takes a friend's employer for the speaker's as often as not ("I hear Mo's at X"), and a
# stated job is lost for it.
LEARNED_SLOT_MIN_PROBABILITY = 0.8


def slot_of(
    relations: list[RelationMention], confidence: float, speaker: str | None
) -> SlotValue | None:
    """The slot a statement's first speaker relation sets (none for a question). A person
    resolved from earlier messages has no span either, so the name must be the speaker's."""
    if confidence < STATEMENT_CONFIDENCE:
        return None
    for r in relations:
        slot, labels = _SLOT_OF_RELATION.get(r.type, ("", set()))
        speaks = r.source.start is None and r.source.name == speaker
        unsure = r.extractor.startswith("learned:") and r.confidence < LEARNED_SLOT_MIN_PROBABILITY
        if speaks and r.target.label in labels and not unsure:
            return SlotValue(slot, r.target.name, f"relation:{r.extractor}")
    return None


class Extractor:
    """spaCy (English NER, sentences) + the pattern table + the time resolver."""

    def __init__(self, settings: Settings) -> None:
        nlp = spacy.load(resolve_model_path(settings.spacy_model, "spacy"))
        self.entities = EntityExtractor(nlp)
        self.irregular = irregular_forms(nlp)
        self.relations = RelationExtractor()
        self.type_evidence = TypeEvidence()
        self.fact_words = (settings.fact_min_words, settings.fact_max_words)
        self.relation_min_confidence = settings.relation_min_confidence

    def extract(self, messages: list[MessageIn], said_at: list[datetime]) -> list[list[Fact]]:
        """Facts per message, in input order; English messages are parsed in one batch.

        After every message is read, the names the batch introduced (its mentions and
        speakers) are looked for again in each fact, so a name NER missed in one message but
        saw in another is a mention in both; then relations are read between the mentions.
        """
        langs = [detect_lang(m.content) for m in messages]
        english = [i for i, lang in enumerate(langs) if lang == "en"]
        # Speakers' names are parsed as names the model knows, then given back (stand_ins.py).
        names = speaker_words(m.speaker for m in messages if m.speaker)
        names |= given_names(messages[i].content for i in english)
        disguised = [disguise(messages[i].content, names) for i in english]
        docs = self.entities.english.pipe([d.text for d in disguised], batch_size=64)
        parsed: list[list[_Parsed]] = [[] for _ in messages]
        for i, doc, shown in zip(english, docs, disguised, strict=True):
            doc = restored(doc, shown)
            parsed[i] = self._english_facts(doc, i, messages[i].speaker, said_at[i])
        for i, lang in enumerate(langs):
            if lang != "en":
                parsed[i] = self._chinese_facts(messages[i], i, said_at[i])
        gazetteer = Gazetteer(
            batch_forms(
                (m for facts in parsed for fact, _, _ in facts for m in fact.mentions),
                (m.speaker for m in messages if m.speaker),
            )
        )
        speakers = frozenset(casefold_name(m.speaker) for m in messages if m.speaker)
        history = History()
        completed: list[list[Fact]] = []
        said = [(m.speaker, m.content) for m in messages]
        asked: Said | None = None  # the line before, for where_answered
        previous: MessageIn | None = None  # and for a yes to it
        for message, facts, addressee, you, kin_address, answer in zip(
            messages,
            parsed,
            addressed(messages),
            second_person(said, [_people(facts) for facts in parsed]),
            addressed_kin(messages, langs),
            answered(messages, langs),
            strict=True,
        ):
            done: list[Fact] = []
            for p in facts:
                named = tuple(n for f in done for n in people_named(f.mentions, f.relations))
                kin = tuple(k for f in done for k in _kin_named(f))
                context = history.context(addressee, named, you, kin)
                done.append(self._complete(p, gazetteer, context, speakers))
            done = _with_addressed_kin(done, message.speaker, kin_address)
            done = _with_been_there(done, message.speaker)
            done = _with_relations(done, 0, [answer] if answer else [])  # "Who's X?" "My aunt."
            where = None
            if asked is not None and done:  # "Where's X?" "In Y."
                first = Said(message.speaker, done[0].source_text, tuple(done[0].mentions))
                where = where_answered(asked, first, done[0].lang)
                if where is not None:
                    done = [_answering(done[0], where, message.speaker), *done[1:]]
                    done = _with_relations(done, 0, [where])
                elif asked_of_another(asked, done[0].lang):  # 你女儿在哪上学？在实验小学
                    done = [_answering(done[0], None, message.speaker), *done[1:]]
            if previous is not None and done:  # "Is Tobin still at X?" "Yep."
                said_then = said_at[len(completed) - 1]
                confirmed = self._confirmed(previous, message, gazetteer, speakers, said_then)
                if not confirmed and where is None:  # "Which app do you use?" "Strava."
                    confirmed = self._filled(
                        previous, done[0], message, gazetteer, speakers, said_then
                    )
                done = _with_relations(done, 0, confirmed)
            context = Conversation(answers=addressee, you=you)
            done = self._named_before(
                done,
                message.speaker,
                completed[-WINDOW:],
                context,
                gazetteer,
                speakers,
                said_at[len(completed)],
            )
            asked = _said(message, done)
            previous = message
            history = history.after(
                tuple(n for f in done for n in people_named(f.mentions, f.relations)),
                tuple(k for f in done for k in _kin_named(f)),
            )
            completed.append(done)
        return _with_batch_ties(messages, langs, completed)

    def _complete(
        self,
        parsed: _Parsed,
        gazetteer: Gazetteer,
        context: Conversation,
        speakers: frozenset[str],
    ) -> Fact:
        """The fact with the batch's names found in it and the relations between them; its
        pronouns may be resolved by what earlier messages named (``context``); a name that is
        one of the batch's ``speakers`` (case-folded) is a person's."""
        fact, sentence, speaker = parsed
        # A name the batch knows wins over a learned reading of its characters (青禾陶 of
        # 青禾陶舍); the rules' mentions win over both.
        ruled = gazetteer.widen(
            fact.source_text, [m for m in fact.mentions if m.extractor != LEARNED]
        )
        known = gazetteer.find(fact.source_text, ruled)
        learned = [
            m
            for m in fact.mentions
            if m.extractor == LEARNED and not any(_overlap(m, k) for k in known)
        ]
        mentions = sorted([*ruled, *learned, *known], key=lambda m: m.start)
        base = None if sentence is None else _fact_start(fact, sentence)
        mentions = [
            replace(m, votes=self._votes(fact, sentence, base, m, speakers)) for m in mentions
        ]
        relations = self._relations(fact, mentions, speaker, sentence, context)
        whole = widened(fact.source_text, fact.lang, mentions, relations)
        if whole != mentions:  # a row read a name whole that the mentions cut: read again
            mentions = [
                replace(m, votes=self._votes(fact, sentence, base, m, speakers))
                if m.extractor == ROW_NAME
                else m
                for m in whole
            ]
            relations = self._relations(fact, mentions, speaker, sentence, context)
        slot = fact.slot or slot_of(relations, fact.confidence, speaker)
        relations = with_preferences(relations, fact.preferences, speaker, fact.lang)
        return replace(fact, mentions=mentions, relations=relations, slot=slot)

    def _confirmed(
        self,
        question: MessageIn,
        answer: MessageIn,
        gazetteer: Gazetteer,
        speakers: frozenset[str],
        asked_at: datetime,
    ) -> list[RelationMention]:
        """What a yes-or-no question said, when the next speaker's answer says yes (the
        question read again as a statement; confirmed.py). A dropped subject is the one
        asked, not the asker; the relations have no span in the answer, which holds them."""
        lang = detect_lang(question.content)
        if not answer.speaker or answer.speaker == question.speaker:
            return []
        if not says_yes(answer.content, detect_lang(answer.content), question.content):
            return []
        # A dropped subject is the one asked only when the question speaks to them (思思！还在X
        # 上学呢？); else it may be a thing (工作室是在X吗？) and the relation is left out.
        to_them = answer.speaker in question.content or bool(_YOU.search(question.content))
        found = [
            _read_again(r, CONFIRMED, CONFIRMED_WEIGHT, question.speaker, answer.speaker)
            for statement in statements(question.content, lang)
            for r in self._asked(
                statement, lang, question, answer.speaker, gazetteer, speakers, asked_at
            )
            if to_them or question.speaker not in (r.source.name, r.target.name)
        ]
        return [r for r in found if r.confidence >= self.relation_min_confidence]

    def _filled(
        self,
        question: MessageIn,
        first: Fact,
        answer: MessageIn,
        gazetteer: Gazetteer,
        speakers: frozenset[str],
        asked_at: datetime,
    ) -> list[RelationMention]:
        """What a question for a name said, when the next speaker answers with a name alone
        (the question read again with the name in it; filled.py): only the relations that
        name the answer, said by it."""
        if not answer.speaker or answer.speaker == question.speaker:
            return []
        lang = detect_lang(question.content)
        said = filled(question.content, first.source_text, tuple(first.mentions), first.lang)
        if said is None:
            return []
        read = self._asked(
            said.statement, lang, question, answer.speaker, gazetteer, speakers, asked_at
        )
        found = [
            _read_again(r, FILLED, FILLED_WEIGHT, question.speaker, answer.speaker)
            for r in read
            if said.name in (r.source.name, r.target.name)
        ]
        return [r for r in found if r.confidence >= self.relation_min_confidence]

    def _restated(
        self,
        statement: str,
        lang: str,
        speaker: str | None,
        context: Conversation,
        gazetteer: Gazetteer,
        speakers: frozenset[str],
        said_at: datetime,
    ) -> list[RelationMention]:
        """The relations of a line said again in other words (a question as a statement, a
        reference with the name it refers to), said by ``speaker`` in ``context``."""
        if lang == "en":
            names = speaker_words([speaker or "", context.you or ""])
            shown = disguise(statement, names | given_names([statement]))
            doc = restored(self.entities.english(shown.text), shown)
            parsed = self._english_facts(doc, 0, speaker, said_at)
        else:
            said = MessageIn(speaker=speaker, content=statement)
            parsed = self._chinese_facts(said, 0, said_at)
        return [
            r for p in parsed for r in self._complete(p, gazetteer, context, speakers).relations
        ]

    def _asked(
        self,
        statement: str,
        lang: str,
        question: MessageIn,
        answerer: str,
        gazetteer: Gazetteer,
        speakers: frozenset[str],
        asked_at: datetime,
    ) -> list[RelationMention]:
        """The relations of a question said again as a statement, "you" being the one who
        answers; no taste (a taste asked about is no taste)."""
        context = Conversation(answers=answerer, you=answerer)
        read = self._restated(
            statement, lang, question.speaker, context, gazetteer, speakers, asked_at
        )
        return [r for r in read if not r.extractor.startswith("preference:")]

    def _named_before(
        self,
        facts: list[Fact],
        speaker: str | None,
        recent: list[list[Fact]],
        context: Conversation,
        gazetteer: Gazetteer,
        speakers: frozenset[str],
        said_at: datetime,
    ) -> list[Fact]:
        """The facts with what they say of an organisation the ``recent`` lines or an earlier
        fact named, by "this" or "that" and a common noun ("this diner", 这家店;
        named_before.py)."""
        for at, fact in enumerate(facts):
            said = reference(fact.source_text, fact.lang)
            if said is None or not speaker:
                continue
            if any(m.voted_label is EntityLabel.ORG for m in fact.mentions):
                continue  # the sentence names an organisation of its own
            lines = [*(f for line in recent for f in line), *facts[:at]]
            named = antecedent([m for f in lines for m in f.mentions])
            if named is None:
                continue
            statement = restated(fact.source_text, said, named.text)
            read = self._restated(
                statement, fact.lang, speaker, context, gazetteer, speakers, said_at
            )
            found = [
                _read_again(r, NAMED_BEFORE, NAMED_BEFORE_WEIGHT)
                for r in read
                if named.text in (r.source.name, r.target.name)
            ]
            found = [r for r in found if r.confidence >= self.relation_min_confidence]
            facts = _with_relations(facts, at, found)
        return facts

    def _relations(
        self,
        fact: Fact,
        mentions: list[EntityMention],
        speaker: str | None,
        sentence: Span | None,
        context: Conversation,
    ) -> list[RelationMention]:
        found = self.relations.find(
            fact.source_text, fact.lang, mentions, speaker, sentence, context.answers, context
        )
        return [r for r in found if r.confidence >= self.relation_min_confidence]

    def _votes(
        self,
        fact: Fact,
        sentence: Span | None,
        base: int | None,
        mention: EntityMention,
        speakers: frozenset[str],
    ) -> tuple[TypeVote, ...]:
        """What the mention's context says of its type (service/nlp/entities/type_evidence.py);
        ``base`` is where the fact starts in the sentence's doc. Someone who speaks in the
        batch is a person, whatever a sentence seems to make of the name ("send pics Ishita")."""
        weights = self.type_evidence.table.weights
        votes: list[TypeVote] = []
        if casefold_name(mention.text) in speakers:
            votes.append(TypeVote(EntityLabel.PERSON, weights.speaker, "speaker"))
        if sentence is None or base is None:
            votes += self.type_evidence.chinese(fact.source_text, mention.start, mention.end)
        else:
            span = sentence.doc.char_span(
                base + mention.start, base + mention.end, alignment_mode="expand"
            )
            if span is not None:
                votes += self.type_evidence.english(span)
            if mention.extractor.startswith(FRAME_EXTRACTOR):  # the frame that proposed it
                votes.append(TypeVote(mention.label, weights.frame_object, mention.extractor))
        if mention.label is EntityLabel.CONCEPT and mention.extractor.startswith("pattern:"):
            # A hobby or topic word of the table (露营, yoga) is no one and nowhere; it may be
            # a thing (乐高).
            votes = [v for v in votes if v.label not in (EntityLabel.PERSON, EntityLabel.PLACE)]
        return tuple(votes)

    def _english_facts(
        self, doc: spacy.tokens.Doc, index: int, speaker: str | None, said_at: datetime
    ) -> list[_Parsed]:
        mentions = self.entities.extract_doc(doc)
        facts: list[_Parsed] = []
        for sent in fact_spans(doc, *self.fact_words):
            text = sent.text
            source = text.strip()
            start = sent.start_char + text.index(source)
            inside = [
                replace(m, start=m.start - start, end=m.end - start)
                for m in mentions
                if m.start >= start and m.end <= start + len(source)
            ]
            inside += self._proposed(source, inside, speaker, sent)
            resolved = resolve_first_person_tokens(sent, speaker, self.irregular)
            fact = self._fact(source, resolved, index, "en", said_at, inside)
            reading = read_english(
                source, sent, _is_question(fact), _is_future(fact, said_at), _names(fact)
            )
            facts.append((replace(fact, preferences=reading), sent, speaker))
        return facts

    def _proposed(
        self, source: str, mentions: list[EntityMention], speaker: str | None, sentence: Span
    ) -> list[EntityMention]:
        """Names the sentence's relation frames read as objects that no mention covers
        (service/nlp/entities/frame_objects.py)."""
        if not may_propose(sentence, source, mentions):
            return []
        relations = self.relations.find(source, "en", mentions, speaker, sentence)
        kept = [r for r in relations if r.confidence >= self.relation_min_confidence]
        speakers = [speaker] if speaker else []
        return frame_mentions(source, kept, mentions, self.type_evidence.table, speakers)

    def _chinese_facts(self, message: MessageIn, index: int, said_at: datetime) -> list[_Parsed]:
        facts: list[_Parsed] = []
        for start, end in split_chinese(message.content):
            source = message.content[start:end]
            if is_filler(source, "zh"):
                continue
            mentions = self.entities.extract(source, "zh")
            text = resolve_first_person(source, message.speaker, "zh")
            fact = self._fact(source, text, index, "zh", said_at, mentions)
            reading = read_chinese(
                source, _is_question(fact), _is_future(fact, said_at), _names(fact)
            )
            facts.append((replace(fact, preferences=reading), None, message.speaker))
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


def _overlap(a: EntityMention, b: EntityMention) -> bool:
    return a.start < b.end and b.start < a.end


def _fact_start(fact: Fact, sentence: Span) -> int:
    """Where the fact's source text starts in its sentence's doc (the sentence's start if the
    text is not found in it)."""
    start: int = sentence.start_char + max(sentence.text.find(fact.source_text), 0)
    return start


def _is_question(fact: Fact) -> bool:
    return fact.confidence < STATEMENT_CONFIDENCE


def _is_future(fact: Fact, said_at: datetime) -> bool:
    """Whether the fact's time lies after it was said: a plan, not something done."""
    return any(t.range.start > said_at for t in fact.times)


# Mentions a change of mind may retire besides the lexicon's items: things, not people or
# places ("stopped using Notion").
_RETIRABLE = frozenset({EntityLabel.PRODUCT, EntityLabel.CONCEPT, EntityLabel.OTHER})


def _names(fact: Fact) -> list[ItemSpan]:
    return [
        ItemSpan(Item(m.text, ""), m.start, m.end) for m in fact.mentions if m.label in _RETIRABLE
    ]


def addressed(messages: list[MessageIn]) -> list[str | None]:
    """Whom each message answers: the last other speaker before it in the batch; for a message
    no other speaker came before, the first other speaker after it (who answers it)."""
    speakers = [m.speaker for m in messages]
    return [nearest_speaker(speakers, i, {s} if s else set()) for i, s in enumerate(speakers)]


def _people(parsed: list[_Parsed]) -> list[str]:
    """The names of people a message's facts found, before the batch's names are added."""
    return [m.text for fact, _, _ in parsed for m in fact.mentions if m.label is EntityLabel.PERSON]


def _with_batch_ties(
    messages: list[MessageIn], langs: Sequence[str], completed: list[list[Fact]]
) -> list[list[Fact]]:
    """The facts with the ties the whole batch implies, each reading seeing the ones before:
    friends addressed as a group and shared parents (vocatives.py), kin of one family name
    (surname_kin.py), then family circles (family.py), each tie held by the first fact of
    the message that completes it."""

    def said(done: list[Fact]) -> tuple[RelationMention, ...]:
        return tuple(r for f in done for r in f.relations)

    def add(facts: list[list[Fact]], found: list[list[RelationMention]]) -> list[list[Fact]]:
        return [_with_relations(done, 0, new) for done, new in zip(facts, found, strict=True)]

    completed = add(completed, friends_addressed(messages, langs))
    completed = add(completed, shared_parents([said(done) for done in completed]))
    lines = [
        KinLine(
            m.content,
            lang,
            m.speaker,
            said(done),
            tuple(n for f in done for n in people_named(f.mentions, f.relations)),
        )
        for m, lang, done in zip(messages, langs, completed, strict=True)
    ]
    completed = add(completed, surname_kin(lines))
    speakers = (m.speaker for m in messages if m.speaker)
    return add(completed, family_circles([said(done) for done in completed], speakers))


def _with_addressed_kin(
    facts: list[Fact], speaker: str | None, address: Address | None
) -> list[Fact]:
    """The facts, the one that holds a kin noun said to a listener ("Mom, I got the job")
    relating the speaker to them (service/nlp/relations/vocatives.py)."""
    if not facts or address is None or not speaker:
        return facts
    at = 0 if address.vocative.opens else len(facts) - 1
    return _with_relations(facts, at, kin_relations(speaker, address))


def _with_been_there(facts: list[Fact], speaker: str | None) -> list[Fact]:
    """ "X is a petting zoo. I've been.": the fact visits the place its sentence before named
    (service/nlp/relations/been_there.py)."""
    for at, fact in enumerate(facts):
        if fact.lang == "en":
            found = been_there(fact.source_text, fact.mentions, speaker)
        else:  # 千岛湖？去年你带我去了一趟。: the sentences are facts of their own
            found = went_there(fact.source_text, facts[at - 1].mentions, speaker) if at else None
        if found is not None:
            facts = _with_relations(facts, at, [found])
    return facts


def _read_again(
    relation: RelationMention,
    prefix: str,
    weight: float,
    asker: str | None = None,
    answerer: str | None = None,
) -> RelationMention:
    """A relation read from a line said again (a question as a statement, a reference with its
    name), held by the line that led to it: spanless, the asker put for the one asked ("still
    at X?" asks of the answerer), and weighed a little lower."""

    def end(e: Endpoint) -> Endpoint:
        asked = e.start is None and e.name == asker
        name = answerer if asked and answerer is not None else e.name
        return Endpoint(name, e.label)

    return replace(
        relation,
        source=end(relation.source),
        target=end(relation.target),
        extractor=f"{prefix}:{relation.extractor}",
        confidence=relation.confidence * weight,
    )


def _answering(fact: Fact, answer: RelationMention | None, speaker: str | None) -> Fact:
    """The answer's first fact without the learned readings that gave its speaker what the
    question asked of someone else ("Where does Mo work?" "At X": Mo's job, not the speaker's)
    or read another tie to the place answered ("What company do you work for?" "I'm at X now":
    no school). With no ``answer`` (the question asked of someone the graph cannot name:
    你女儿在哪上学？/ 在实验小学), none of the speaker's learned readings stays."""

    def unwanted(r: RelationMention) -> bool:
        if not r.extractor.startswith("learned:") or r.source.name != speaker:
            return False
        if answer is None:
            return True
        contradicts = r.type is not answer.type or speaker != answer.source.name
        return r.target.name == answer.target.name and contradicts

    return replace(fact, relations=[r for r in fact.relations if not unwanted(r)])


def _said(message: MessageIn, facts: list[Fact]) -> Said:
    """A line as where_is reads a question: the message's words and all its mentions."""
    whole = whole_text_fact(message.content, facts, None)
    return Said(message.speaker, message.content, tuple(whole.mentions))


def _with_relations(facts: list[Fact], at: int, found: list[RelationMention]) -> list[Fact]:
    """The facts, fact ``at`` holding ``found`` besides its own relations."""
    if not facts or not found:
        return facts
    relations = list(facts[at].relations)
    for relation in found:
        keep_relation(relations, relation)
    return [*facts[:at], replace(facts[at], relations=relations), *facts[at + 1 :]]


def _kin_named(fact: Fact) -> list[Kin]:
    """The kin and friends a fact names with their noun, in either language."""
    if fact.lang == "en":
        return list(english_kin_named(fact.relations))
    return kin_named(fact.source_text, fact.relations)


def whole_text_fact(text: str, facts: list[Fact], confidence: float | None) -> Fact:
    """One fact over the whole text: the facts' mentions re-based from each fact's source text
    onto ``text``, their time tags, and the first slot."""
    mentions: list[EntityMention] = []
    relations: list[RelationMention] = []
    times: list[TimeTag] = []
    cursor = 0
    for fact in facts:
        offset = text.find(fact.source_text, cursor)
        if offset < 0:
            continue
        cursor = offset + len(fact.source_text)
        mentions += [replace(m, start=m.start + offset, end=m.end + offset) for m in fact.mentions]
        relations += [_shifted(r, offset) for r in fact.relations]
        times += fact.times
    slot = next((f.slot for f in facts if f.slot is not None), None)
    return Fact(
        text=text,
        source_text=text,
        message_index=0,
        lang=detect_lang(text),
        confidence=confidence if confidence is not None else 1.0,
        mentions=mentions,
        times=times,
        slot=slot,
        relations=relations,
    )


def _shifted(relation: RelationMention, offset: int) -> RelationMention:
    """A relation of one fact re-based onto the whole text (its endpoints' spans moved)."""

    def move(end: Endpoint) -> Endpoint:
        if end.start is None or end.end is None:
            return end
        return replace(end, start=end.start + offset, end=end.end + offset)

    return replace(relation, source=move(relation.source), target=move(relation.target))

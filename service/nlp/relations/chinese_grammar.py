"""Chinese relations from a small grammar over jieba's tags, beside the regex rows.

A regex row spells out one clause; people put time words, adverbs, 了/过, measure words and
的-phrases between the subject, the verb and the object wherever they like (我在海信一直干到
现在, 上周刚提了辆新的X). Here a clause (split at punctuation and connectives) holds a subject,
a trigger word of a frame's classes and a target mention, with only filler between: words
whose jieba tag or spelling says they carry no meaning of their own for the relation. The
frames and the filler are data (``nlp_models/zh_grammar.json``); the trigger words are the
classes of ``zh_relation_words.json``. The subject is the last person named before the
trigger, 我/我们 (the speaker), or, when there is none, the last clause's subject or the
speaker, as in ``chinese.py``. A relation both find is one (``keep_relation``).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from functools import lru_cache

import jieba
import jieba.posseg

from service.nlp.entities.mentions import EntityLabel, EntityMention
from service.nlp.relations.chinese import (
    NEGATION,
    PLAN,
    PLANNED_TYPES,
    QUESTION,
    kin_prefix,
    unreal,
)
from service.nlp.relations.chinese_grammar_table import (
    Frame,
    FrameRow,
    GrammarTable,
    Hit,
    Shape,
    load_grammar,
    trigger_regex,
)
from service.nlp.relations.chinese_sources import (
    NOUN_TAGS,
    Subjects,
    kin_named_before,
    past_de_phrase,
    sources,
)
from service.nlp.relations.chinese_subjects import (
    rhetorical,
    without_rhetorical,
    you_endpoint,
)
from service.nlp.relations.chinese_words import alternation
from service.nlp.relations.discourse import Conversation
from service.nlp.relations.table import (
    Endpoint,
    RelationMention,
    RelationType,
    compile_row_regex,
    keep_relation,
    mention_endpoint,
    relation_words,
    speaker_endpoint,
)

_PUNCTUATION = re.compile(r"[，,。！？；;!?、：:…~～\n]")
_SITED = frozenset({EntityLabel.ORG, EntityLabel.PLACE, EntityLabel.EVENT})
_ORGS = frozenset({EntityLabel.ORG})
_TOPIC_SUBJECT = re.compile(r"(?:这家|那家|这个|那个)?(?:我们|我|他|她)(?!们)")
# A copula between what is judged and the judgement (X才是神作, X简直是天花板).
_COPULA = re.compile(r"(?:才|就|真|简直|永远|绝对|果然|确实|真的|也)?是")
_MAX_PREDICATE = 6  # characters of a noun phrase after 是 (国产单机) before the judgement
# What may end a clause after its verb when the object is left out (路过过啦😂).
_CLAUSE_TAIL = re.compile(r"[了过啦呀啊哈的吧呢哦嘛喔～~\s\U0001f300-\U0001faff\u2600-\u27bf]")
_MAX_ASPECT = 3  # characters of what of a thing is judged (抽卡, 客服) before the judgement

__all__ = ["ChineseGrammar", "word_starts"]


class ChineseGrammar:
    """The frames of ``zh_grammar.json`` applied to one fact at a time."""

    def __init__(self, table: GrammarTable | None = None) -> None:
        self.table = table if table is not None else load_grammar()
        classes = relation_words().classes
        self.frames = [Frame(row, trigger_regex(row)) for row in self.table.frames]
        parts = (*classes.get("SITE", ()), *classes.get("DEPARTMENT", ()))
        self._part = compile_row_regex(alternation(parts))
        self._breaks = re.compile("|".join(map(re.escape, self.table.clause_breaks)))
        self._place_tail = compile_row_regex(alternation(classes.get("PLACE_TAIL", ("里",))))
        self._opening = re.compile(rf"(?:{_PUNCTUATION.pattern}|{self._breaks.pattern})*")

    def find(
        self,
        text: str,
        mentions: list[EntityMention],
        speaker: str | None,
        conversation: Conversation | None = None,
    ) -> list[RelationMention]:
        found: list[RelationMention] = []
        you = you_endpoint(conversation.you if conversation else None)
        subjects = Subjects(speaker_endpoint(speaker), conversation=conversation, you=you)
        for start, end in self.clauses(text):
            inside = [m for m in mentions if start <= m.start and m.end <= end]
            self._open(text, (start, end), inside, subjects)
            earlier = [m for m in mentions if m.end <= start]  # objects a clause leaves out
            for hit in self._hits(text, start, end, inside, earlier):
                if not _asserted(text, start, end, hit):
                    continue
                for source in sources(text, start, hit, mentions, subjects):
                    keep_relation(found, _relation(hit, source))
        return found

    def clauses(self, text: str) -> list[tuple[int, int]]:
        """Spans of the clauses: cut at punctuation and at connectives (但是, 然后)."""
        cuts = sorted(
            {0, len(text)}
            | {m.start() for m in _PUNCTUATION.finditer(text)}
            | {m.start() for m in self._breaks.finditer(text)}
        )
        return [(a, b) for a, b in itertools.pairwise(cuts) if b > a]

    def _open(
        self, text: str, span: tuple[int, int], mentions: list[EntityMention], subjects: Subjects
    ) -> None:
        """A clause that opens with 我 or a person's name (after a connective and filler)
        gives the subject that the clauses after it continue (X毕业以后，然后在Y干了一年)."""
        start, end = span
        at = _end(self._opening.match(text, start), start)
        kin = kin_prefix().match(text[at:end])
        if kin is not None and at + kin.end() == end:
            return  # 林晓，我妹妹，刚考上X: an apposition, the subject goes on
        people = [m for m in mentions if m.voted_label is EntityLabel.PERSON and m.start >= at]
        if kin is not None and not (people and people[0].start == at + kin.end()):
            named = kin_named_before(text[at : at + kin.end()], subjects)
            subjects.last = [named] if named else []  # 我老公在X，上个月去了Y: not me
            subjects.unnamed = named is None
            return
        if text.startswith("我", at) and subjects.me is not None:
            subjects.last = [subjects.me]
            return
        if people and (self.filler(text[at : people[0].start]) or kin is not None):
            subjects.last = [mention_endpoint(people[0], EntityLabel.PERSON)]

    def _hits(
        self,
        text: str,
        start: int,
        end: int,
        mentions: list[EntityMention],
        earlier: list[EntityMention],
    ) -> Iterator[Hit]:
        for frame in self.frames:
            shape = frame.row.shape
            if shape is Shape.AT:
                yield from self._at(frame, text, start, end, mentions)
            elif shape is Shape.VERB:
                yield from self._verb(frame, text, (start, end), mentions, earlier)
            elif shape is Shape.IS_OF:
                yield from self._is_of(frame, text, start, end, mentions)
            elif shape is Shape.IN_PLACE:
                yield from self._in_place(frame, text, mentions)
            elif shape is Shape.TOPIC:
                yield from self._topic(frame, text, start, end, mentions)
            elif shape is Shape.BA:
                yield from self._ba(frame, text, start, end, mentions)
            elif shape is Shape.VERDICT:
                yield from self._verdict(frame, text, (start, end), mentions, earlier)
            else:
                yield from self._sited(frame, text, end, mentions)

    def _topic(
        self, frame: Frame, text: str, start: int, end: int, mentions: list[EntityMention]
    ) -> Iterator[Hit]:
        """A target that opens the clause, then its subject (我, 他, a name), filler, trigger."""
        at = _end(self._opening.match(text, start), start)
        target = self._target_after(frame, text, at, mentions)
        if target is None:
            return
        after = past_de_phrase(text, target.end)  # 中南大学的夜校我读了两年: 我
        subject = _TOPIC_SUBJECT.match(text, after)
        named = [m for m in mentions if m.start == after]
        said = subject.end() if subject else named[0].end if named else None
        if named and named[0].voted_label is not EntityLabel.PERSON:
            return
        if said is None:  # 这次X跑得太爽了: the subject is left out
            verb = self._trigger_after(frame, text, target.end, end)
            if verb is not None and not _names_a_thing(text[verb:end]):
                yield Hit(frame, target.end, verb, target)
            return
        verb = self._trigger_after(frame, text, said, end)
        if verb is not None:
            yield Hit(frame, said, verb, target)

    def _ba(
        self, frame: Frame, text: str, start: int, end: int, mentions: list[EntityMention]
    ) -> Iterator[Hit]:
        """把 + target + filler + trigger: the object before its verb (把X卸载了)."""
        starts = word_starts(text[start:end], start)
        for at in (i for i in range(start, end) if text[i] == "把" and i in starts):
            target = self._target_after(frame, text, at + 1, mentions, max_gap=2)
            if target is None:
                continue
            verb = self._trigger_after(frame, text, target.end, end)
            if verb is not None:
                yield Hit(frame, at, verb, target)

    def _verdict(
        self,
        frame: Frame,
        text: str,
        span: tuple[int, int],
        mentions: list[EntityMention],
        earlier: list[EntityMention],
    ) -> Iterator[Hit]:
        """A target, then filler and a judgement (X真香), or a few words of no other name
        before it: what of the target is judged (X抽卡太坑了), or 是 and a noun (X才是国产单机
        yyds). The judge is the one named before in the clause, else the speaker."""
        start, end = span
        targets = [m for m in mentions if start <= m.start and m.end <= end and _fits(frame.row, m)]
        for target in targets:
            copula = _COPULA.match(text, target.end)
            at = _end(copula, target.end)
            gap = _MAX_PREDICATE if copula else _MAX_ASPECT
            verb = self._trigger_after(frame, text, at, end)
            verb = verb or _judged(frame, text, (at, end), mentions, gap)
            if verb is not None:
                yield Hit(frame, target.start, verb, target)
        carried = None if targets else _carried_object(frame, earlier)
        for i in sorted(word_starts(text[start:end], start)) if carried else ():
            word = frame.trigger.match(text, i, end)
            if (
                word is not None
                and carried
                and _leaves_out_object(text, (start, i), word.end(), end)
            ):
                yield Hit(frame, i, word.end(), carried)  # 在肝X，玩了三年还是真爱
                return

    def _at(
        self, frame: Frame, text: str, start: int, end: int, mentions: list[EntityMention]
    ) -> Iterator[Hit]:
        """在 (or the frame's prepositions: 给X打工) + target + filler + trigger."""
        starts = word_starts(text[start:end], start)
        opens = frame.row.prepositions
        for at in (i for i in range(start, end) if text[i] in opens and i in starts):
            target = self._target_after(frame, text, at + 1, mentions, max_gap=2)
            if target is None:
                continue
            verb = self._trigger_after(frame, text, self._after_part(text, target.end), end)
            if verb is not None:
                yield Hit(frame, at, verb, target)

    def _verb(
        self,
        frame: Frame,
        text: str,
        span: tuple[int, int],
        mentions: list[EntityMention],
        earlier: list[EntityMention],
    ) -> Iterator[Hit]:
        """Trigger + filler + target, or a trigger that ends the clause and the object an
        earlier clause named."""
        start, end = span
        for i in sorted(word_starts(text[start:end], start)):
            word = frame.trigger.match(text, i, end)
            if word is None:
                continue
            target = self._target_after(frame, text, word.end(), mentions)
            if target is None and _leaves_out_object(text, (start, i), word.end(), end):
                target = _carried_object(frame, earlier)  # X在Y，我去年路过过
            if target is not None:
                yield Hit(frame, i, word.end(), target)

    def _is_of(
        self, frame: Frame, text: str, start: int, end: int, mentions: list[EntityMention]
    ) -> Iterator[Hit]:
        """是 + target + a part of it or not (X急诊科) + 的 + filler + trigger."""
        for at in (i for i in range(start, end) if text[i] == "是"):
            target = self._target_after(frame, text, at + 1, mentions, max_gap=0)
            if target is None:
                continue
            of = self._after_part(text, target.end)
            if not text.startswith("的", of):
                continue
            role = self._trigger_after(frame, text, of + 1, end)
            if role is not None:
                yield Hit(frame, at, role, target)

    def _sited(
        self, frame: Frame, text: str, end: int, mentions: list[EntityMention]
    ) -> Iterator[Hit]:
        """An organisation (or a place, an event), 的 and a site word or not, filler, trigger,
        a place (X总部设在Y, X就在Y市中心)."""
        for org in (m for m in mentions if m.voted_label in _SITED):
            verb = self._trigger_after(frame, text, self._after_part(text, org.end), end)
            if verb is None:
                continue
            target = self._target_after(frame, text, verb, mentions)
            if target is not None:
                yield Hit(frame, org.start, verb, target, source=org)

    def _in_place(self, frame: Frame, text: str, mentions: list[EntityMention]) -> Iterator[Hit]:
        """A place, a part of it or not (老城区), filler (的, 那家), an organisation: the
        organisation is there (长沙的X, 泉州老城区那家X)."""
        for place in (m for m in mentions if _fits(frame.row, m)):
            tail = self._place_tail.match(text, place.end)
            at = tail.end() if tail else place.end
            org = self._target_after(frame, text, at, mentions, max_gap=4, labels=_ORGS)
            if org is not None:
                yield Hit(frame, place.start, org.end, place, source=org)

    def _after_part(self, text: str, start: int) -> int:
        """Past a part of an organisation after it, 的 or not (X的实验室, X急诊科): where its
        people work or study is the organisation's."""
        at = start + (1 if text.startswith("的", start) else 0)
        part = self._part.match(text, at)
        if part is None:
            word = next(iter(jieba.posseg.cut(text[at : at + 4], HMM=False)), None)
            if word is not None and word.flag == "n" and word.word[-1] in "科部室组":
                return at + len(word.word)
            return start
        return part.end()

    def _trigger_after(self, frame: Frame, text: str, start: int, end: int) -> int | None:
        """The end of the first trigger after ``start`` with only filler before it."""
        stop = min(end, start + self.table.max_filler + 1)
        for i in sorted(word_starts(text[start:end], start) & set(range(start, stop))):
            word = frame.trigger.match(text, i, end)
            if word is not None and self.filler(text[start:i]):
                return word.end()
        return None

    def _target_after(
        self,
        frame: Frame,
        text: str,
        start: int,
        mentions: list[EntityMention],
        max_gap: int | None = None,
        labels: frozenset[EntityLabel] | None = None,
    ) -> EntityMention | None:
        """The first mention after ``start`` with only filler before it, of a label the frame
        (or ``labels``) takes, or ending in a head of the frame's type."""
        limit = self.table.max_filler if max_gap is None else max_gap
        after = sorted((m for m in mentions if start <= m.start <= start + limit), key=_start)
        for mention in after[:1]:
            fits = mention.voted_label in labels if labels else _fits(frame.row, mention)
            if fits and self.filler(text[start : mention.start]):
                return mention
        return None

    def filler(self, gap: str) -> bool:
        """Whether ``gap`` holds only words with no meaning of their own for a relation."""
        if not gap:
            return True
        if len(gap) > self.table.max_filler or _PUNCTUATION.search(gap):
            return False
        words = list(jieba.posseg.cut(gap, HMM=False))
        for i, (word, tag) in enumerate(words):
            before_de = i + 1 < len(words) and words[i + 1].word == "的"
            if word in self.table.filler_words or tag in self.table.filler_tags or before_de:
                continue
            return False
        return True


def _leaves_out_object(text: str, before: tuple[int, int], at: int, end: int) -> bool:
    """Whether a verb or judgement ending at ``at`` ends its clause (particles, spaces and
    emoji aside) with no noun before it in the clause (价格太坑了 judges the price)."""
    if _CLAUSE_TAIL.sub("", text[at:end]):
        return False
    words = jieba.posseg.cut(text[before[0] : before[1]], HMM=False)
    return not any(tag.startswith(NOUN_TAGS) for _, tag in words)


def _carried_object(frame: Frame, earlier: list[EntityMention]) -> EntityMention | None:
    """The object a clause leaves out: the last mention of the fact's earlier clauses that the
    frame takes (X大学就在X市中心，我去年路过过: X), not a person."""
    before = [m for m in earlier if _fits(frame.row, m) and m.voted_label is not EntityLabel.PERSON]
    return before[-1] if len({m.text for m in before}) == 1 else None  # two: which one?


def _judged(
    frame: Frame, text: str, span: tuple[int, int], mentions: list[EntityMention], gap: int
) -> int | None:
    """The end of a judgement starting a word at most ``gap`` characters into ``span``, with
    no punctuation and no mention before it."""
    start, end = span
    starts = word_starts(text[start:end], start)
    for i in range(start, min(end, start + gap + 1)):
        if any(start <= m.start < i for m in mentions) or _PUNCTUATION.match(text, i):
            return None
        word = frame.trigger.match(text, i, end) if i in starts else None
        if word is not None:
            return word.end()
    return None


@lru_cache(maxsize=256)
def word_starts(text: str, offset: int = 0) -> frozenset[int]:
    """Where jieba's words of ``text`` start, shifted by ``offset``."""
    return frozenset(offset + start for _, start, _ in jieba.tokenize(text, HMM=False))


def _names_a_thing(rest: str) -> bool:
    """Whether the rest of a clause after its verb holds a noun other than a time word or a
    duration (住了很多老人: the topic is where others live, not the subject's home)."""
    rest = _duration().sub("", rest)
    return any(tag.startswith(NOUN_TAGS) for _, tag in jieba.posseg.cut(rest, HMM=False))


@lru_cache(maxsize=1)
def _duration() -> re.Pattern[str]:
    return compile_row_regex("{DURATION}")


def _asserted(text: str, start: int, end: int, hit: Hit) -> bool:
    """Not asked, not denied, not planned or supposed, in the clause."""
    clause = text[start:end]
    told = rhetorical(text[start : end + 1])  # 你不是来过X嘛: said to be so
    if not told and (QUESTION.search(clause) or text[end : end + 1] in ("？", "?")):
        return False
    target = hit.target
    before = text[start : target.start] + text[target.end : hit.verb_end]  # not 想 of 联想
    if target.end <= start:  # an object carried from an earlier clause
        before = text[start : hit.verb_end]
    before = without_rhetorical(before) if told else before
    if NEGATION.search(before) or unreal().search(before):
        return False
    return not (hit.frame.row.type in PLANNED_TYPES and PLAN.search(before))


def _relation(hit: Hit, source: Endpoint) -> RelationMention:
    """The relation a hit gives, its type decided by the target's head where the frame says."""
    row = hit.frame.row
    target = mention_endpoint(hit.target)
    relation_type = row.type
    head = relation_words().head_type(target.name)
    if row.by_head and head is not None:
        relation_type = RelationType(head)
    return RelationMention(relation_type, source, target, f"grammar:{row.id}", row.confidence)


def _fits(row: FrameRow, mention: EntityMention) -> bool:
    """A target of a label the frame takes, or named with a head of the frame's type."""
    if mention.voted_label in row.targets:
        return True
    return relation_words().head_type(mention.text) == row.type.value


def _end(match: re.Match[str] | None, default: int) -> int:
    return match.end() if match else default


def _start(mention: EntityMention) -> int:
    return mention.start

"""Where something is, asked and answered: "Where's Corvid Labs based?" / "In Tacoma.",
云杉科技在哪儿？/ 就在滨江。

A line that asks where a named thing or person is (or where "you" live), answered by the next
line of another speaker that opens with a place it names, says where: a thing is LOCATED_IN the
place, a person LIVES_IN it (the one who answers, for "you"). Asked where one works or studies
("where does Tobin work?", 晓燕在哪上班？), an organisation answers: WORKS_AT, STUDIES_AT.
The answer must open with the place, after at most a yes-word, an adverb ("still", "just"), a
pronoun and "is", and a preposition ("It's out in Tacoma", "Tacoma, near the port", "Still at
Pfizer", 在滨江, 还在顺丰, 就在滨江那边; of two places, the second: 湖南衡阳): an answer
that talks of something else first says nothing of where.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from service.nlp.entities.patterns import EntityLabel, EntityMention
from service.nlp.relations.table import (
    Endpoint,
    RelationMention,
    RelationType,
    mention_endpoint,
)

EXTRACTOR = "where_is"
CONFIDENCE = 0.7
# Where one works or studies, asked with its verb: the answer names an organisation.
_JOBS = {
    **dict.fromkeys(("work", "teach", "上班", "工作", "干", "实习"), RelationType.WORKS_AT),
    **dict.fromkeys(
        ("study", "go to school", "上学", "读书", "念书", "读研", "读大学"),
        RelationType.STUDIES_AT,
    ),
}


@dataclass(frozen=True)
class Said:
    """One line of the conversation: who said it, its text, and the mentions of its facts with
    offsets into ``text``."""

    speaker: str | None
    text: str
    mentions: tuple[EntityMention, ...]


@dataclass(frozen=True)
class _Patterns:
    # where + the name asked about, or where + you; which company or school + you + a verb
    asked: tuple[re.Pattern[str], ...]
    opener: re.Pattern[str]  # what may stand before the place that answers

    def search(self, text: str) -> re.Match[str] | None:
        return next((m for p in self.asked if (m := p.search(text)) is not None), None)


@cache
def _patterns(lang: str) -> _Patterns:
    if lang == "en":
        asked = (
            r"\bwhere(?:'s|’s|\s+is|\s+are|\s+was|\s+does|\s+do|\s+did)\s+"
            r"(?:the\s+)?(?P<name>[^?.!,]+?)\s*(?:(?P<verb>work|study|go to school|teach)\b"
            r"|based|located|live|living|grow up|grew up|now|these days|\?|$)"
        )
        yes = r"(?:yes|yeah|yep|yup|oh|um|uh|so)\W+"
        adverb = r"(?:(?:still|just|now|currently|mostly|probably)\s+)"
        pronoun = r"(?:(?:it|they|he|she|we|i)(?:'s|’s|'re|’re|'m|’m|\s+is|\s+are|\s+am)\s+)"
        place = r"(?:(?:based|located|living|now)\s+)?(?:(?:out|over|up|down|right)\s+)?"
        opener = (
            rf"^\W*(?:{yes})?{adverb}?{pronoun}?{adverb}?{place}"
            r"(?:in|at|near|by|outside)?\s*(?:the\s+)?"
        )
        which = (
            r"\b(?:what|which)\s+(?:company|firm|school|college|university|uni)\s+"
            r"(?:do|does|did)\s+(?P<name>[^?.!,]+?)\s+(?P<verb>work|study|go to school|teach)\b"
        )
        return _Patterns(
            (re.compile(asked, re.I), re.compile(which, re.I)), re.compile(opener, re.I)
        )
    asked = (
        r"(?P<name>\S+?)(?:现在|目前|到底)?(?:的?老家(?:是|在)|住在|住|在)(?:哪儿|哪里|哪|什么地方)"
        r"(?:[个家所](?:公司|单位|学校|大学))?(?P<verb>上班|工作|干|实习|上学|读书|念书|读研|读大学)?"
    )
    opener = (
        r"^\W*(?:(?:对|嗯|哦|噢|就|是|还|还是|一直|现在|目前|它|他|她|我|他们|她们|我们)\W*){0,3}"
        r"(?:住)?在?"
    )
    return _Patterns((re.compile(asked),), re.compile(opener))


def where_answered(before: Said, answer: Said, lang: str) -> RelationMention | None:
    """The relation ``answer`` gives to where ``before`` asked, if it answers one."""
    if not answer.speaker or answer.speaker == before.speaker:
        return None
    patterns = _patterns("en" if lang == "en" else "zh")
    asked = patterns.search(before.text)
    if asked is None:
        return None
    opened = patterns.opener.match(answer.text)
    job = _JOBS.get((asked.group("verb") or "").casefold())
    wanted = {EntityLabel.ORG, EntityLabel.OTHER} if job else {EntityLabel.PLACE}
    place = _opening(answer.mentions, opened.end() if opened else 0, wanted)
    if place is None:
        return None
    name = asked.group("name").strip()
    if name.casefold() in _YOU:
        you = Endpoint(answer.speaker, EntityLabel.PERSON)
        return _relation(job or RelationType.LIVES_IN, you, place)
    thing = _named(before.text, before.mentions, asked.start("name"), asked.end("name"))
    if thing is None or thing.text == answer.speaker:
        return None
    source = mention_endpoint(thing)
    if job is None:
        person = source.label is EntityLabel.PERSON
        job = RelationType.LIVES_IN if person else RelationType.LOCATED_IN
    spanless = Endpoint(source.name, source.label)  # named in the question, not in the answer
    return _relation(job, spanless, place)


def asked_of_another(before: Said, lang: str) -> bool:
    """Whether ``before`` asks where someone other than the one it speaks to is (你女儿在哪
    上学？, "where does your sister live?"): an answer's dropped subject is not its speaker."""
    asked = _patterns("en" if lang == "en" else "zh").search(before.text)
    return asked is not None and asked.group("name").strip().casefold() not in _YOU


_YOU = frozenset({"you", "u", "你", "您"})


def _opening(
    mentions: tuple[EntityMention, ...], at: int, labels: set[EntityLabel]
) -> EntityMention | None:
    """A mention of one of ``labels`` that starts where the answer's opening words end."""
    for m in mentions:
        if m.start == at and m.voted_label in labels:
            inner = next(
                (n for n in mentions if n.start == m.end and n.voted_label in labels), None
            )
            # 湖南衡阳: the town, in its province
            return inner if inner is not None and EntityLabel.PLACE in labels else m
    return None


def _named(
    text: str, mentions: tuple[EntityMention, ...], start: int, end: int
) -> EntityMention | None:
    """The mention the asked words end with, give or take one word after it ("Corvid Labs
    office", 你哥公司 asks of no one named)."""
    inside = [m for m in mentions if start <= m.start and m.end <= end]
    if not inside:
        return None
    rest = text[inside[-1].end : end].split()
    return inside[-1] if len(rest) <= 1 and (rest or inside[-1].end == end) else None


def _relation(kind: RelationType, source: Endpoint, place: EntityMention) -> RelationMention:
    return RelationMention(kind, source, mention_endpoint(place), EXTRACTOR, CONFIDENCE)

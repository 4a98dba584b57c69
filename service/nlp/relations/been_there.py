""" "I've been." after a sentence that names a place: the speaker has been there.

"Hilltop Acres is a petting zoo. I've been. Twice.", "Have you tried Lupa? I've been there
twice.": a sentence of its own that says only that the speaker has been (there), once or a
number of times, visits the one place or venue the sentence before it in the same message
named. Within one sentence ("Lisbon is gorgeous, I've been there") the readers already link the
two; across a sentence break nothing did.

In Chinese a message's sentences are facts of their own: 千岛湖？去年你带我去了一趟。 visits
the one place the fact before named, when the next one opens with a clause that is only 我去过,
(你带我)去了一趟 and the like.
"""

from __future__ import annotations

import re
from itertools import pairwise

from service.nlp.entities.patterns import EntityLabel, EntityMention
from service.nlp.relations.table import Endpoint, RelationMention, RelationType, mention_endpoint

EXTRACTOR = "been_there"
CONFIDENCE = 0.65
_OPENING = r"^\W*(?:(?:oh|yeah|yes|yep|ha(?:ha)*|lol)\W+)?(?:i(?:'ve|’ve|\s+have)\s+)?been"
# "I've been.", "I've been. Twice.", "Been twice": nothing after but how often.
_BEEN = re.compile(
    _OPENING + r"(?:\W+(?:once|twice|before|a\s+few\s+times|a\s+couple\s+of\s+times|"
    r"(?:two|three|four|five|six|many|several|\d+)\s+times))*\W*$",
    re.IGNORECASE,
)
# "I've been there twice, so good": "there" says where, whatever follows.
_BEEN_THERE = re.compile(_OPENING + r"\s+there\b", re.IGNORECASE)
# 我去过, 我也去过两次, 去年你带我去了一趟: a clause that says only that the speaker went.
_ZH_BEEN = re.compile(
    r"^(?:去年|前年|上次|上回|以前|之前|小时候|那年|有一年)?"
    r"(?:我|我们|咱们|[你他她]带(?:我|我们))?(?:也|都|还|早就)?"
    r"(?:去过|来过|到过|去了)(?:[一两二三四五几好]+[次趟回])?[了呢啊哦]?(?:[，,。！？!?…~]|$)"
)
_VISITED = frozenset({EntityLabel.PLACE, EntityLabel.ORG, EntityLabel.EVENT})
_SENTENCE_END = re.compile(r"[.!?…]+\s+")


def been_there(
    text: str, mentions: list[EntityMention], speaker: str | None
) -> RelationMention | None:
    """VISITED from the speaker to the one place, venue or event a sentence of ``text`` names,
    when a sentence after it is only "I've been (there)"; ``mentions`` have offsets into
    ``text``."""
    if not speaker:
        return None
    starts = [0, *(m.end() for m in _SENTENCE_END.finditer(text))]
    sentences = [(a, b) for a, b in zip(starts, [*starts[1:], len(text)], strict=True) if a < b]
    for (a, b), (c, d) in pairwise(sentences):
        if not (_BEEN.match(text[c:d]) or _BEEN_THERE.match(text[c:d])):
            continue
        visit = _visit(speaker, [m for m in mentions if a <= m.start < b])
        if visit is not None:
            return visit
    return None


def _visit(speaker: str, mentions: list[EntityMention]) -> RelationMention | None:
    """The speaker's visit to the one place, venue or event of ``mentions``, if just one."""
    places = {m.text: m for m in mentions if m.voted_label in _VISITED}
    if len(places) != 1:
        return None
    [place] = places.values()
    target = mention_endpoint(place)
    return RelationMention(
        RelationType.VISITED,
        Endpoint(speaker, EntityLabel.PERSON),
        Endpoint(target.name, target.label),
        EXTRACTOR,
        CONFIDENCE,
    )


def went_there(
    text: str, before: list[EntityMention], speaker: str | None
) -> RelationMention | None:
    """VISITED from the speaker to the one place, venue or event ``before`` (the mentions of the
    fact before) names, when ``text`` opens with a clause that only says the speaker went."""
    if not speaker or not _ZH_BEEN.match(text.strip()):
        return None
    return _visit(speaker, before)

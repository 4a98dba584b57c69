"""Kin a speaker calls the person spoken to: "Mom, I got the job!", "Thanks, Grandpa.", "妈，我考了
第三！", "谢谢姐". The speaker is that person's kin (FAMILY_OF, read in either direction).

The nouns are data (``nlp_models/vocatives.json``): only those seldom said to someone outside
the family. A noun is a vocative when it opens the message (after at most one opener such as
"hey" or 谢谢) and punctuation or the end follows it, or when it closes the message after a
comma. "Mom said …" and "my mom, …" are no address.

Whom the noun addresses is a speaker of the batch: the other speaker the message answers, else
the one who answers it, leaving out those who call somebody by the same noun themselves.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from service.core.domain import MessageIn
from service.core.resources import NLP_MODELS_DIR
from service.nlp.entities.patterns import EntityLabel
from service.nlp.relations.discourse import nearest_speaker
from service.nlp.relations.table import Endpoint, RelationMention, RelationType

VOCATIVES_PATH = NLP_MODELS_DIR / "vocatives.json"
EXTRACTOR = "vocative"
CONFIDENCE = 0.7


@dataclass(frozen=True)
class Vocative:
    """A kin noun said to the listener, and where it stands in the message."""

    noun: str
    opens: bool  # at the start of the message, else at its end


@dataclass(frozen=True)
class Address:
    """A kin noun a message says, and the speaker of the batch it is said to."""

    vocative: Vocative
    listener: str


@dataclass(frozen=True)
class _Patterns:
    opening: re.Pattern[str]
    closing: re.Pattern[str]


@cache
def _patterns(lang: str) -> _Patterns:
    table = json.loads(VOCATIVES_PATH.read_text(encoding="utf-8"))[lang]
    kin = _alternatives(table["kin"])
    openers = _alternatives(table["openers"])
    if lang == "en":
        opening = rf"^\W*(?:(?:{openers})\W+)?(?P<noun>{kin})(?=\s*[,!.?…]|\W*$)"
        closing = rf",\s*(?P<noun>{kin})\W*$"
        return _Patterns(re.compile(opening, re.I), re.compile(closing, re.I))
    stops = r"[，,！!。~～？?、…]"
    opening = rf"^\W*(?:(?:{openers}){stops}?)?(?P<noun>{kin})(?={stops}|[你您]|\W*$)"
    closing = rf"[，,]\s*(?P<noun>{kin})\W*$"
    return _Patterns(re.compile(opening), re.compile(closing))


def _alternatives(words: list[str]) -> str:
    """A regex alternation, longest first so that 妈妈 is read before 妈."""
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


def vocative(text: str, lang: str) -> Vocative | None:
    """The kin noun a message addresses its listener by, if any."""
    patterns = _patterns("en" if lang == "en" else "zh")
    opening = patterns.opening.search(text)
    if opening is not None:
        return Vocative(opening.group("noun").lower(), opens=True)
    closing = patterns.closing.search(text)
    if closing is not None:
        return Vocative(closing.group("noun").lower(), opens=False)
    return None


def addressed_kin(messages: list[MessageIn], langs: Sequence[str]) -> list[Address | None]:
    """Each message's kin noun and the speaker it addresses: the other speaker just before it
    (a line answers the one before), else the one just after; those who call somebody by the
    same noun themselves are set aside (a mother does not call her son 妈)."""
    said = [vocative(m.content, lang) for m, lang in zip(messages, langs, strict=True)]
    users: dict[str, set[str]] = {}
    for message, address in zip(messages, said, strict=True):
        if address is not None and message.speaker:
            users.setdefault(address.noun, set()).add(message.speaker)
    speakers = [m.speaker for m in messages]
    found: list[Address | None] = []
    for i, (message, address) in enumerate(zip(messages, said, strict=True)):
        listener = None
        if address is not None and message.speaker:
            listener = nearest_speaker(speakers, i, users[address.noun])
        found.append(Address(address, listener) if address and listener else None)
    return found


def kin_relation(speaker: str, address: Address) -> RelationMention:
    """The speaker as kin of the person addressed; both are speakers of the batch."""
    return RelationMention(
        RelationType.FAMILY_OF,
        Endpoint(speaker, EntityLabel.PERSON),
        Endpoint(address.listener, EntityLabel.PERSON),
        EXTRACTOR,
        CONFIDENCE,
        address.vocative.noun,
    )

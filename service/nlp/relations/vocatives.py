"""Kin a speaker calls the person spoken to: "Mom, I got the job!", "Thanks, Grandpa.", "妈，我考了
第三！", "谢谢姐". The speaker is that person's kin (FAMILY_OF, read in either direction).

The nouns are data (``nlp_models/vocatives.json``): only those seldom said to someone outside
the family. A noun is a vocative when it opens the message (after at most one opener such as
"hey" or 谢谢) and punctuation or the end follows it, when it closes the message or one of its
sentences after a comma ("I know, Mom. I'll be there."), or when commas set it apart inside
("It's fine, Mom, really"; 我觉得吧，妈，…), not in a list of kin ("my aunt, mom, and
sister"). "Mom said …" and "my mom, …" are no address.

Whom the noun addresses is a speaker of the batch: the other speaker the message answers, else
the one who answers it, leaving out those who call somebody by the same noun themselves. A
second noun right after the first ("Mom, Dad, I'm engaged", 姐，姐夫，…) is said to the next
nearest speaker.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from service.core.domain import INFERRED_PREFIX, MessageIn
from service.core.resources import NLP_MODELS_DIR
from service.nlp.relations.discourse import nearest_speaker
from service.nlp.relations.table import RelationMention, RelationType, between_people

VOCATIVES_PATH = NLP_MODELS_DIR / "vocatives.json"
EXTRACTOR = "vocative"
CONFIDENCE = 0.7


@dataclass(frozen=True)
class Vocative:
    """A kin noun said to the listener, and where it stands in the message."""

    noun: str
    opens: bool  # at the start of the message, else at its end
    then: str | None = None  # a second noun said to another listener ("Mom, Dad, …")


@dataclass(frozen=True)
class Address:
    """A kin noun a message says, and the speaker of the batch it is said to."""

    vocative: Vocative
    listeners: tuple[str, ...]  # whom the noun, and the second noun, are said to


@dataclass(frozen=True)
class _Patterns:
    opening: re.Pattern[str]
    closing: re.Pattern[str]
    inside: re.Pattern[str]  # set apart by commas; the noun is group "noun"
    kin: re.Pattern[str]  # a kin noun, to tell a list of kin from an address


@cache
def vocative_table(lang: str) -> dict[str, list[str]]:
    """A language's table of vocatives.json: its kin nouns ("kin") and "openers"."""
    table: dict[str, list[str]] = json.loads(VOCATIVES_PATH.read_text(encoding="utf-8"))[lang]
    return table


@cache
def _patterns(lang: str) -> _Patterns:
    table = vocative_table(lang)
    kin = _alternatives(table["kin"])
    openers = _alternatives(table["openers"])
    if lang == "en":
        then = rf"(?:\s*,\s*(?P<then>{kin}))?"
        opening = rf"^\W*(?:(?:{openers})\W+)?(?P<noun>{kin}){then}(?=\s*[,!.?…]|\W*$)"
        # at the end of the message or of one of its sentences ("I know, Mom. I'll be there.")
        closing = rf",\s*(?P<noun>{kin})(?:\s*[.!?…]+(?=\s)|\W*$)"
        inside = rf"(?<=\w),\s*(?P<noun>{kin}),\s*(?P<next>\w+(?:\s+\w+)?)"
        return _Patterns(
            re.compile(opening, re.I),
            re.compile(closing, re.I),
            re.compile(inside, re.I),
            re.compile(rf"\b(?:{kin})s?$", re.I),
        )
    stops = r"[，,！!。~～？?、…]"
    then = rf"(?:[，,、](?P<then>{kin}))?"
    opening = rf"^\W*(?:(?:{openers}){stops}?)?(?P<noun>{kin}){then}(?={stops}|[你您]|\W*$)"
    closing = rf"[，,]\s*(?P<noun>{kin})(?:[。！!？?…]+|\W*$)"
    inside = rf"(?<=[\u4e00-\u9fff])[，,](?P<noun>{kin})[，,](?P<next>\w{{0,2}})"
    return _Patterns(
        re.compile(opening), re.compile(closing), re.compile(inside), re.compile(f"(?:{kin})$")
    )


def _alternatives(words: list[str]) -> str:
    """A regex alternation, longest first so that 妈妈 is read before 妈."""
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


def vocative(text: str, lang: str) -> Vocative | None:
    """The kin noun a message addresses its listener by, if any."""
    patterns = _patterns("en" if lang == "en" else "zh")
    opening = patterns.opening.search(text)
    if opening is not None:
        then = opening.group("then")
        return Vocative(opening.group("noun").lower(), True, then.lower() if then else None)
    closing = patterns.closing.search(text)
    if closing is not None:
        return Vocative(closing.group("noun").lower(), opens=False)
    for inside in patterns.inside.finditer(text):
        if not _listed(patterns.kin, text[: inside.start()], inside.group("next")):
            return Vocative(inside.group("noun").lower(), opens=False)
    return None


def _listed(kin: re.Pattern[str], before: str, after: str) -> bool:
    """Whether the noun between commas is one of a list of kin: a kin noun before it, or one
    after the "and" that follows it ("my aunt, mom, and dad"; 姑姑，妈，姐都来了)."""
    after = re.sub(r"^(?:and|or|&|和|跟)\s*(?:my|our|the|his|her|their)?\s*", "", after, flags=re.I)
    return bool(kin.search(before.rstrip()) or kin.match(after))


def addressed_kin(messages: list[MessageIn], langs: Sequence[str]) -> list[Address | None]:
    """Each message's kin noun and the speaker it addresses: the other speaker just before it
    (a line answers the one before), else the one just after; those who call somebody by the
    same noun themselves are set aside (a mother does not call her son 妈)."""
    said = [vocative(m.content, lang) for m, lang in zip(messages, langs, strict=True)]
    users: dict[str, set[str]] = {}
    for message, address in zip(messages, said, strict=True):
        if address is not None and message.speaker:
            for noun in _nouns(address):
                users.setdefault(noun, set()).add(message.speaker)
    speakers = [m.speaker for m in messages]
    found: list[Address | None] = []
    for i, (message, address) in enumerate(zip(messages, said, strict=True)):
        listeners: list[str] = []
        for noun in _nouns(address) if message.speaker else ():
            listener = nearest_speaker(speakers, i, users[noun] | set(listeners))
            if listener is None:
                break
            listeners.append(listener)
        found.append(Address(address, tuple(listeners)) if address and listeners else None)
    return found


def _nouns(address: Vocative | None) -> tuple[str, ...]:
    if address is None:
        return ()
    return (address.noun, address.then) if address.then else (address.noun,)


def kin_relations(speaker: str, address: Address) -> list[RelationMention]:
    """The speaker as kin of each person addressed; all are speakers of the batch."""
    return [
        between_people(RelationType.FAMILY_OF, speaker, listener, EXTRACTOR, CONFIDENCE, noun)
        for noun, listener in zip(_nouns(address.vocative), address.listeners, strict=False)
    ]


# --- parents shared -----------------------------------------------------------------------

INFERRED_EXTRACTOR = f"{INFERRED_PREFIX}shared_parent"
INFERRED_CONFIDENCE = 0.6


@cache
def _parent_roles() -> dict[str, str]:
    """Each vocative that calls a parent ("Mom", 爸), with the parent it names: mother, father."""
    raw = json.loads(VOCATIVES_PATH.read_text(encoding="utf-8"))
    return {
        noun.casefold(): role
        for lang in ("en", "zh")
        for role, nouns in raw[lang]["parents"].items()
        for noun in nouns
    }


def shared_parents(said: Sequence[Sequence[RelationMention]]) -> list[list[RelationMention]]:
    """Per message, the kin its parent vocatives imply with those of the messages before: two
    who call one person Mom (or Dad) are siblings, and whom one calls Mom and whom the same
    one calls Dad are a couple ("Mom, relax." … "You sell mattresses, Dad.")."""
    roles = _parent_roles()
    parents: dict[str, dict[str, str]] = {}  # child -> parent -> mother / father
    found: list[list[RelationMention]] = []
    known: set[frozenset[str]] = set()
    for relations in said:
        implied: list[RelationMention] = []
        for r in relations:
            role = roles.get(r.via.casefold()) if r.extractor == EXTRACTOR else None
            if role is None:
                continue
            child, parent = r.source.name, r.target.name
            siblings = [c for c, ps in parents.items() if c != child and parent in ps]
            partners = [p for p, rl in parents.get(child, {}).items() if p != parent and rl != role]
            for a, b in [(child, s) for s in siblings] + [(parent, p) for p in partners]:
                if frozenset((a, b)) not in known:
                    known.add(frozenset((a, b)))
                    implied.append(
                        between_people(
                            RelationType.FAMILY_OF, a, b, INFERRED_EXTRACTOR, INFERRED_CONFIDENCE
                        )
                    )
            parents.setdefault(child, {})[parent] = role
        found.append(implied)
    return found


# --- friends addressed as a group ---------------------------------------------------------

FRIENDS_EXTRACTOR = "vocative:friends"


@cache
def _group_address(lang: str) -> re.Pattern[str] | None:
    """A message that opens by calling the whole group friends (姐妹们，…), if the language
    has such words."""
    table = vocative_table(lang)
    if not table.get("friends"):
        return None
    openers = _alternatives(table["openers"])
    stops = r"[，,！!。~～？?、…：:\s]"
    return re.compile(
        rf"^\W*(?:(?:{openers}){stops}?)?(?:{_alternatives(table['friends'])})(?={stops}|$)"
    )


def friends_addressed(
    messages: Sequence[MessageIn], langs: Sequence[str]
) -> list[list[RelationMention]]:
    """Per message, its speaker as a friend of every other speaker of the batch when it opens
    by calling the group friends ("姐妹们，大新闻！")."""
    speakers = list(dict.fromkeys(m.speaker for m in messages if m.speaker))
    found: list[list[RelationMention]] = []
    for message, lang in zip(messages, langs, strict=True):
        group = _group_address("en" if lang == "en" else "zh")
        if not message.speaker or group is None or not group.match(message.content):
            found.append([])
            continue
        found.append(
            [
                between_people(
                    RelationType.FRIEND_OF, message.speaker, other, FRIENDS_EXTRACTOR, CONFIDENCE
                )
                for other in speakers
                if other != message.speaker
            ]
        )
    return found

"""Kin and friends said with a copula or an apposition, whatever words qualify the noun.

The regex rows read 我表哥刘洋 and 刘洋是我表哥. People also qualify the noun (刘洋是我亲哥,
周航是我认识十几年的老朋友) or set the name apart with a comma (这是我妹，林晓; 林晓，我妹妹).
Here a kin or friend noun of ``zh_relation_words.json`` (KIN, KIN_SHORT, FRIEND) that ends a
phrase with its possessor is read in four frames around a person mention P:

- copula: P 是 possessor (的) qualifier noun (刘洋是我亲哥);
- mutual: P 跟/和/与 possessor 是 qualifier noun (孙悦跟我是大学同学);
- before: possessor (的) qualifier noun (，) P (我的好闺蜜赵琳, 这是我妹，林晓);
- after: P ， possessor (的) qualifier noun (林晓，我妹妹，…).

The possessor is 我 (the speaker), 你/您 (whom the message addresses) or a person mention. The
qualifier holds no punctuation, pronoun, negation, 是, or kin or friend noun (刘洋是我朋友的
儿子 says nothing of 刘洋 and me), and the noun ends the phrase.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache

from service.nlp.entities.mentions import EntityLabel, EntityMention
from service.nlp.relations.chinese import QUESTION
from service.nlp.relations.discourse import Conversation, Kin
from service.nlp.relations.table import (
    Endpoint,
    RelationMention,
    RelationType,
    friend_words,
    kin_words,
    mention_endpoint,
    relation_words,
)

CONFIDENCE = 0.8
_MAX_QUALIFIER = 8
_NOT_IN_QUALIFIER = re.compile(r"[我你您他她们是不没，,。！？!?；;、：:]")
_END = r"(?=[了啊呀吧呢哦哈嘛～~！!。，,？?；;…\s]|$)"
_POSSESSOR = r"(?P<poss>我(?!们)|你(?!们)|您|\x00\x01*)"  # \x00\x01*: a person mention
_ADVERB = r"(?:也|就|还|可|都|正好|其实)?"

__all__ = ["CONFIDENCE", "KinStatements", "Said", "kin_named", "kin_subject"]


@dataclass(frozen=True)
class Said:
    """Who speaks and whom 你 means."""

    speaker: str | None
    you: str | None


class KinStatements:
    """The four frames of this module over one fact."""

    def find(self, text: str, mentions: list[EntityMention], said: Said) -> list[RelationMention]:
        people = [m for m in mentions if m.voted_label is EntityLabel.PERSON and _named(m)]
        masked = _masked(text, people)
        found: list[RelationMention] = []
        for person in people:
            for frame, match in _frames(masked, person):
                if QUESTION.search(_clause(text, person.start)):
                    continue
                source = _possessor(match, people, said)
                relation = _relation(match, frame, source, person)
                if relation is not None:
                    found.append(relation)
        return found


def _frames(masked: str, person: EntityMention) -> Iterator[tuple[str, re.Match[str]]]:
    """Each frame that reads ``person`` as the kin or friend of a possessor."""
    regexes = _regexes()
    for frame in ("copula", "mutual", "after"):
        match = regexes[frame].match(masked, person.end)
        if match is not None:
            yield frame, match
    match = regexes["before"].search(masked, 0, person.start)
    if match is not None:
        yield "before", match


@cache
def _regexes() -> dict[str, re.Pattern[str]]:
    nouns = "|".join(sorted((*kin_words(), *friend_words(), *_short_kin()), key=len, reverse=True))
    noun = rf"(?P<noun>{nouns})"
    qualifier = rf"(?P<mod>[^\x00\x01]{{0,{_MAX_QUALIFIER}}}?)"
    return {
        "copula": re.compile(rf"\s*{_ADVERB}是{_POSSESSOR}的?{qualifier}{noun}{_END}"),
        "mutual": re.compile(rf"\s*[跟和与]{_POSSESSOR}{_ADVERB}是{qualifier}{noun}{_END}"),
        "after": re.compile(rf"\s*[，,]\s*{_POSSESSOR}的?{qualifier}{noun}{_END}"),
        "before": re.compile(rf"{_POSSESSOR}的?{qualifier}{noun}\s*[，,]?\s*$"),
    }


def _short_kin() -> tuple[str, ...]:
    return tuple(relation_words().classes.get("KIN_SHORT", ()))


def _masked(text: str, people: list[EntityMention]) -> str:
    """``text`` with each person mention's first character replaced by \\x00 and the rest by
    \\x01 (same offsets), so that a regex sees where a name stands."""
    chars = list(text)
    for m in people:
        chars[m.start : m.end] = ["\x00", *("\x01" * (m.end - m.start - 1))]
    return "".join(chars)


def _clause(text: str, start: int) -> str:
    """From ``start`` to the end of its clause, punctuation included (a question mark)."""
    stop = re.compile(r"[，,。！？!?；;]").search(text, start)
    return text[start : stop.end()] if stop else text[start:]


def _possessor(match: re.Match[str], people: list[EntityMention], said: Said) -> Endpoint | None:
    """我: the speaker; 你/您: whom the message addresses; a name: that person."""
    poss = match.group("poss")
    if poss == "我":
        return Endpoint(said.speaker, EntityLabel.PERSON) if said.speaker else None
    if poss in ("你", "您"):
        return Endpoint(said.you, EntityLabel.PERSON) if said.you else None
    named = [m for m in people if m.start == match.start("poss")]
    return mention_endpoint(named[0], EntityLabel.PERSON) if named else None


def _relation(
    match: re.Match[str], frame: str, source: Endpoint | None, person: EntityMention
) -> RelationMention | None:
    qualifier = match.group("mod") or ""
    if source is None or _NOT_IN_QUALIFIER.search(qualifier) or _names_someone(qualifier):
        return None
    noun = match.group("noun")
    kind = RelationType.FRIEND_OF if noun in friend_words() else RelationType.FAMILY_OF
    target = mention_endpoint(person, EntityLabel.PERSON)
    return RelationMention(kind, source, target, f"grammar:kin_{frame}", CONFIDENCE)


def _named(mention: EntityMention) -> bool:
    """A person mention that is a name, not a kin noun read as one (亲哥, 黄叔叔)."""
    return not mention.text.endswith((*kin_words(), *friend_words(), *_short_kin()))


def _names_someone(qualifier: str) -> bool:
    """A kin or friend noun inside the qualifier: the noun is someone else's (朋友的儿子)."""
    return any(w in qualifier for w in (*kin_words(), *friend_words(), *_short_kin()))


def kin_named(text: str, relations: Iterable[RelationMention]) -> list[Kin]:
    """The kin and friends a fact names with their noun (我表哥刘洋, 刘洋是我表哥): whose, which
    noun, who; so that a later 我表哥 with no name is 刘洋 (``kin_subject``)."""
    found: list[Kin] = []
    for r in relations:
        target = r.target
        if r.type not in _PERSONAL or target.start is None or target.end is None:
            continue
        noun = _noun_before().search(text, 0, target.start) or _noun_after().match(text, target.end)
        if noun is not None:
            found.append(Kin(r.source.name, noun.group("noun"), target.name))
    return found


def kin_subject(said: str, speaker: str | None, context: Conversation | None) -> str | None:
    """The person ``said`` names by a kin or friend noun alone (我表哥, 你闺蜜) when the batch
    named them before with that noun, else None."""
    phrase = _bare_kin().fullmatch(said.strip())
    if phrase is None or context is None:
        return None
    owner = speaker if phrase.group("poss") == "我" else context.you
    return context.kin_of(owner, phrase.group("noun")) if owner else None


_PERSONAL = frozenset({RelationType.FAMILY_OF, RelationType.FRIEND_OF})


def _nouns() -> str:
    return "|".join(sorted((*kin_words(), *friend_words(), *_short_kin()), key=len, reverse=True))


@cache
def _noun_before() -> re.Pattern[str]:
    return re.compile(rf"(?P<noun>{_nouns()})(?:叫)?[，,]?\s*$")


@cache
def _noun_after() -> re.Pattern[str]:
    return re.compile(
        rf"\s*[，,]?\s*{_ADVERB}是?(?:我|你|您)的?[^，,。！？]{{0,8}}?(?P<noun>{_nouns()})"
    )


@cache
def _bare_kin() -> re.Pattern[str]:
    return re.compile(rf"(?P<poss>我|你)家?的?(?P<noun>{_nouns()})")

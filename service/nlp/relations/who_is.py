"""Who someone is, asked and answered: "Who's Kenzie?" / "My cousin.", 小雪是谁？/ 我媳妇。

The speaker who answers with a kin or friend noun of their own ("my", 我) is that person's kin
or friend. The nouns are the relation table's: the triggers of the en_kin and en_friend rows,
the KIN, KIN_SHORT and FRIEND classes of zh_relation_words.json. "His friend", 他同学 are the
kin or friend of whoever named the person in the line before the question, when that is a
third speaker; else whose friend, a line cannot tell.

The other way round: asked after "your brother" ("How's your brother doing?", 你哥最近怎么样？),
an answer that opens with a name said of ("Marco's good, …", 王磊挺好的) names the brother.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from service.core.domain import MessageIn
from service.nlp.relations.chinese import surnames
from service.nlp.relations.table import (
    RelationMention,
    RelationType,
    between_people,
    load_relation_rows,
    relation_words,
)

EXTRACTOR = "who_is"
CONFIDENCE = 0.7
_STOPS = r"[，,。！？!?…~～]"


@dataclass(frozen=True)
class _Patterns:
    question: re.Pattern[str]
    answer: re.Pattern[str]
    types: dict[str, RelationType]  # each noun's relation
    # "How's your brother?" / "Marco's good": the kin asked after, the name that answers
    asked_after: re.Pattern[str] | None = None
    named: re.Pattern[str] | None = None
    # "Nathan. My son-in-law.", "This is Dede. My cousin.": a name, then whose kin it is
    introduced: re.Pattern[str] | None = None
    # "His friend from chess club.", 她表妹。: the kin or friend of the one who named them
    theirs: re.Pattern[str] | None = None


@cache
def _patterns(lang: str) -> _Patterns:
    if lang == "en":
        rows = {row.id: row for row in load_relation_rows()}
        types = {w: RelationType.FAMILY_OF for w in rows["en_kin"].trigger or ()}
        types |= {w: RelationType.FRIEND_OF for w in rows["en_friend"].trigger or ()}
        name = r"[A-Z][a-z'’-]+(?:\s[A-Z][a-z'’-]+)?"
        question = rf"\bwho(?:'s|’s|\s+is|\s+was)\s+(?P<name>{name})\s*\?"
        opener = r"(?:oh|well|um|uh|that's|that’s|he's|he’s|she's|she’s|that\s+is)"
        nouns = rf"(?:\w+\s+){{0,2}}?(?P<noun>{_alternatives(types)})(?!['’-])\b"
        answer = rf"^\W*(?:{opener}\W+){{0,2}}(?:my|our)\s+{nouns}"
        theirs = rf"^\W*(?:{opener}\W+){{0,2}}(?:his|her)\s+{nouns}"
        after = r"\b(?:how(?:'s|’s|\s+is|\s+are|\s+was)|what(?:'s|’s|\s+is)|is|has)\s+your\s+"
        after += rf"(?:\w+\s+)?(?P<noun>{_alternatives(types)})\b(?![^?]*\band\b)"
        # The name opens the answer and is said of: "Marco's good", "Marco just started …"
        named = (
            r"^\W*(?:(?i:oh|well|yeah|haha|lol)\W+){0,2}(?P<name>[A-Z][a-z-]+(?:\s[A-Z][a-z-]+)?)"
        )
        named += r"(?:'s|’s|\s+(?:is|was|has|just|finally|still|got|started|moved))\b"
        shown = r"(?:(?i:this\s+is|meet|that's|that’s|that\s+is)\s+)?"
        introduced = rf"(?:^|[.!?]\s+){shown}(?P<name>{name})\s*[.!?]+\s+"
        introduced += rf"(?i:my|our)\s+(?:\w+\s+)?(?P<noun>(?i:{_alternatives(types)}))"
        introduced += r"(?:-in-law)?\s*[.!]"
        return _Patterns(
            re.compile(question, re.I),
            re.compile(answer, re.I),
            types,
            re.compile(after, re.I),
            re.compile(named),
            re.compile(introduced),
            re.compile(theirs, re.I),
        )
    classes = relation_words().classes
    types = {w: RelationType.FAMILY_OF for c in ("KIN", "KIN_SHORT") for w in classes.get(c, ())}
    types |= {w: RelationType.FRIEND_OF for w in classes.get("FRIEND", ())}
    # 你哥最近怎么样？/ 王磊挺好的: a family name (or 小, 老, 阿) and one or two characters
    after = rf"你的?(?P<noun>{_alternatives(types)})(?:最近|现在|这两天)?"
    after += r"(?:怎么样|咋样|还好吗|好吗|在干嘛|在忙什么|忙啥|干嘛呢)"
    named = rf"^\W*(?P<name>[{''.join(sorted(surnames()))}小老阿][\u4e00-\u9fff]{{1,2}}?)"
    named += r"(?=挺|很|还|最近|刚|现在|已经|也|都|可)"
    question = r"(?:^|[，,。！？!?\s])(?:那个?|这个?)?(?P<name>[\u4e00-\u9fff]{2,3})是(?:谁|哪位)"
    # 我表妹, 我大学同学: at most two characters say which kin or friend
    nouns = r"的?[\u4e00-\u9fff]{0,2}?"
    nouns += rf"(?P<noun>{_alternatives(types)})(?=[啊呀呢嘛啦]?(?:{_STOPS}|$))"
    opener = r"^\W*(?:(?:哦|噢|嗯|是|就是)\W*)?"
    return _Patterns(
        re.compile(question),
        re.compile(opener + "我" + nouns),
        types,
        re.compile(after),
        re.compile(named),
        theirs=re.compile(opener + "[他她]" + nouns),
    )


def _alternatives(words: dict[str, RelationType]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


def answered(messages: Sequence[MessageIn], langs: Sequence[str]) -> list[RelationMention | None]:
    """Per message, the relation its answer to the line before says, if any: its speaker and
    the person that line asked about; else the person it introduces as the speaker's kin or
    friend ("Nathan. My son-in-law.")."""
    found: list[RelationMention | None] = []
    for i, (message, lang) in enumerate(zip(messages, langs, strict=True)):
        patterns = _patterns("en" if lang == "en" else "zh")
        answer = _answer(messages[i - 1], message, patterns) if i else None
        if answer is None and i >= 2:
            answer = _theirs(messages[i - 2], messages[i - 1], message, patterns)
        found.append(answer or _introduced(patterns, message))
    return found


def _theirs(
    named: MessageIn, before: MessageIn, message: MessageIn, patterns: _Patterns
) -> RelationMention | None:
    """ "Kenzie needs a ride." / "Who's Kenzie?" / "His friend from chess club.": "his" or
    "her" is the one who named Kenzie just before it was asked, a third person (the asker and
    the one who answers are "you" and "I")."""
    asked = patterns.question.search(before.content)
    said = patterns.theirs.match(message.content) if patterns.theirs else None
    if asked is None or said is None or not named.speaker:
        return None
    name = asked.group("name")
    if named.speaker in {before.speaker, message.speaker, name} or name not in named.content:
        return None
    return _tie(patterns, named.speaker, name, said.group("noun"))


def _introduced(patterns: _Patterns, message: MessageIn) -> RelationMention | None:
    """A name said alone, then "my <kin or friend noun>." as a sentence of its own: the
    speaker's kin or friend (said in front of them or not)."""
    said = patterns.introduced.search(message.content) if patterns.introduced else None
    if said is None or not message.speaker:
        return None
    name = said.group("name")
    if name == message.speaker or name in _NOT_NAMES:
        return None
    return _tie(patterns, message.speaker, name, said.group("noun"))


def _answer(before: MessageIn, message: MessageIn, patterns: _Patterns) -> RelationMention | None:
    if not message.speaker or message.speaker == before.speaker:
        return None
    asked = patterns.question.search(before.content)
    said = patterns.answer.match(message.content)
    if asked is None or said is None:
        return _kin_asked_after(patterns, before, message)
    if asked.group("name") == message.speaker:
        return None
    return _tie(patterns, message.speaker, asked.group("name"), said.group("noun"))


def _kin_asked_after(
    patterns: _Patterns, before: MessageIn, message: MessageIn
) -> RelationMention | None:
    """ "How's your brother doing?" / "Marco's good, he just started at X": Marco is the
    answering speaker's brother."""
    if patterns.asked_after is None or patterns.named is None:
        return None
    asked = patterns.asked_after.search(before.content)
    said = patterns.named.match(message.content)
    if asked is None or said is None:
        return None
    name = said.group("name")
    if name in {message.speaker, before.speaker} or name in _NOT_NAMES:
        return None
    return _tie(patterns, message.speaker or "", name, asked.group("noun"))


def _tie(patterns: _Patterns, speaker: str, name: str, noun: str) -> RelationMention | None:
    """The relation a kin or friend noun says between ``speaker`` and ``name``, if it is one."""
    relation_type = patterns.types.get(noun) or patterns.types.get(noun.lower())
    if relation_type is None:
        return None
    return between_people(relation_type, speaker, name, EXTRACTOR, CONFIDENCE, noun)


# Capitalised words that open an answer and name no one.
_NOT_NAMES = frozenset({"He", "She", "They", "It", "That", "This", "Everything", "All", "Life"})

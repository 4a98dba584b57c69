"""Kin who speak and share a family name: 李建国 says 我侄女 with 李思思 in the conversation, 周甜甜
says 哥 with 周小川 there (no LLM).

A kin noun of the father's line (哥, 姐, 叔, 侄女, 儿子; the class SURNAME_KIN of
zh_relation_words.json) names someone of the speaker's own family name. When the speaker says
one without a name after it (我侄女以后要接我的班, 哥上课睡觉) and exactly one other speaker of
the conversation has that family name and no family tie to the speaker yet, that speaker is the
kin. A kin noun of the mother's line (舅, 姨, 外婆) or 表 cousins say nothing here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from service.nlp.entities.chinese_lexicon import ChineseLexicon
from service.nlp.relations.table import (
    RelationMention,
    RelationType,
    between_people,
    relation_words,
)

EXTRACTOR = "surname_kin"
CONFIDENCE = 0.6  # a tie the family circles carry (family.py)


@dataclass(frozen=True)
class Line:
    """One message as this reading needs it: its words, speaker, relations, people named."""

    text: str
    lang: str
    speaker: str | None
    relations: tuple[RelationMention, ...]
    people: tuple[str, ...]


@cache
def _kin_noun() -> re.Pattern[str]:
    """A kin noun of the father's line, owned by 我 or opening a clause, with no name after."""
    nouns = sorted(relation_words().classes["SURNAME_KIN"], key=len, reverse=True)
    alternatives = "|".join(re.escape(n) for n in nouns)
    return re.compile(
        rf"(?:我|(?:^|(?<=[，,。！!？?；;…～~\s])))(?P<noun>{alternatives})(?![们儿夫子媳妹弟姐哥])"
    )


def surname_kin(lines: Sequence[Line]) -> list[list[RelationMention]]:
    """Per message, the tie its speaker's bare kin noun makes with a speaker of their name."""
    # Each speaker with a Chinese family name, and that name, read once for the batch.
    names = {
        s: n for s in dict.fromkeys(line.speaker for line in lines) if s and (n := _surname(s))
    }
    tied: set[frozenset[str]] = set()
    found: list[list[RelationMention]] = []
    for line in lines:
        tied |= _family_ties(line.relations)
        said = line.speaker
        if line.lang == "en" or said not in names or not _says_own_kin(line):
            found.append([])
            continue
        kin = [
            other
            for other, name in names.items()
            if other != said and name == names[said] and frozenset((said, other)) not in tied
        ]
        if len(kin) == 1:
            tied.add(frozenset((said, kin[0])))
            found.append(
                [between_people(RelationType.FAMILY_OF, said, kin[0], EXTRACTOR, CONFIDENCE)]
            )
        else:
            found.append([])
    return found


def _says_own_kin(line: Line) -> bool:
    for match in _kin_noun().finditer(line.text):
        if not line.text.startswith(line.people, match.end()):  # 我哥周小川: named
            return True
    return False


def _family_ties(relations: Sequence[RelationMention]) -> set[frozenset[str]]:
    return {
        frozenset((r.source.name, r.target.name))
        for r in relations
        if r.type is RelationType.FAMILY_OF
    }


def _surname(name: str) -> str | None:
    """The family name of a full Chinese name of two to four characters, else None."""
    lexicon = ChineseLexicon.load()
    if not 2 <= len(name) <= 4 or not all("\u4e00" <= c <= "\u9fff" for c in name):
        return None
    if name[:2] in lexicon.compound_surnames and len(name) >= 3:
        return name[:2]
    return name[0] if name[0] in lexicon.surnames and len(name) <= 3 else None

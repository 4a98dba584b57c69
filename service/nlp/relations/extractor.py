"""Typed relations between entity mentions, from a pattern table and the parse (no LLM).

``RelationExtractor.find`` reads one fact: English from its dependency parse
(``english.py``), Chinese from regexes (``chinese.py``), both driven by the rows of
``nlp_models/relations.jsonl`` (``table.py``), and from a small grammar over jieba's tags
(``chinese_grammar.py``, ``nlp_models/zh_grammar.json``).

First person (I, me, my, we, our; 我, 我们) is the speaker. A pronoun that cannot be resolved
inside the fact (he, she, they; 他, 她) gives no relation, unless an English one stands for the
one person the conversation named lately (``discourse.py``). FAMILY_OF and FRIEND_OF are
symmetric; their source is the one whose kin or friend the other is.
"""

from __future__ import annotations

from pathlib import Path

import spacy

from service.nlp.entities.mentions import EntityLabel
from service.nlp.entities.patterns import EntityMention
from service.nlp.entities.type_evidence import load_type_evidence
from service.nlp.relations.chinese import ChineseRelations
from service.nlp.relations.chinese_grammar import ChineseGrammar
from service.nlp.relations.chinese_kin import KinStatements, Said
from service.nlp.relations.chinese_pairs import learned_relations
from service.nlp.relations.discourse import Conversation
from service.nlp.relations.english import EnglishRelations
from service.nlp.relations.learned import fresh
from service.nlp.relations.table import (
    RELATIONS_PATH,
    SYMMETRIC,
    Endpoint,
    RelationKind,
    RelationMention,
    RelationRow,
    RelationType,
    keep_relation,
    load_relation_rows,
)

__all__ = [
    "SYMMETRIC",
    "Endpoint",
    "RelationExtractor",
    "RelationKind",
    "RelationMention",
    "RelationRow",
    "RelationType",
    "load_relation_rows",
]


class RelationExtractor:
    """Typed relations in one fact's text, English (from the parse) or Chinese (regexes)."""

    def __init__(self, path: Path = RELATIONS_PATH) -> None:
        rows = load_relation_rows(path)
        self.rows = {row.id: row for row in rows}
        self._english = EnglishRelations([row for row in rows if row.lang == "en"])
        self._chinese = ChineseRelations([row for row in rows if row.lang == "zh"])
        self._grammar = ChineseGrammar()
        self._kin = KinStatements()

    def find(
        self,
        text: str,
        lang: str,
        mentions: list[EntityMention],
        speaker: str | None,
        sentence: spacy.tokens.Span | None = None,
        addressee: str | None = None,
        conversation: Conversation | None = None,
    ) -> list[RelationMention]:
        """Relations stated in ``text``; English needs the parsed ``sentence`` it came from.
        ``addressee`` is whom the speaker answers (咱俩 is the speaker and them);
        ``conversation`` what the batch's earlier messages resolve (he, she; 你: discourse.py)."""
        if lang == "en":
            if sentence is None:
                raise ValueError("English relations need the parsed sentence")
            context = conversation or Conversation(addressee)
            return _fitting(self._english.find(text, mentions, speaker, sentence, context))
        if lang == "zh":
            context = conversation or Conversation(addressee)
            found = self._chinese.find(text, mentions, speaker, context)
            said = Said(speaker, context.you)
            for relation in [
                *self._grammar.find(text, mentions, speaker, context),
                *self._kin.find(text, mentions, said),
            ]:
                keep_relation(found, relation)  # found by a row and the grammar: one
            for relation in learned_relations(text, mentions, speaker, context.you):
                if fresh(relation, found):
                    keep_relation(found, relation)
            return _fitting(found)
        raise ValueError(f"unsupported language {lang!r}: use 'en' or 'zh'")


def _fitting(found: list[RelationMention]) -> list[RelationMention]:
    """Without the relations whose target is a person the text does not name (the speaker,
    the listener, a pronoun's antecedent) where the type wants a thing ("Dev joined us" is no
    membership of the speaker), or whom it names as kin or a friend ("your grandson Kyle" is
    owned by nobody), and without a visit where the fact says one lives, works or studies."""
    evidence = load_type_evidence()
    ends = evidence.relation_endpoints
    stays = {_ends(r) for r in found if r.type in _STAYS}
    people = {
        name.casefold()
        for r in found
        if r.type in _PEOPLE_TIES
        for name in (r.source.name, r.target.name)
    }
    return [
        r
        for r in found
        if not _person_as_thing(r.target, ends.get(r.type.value))
        and not (r.type.value in evidence.no_person_target and r.target.name.casefold() in people)
        # 在成都住了十年, 跳槽去了京东: where one lives, works or studies is no visit
        and not (r.type is RelationType.VISITED and _ends(r) in stays)
    ]


_PEOPLE_TIES = frozenset({RelationType.FAMILY_OF, RelationType.FRIEND_OF})


_STAYS = frozenset({RelationType.LIVES_IN, RelationType.WORKS_AT, RelationType.STUDIES_AT})


def _ends(relation: RelationMention) -> tuple[str, str]:
    return relation.source.name.casefold(), relation.target.name.casefold()


def _person_as_thing(
    target: Endpoint, ends: tuple[EntityLabel | None, EntityLabel | None] | None
) -> bool:
    wanted = None if ends is None else ends[1]
    unnamed = target.start is None and target.label is EntityLabel.PERSON
    return unnamed and wanted is not None and wanted is not EntityLabel.PERSON

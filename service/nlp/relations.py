"""Typed relations between entity mentions, from a pattern table and the parse (no LLM).

The table, ``nlp_models/relations.jsonl``, is data: one JSON object a line,
``{"id", "type", "lang", "kind", ...}`` validated on load. English rows name the words that
carry a relation (verb or noun lemmas, prepositions) and a ``kind`` that says which parse shape
links them to their endpoints (subject, object, prepositional object, apposition, possessor);
see ``relations_en.py``. Chinese has no parser here: its rows are regexes whose named groups
``src`` and ``tgt`` mark the endpoints (see ``relations_zh.py``).

First person (I, me, my, we, our; 我) is the speaker. A pronoun that cannot be resolved inside
the fact (he, she, they; 他, 她) gives no relation. FAMILY_OF and FRIEND_OF are symmetric; their
source is the one whose kin or friend the other is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

import spacy
from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic import ValidationError as PydanticValidationError

from service.config import REPO_ROOT
from service.errors import ConfigurationError
from service.nlp.chinese import Lang
from service.nlp.patterns import EntityLabel, EntityMention

__all__ = [
    "Endpoint",
    "RelationExtractor",
    "RelationKind",
    "RelationMention",
    "RelationRow",
    "RelationType",
    "load_relation_rows",
]

RELATIONS_PATH = REPO_ROOT / "nlp_models" / "relations.jsonl"
RULE_CONFIDENCE = 0.8


class RelationType(StrEnum):
    WORKS_AT = "WORKS_AT"
    LIVES_IN = "LIVES_IN"
    LOCATED_IN = "LOCATED_IN"
    STUDIES_AT = "STUDIES_AT"
    FAMILY_OF = "FAMILY_OF"
    FRIEND_OF = "FRIEND_OF"
    USES = "USES"
    LIKES = "LIKES"
    DISLIKES = "DISLIKES"
    VISITED = "VISITED"
    MEMBER_OF = "MEMBER_OF"
    CREATED = "CREATED"
    OWNS = "OWNS"


SYMMETRIC = frozenset({RelationType.FAMILY_OF, RelationType.FRIEND_OF})


@dataclass(frozen=True)
class Endpoint:
    """One end of a relation: a mention's surface, or the speaker when it is first person."""

    name: str  # surface text as in the text, or the speaker's name for first person
    label: EntityLabel  # PERSON for the speaker and kin
    start: int | None = None  # char offsets into the fact text; None for the speaker
    end: int | None = None


@dataclass(frozen=True)
class RelationMention:
    type: RelationType
    source: Endpoint
    target: Endpoint
    extractor: str  # "dep:<row id>" (English, from the parse) or "pattern:<row id>" (Chinese)
    confidence: float


class RelationKind(StrEnum):
    """Which parse shape an English row reads; Chinese rows are all REGEX."""

    VERB_PREP = "verb_prep"  # <subject> <verb> <prep> <target>: "I work at X"
    VERB_OBJECT = "verb_object"  # <subject> <verb> <target>: "I use X"
    OBJECT_PREP = "object_prep"  # <subject> <verb> <object noun> <prep> <target>: "did a PhD at X"
    NOUN_PREP = "noun_prep"  # <possessor>'s <noun> <prep> <target>: "X's office in Y"
    THING_IN = "thing_in"  # <named thing> is (based) in <target>: "X is in Y"
    KIN = "kin"  # <possessor> <kin noun> <name>: "my sister Dana"
    ROLE = "role"  # <name>, <target>'s <role noun>: "Maya, the band's drummer"
    POSSESSED = "possessed"  # <possessor> <target>: "my Tesla"
    POSSESSED_MODIFIER = "possessed_modifier"  # <possessor> <target> <noun>: "my Figma mockups"
    MUTUAL = "mutual"  # <A> and <B> <verb>: "A and B got married"
    OUR_PREP = "our_prep"  # <prep> <target>, we/our ...: "At X, our cluster ..."
    REGEX = "regex"  # Chinese: named groups src and tgt


class RelationRow(BaseModel):
    """One row of the relation table."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$", max_length=80)
    type: RelationType
    lang: Lang
    kind: RelationKind
    trigger: tuple[str, ...] = ()  # lemmas (lower case) of the verb or noun that carries it
    preps: tuple[str, ...] = ()  # prepositions that introduce the target
    # OBJECT_PREP: the object's lemmas ("phd"); THING_IN: attribute nouns ("block");
    # VERB_PREP: the lemmas the prepositional object must have ("club", "office")
    objects: tuple[str, ...] = ()
    target_labels: tuple[EntityLabel, ...] = ()  # when set, the target must have one of these
    past_only: bool = False  # a plan ("I'll go to X", "want to visit X") is no visit
    speaker_default: bool = False  # no subject in a statement ("Back from X!") = the speaker
    regex: str | None = None
    person_type: RelationType | None = None  # the type when the source is a person (X在Y)
    target_mention: bool = False  # the target must be a mention, not just the group's text
    confidence: float = Field(default=RULE_CONFIDENCE, gt=0.0, le=1.0)

    @model_validator(mode="after")
    def _consistent(self) -> RelationRow:
        if self.lang == "zh":
            if self.kind is not RelationKind.REGEX or not self.regex:
                raise ValueError("a Chinese row is kind 'regex' with a 'regex'")
            from service.nlp.relations_zh import compile_row_regex

            try:
                compiled = compile_row_regex(self.regex)
            except re.error as e:
                raise ValueError(f"invalid regex: {e}") from e
            if "tgt" not in compiled.groupindex:
                raise ValueError("the regex needs a named group 'tgt'")
            return self
        if self.kind is RelationKind.REGEX or self.regex is not None:
            raise ValueError("English rows read the parse: no 'regex'")
        needs_trigger = self.kind not in {
            RelationKind.POSSESSED,
            RelationKind.POSSESSED_MODIFIER,
            RelationKind.OUR_PREP,
        }
        if needs_trigger and not self.trigger:
            raise ValueError(f"kind {self.kind.value!r} needs a 'trigger' list")
        prep_kinds = {RelationKind.VERB_PREP, RelationKind.NOUN_PREP, RelationKind.OUR_PREP}
        if self.kind in prep_kinds and not self.preps:
            raise ValueError(f"kind {self.kind.value!r} needs a 'preps' list")
        if self.kind is RelationKind.OBJECT_PREP and not (self.objects and self.preps):
            raise ValueError("kind 'object_prep' needs 'objects' and 'preps'")
        return self


def load_relation_rows(path: Path = RELATIONS_PATH) -> list[RelationRow]:
    """The validated rows of a table; a bad row raises ConfigurationError naming its line."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise ConfigurationError(f"cannot read relation table {path}: {e}") from e
    rows: list[RelationRow] = []
    first_line: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = RelationRow.model_validate_json(line)
        except PydanticValidationError as e:
            details = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or 'row'}: {err['msg']}"
                for err in e.errors()
            )
            raise ConfigurationError(f"{path}:{number}: {details}") from e
        if row.id in first_line:
            raise ConfigurationError(
                f"{path}:{number}: id {row.id!r} is already used on line {first_line[row.id]}"
            )
        first_line[row.id] = number
        rows.append(row)
    return rows


def speaker_endpoint(speaker: str | None) -> Endpoint | None:
    return Endpoint(speaker, EntityLabel.PERSON) if speaker else None


def mention_endpoint(mention: EntityMention, label: EntityLabel | None = None) -> Endpoint:
    return Endpoint(mention.text, label or mention.label, mention.start, mention.end)


def keep_relation(found: list[RelationMention], relation: RelationMention) -> None:
    """Append unless the same (type, source, target) is there, or source and target are one."""
    if _same(relation.source, relation.target):
        return
    for i, old in enumerate(found):
        if old.type is not relation.type:
            continue
        forward = _same(old.source, relation.source) and _same(old.target, relation.target)
        backward = relation.type in SYMMETRIC and (
            _same(old.source, relation.target) and _same(old.target, relation.source)
        )
        if forward or backward:
            if relation.confidence > old.confidence:
                found[i] = relation
            return
    found.append(relation)


def _same(a: Endpoint, b: Endpoint) -> bool:
    return a.name.casefold() == b.name.casefold()


class RelationExtractor:
    """Typed relations in one fact's text, English (from the parse) or Chinese (regexes)."""

    def __init__(self, path: Path = RELATIONS_PATH) -> None:
        from service.nlp.relations_en import EnglishRelations
        from service.nlp.relations_zh import ChineseRelations

        rows = load_relation_rows(path)
        self.rows = {row.id: row for row in rows}
        self._english = EnglishRelations([row for row in rows if row.lang == "en"])
        self._chinese = ChineseRelations([row for row in rows if row.lang == "zh"])

    def find(
        self,
        text: str,
        lang: str,
        mentions: list[EntityMention],
        speaker: str | None,
        sentence: spacy.tokens.Span | None = None,
    ) -> list[RelationMention]:
        """Relations stated in ``text``; English needs the parsed ``sentence`` it came from."""
        if lang == "en":
            if sentence is None:
                raise ValueError("English relations need the parsed sentence")
            return self._english.find(text, mentions, speaker, sentence)
        if lang == "zh":
            return self._chinese.find(text, mentions, speaker)
        raise ValueError(f"unsupported language {lang!r}: use 'en' or 'zh'")

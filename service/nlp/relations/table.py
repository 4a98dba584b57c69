"""The relation table and the types every relation reader shares.

The table, ``nlp_models/relations.jsonl``, is data: one JSON object a line,
``{"id", "type", "lang", "kind", ...}`` validated on load. English rows name the words that
carry a relation (verb or noun lemmas, prepositions) and a ``kind`` that says which parse shape
links them to their endpoints (subject, object, prepositional object, apposition, possessor);
see ``relations_en.py``. Chinese has no parser here: its rows are regexes whose named groups
``src`` and ``tgt`` mark the endpoints (see ``relations_zh.py``).

Chinese rows may use the macros of ``CHINESE_MACROS`` ({B}, {S}, {T} …); they are expanded
here so that a row is validated as it will run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from functools import cache, cached_property, lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

from service.core.errors import ConfigurationError
from service.core.resources import NLP_MODELS_DIR
from service.nlp.entities.patterns import EntityLabel, EntityMention
from service.nlp.language import Lang
from service.nlp.relations.chinese_words import (
    ChineseRelationWords,
    alternation,
    load_relation_words,
)
from service.nlp.tables import load_table

RELATIONS_PATH = NLP_MODELS_DIR / "relations.jsonl"
RULE_CONFIDENCE = 0.8


# --- Chinese regex macros (see relations_zh.py) ------------------------------

CJK = r"\u4e00-\u9fff"
EMOJI = "\U0001f300-\U0001faff\u2600-\u27bf"
_LEAD_INS = (
    "然后|但是|不过|而且|所以|其实|听说|我记得|记得|我知道|对|嗯|哈哈|好呀|还好|因为|不用|巧了|"
    "是啊|对了|另外|而且"
)
_ADVERBS = (
    "也|还|就|都|又|再|一直|现在|目前|刚刚|刚|已经|正在|平时|主要|终于|马上|以前|之前|曾经|本来|"
    "从小|每天|天天|经常|下个?月|上个?月|这个?月|[上下这]周|去年|今年|明年|昨天|今天|明天|周末|"
    "暑假|寒假|最近|后来|其实|一起|总是|常常|暑假结束|更加|更|比较|特别|非常|很|还是|一手|亲手|自己|独自|"
    "一个人|没事就|基本|一般"
)
# Characters that end a name rather than continue it: 小红下个月 → 小红, 罗川也在 → 罗川.
NAME_STOPS = (
    "也还就都又刚在的下上说是和跟去来要会已正一从给把被了呢吗吧很最今明昨每住做读叫用买有想开"
)
_STATIC_MACROS = {
    "{B}": rf"(?:^|(?<=[，,。！？；：:\s]))(?:(?:{_LEAD_INS})[，,]?)*",
    "{S}": rf"(?P<src>我们|我|他|她|[{CJK}A-Za-z][{CJK}A-Za-z0-9]{{0,7}}?)",
    "{SN}": rf"(?P<src>(?:[我你他她](?={{KIN}}))?{{KIN}}?(?![我你他她它这那])"
    rf"[{CJK}A-Za-z](?:(?!的)[{CJK}A-Za-z0-9]){{1,7}}?)",
    "{A}": rf"(?:{_ADVERBS})*",
    # A personal pronoun as a subject or possessor; 你 is whom the message addresses.
    "{PRONOUN}": "(?:我|你|您|他|她)",
    "{T}": rf"(?P<tgt>[{CJK}A-Za-z0-9][{CJK}A-Za-z0-9·&+#\- ]{{0,15}}?)",
    "{P}": rf"(?P<tgt>[{CJK}A-Za-z][{CJK}A-Za-z0-9·\- ]{{0,6}}?)",
    "{N}": rf"(?P<tgt>(?![{NAME_STOPS}])[{CJK}]{{2,3}})",
    # The end of a clause, after sentence-final particles and emoji (海底捞了😋).
    "{END}": rf"(?=[了啦呀哦喔呢吧的]*(?:[，,。！？；;!?~～…\s]|[{EMOJI}]|$))",
}


# Macros that stand for the fact's own mentions of some labels: {PLACE} is an alternation of
# the surfaces of the fact's PLACE mentions, so a row reads "a place, then a place" (湛江赤坎).
MENTION_MACROS: dict[str, frozenset[EntityLabel]] = {
    "{PLACE}": frozenset({EntityLabel.PLACE}),
    "{ORG}": frozenset({EntityLabel.ORG, EntityLabel.OTHER}),
    "{PERSON}": frozenset({EntityLabel.PERSON}),
    "{PRODUCT}": frozenset({EntityLabel.PRODUCT}),
    "{THING}": frozenset({EntityLabel.CONCEPT, EntityLabel.OTHER, EntityLabel.ORG}),
    "{NAME}": frozenset(set(EntityLabel) - {EntityLabel.TEMPORAL}),
}
_NO_MENTION = "(?!)"


@cache
def chinese_macros() -> dict[str, str]:
    """Every static macro: the word classes of zh_relation_words.json, then the built-ins
    (which may use the classes: {SN} uses {KIN})."""
    words = relation_words()
    classes = words.macros()
    clash = set(classes) & (set(_STATIC_MACROS) | set(MENTION_MACROS))
    if clash:
        raise ConfigurationError(f"relation words redefine built-in macros: {sorted(clash)}")
    macros = {name: _expand(value, classes) for name, value in _STATIC_MACROS.items()}
    return {**macros, **classes}


@cache
def relation_words() -> ChineseRelationWords:
    """zh_relation_words.json, its head types checked against RelationType."""
    words = load_relation_words()
    unknown = set(words.heads) - {t.value for t in RelationType}
    if unknown:
        raise ConfigurationError(f"relation words: unknown head types {sorted(unknown)}")
    return words


def _expand(regex: str, macros: dict[str, str]) -> str:
    for name, value in macros.items():
        regex = regex.replace(name, value)
    return regex


@lru_cache(maxsize=1024)
def compile_row_regex(regex: str, mentions: tuple[tuple[str, str], ...] = ()) -> re.Pattern[str]:
    """A row's regex with its macros expanded; ``mentions`` gives each mention macro its
    alternation (a macro not given matches nothing)."""
    regex = _expand(regex, chinese_macros())
    given = dict(mentions)
    for name in MENTION_MACROS:
        regex = regex.replace(name, given.get(name, _NO_MENTION))
    return re.compile(regex)


def uses_mentions(regex: str) -> bool:
    """Whether a row's regex names the fact's mentions ({PLACE}, {ORG} …)."""
    return any(name in regex for name in MENTION_MACROS)


def mention_alternations(mentions: list[EntityMention]) -> tuple[tuple[str, str], ...]:
    """Each mention macro's alternation of the surfaces of the mentions it stands for."""
    found = []
    for name, labels in MENTION_MACROS.items():
        surfaces = sorted({m.text for m in mentions if m.label in labels}, key=len, reverse=True)
        if surfaces:
            found.append((name, alternation(surfaces)))
    return tuple(found)


def kin_words() -> tuple[str, ...]:
    """Kinship nouns (妹妹, 小舅子), longest first."""
    return tuple(sorted(relation_words().classes["KIN"], key=len, reverse=True))


def friend_words() -> tuple[str, ...]:
    """Nouns of friends (室友, 搭子), longest first."""
    return tuple(sorted(relation_words().classes["FRIEND"], key=len, reverse=True))


def peer_words() -> tuple[str, ...]:
    """Nouns of people near someone who are neither kin nor friends (同事, 邻居)."""
    return tuple(sorted(relation_words().classes["PEER"], key=len, reverse=True))


_ANY_MENTIONS = tuple((name, "(?:X)") for name in MENTION_MACROS)


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
    # Something the source did on the memory's day (went climbing, had a coffee): the evidence
    # inferred preferences count (service/ingest/preferences.py).
    DOES = "DOES"


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
    via: str = ""  # English: the lemma of the word read as its trigger ("sister", "work")


def between_people(
    kind: RelationType, a: str, b: str, extractor: str, confidence: float, via: str = ""
) -> RelationMention:
    """A relation between two people the batch names (a kin or friend tie), no span read."""
    return RelationMention(
        kind,
        Endpoint(a, EntityLabel.PERSON),
        Endpoint(b, EntityLabel.PERSON),
        extractor,
        confidence,
        via,
    )


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
    FAVOURITE = "favourite"  # <possessor> favourite <noun> is <target>: "my favorite band is X"
    OUR_PREP = "our_prep"  # <prep> <target>, we/our ...: "At X, our cluster ..."
    EMPLOYER_SUBJECT = "employer_subject"  # <target> <verb> <source>: "X hired me"
    HOME = "home"  # <target> has been home, <target>-based, here in <target>
    NAMED_MODIFIER = "named_modifier"  # <possessor> <target> <noun>: "my Ghent flat"
    NAME_IN = "name_in"  # <name> (<target>), <name>, over in <target>: "Cafe X (Leith)"
    MINE = "mine"  # <target> is mine: "the bakery is officially ours"
    VERDICT = "verdict"  # <target> is <judgement>: "Teams is the worst", "X is useless"
    WAY_OF = "way_of"  # <target> is how I <verb>: "Strida is how I track my runs"
    PLACE_POSSESSOR = "place_possessor"  # <source> is <target>'s <noun>: "X is Leith's best cafe"
    # <name>, a <noun> <prep | poss | compound> <other>: "X, a cafe in Y", "X is Y's novel"
    DESCRIBED = "described"
    # <tool> <verb> <me | my noun>: "X plans all my runs", "X saves me hours"; read only where
    # no other row links the two
    TOOL_SUBJECT = "tool_subject"
    REGEX = "regex"  # Chinese: named groups src and tgt


class Recipient(StrEnum):
    """Whether a verb's recipient ("got me X", "bought X for Sam") is the relation's source."""

    IGNORED = "ignored"  # the subject is the source, recipient or not
    PREFERRED = "preferred"  # the recipient when there is one, else the subject ("bought")
    REQUIRED = "required"  # the recipient, and without one nothing ("gave")


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
    # VERB_PREP: the lemmas the prepositional object must have ("club", "office");
    # NOUN_PREP: a word the trigger noun must govern ("first" of "my first day at X");
    # VERB_OBJECT: the phrase's object, whose recipient is the target ("gave X a try")
    objects: tuple[str, ...] = ()
    target_labels: tuple[EntityLabel, ...] = ()  # when set, the target must have one of these
    # DESCRIBED, THING_IN: when set, the source must have one
    source_labels: tuple[EntityLabel, ...] = ()
    # English: verbs of the clause that undo it ("I lost my job at X", "stopped working at X")
    cancelled_by: tuple[str, ...] = ()
    when_negated: bool = False  # read from a denial only: "not a fan of X" is DISLIKES
    past_only: bool = False  # a plan ("I'll go to X", "want to visit X") is no visit
    recipient: Recipient = Recipient.IGNORED  # VERB_OBJECT: "Sam got me X" is mine
    speaker_default: bool = False  # no subject in a statement ("Back from X!") = the speaker
    # English: the trigger says the relation only in this row's phrase ("go way back",
    # "stopped by"), so it gives the learned reader no word class (english_pairs.py).
    idiom: bool = False
    # VERB_PREP: a direct object undoes it ("got back from X", not "got an offer from X")
    intransitive: bool = False
    regex: str | None = None
    person_type: RelationType | None = None  # the type when the source is a person (X在Y)
    place_type: RelationType | None = None  # the type when the target is a place (我们+湘潭)
    by_head: bool = False  # a target ending in a head of zh_relation_words.json takes its type
    needs_past: bool = False  # a past time word (去年, 上次) must open the clause (去X玩)
    target_mention: bool = False  # the target must be a mention, not just the group's text
    confidence: float = Field(default=RULE_CONFIDENCE, gt=0.0, le=1.0)

    @cached_property  # asked of every token a row is tried on
    def trigger_set(self) -> frozenset[str]:
        return frozenset(self.trigger)

    @model_validator(mode="after")
    def _consistent(self) -> RelationRow:
        if self.lang == "zh":
            if self.kind is not RelationKind.REGEX or not self.regex:
                raise ValueError("a Chinese row is kind 'regex' with a 'regex'")
            try:
                compiled = compile_row_regex(self.regex, _ANY_MENTIONS)
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
            RelationKind.NAME_IN,
            RelationKind.TOOL_SUBJECT,
        }
        if needs_trigger and not self.trigger:
            raise ValueError(f"kind {self.kind.value!r} needs a 'trigger' list")
        prep_kinds = {
            RelationKind.VERB_PREP,
            RelationKind.NOUN_PREP,
            RelationKind.OUR_PREP,
            RelationKind.NAME_IN,
            RelationKind.DESCRIBED,
        }
        if self.kind in prep_kinds and not self.preps:
            raise ValueError(f"kind {self.kind.value!r} needs a 'preps' list")
        if self.kind is RelationKind.OBJECT_PREP and not (self.objects and self.preps):
            raise ValueError("kind 'object_prep' needs 'objects' and 'preps'")
        return self


def load_relation_rows(path: Path = RELATIONS_PATH) -> list[RelationRow]:
    """The validated rows of a table; a bad row raises ConfigurationError naming its line."""
    return load_table(path, RelationRow, "relation table")


def speaker_endpoint(speaker: str | None) -> Endpoint | None:
    return Endpoint(speaker, EntityLabel.PERSON) if speaker else None


def mention_endpoint(mention: EntityMention, label: EntityLabel | None = None) -> Endpoint:
    """The mention as an endpoint, typed as its context votes (EntityMention.voted_label)."""
    return Endpoint(mention.text, label or mention.voted_label, mention.start, mention.end)


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


def links(a: RelationMention, b: RelationMention) -> bool:
    """Whether two relations join the same two names, in either direction."""
    ends = {a.source.name.casefold(), a.target.name.casefold()}
    return ends == {b.source.name.casefold(), b.target.name.casefold()}


def _same(a: Endpoint, b: Endpoint) -> bool:
    return a.name.casefold() == b.name.casefold()

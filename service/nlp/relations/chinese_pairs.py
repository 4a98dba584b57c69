"""What the words say about two names in one Chinese clause: the learned reader's features.

Chinese has no parse here, so a pair is described by the words around it (jieba, dictionary
only): the words between the two, the first and last of them, the two words after the target
and the one before the source, the target name's last character (院, 司, 市: what kind of
place or body it is), the two types, and whether the clause is denied, asked or planned. Other
names between the two are read as their type, not their words, so no feature is one name's.
The same function serves training (scripts/train_relation_model.py) and reading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cache, lru_cache

import jieba

from service.nlp.entities.mentions import EntityMention
from service.nlp.relations.chinese import NEGATION, PLAN, QUESTION, owns_a_person, unreal
from service.nlp.relations.chinese_words import alternation, load_relation_words
from service.nlp.relations.learned import (
    ADDRESSEE,
    SPEAKER,
    Pair,
    Party,
    polarity,
    stated,
)
from service.nlp.relations.table import (
    RelationMention,
    mention_endpoint,
    speaker_endpoint,
)

_FIRST_PERSON = re.compile(r"我们|咱们|我|咱")
_SECOND_PERSON = re.compile(r"你们|你|您")
_CLAUSE_BREAK = re.compile(r"[，。！？；,.!?;]")
# A clause that ends in 吧 with nothing done (北京见吧, 待遇也不差吧): a suggestion or a
# supposition, not a statement.
_SUGGESTED = re.compile(r"^[^了过]*吧\W*$")
_MAX_GAP = 14  # characters between two names read as words; farther, only the last words
_FAR_WORDS = 3
_AFTER_WORDS = 2
_CLAUSE_END = re.compile(r"[，。！？!?,;；、\s~～…]")


@dataclass(frozen=True)
class Name:
    """A name in the clause, by character offsets, with its entity type."""

    start: int
    end: int
    kind: str


def learned_relations(
    text: str, mentions: list[EntityMention], speaker: str | None, you: str | None
) -> list[RelationMention]:
    """What the model reads between the clause's names and the two parties (the speaker, and
    whom 你 addresses); the caller keeps those whose two ends no rule linked."""
    names = [Name(m.start, m.end, m.voted_label.value) for m in mentions]
    found = pairs(text, names, speaker is not None, you is not None)
    parties = {Party.SPEAKER: speaker_endpoint(speaker), Party.ADDRESSEE: speaker_endpoint(you)}
    return stated("zh", text, found, [mention_endpoint(m) for m in mentions], parties)


def pairs(text: str, names: list[Name], speaker: bool, addressee: bool) -> list[Pair]:
    """Every ordered pair of names, and each party with each name (and the speaker with the
    addressee), described by ``features``. A party stands at its word (我/我们/咱, 你/您) said
    outside the names, the nearest before the name; the speaker, in a clause without one
    (周末去了趟苏州), at the clause's start, marked implicit."""
    me = _said(_FIRST_PERSON, SPEAKER, text, names) if speaker else []
    second = _said(_SECOND_PERSON, ADDRESSEE, text, names)
    you = [w for w in second if text[w.start : w.end] != "你们"] if addressee else []
    found: list[Pair] = []
    for j, target in enumerate(names):
        if me:
            word = _nearest(me, target)
            if target.kind == "PERSON" or not _owner_word(text, word):
                found.append(_party_pair(Party.SPEAKER, word, j, target, text, names))
        elif (
            speaker
            and not _addressed(text, second, target)
            and not _topic_named(text, target, names)
        ):
            start = Name(0, 0, SPEAKER)
            implicit = _party_pair(Party.SPEAKER, start, j, target, text, names)
            found.append(replace(implicit, features=[*implicit.features, "speaker=implicit"]))
        if you:
            listener = _nearest(you, target)
            found.append(_party_pair(Party.ADDRESSEE, listener, j, target, text, names))
        for i, source in enumerate(names):
            if i != j and not overlap(source, target):
                found.append(_pair(i, j, features(text, source, target, names), source, target))
    if me and you:
        to = you[0]
        found.append(_party_pair(Party.SPEAKER, _nearest(me, to), Party.ADDRESSEE, to, text, names))
    return found


def _addressed(text: str, second: list[Name], target: Name) -> bool:
    """你 in the target's clause before it: the clause is about the listener (你在X干了十年),
    not a speaker who dropped 我, whether or not the listener is known."""
    return any(
        w.end <= target.start and not _CLAUSE_BREAK.search(text, w.end, target.start)
        for w in second
    )


def _topic_named(text: str, target: Name, names: list[Name]) -> bool:
    """A name opens the target's clause (青禾陶舍就开在X, 孙浩在X读研), or a person's the
    fact (王磊挺好的，刚跳槽去了X): the clause is about them, so no dropped 我 stands before
    the target."""
    breaks = [m.end() for m in _CLAUSE_BREAK.finditer(text, 0, target.start)]
    opening = breaks[-1] if breaks else 0
    while opening < target.start and text[opening].isspace():
        opening += 1
    first = len(text) - len(text.lstrip())
    return any(
        n.end <= target.start and (n.start == opening or (n.start == first and n.kind == "PERSON"))
        for n in names
        if n != target
    )


def _owner_word(text: str, word: Name) -> bool:
    """我 owning whom the clause is about (我弟弟在复旦读书, 我大学室友): not its subject; the
    person may still be the speaker's kin (我弟弟张伟)."""
    return owns_a_person(text[word.end :])


def _said(words: re.Pattern[str], kind: str, text: str, names: list[Name]) -> list[Name]:
    found = [Name(m.start(), m.end(), kind) for m in words.finditer(text)]
    return [n for n in found if not _inside(n.start, names)]


def _nearest(words: list[Name], target: Name) -> Name:
    before = [w for w in words if w.end <= target.start]
    return before[-1] if before else words[0]


def _party_pair(
    party: Party,
    anchor: Name,
    target_index: int | Party,
    target: Name,
    text: str,
    names: list[Name],
) -> Pair:
    return _pair(party, target_index, features(text, anchor, target, names), anchor, target)


def _pair(
    source_index: int | Party,
    target_index: int | Party,
    described: list[str],
    source: Name,
    target: Name,
) -> Pair:
    """The pair, said as a fact unless its words deny, ask or plan it."""
    unsaid = {"clause=denied", "clause=question", "clause=planned", "clause=unreal"}
    unsaid &= set(described)
    return Pair(source_index, target_index, described, source.kind, target.kind, not unsaid)


def features(text: str, source: Name, target: Name, names: list[Name]) -> list[str]:
    types = f"{source.kind}>{target.kind}"
    found = [f"types={types}", f"target={target.kind}", f"source={source.kind}"]
    found.append("order=" + ("source_first" if source.start < target.start else "target_first"))
    first, second = sorted((source, target), key=lambda n: n.start)
    gap = _masked(text, first.end, second.start, names)
    words = _words(gap)
    if len(gap) > _MAX_GAP:
        found.append("gap=far")
        words = words[-_FAR_WORDS:]
    elif not gap.strip():
        found.append("gap=none")
    for word in words:
        found += [f"between={word}", f"between={word}|{types}"]
    if words:
        found += [f"first={words[0]}|{types}", f"last={words[-1]}|{types}"]
    rest = _clause_after(text, target.end, names)
    after = _words(rest)[:_AFTER_WORDS]
    for n, word in enumerate(after, start=1):
        found += [f"after{n}={word}", f"after{n}={word}|{types}"]
    before = _words(_clause_before(text, source.start, names))[-1:]
    found += [f"before_source={w}" for w in before]
    if source.start > target.start:  # 这辆X是我上个月提的: the verb follows the source
        behind = _words(_clause_after(text, source.end, names))[:_AFTER_WORDS]
        found += [f"after_source={w}|{types}" for w in behind]
    if target.kind not in {SPEAKER, ADDRESSEE}:
        found.append(f"tail={text[target.end - 1]}|{target.kind}")
    found += _clause(_pair_clause(text, first, second), gap, after, rest)
    if unreal().search(_clause_before(text, target.start, names)):
        found.append("clause=unreal")  # 如果被X录取就好了: wished, not said
    classes = _classes_in(gap + "".join(after))
    found += [f"class={name}" for name in classes]
    liked = not {"LIKE_VERB", "LIKE_SLANG", "FAN"}.isdisjoint(classes)
    return found + polarity(liked, "DISLIKE_VERB" in classes)


@cache
def _class_pattern() -> list[tuple[str, re.Pattern[str]]]:
    """Each word class of zh_relation_words.json (WORK_VERB, MOVE_TO, KIN …) as one regex."""
    classes = load_relation_words().classes
    return [(name, re.compile(alternation(words))) for name, words in classes.items() if words]


def _classes_in(text: str) -> list[str]:
    """The relation rows' word classes said in ``text``: a verb the rows know by its class,
    so that the model weighs the class, not only the word."""
    return [name for name, pattern in _class_pattern() if pattern.search(text)]


def _clause(clause: str, gap: str, after: list[str], rest: str) -> list[str]:
    """Whether the pair's ``clause`` denies, plans, suggests or asks; ``rest`` is the clause
    after the target to its end, where a closing 吧 makes a supposition of it (中行待遇也不差吧)."""
    found = []
    near = gap + "".join(after)
    if NEGATION.search(near):
        found.append("clause=denied")
    if PLAN.search(gap) or _SUGGESTED.search(rest):
        found.append("clause=planned")
    if QUESTION.search(clause):
        found.append("clause=question")
    return found


def _pair_clause(text: str, first: Name, second: Name) -> str:
    """The clause that holds the pair, with the mark that ends it: a question word or mark of
    another clause asks nothing of this one (我在杭州天天加班，哪有空回家; 你在X上班，对吧？)."""
    stops = [m.end() for m in _CLAUSE_END.finditer(text, 0, first.start)]
    stop = _CLAUSE_END.search(text, second.end)
    return text[stops[-1] if stops else 0 : stop.end() if stop else len(text)]


def _masked(text: str, start: int, end: int, names: list[Name]) -> str:
    """``text[start:end]`` with each name inside it (and 我) read as its type."""
    pieces: list[str] = []
    at = start
    for name in sorted(names, key=lambda n: n.start):
        if name.start >= at and name.end <= end:
            pieces += [text[at : name.start], f"<{name.kind}>"]
            at = name.end
    pieces.append(text[at:end])
    return _SECOND_PERSON.sub("<你>", _FIRST_PERSON.sub("<我>", "".join(pieces)))


def _clause_after(text: str, end: int, names: list[Name]) -> str:
    stop = _CLAUSE_END.search(text, end)
    return _masked(text, end, stop.start() if stop else len(text), names)


def _clause_before(text: str, start: int, names: list[Name]) -> str:
    stops = [m.end() for m in _CLAUSE_END.finditer(text, 0, start)]
    return _masked(text, stops[-1] if stops else 0, start, names)


@lru_cache(maxsize=4096)
def _cut(piece: str) -> tuple[str, ...]:
    return tuple(w for w in jieba.cut(piece, HMM=False) if w.strip())


def _words(masked: str) -> list[str]:
    """The words of a masked gap: a type marker stays one word."""
    words: list[str] = []
    for piece in re.split(r"(<[^<>]+>)", masked):
        if piece.startswith("<") and piece.endswith(">"):
            words.append(piece)
        elif piece:
            words.extend(_cut(piece))
    return words


def _inside(at: int, names: list[Name]) -> bool:
    return any(n.start <= at < n.end for n in names)


def overlap(a: Name, b: Name) -> bool:
    return a.start < b.end and b.start < a.end

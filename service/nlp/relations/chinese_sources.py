"""Whom a Chinese grammar hit is about (chinese_grammar.py): its own subject, a person named
before the trigger, 我, 你 (the one addressed), a kin noun said with a name before (我表哥), 他/
她 (the one person named), or the last clause's subject. ``Subjects`` carries the speaker and
the last clause's subject from one clause of a fact to the next.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import jieba.posseg

from service.nlp.entities.mentions import EntityLabel, EntityMention
from service.nlp.relations.chinese import kin_prefix
from service.nlp.relations.chinese_grammar_table import Hit, Shape
from service.nlp.relations.chinese_kin import kin_subject
from service.nlp.relations.chinese_subjects import is_you
from service.nlp.relations.discourse import Conversation
from service.nlp.relations.table import Endpoint, mention_endpoint

__all__ = ["NOUN_TAGS", "Subjects", "kin_named_before", "past_de_phrase", "sources"]

_OTHERS = re.compile(r"[你您他她它]|大家|别人|人家")
_THIRD_PERSON = re.compile(r"[他她]|人家")  # 人家 of one just named: 小雪…！人家在X当经理
# 的 and a short noun phrase before a topic's subject (的在职研我, 的夜校他).
_DE_PHRASE = re.compile(r"的[\u4e00-\u9fffA-Za-z]{1,5}?(?=(?:我们|我|他|她)(?!们))")
# Words for the speaker's household after 我们 (我们全家搬到了…): the speaker, no one else.
_HOUSEHOLD = re.compile(r"(?<=我们)(?:全家人?|一家人?|家)|(?<=我)家")
# Whom one does something with is no subject: 和老公一起去的X.
_COMPANION = re.compile(r"(?:和|跟|与|陪|带着?)[\u4e00-\u9fff]{1,4}?一起")
NOUN_TAGS = ("n", "s", "vn", "nr", "ns", "nt", "nz", "j", "eng")


@dataclass
class Subjects:
    """Who the fact is about so far: the speaker, the last clause's subject."""

    me: Endpoint | None
    last: list[Endpoint] = field(default_factory=list)
    conversation: Conversation | None = None  # earlier messages: whom 他/她 may mean
    you: Endpoint | None = None  # whom 你 means (chinese_subjects.py)
    unnamed: bool = False  # the last clause was about someone unnamed (我老公在X，…)


def sources(
    text: str,
    start: int,
    hit: Hit,
    mentions: list[EntityMention],
    subjects: Subjects,
) -> list[Endpoint]:
    """The hit's subject: its own (SITED), a person named before it, 我, or the last."""
    if hit.source is not None:
        return [mention_endpoint(hit.source)]
    people = [
        m
        for m in mentions
        if m.voted_label is EntityLabel.PERSON
        and start <= m.start
        and m.end <= hit.opens
        and m is not hit.target
    ]
    if people:
        subjects.last = [mention_endpoint(people[-1], EntityLabel.PERSON)]
        return subjects.last
    if hit.frame.row.shape is Shape.VERDICT:  # X真香: the speaker's judgement
        return [subjects.me] if subjects.me is not None else []
    said = _without(text, start, hit.opens, hit.target, hit.frame.row.shape)
    if _THIRD_PERSON.fullmatch(_strip_filler(said)):
        unnamed = _someone_unnamed(text[:start])  # 我女朋友在深圳，她是X的设计师
        return _the_one_named(mentions, start, subjects, unnamed)  # 何帆也在，他在X管门店
    if is_you(said) and subjects.you is not None:
        subjects.last = [subjects.you]  # 你去年不是来过X嘛: the one addressed
        return subjects.last
    named = kin_named_before(_strip_filler(said), subjects)
    if named is not None:
        subjects.last = [named]  # 我表哥在X (我表哥刘洋… said before): 刘洋
        return subjects.last
    if _OTHERS.search(said) or _names_a_noun(said):
        return []  # 你们在…, 我表哥在…, 公司在…: someone the clause does not name
    if "我" in said and subjects.me is not None:
        subjects.last = [subjects.me]
        return subjects.last
    if subjects.last:
        return subjects.last
    if subjects.unnamed:
        return []
    named_before = any(m.voted_label is EntityLabel.PERSON for m in mentions if m.end <= start)
    if subjects.me is None or named_before or _OTHERS.search(text, 0, start):
        return []
    return [subjects.me]


def kin_named_before(phrase: str, subjects: Subjects) -> Endpoint | None:
    """The person a bare kin or friend noun (我表哥, 你闺蜜) stands for, when the batch named
    them with it before (chinese_kin.kin_subject)."""
    me = subjects.me.name if subjects.me else None
    name = kin_subject(phrase, me, subjects.conversation)
    return Endpoint(name, EntityLabel.PERSON) if name else None


def past_de_phrase(text: str, end: int) -> int:
    """Past 的 and the noun it makes the target's (X的在职研, X的房子), when a subject follows
    it; else ``end``. What the topic names is then a part of the target: a course of a school,
    a shop of a firm."""
    phrase = _DE_PHRASE.match(text, end)
    return phrase.end() if phrase else end


def _without(text: str, start: int, end: int, target: EntityMention, shape: Shape) -> str:
    """The text from ``start`` to ``end`` without the target (西工区我住了: 我), and without
    the 的-phrase of a topic target (X的夜校我读了: 我)."""
    if start <= target.start and target.end <= end:
        after = past_de_phrase(text, target.end) if shape is Shape.TOPIC else target.end
        return text[start : target.start] + text[after:end]
    return text[start:end]


def _strip_filler(said: str) -> str:
    """The words before a trigger without adverbs, time words, connectives and punctuation
    (，然后他也一直 → 他)."""
    kept = (
        w
        for w, tag in jieba.posseg.cut(said, HMM=False)
        if not tag.startswith(("d", "t", "x", "c"))
    )
    return "".join(kept)


def _someone_unnamed(before: str) -> bool:
    """Whether the fact speaks of a kin, a friend or a peer before the pronoun (我女朋友): 他/
    她 may be them, whom an earlier message's name is not."""
    return kin_prefix().search(before) is not None


def _the_one_named(
    mentions: list[EntityMention], start: int, subjects: Subjects, unnamed: bool = False
) -> list[Endpoint]:
    """他/她: the one person named before in the fact (or the last clause's subject, if it
    is not the speaker); two or none give nothing."""
    named = {m.text: m for m in mentions if m.voted_label is EntityLabel.PERSON and m.end <= start}
    if subjects.me is not None:
        named.pop(subjects.me.name, None)
    if len(named) == 1:
        return [mention_endpoint(next(iter(named.values())), EntityLabel.PERSON)]
    last = [p for p in subjects.last if p != subjects.me]
    if named or len(last) > 1:
        return []
    if last:
        return last
    return [] if unnamed else _named_earlier(subjects)


def _named_earlier(subjects: Subjects) -> list[Endpoint]:
    """他/她 of a fact that names nobody: the one person the message's earlier sentences, or
    else the last messages, named, who is neither the speaker nor the one answered."""
    conversation = subjects.conversation
    if conversation is None:
        return []
    exclude = [p.name for p in (subjects.me,) if p is not None]
    exclude += [conversation.answers] if conversation.answers else []
    name = conversation.last_named(exclude)
    return [Endpoint(name, EntityLabel.PERSON)] if name else []


def _names_a_noun(said: str) -> bool:
    """Whether the words before the trigger hold a noun other than a time word (我表哥, 公司):
    the subject is someone or something else."""
    rest = _COMPANION.sub("", _HOUSEHOLD.sub("", said)).replace("我们", "").replace("我", "")
    return any(tag.startswith(NOUN_TAGS) for _, tag in jieba.posseg.cut(rest, HMM=False))

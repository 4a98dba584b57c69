"""Subjects a Chinese clause gives by pronoun or leaves out, and rhetorical questions.

你/您 is the person the message addresses (``Conversation.you``: a vocative, or the other one
of two speakers). 你不是来过X嘛 asks nothing and denies nothing: 不是 … 吗/嘛 is a rhetorical
question that says the clause is so.
"""

from __future__ import annotations

import re

import jieba.posseg

from service.nlp.entities.mentions import EntityLabel
from service.nlp.relations.table import Endpoint

# 不是 … 吗/嘛 at the end of the clause, not the 不是 of 是不是 (a real question).
_RHETORICAL = re.compile(
    r"(?<!是)不是(?=[^，,。！？!?；;]*[吗嘛][啊呀哈]*(?:[，,。！？!?～~…\s]|$))"
)
_NOT_SO = re.compile(r"(?<!是)不是")
# 还在/还住在 … 吗 at the end of the clause: "still?", not 还是 "or" (X还是Y?).
_STILL = re.compile(
    r"还(?:在|住在|待在|是在)(?=[^，,。！？!?；;]*吗[啊呀]*(?:[，,。！？!?～~…\s]|$))"
)
# 你在X干了多久了？你为啥搬到X？: they ask how long or why of what they take as so.
_HOW_LONG_OR_WHY = re.compile(r"多久|多长时间|几年了|为什么|为啥")
YOU = frozenset({"你", "您"})
# Words around a subject that name no one: adverbs, time words, connectives, punctuation.
_NO_ONE = ("d", "t", "f", "x", "c", "u")
_ASKING = frozenset({"为什么", "为啥", "怎么", "咋", "干嘛"})  # 你为啥搬到X: 你 is the subject

__all__ = ["YOU", "is_you", "rhetorical", "without_rhetorical", "you_endpoint"]


def rhetorical(clause: str) -> bool:
    """Whether the clause asks only what it takes as so: a rhetorical 不是…吗/嘛 (你不是在X上班
    吗), 还…吗 (你还在X上班吗 asks whether it goes on, not whether it was), or how long or why
    (你在X干了多久了)."""
    return any(p.search(clause) is not None for p in (_RHETORICAL, _STILL, _HOW_LONG_OR_WHY))


def without_rhetorical(text: str) -> str:
    """Part of a rhetorical clause without its 不是, so that it reads as no denial."""
    return _NOT_SO.sub("", text)


def is_you(said: str) -> bool:
    """Whether the words before a trigger name 你/您 alone, with adverbs and time words (你去年
    冬天不是…): the addressee is the subject."""
    words = jieba.posseg.cut(without_rhetorical(said), HMM=False)
    kept = [w for w, tag in words if not tag.startswith(_NO_ONE) and w not in _ASKING]
    return len(kept) == 1 and kept[0] in YOU


def you_endpoint(you: str | None) -> Endpoint | None:
    """The addressee as a subject, when the message has one."""
    return Endpoint(you, EntityLabel.PERSON) if you else None

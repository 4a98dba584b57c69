"""A question for a name, answered by the name: the question said again with the name in it.

"Which app do you use for running?" / "Strava, mostly for the segments." — the answer is a
name and little else; the question holds the verb. The pipeline reads the question again as a
statement with the answer's name where the question word was ("you use Strava for running"),
as it reads a question said yes to (confirmed.py), and keeps the relations that name the
answer. Chinese puts the name where the question word and its noun were: 高飞用的是什么相机？/
索尼A7M4。→ 高飞用的是索尼A7M4。

Only a name that opens the answer and stands alone counts ("Strava.", "An old Civic, it
refuses to die.", "At Deloitte"): an answer that goes on with a verb of its own ("Deloitte is
hiring") says something else, and the relation readers already read it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import jieba.posseg

from service.nlp.entities.patterns import EntityMention
from service.nlp.relations.confirmed import questions, subject_end

FILLED = "answered"  # the extractor's prefix
FILLED_WEIGHT = 0.9  # an answer's name in the asker's words: a little less than saying it

_AUX = r"do|does|did|are|is|was|were|have|has"
# what / which [kind of] [noun] + auxiliary + the rest ("What kind of car do you drive?")
_EN_ASKED = re.compile(
    r"^\W*(?:(?:so|and|oh|hey|ok|okay|wait)\W+)?(?:[A-Z][\w'’-]+,\s+)?"
    r"(?P<wh>what|which|who|whom|where)(?:\s+(?:kind|sort|type|brand)\s+of)?"
    rf"(?:\s+(?P<noun>[a-z]+))??\s+(?P<aux>{_AUX})\s+(?P<rest>[^?]+?)\s*\?+\s*$",
    re.I,
)
_EN_CONTRACTED = re.compile(r"\b(what|which|who|where)['’]s\b", re.I)
# Words between a subject and its verb ("you still use", "you usually go to").
_EN_ADVERBS = frozenset({
    "still", "usually", "mostly", "really", "even", "ever", "currently", "normally", "actually",
    "now", "all", "just", "always", "mainly", "generally",
})  # fmt: skip
_COPULAS = frozenset({"is", "are", "was", "were"})
_VERB_FORM = re.compile(r"(?:ing|ed)$", re.I)
_EN_PREPOSITIONS = frozenset(["to", "for", "with", "at", "in", "on", "from", "into", "about"])
# Words a stranded preposition may stand before: "Who do you work for now?"
_EN_LOOSE = frozenset(["now", "these", "lately", "today", "nowadays", "again", "anymore", "then"])
_EN_MOTION = re.compile(r"\b(?:mov|go|went|head|relocat|end(?:ed)? up|settl)", re.I)
# Before the name that answers: a filler, an adverb, "it's", a preposition, an article and
# one word ("Um, mostly Strava", "It's an old Civic", "At Deloitte").
_EN_OPENER = re.compile(
    r"^\W*(?:(?:um|uh|oh|well|hmm|mostly|probably|usually|just|still|currently|honestly|"
    r"always|definitely)\W+)*"
    r"(?:(?:it's|it’s|its|that's|that’s|i'd say|i’d say)\s+)?"
    r"(?P<prep>(?:in|at|to|on|with|for|near|over in|out in)\s+)?"
    r"(?:(?:a|an|the|my|our|this|that)\s+(?:[a-z]+\s+)?)?",
    re.I,
)
# After the name: the answer stops, or goes on with something other than a verb of its own.
_EN_ALONE = re.compile(
    r"^(?:\s*$|\s*[,.!;:)—–-]|\s+(?:for|now|mostly|probably|though|lately|these|this|at|in|"
    r"on|since|and|i think|honestly|usually)\b)",
    re.I,
)
_ZH_WH = frozenset({
    "什么", "啥", "哪个", "哪家", "哪款", "哪所", "哪种", "哪一家", "哪一个", "哪部", "哪辆",
    "哪台", "哪只", "哪位", "哪首", "哪本",
})  # fmt: skip
_ZH_CLOSING = re.compile(r"(?:呀|啊|呢|吗|嘛|来着|啦|哇)*[？?]+$")
_ZH_OPENER = re.compile(
    r"^\W*(?:(?:嗯|哦|噢|就|是|还是|主要|一般|基本|都|用的?|我们?用的?是?)\W*){0,3}"
)
_ZH_ALONE = re.compile(r"^(?:\s*$|[，,。！!～~…、）)]|吧|啊|呀|呗|啦|的)")


@dataclass(frozen=True)
class Filled:
    """The question said again with the name that answers it, and that name."""

    statement: str
    name: str


def filled(
    question: str, answer: str, mentions: tuple[EntityMention, ...], lang: str
) -> Filled | None:
    """The statement ``answer`` makes of the last question of ``question``, when it answers
    with a name alone (``mentions`` are the answer's, with offsets into ``answer``)."""
    if lang == "en":
        spoken = _EN_CONTRACTED.sub(r"\1 is", question)  # "What's your go-to app?"
        asked = [m for q in questions(spoken, lang) if (m := _EN_ASKED.match(q))]
        opened = _EN_OPENER.match(answer)
        name = _alone(answer, mentions, opened.end() if opened else 0, _EN_ALONE)
        if not asked or name is None:
            return None
        statement = _english(asked[-1], name, opened.group("prep") if opened else None)
    else:
        asked_zh = questions(question, lang)
        opened = _ZH_OPENER.match(answer)
        name = _alone(answer, mentions, opened.end() if opened else 0, _ZH_ALONE)
        if not asked_zh or name is None:
            return None
        statement = _chinese(asked_zh[-1], name)
    return Filled(statement, name) if statement else None


def _alone(
    answer: str, mentions: tuple[EntityMention, ...], at: int, after: re.Pattern[str]
) -> str | None:
    """The name of the mention that starts at ``at`` and that nothing but a stop or a loose
    word follows."""
    opening = next((m for m in mentions if m.start == at), None)
    if opening is None or not after.match(answer[opening.end :]):
        return None
    return opening.text


def _english(asked: re.Match[str], name: str, preposition: str | None) -> str | None:
    """ "Which app do you use for running?" + Strava → "you do use Strava for running."."""
    words = asked.group("rest").split()
    end = subject_end(words)
    if end == 0:
        return None
    subject, rest = words[:end], words[end:]
    aux = asked.group("aux").lower()
    if asked.group("wh").lower() == "where":
        said = (preposition or "").split()[-1:]  # "Out in Sarasota": in
        prep = said[0].lower() if said else "to" if _EN_MOTION.search(" ".join(rest)) else "in"
        return " ".join([*subject, aux, *rest, prep, name]) + "."
    stranded = next(
        (
            i + 1
            for i, w in enumerate(rest)
            if w.lower() in _EN_PREPOSITIONS
            and (i + 1 == len(rest) or rest[i + 1].lower() in _EN_LOOSE)
        ),
        None,
    )
    if stranded is not None:  # "Which gym do you go to?", "Who do you work for now?"
        return " ".join([*subject, aux, *rest[:stranded], name, *rest[stranded:]]) + "."
    if aux in _COPULAS and not any(_VERB_FORM.search(w) for w in rest):
        return " ".join([*words, aux, name]) + "."  # "What's your go-to app?" → … is Strava
    verb = next((i for i, w in enumerate(rest) if w.lower() not in _EN_ADVERBS), None)
    if verb is None:
        return None
    at = verb + 1
    if at < len(rest) and rest[at].lower() in {"up", "out", "on", "off", "over"}:
        at += 1  # a particle stays with its verb ("pick up X")
    return " ".join([*subject, aux, *rest[:at], name, *rest[at:]]) + "."


def _chinese(question: str, name: str) -> str | None:
    """高飞用的是什么相机？+ 索尼A7M4 → 高飞用的是索尼A7M4。: the question word and the noun
    after it give way to the name."""
    words = [(w, t) for w, t in jieba.posseg.cut(_ZH_CLOSING.sub("", question), HMM=False)]
    at = next((i for i, (w, _) in enumerate(words) if w in _ZH_WH), None)
    if at is None:
        return None
    end = at + 1
    if end < len(words) and words[end][1].startswith("q"):  # 哪 + classifier
        end += 1
    if end < len(words) and words[end][1].startswith("n"):
        end += 1
    before = "".join(w for w, _ in words[:at])
    after = "".join(w for w, _ in words[end:])
    return f"{before}{name}{after}。" if before or after else None

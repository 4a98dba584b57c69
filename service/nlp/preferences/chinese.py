"""Chinese preference signals, from the forms of the language: 不再, 不…了, 戒了, 改喝 / 改成 /
换成, 从X换到Y, 不喜欢X了, 以前…现在 (changes of mind), and things done (去攀岩了, 喝了杯咖啡).

Chinese drops its subjects, so a clause is the speaker's unless someone else stands before the
form (他, 我妈, 朋友 …); a wished or planned change (想戒, 打算改喝) is none yet.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from service.nlp.preferences.lexicon import Item, ItemSpan, lexicon, with_names, within
from service.nlp.preferences.reading import Change, PreferenceReading

_CLAUSE_END = re.compile(r"[，,。！!？?；;、]")
_OTHERS = re.compile(
    r"他|她|它|你|[我老]?[妈爸姐妹哥弟]|妈妈|爸爸|爷爷|奶奶|朋友|同事|老公|老婆|儿子|女儿|孩子|"
    r"室友|同学|老板|大家|别人"
)
# Verbs of doing before an item (去攀岩, 喝了杯咖啡, 打了场球), at most a few characters away.
_DOING = "去|喝|吃|打|玩|弹|练|上|跑|游|爬|做|踢|骑|滑|抽|拍|画|下|听|参加|报了"
# Whom the speaker did it with is no subject: 和朋友去爬山.
_COMPANIONS = re.compile(rf"(?:和|跟|与|陪|同)[\u4e00-\u9fff]{{1,4}}?(?=一起|在|{_DOING}|$)")
_WISHED = re.compile(r"想|要|打算|准备|计划|应该|希望|如果|要是|得|可能|会不会|能不能|劝")
_NEGATION = re.compile(r"不|没|别|未")
_LIKING = re.compile(r"喜欢|爱|讨厌|迷上|热爱|着迷|爱上")
_DONE_NEAR = re.compile(rf"(?:{_DOING})[了过完个杯场次趟节局盘顿碗罐瓶口两三几一\d]{{0,3}}$")
_DONE = re.compile(r"了|过|又|每天|每周|天天|经常|常常|周末|今天|昨天|刚")
_ACTIVITY_KINDS = frozenset({"sport", "craft", "music", "game"})

_STOP = re.compile(r"不再|再也不|没再|已经不|早就不|早不")
_NOT_ANY_MORE = re.compile(
    r"(?<![也都还])不(?!再|是|会|能|过|错|好|一样|同)(?P<x>[^，,。！？；]{1,10}?)了"
)
_GAVE_UP = re.compile(r"戒(?:掉|了)+|戒掉")
_SWITCH_TO = re.compile(r"(?:改|换|转)(?:喝|吃|成|用|玩|练|打|去|听|看|为|到)了?")
_SWITCH_FROM = re.compile(
    r"从(?P<x>[^，,。！？；]{1,10}?)(?:换|改|转)(?:到|成|为|去)了?(?P<y>[^，,。！？；]{1,10})"
)
_BEFORE_NOW = re.compile(
    r"(?:以前|之前|过去|原来|曾经)(?P<x>[^。！？；]*?)(?:现在|如今|目前|这几年|后来)(?P<y>[^。！？；]*)"
)


def read_chinese(
    text: str, question: bool, future: bool, names: Sequence[ItemSpan] = ()
) -> PreferenceReading:
    """The preference signals of one Chinese fact; ``names`` are its mentions, which a change
    may retire too (不再用微信)."""
    if question or text.rstrip().endswith(("吗", "吗。", "呢？")):
        return PreferenceReading()
    change = find_change(text, names)
    if change is not None:
        return PreferenceReading(change)
    liked, disliked = things_liked(text)
    return PreferenceReading(None, () if future else things_done(text), liked, disliked)


def find_change(text: str, names: Sequence[ItemSpan] = ()) -> Change | None:
    """The change of mind a fact states, if any."""
    items = with_names(lexicon("zh").find(text), names)

    def at(a: int, b: int) -> list[ItemSpan]:
        return within(items, a, b)

    both = _SWITCH_FROM.search(text)
    if both and _speaker_says(text, both.start()):
        return _change("zh_switch_from", at(*both.span("x")), at(*both.span("y")), items, text)
    then = _BEFORE_NOW.search(text)
    if then and _said_then(then.group("x")) and _speaker_says(text, then.start()):
        new = [] if _NEGATION.search(then.group("y")) else at(*then.span("y"))
        old = [s for s in at(*then.span("x")) if s.item not in {n.item for n in new}]
        if old:
            return _change("zh_before_now", old, new, items, text)
    retired, adopted, rule = _retirements(text, items)
    for switch in _SWITCH_TO.finditer(text):
        if _speaker_says(text, switch.start()):
            adopted += at(switch.end(), _clause_end(text, switch.end()))
            rule = rule or "zh_switch_to"
    return _change(rule, retired, adopted, items, text) if rule else None


def _retirements(text: str, items: list[ItemSpan]) -> tuple[list[ItemSpan], list[ItemSpan], str]:
    """What 不再, 不…了 and 戒了 retire (and the rule that said it first)."""
    retired: list[ItemSpan] = []
    rule = ""

    def at(a: int, b: int) -> list[ItemSpan]:
        return within(items, a, b)

    for marker in _STOP.finditer(text):
        if _speaker_says(text, marker.start()):
            retired += at(marker.end(), _clause_end(text, marker.end()))
            rule = rule or "zh_no_longer"
    for marker in _NOT_ANY_MORE.finditer(text):
        if _speaker_says(text, marker.start()):
            retired += at(*marker.span("x"))
            rule = rule or "zh_not_any_more"
    for marker in _GAVE_UP.finditer(text):
        if _speaker_says(text, marker.start()):
            start = _clause_start(text, marker.start())
            retired += at(start, _clause_end(text, marker.end()))
            rule = rule or "zh_gave_up"
    return retired, [], rule


def _said_then(clause: str) -> bool:
    """以前 opens a liking or a habit (以前很喜欢喝咖啡), not just any past (以前住在上海)."""
    return _LIKING.search(clause) is not None or re.search(_DOING, clause) is not None


def _change(
    rule: str, retired: list[ItemSpan], adopted: list[ItemSpan], items: list[ItemSpan], text: str
) -> Change | None:
    old = tuple(dict.fromkeys(s.item for s in retired))
    kinds = {i.kind for i in old if i.kind}
    # Another thing of a retired thing's kind, said without a denial, replaces it (只喝茶了).
    alike = [
        s
        for s in items
        if s.item.kind in kinds
        and not _NEGATION.search(text[_clause_start(text, s.start) : s.start])
    ]
    new = tuple(dict.fromkeys(s.item for s in [*adopted, *alike] if s.item not in old))
    if not old and not new:
        return None
    return Change(rule, old, new)


def _speaker_says(text: str, at: int) -> bool:
    """Nobody else stands before ``at`` in its clause, and nothing wished or denied."""
    before = _COMPANIONS.sub("", text[_clause_start(text, at) : at]).replace("我们", "我")
    # The subject nearest the form is the one that counts: 有了孩子以后我不再…
    before = before[before.rfind("我") :] if "我" in before else before
    if _OTHERS.search(before):
        return False
    return _WISHED.search(before) is None


def _clause_start(text: str, at: int) -> int:
    return max((m.end() for m in _CLAUSE_END.finditer(text, 0, at)), default=0)


def _clause_end(text: str, at: int) -> int:
    found = _CLAUSE_END.search(text, at)
    return found.start() if found else len(text)


def things_done(text: str) -> tuple[Item, ...]:
    """Items the speaker did: 去攀岩了, 喝了杯咖啡, 今天跑步了, 周末又去游泳."""
    found: list[Item] = []
    for span in lexicon("zh").find(text):
        start = _clause_start(text, span.start)
        before = text[start : span.start]
        clause = text[start : _clause_end(text, span.end)]
        if (
            _NEGATION.search(before)
            or _LIKING.search(before)
            or not _speaker_says(text, span.start)
        ):
            continue
        near = _DONE_NEAR.search(before) is not None
        habitual = span.item.kind in _ACTIVITY_KINDS and _DONE.search(clause) is not None
        if near or habitual:
            found.append(span.item)
    return tuple(dict.fromkeys(found))


_LIKED_NEAR = re.compile(
    rf"(?P<no>不|没有?)?(?:{_LIKING.pattern})(?:{_DOING})?[^，,。！？；]{{0,2}}$"
)
_DISLIKED_NEAR = re.compile(rf"(?:讨厌|受不了|烦)(?:{_DOING})?[^，,。！？；]{{0,2}}$")


def things_liked(text: str) -> tuple[tuple[Item, ...], tuple[Item, ...]]:
    """Items the speaker says they like (很喜欢喝咖啡, 爱弹吉他) and dislike (讨厌跑步,
    不喜欢吃辣)."""
    liked: list[Item] = []
    disliked: list[Item] = []
    for span in lexicon("zh").find(text):
        before = text[_clause_start(text, span.start) : span.start]
        if not _speaker_says(text, span.start) or _WISHED.search(before):
            continue
        near = _LIKED_NEAR.search(before)
        if near is not None and not near.group("no"):
            liked.append(span.item)
        elif near is not None or _DISLIKED_NEAR.search(before):
            disliked.append(span.item)
    return tuple(dict.fromkeys(liked)), tuple(dict.fromkeys(disliked))

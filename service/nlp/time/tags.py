"""Find the time expressions of a text, or resolve a whole phrase, in English or Chinese."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from functools import cache

from service.nlp.time.calendar import RuleSet, TimeRange, TimeTag
from service.nlp.time.chinese import ZH_RULES
from service.nlp.time.english import EN_RULES, load_dateparser
from service.nlp.time.english_phrases import EN_PHRASE_RULES


@cache
def _rules_for(lang: str) -> RuleSet:
    if lang.lower().startswith("zh"):
        return ZH_RULES
    return EN_RULES.extended(EN_PHRASE_RULES)


def find_time_tags(text: str, reference: datetime, lang: str = "en") -> list[TimeTag]:
    """Every time expression in ``text`` (lang "en" or "zh"), resolved against ``reference``.

    Tags never overlap: where matches collide the longest wins, then the earliest.
    """
    if reference.tzinfo is None:
        raise ValueError("reference must be timezone-aware")
    rules = _rules_for(lang)
    lowered = text.lower()
    if not rules.trigger.search(lowered):
        return []
    found: list[tuple[int, int, int, TimeRange]] = []
    for order, rule in enumerate(rules.rules):
        if rule.gate is not None and not rule.gate.search(lowered):
            continue
        for m in rule.pattern.finditer(text):
            try:
                resolved = rule.resolve(m, reference)
            except (ValueError, OverflowError):  # "in 999 decades": off the calendar
                continue
            if resolved is not None:
                found.append((m.start(), m.end(), order, resolved))
    found.sort(key=lambda f: (f[0] - f[1], f[0], f[2]))
    kept: list[tuple[int, int, int, TimeRange]] = []
    for candidate in found:
        if all(candidate[1] <= k[0] or candidate[0] >= k[1] for k in kept):
            kept.append(candidate)
    return [TimeTag(text[s:e], s, e, r) for s, e, _, r in sorted(kept, key=lambda k: k[0])]


_CJK = re.compile(r"[\u3400-\u9fff]")
# Words that may surround a whole time phrase without changing what it means.
_FILLER = frozenset(
    {
        "in",
        "on",
        "during",
        "around",
        "about",
        "at",
        "the",
        "在",
        "于",
        "期间",
        "的时候",
        "时候",
        "那天",
        "当天",
    }
)
_FILLER_SPLIT = re.compile(r"[\s\W]+")


def resolve_phrase(phrase: str, reference: datetime, lang: str | None = None) -> TimeRange | None:
    """The range a whole phrase ("last month", "上个月", "in March 2023") means, else None.

    ``lang`` None detects the language: any CJK character means Chinese. Month names need no
    capital here, since the caller already says the phrase is about time.
    """
    lang = lang or ("zh" if _CJK.search(phrase) else "en")
    for text in (phrase, phrase.title()) if not lang.startswith("zh") else (phrase,):
        tags = find_time_tags(text, reference, lang)
        if len(tags) == 1:
            rest = text[: tags[0].start_char] + " " + text[tags[0].end_char :]
            if all(word.lower() in _FILLER for word in _FILLER_SPLIT.split(rest) if word):
                return tags[0].range
    return None


def warm_up() -> None:
    """Load dateparser's data now: its first parse in a process is slow, and would otherwise
    fall on the first message or question holding a date. Build both
    languages' rule tables too (imports, regex compiles, the holiday list)."""
    load_dateparser()
    _rules_for("en")
    _rules_for("zh")


_ANY_DAY = datetime(2026, 1, 1, tzinfo=UTC)  # where a tag is does not depend on the day


def leading_time(text: str, lang: str) -> int:
    """How many characters of a time expression open ``text`` (十月二号我们: 4; none: 0)."""
    tags = find_time_tags(text, _ANY_DAY, lang)
    return next((t.end_char for t in tags if t.start_char == 0), 0)

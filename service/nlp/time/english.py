"""English time expressions: the core rules (relative units, weekdays, months, seasons,
years, explicit dates through dateparser). Phrases beyond these are in english_phrases."""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable
from datetime import date, datetime, timedelta

import dateparser

from service.nlp.time.calendar import (
    _G,
    ISO_DATE_RULE,
    MONTHS,
    SEASON_MONTH,
    SEASONS,
    WEEKDAYS,
    Resolver,
    Rule,
    RuleSet,
    TimeRange,
    cycle_range,
    decade_range,
    period,
    recent_range,
    relative_period,
    season_of_year,
    span,
    weekend_range,
)

# --- English ----------------------------------------------------------------------------------

RELATION_WORDS = {"last": -1, "previous": -1, "this": 0, "current": 0, "next": 1, "coming": 1}
UNIT_WORDS = {
    "day": _G.DAY,
    "week": _G.WEEK,
    "month": _G.MONTH,
    "year": _G.YEAR,
    "decade": _G.DECADE,
}
NUMBER_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "a couple of": 2,
    "a couple": 2,
    "couple of": 2,
    "couple": 2,
    "a few": 3,
    "few": 3,
}
_FIXED = {
    "today": (_G.DAY, 0),
    "tonight": (_G.DAY, 0),
    "earlier today": (_G.DAY, 0),
    "this morning": (_G.DAY, 0),
    "this afternoon": (_G.DAY, 0),
    "this evening": (_G.DAY, 0),
    "yesterday": (_G.DAY, -1),
    "last night": (_G.DAY, -1),
    "tomorrow": (_G.DAY, 1),
    "the day before yesterday": (_G.DAY, -2),
    "the day after tomorrow": (_G.DAY, 2),
}
WEEKDAY_NUMBERS = {name.lower(): i for i, name in enumerate(calendar.day_name)}
_MONTH = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTH_ABBR = {
    "jan": 1,
    "feb": 2,
    "mar": 3,
    "apr": 4,
    "jun": 6,
    "jul": 7,
    "aug": 8,
    "sep": 9,
    "sept": 9,
    "oct": 10,
    "nov": 11,
    "dec": 12,
}
MONTH_NUMBERS = {**_MONTH, **_MONTH_ABBR}
# Bare years are still years before these words ("2019 was", "2019 and 2020").
_YEAR_FOLLOWERS = frozenset(
    {
        "was",
        "is",
        "were",
        "will",
        "would",
        "had",
        "has",
        "and",
        "or",
        "to",
        "through",
        "until",
        "when",
        "where",
        "before",
        "after",
    }
)
_DATEPARSER_SETTINGS = {
    "PREFER_DATES_FROM": "past",
    "RETURN_AS_TIMEZONE_AWARE": True,
    "PARSERS": ["absolute-time"],
}


def alternation(words: Iterable[str]) -> str:
    """Longest first, so that "sept" is not cut to "sep" and "a couple of" to "a"."""
    longest_first = sorted(words, key=len, reverse=True)
    return "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in longest_first)


NUM = rf"(?P<n>\d{{1,3}}|{alternation(NUMBER_WORDS)})"
_UNITS = rf"(?P<unit>{alternation(UNIT_WORDS)})s?"
_REL = r"(?P<rel>last|previous|this|current|next|coming)"
_SEASON = rf"(?P<season>{alternation(SEASON_MONTH)})"
_YEAR = r"(?P<year>(?:19|20)\d{2})"
_MONTH_CAP = rf"(?P<month>(?-i:{alternation(n.title() for n in _MONTH)}))"
_MONTH_ANY = rf"(?P<month>{alternation(list(_MONTH) + list(_MONTH_ABBR))})\.?"
_DAY = r"(?P<day>\d{1,2})(?P<ord>st|nd|rd|th)?"


def count(m: re.Match[str]) -> int:
    word = " ".join(m["n"].lower().split())
    return int(word) if word.isdigit() else NUMBER_WORDS[word]


def _relation(m: re.Match[str]) -> int | None:
    rel = (m.groupdict().get("rel") or "").lower()
    return RELATION_WORDS.get(rel)


def _fixed(m: re.Match[str], ref: datetime) -> TimeRange:
    unit, n = _FIXED[" ".join(m[0].lower().split())]
    return relative_period(ref, unit, n)


def _relative_unit(m: re.Match[str], ref: datetime) -> TimeRange:
    return relative_period(ref, UNIT_WORDS[m["unit"].lower()], _relation(m) or 0)


def _counted(m: re.Match[str], ref: datetime) -> TimeRange:
    sign = -1 if m["dir"].lower() == "ago" else 1
    return relative_period(ref, UNIT_WORDS[m["unit"].lower()], sign * count(m))


def _week_around(m: re.Match[str], ref: datetime) -> TimeRange:
    return relative_period(ref, _G.WEEK, -1 if m["dir"].lower() == "before" else 1)


def _earlier_this(m: re.Match[str], ref: datetime) -> TimeRange:
    start = period(ref.date(), UNIT_WORDS[m["unit"].lower()], ref).start.date()
    return span(start, ref.date() + timedelta(days=1), _G.DAY, ref)


def _weekend(m: re.Match[str], ref: datetime) -> TimeRange:
    relation = _relation(m)
    if relation is None:  # "over the weekend": the latest one that has begun
        relation = 0 if ref.weekday() >= 5 else -1
    return weekend_range(ref, relation)


def _weekday(m: re.Match[str], ref: datetime) -> TimeRange:
    return cycle_range(ref, WEEKDAYS, WEEKDAY_NUMBERS[m["wd"].lower()], _relation(m))


def _season(m: re.Match[str], ref: datetime) -> TimeRange:
    season = m["season"].lower()
    if m.groupdict().get("year"):
        return season_of_year(int(m["year"]), season, ref)
    return cycle_range(ref, SEASONS, SEASON_MONTH[season] % 12 // 3, _relation(m))


def _month(m: re.Match[str], ref: datetime) -> TimeRange:
    name = m["month"].lower()
    month = MONTH_NUMBERS[name]
    if m.groupdict().get("year"):
        return period(date(int(m["year"]), month, 1), _G.MONTH, ref)
    return cycle_range(ref, MONTHS, month - 1, _relation(m))


def _day_of_month(m: re.Match[str], ref: datetime) -> TimeRange | None:
    if m["month"].islower() and not (m["year"] or m["ord"]):
        return None  # "they march 10 miles"
    text = " ".join(part for part in (m["day"], m["month"], m["year"]) if part)
    settings = {**_DATEPARSER_SETTINGS, "RELATIVE_BASE": ref}
    parsed = dateparser.parse(text, languages=["en"], settings=settings)
    return None if parsed is None else period(parsed.date(), _G.DAY, ref)


_NEXT_WORD = re.compile(r"\s+([a-z]+)\b")


def _year(m: re.Match[str], ref: datetime) -> TimeRange:
    return period(date(int(m["year"]), 1, 1), _G.YEAR, ref)


def _bare_year(m: re.Match[str], ref: datetime) -> TimeRange | None:
    after = _NEXT_WORD.match(m.string, m.end())
    if after and after[1] not in _YEAR_FOLLOWERS:
        return None  # "2000 dollars"
    return _year(m, ref)


def _decade(m: re.Match[str], ref: datetime) -> TimeRange:
    return decade_range(int(m["decade"]), int(m["century"]) if m["century"] else None, ref)


def _en(pattern: str, resolve: Resolver) -> Rule:
    return Rule(re.compile(pattern, re.IGNORECASE), resolve)


EN_RULES = RuleSet(
    # Every rule needs one of these; most messages have none and cost one scan.
    trigger=re.compile(
        r"\d{4}|\d0'?s|day|tomorrow|week|month|year|ago|night|morning|afternoon|evening|"
        r"jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|spring|summer|autumn|fall|winter|"
        r"recent|lately|decade"
    ),
    rules=(
        _en(rf"\b(?:{alternation(_FIXED)})\b", _fixed),
        _en(rf"\b{_REL}\s+(?P<unit>week|month|year|decade)\b", _relative_unit),
        _en(rf"\b{NUM}\s+{_UNITS}\s+(?P<dir>ago)\b", _counted),
        _en(rf"\b(?P<dir>in)\s+{NUM}\s+{_UNITS}\b", _counted),
        _en(r"\bthe\s+week\s+(?P<dir>before|after)(?=\s*(?:[.,;:!?)]|$))", _week_around),
        _en(r"\bearlier\s+this\s+(?P<unit>week|month|year)\b", _earlier_this),
        _en(r"\b(?:recently|lately)\b", lambda m, ref: recent_range(ref)),
        _en(r"\b(?P<rel>last|this|next)\s+weekend\b", _weekend),
        _en(r"\b(?:over|on|at|during)\s+the\s+weekend\b", _weekend),
        _en(
            rf"\b(?:(?P<rel>last|next|this|on)\s+)?(?P<wd>{alternation(WEEKDAY_NUMBERS)})\b",
            _weekday,
        ),
        _en(rf"\b(?P<rel>last|this|next)\s+{_SEASON}\b", _season),
        _en(rf"\b(?:in|during)\s+(?:the\s+)?{_SEASON}\b", _season),
        _en(rf"\b(?:(?:in|during)\s+)?(?:the\s+)?{_SEASON}\s+(?:of\s+)?{_YEAR}\b", _season),
        _en(rf"\b(?P<rel>last|this|next)\s+{_MONTH_CAP}\b", _month),
        _en(rf"\b(?:(?:in|during)\s+)?{_MONTH_ANY},?\s+(?:of\s+)?{_YEAR}\b", _month),
        _en(rf"\b(?:in|during)\s+{_MONTH_CAP}\b", _month),
        _en(rf"\b{_MONTH_CAP}\b(?!\s+(?:I|we|you|he|she|it|they|be|not)\b)", _month),
        _en(
            rf"\b(?:on\s+)?(?:the\s+)?{_DAY}\s+(?:of\s+)?{_MONTH_ANY}(?:,?\s+{_YEAR})?\b",
            _day_of_month,
        ),
        _en(rf"\b(?:on\s+)?{_MONTH_ANY}\s+{_DAY}\b(?:,?\s+{_YEAR}\b)?", _day_of_month),
        _en(rf"\b(?:in|during)\s+{_YEAR}\b(?![-/.]\d)", _year),
        _en(rf"(?<![\w$€£¥#.,:/-]){_YEAR}(?![\w%:/-]|[.,]\d)", _bare_year),
        _en(r"\b(?:in\s+)?the\s+(?:(?P<century>19|20)|')?(?P<decade>\d)0'?s\b", _decade),
        ISO_DATE_RULE,
    ),
)


def load_dateparser() -> None:
    """Load dateparser's data: its first parse in a process is slow."""
    dateparser.parse("13 October 2023", languages=["en"], settings=_DATEPARSER_SETTINGS)

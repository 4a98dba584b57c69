"""Time expressions in a message, resolved against the message's own timestamp.

Every expression becomes a half-open range ``[start, end)`` in the reference's time zone, tagged
with the calendar unit it is aligned to (its ``Granularity``). The choices callers can rely on:

- Weeks are ISO weeks, Monday to Sunday: "last week" is the previous ISO week on any weekday.
- Seasons are meteorological, northern hemisphere: spring Mar-May, summer Jun-Aug, autumn (fall)
  Sep-Nov, winter Dec-Feb. The winter *of* year Y starts in December of Y ("winter 2023",
  2023年冬天 = 2023-12-01 .. 2024-03-01).
- Weekdays, months and seasons are cycles, and the word before them picks one turn of the cycle:
  "last X" is the most recent X strictly before the current day / month / season ("last winter"
  said on 2024-01-10, inside winter 2023, is winter 2022; "last Friday" said on a Friday is a week
  ago); "next X" is the first X strictly after it; "this X" is the X of the current ISO week,
  calendar year, or meteorological year (Dec-Nov); a bare X ("Friday", "on Friday", "in May",
  "in the winter") is the most recent X not after the current one: the past is preferred, as
  memories are mostly about what happened.
- "N days/weeks/months/years ago" and "in N ..." are the calendar day, week, month or year that
  contains the date shifted by N units, with month ends clamped (2024-03-31 minus a month is
  2024-02-29). So "a year ago" said on 2024-02-29 is the year 2023, not a falsely exact day.
- "recently", "lately" and 最近 are the 30 days ending with the reference day; "earlier this
  week/month/year" runs from the start of that period to the end of the reference day. Both have
  DAY granularity, as their bounds are days rather than whole periods.
- "the week before" / "the week after" are the weeks around the reference week, and only when the
  phrase ends a clause ("the week before the exam" is relative to the exam, so it is not tagged).
- English month names count only when capitalised or followed by a day or year ("you may go" and
  "they march on" are not months); bare 4-digit numbers count as years only in 1900-2099 and not
  before a lowercase noun ("2000 dollars").

Parts of periods ("mid-November"), spans back from now ("the past two weeks"), holidays and
decade words ("the nineties") are English rules of their own in ``temporal_en``, with the bounds
documented in ``periods`` and ``holidays``. Chinese rules live in ``temporal_zh``; explicit
English dates ("8 May, 2023", "May 8th") go through ``dateparser``, pinned to the reference so
it never reads the clock.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from enum import StrEnum
from functools import cache

import dateparser


class Granularity(StrEnum):
    INSTANT = "instant"
    DAY = "day"
    WEEK = "week"
    MONTH = "month"
    SEASON = "season"
    YEAR = "year"
    DECADE = "decade"


@dataclass(frozen=True)
class TimeRange:
    """A half-open interval ``[start, end)`` and the calendar unit it is aligned to."""

    start: datetime
    end: datetime
    granularity: Granularity

    def __post_init__(self) -> None:
        if self.start.tzinfo is None or self.end.tzinfo is None:
            raise ValueError("a TimeRange needs timezone-aware bounds")
        if self.start >= self.end:
            raise ValueError(f"empty TimeRange: {self.start} >= {self.end}")


@dataclass(frozen=True)
class TimeTag:
    """A time expression found in a text: where it is, and the range it resolves to."""

    expression: str
    start_char: int
    end_char: int
    range: TimeRange


Resolver = Callable[[re.Match[str], datetime], TimeRange | None]


@dataclass(frozen=True)
class Rule:
    """A pattern and what one of its matches means; a resolver returns None for a false alarm.

    A costly pattern may have a ``gate``: a lowercase pattern that the lowercased message must
    contain before the rule runs.
    """

    pattern: re.Pattern[str]
    resolve: Resolver
    gate: re.Pattern[str] | None = None


@dataclass(frozen=True)
class RuleSet:
    """The rules of one language, behind a cheap pre-check that most messages fail.

    The trigger is searched in the lowercased message: a lowercase pattern without IGNORECASE
    scans several times faster.
    """

    trigger: re.Pattern[str]
    rules: tuple[Rule, ...]

    def extended(self, more: RuleSet) -> RuleSet:
        """Both rule lists, behind either trigger."""
        either = f"{self.trigger.pattern}|{more.trigger.pattern}"
        return RuleSet(re.compile(either), self.rules + more.rules)


# --- Calendar arithmetic shared by both languages -------------------------------------------

_G = Granularity
_DAYS_PER = {_G.DAY: 1, _G.WEEK: 7}
_MONTHS_PER = {_G.MONTH: 1, _G.SEASON: 3, _G.YEAR: 12, _G.DECADE: 120}
_PERIOD_START: dict[Granularity, Callable[[date], date]] = {
    _G.DAY: lambda d: d,
    _G.WEEK: lambda d: d - timedelta(days=d.weekday()),
    _G.MONTH: lambda d: d.replace(day=1),
    _G.SEASON: lambda d: add_months(d.replace(day=1), -(d.month % 3)),
    _G.YEAR: lambda d: date(d.year, 1, 1),
    _G.DECADE: lambda d: date(d.year - d.year % 10, 1, 1),
}
# The month each season starts in.
SEASON_MONTH = {"winter": 12, "spring": 3, "summer": 6, "autumn": 9, "fall": 9}


def add_months(d: date, months: int) -> date:
    """``d`` moved by whole months, the day clamped to the target month's length."""
    year, month0 = divmod(d.year * 12 + d.month - 1 + months, 12)
    last_day = calendar.monthrange(year, month0 + 1)[1]
    return date(year, month0 + 1, min(d.day, last_day))


def shift(d: date, unit: Granularity, n: int) -> date:
    """``d`` moved by ``n`` days, weeks, months, seasons, years or decades."""
    if unit in _DAYS_PER:
        return d + timedelta(days=n * _DAYS_PER[unit])
    return add_months(d, n * _MONTHS_PER[unit])


def span(start: date, end: date, granularity: Granularity, reference: datetime) -> TimeRange:
    """Midnight-to-midnight range in the reference's time zone."""
    tz = reference.tzinfo
    return TimeRange(
        datetime.combine(start, time(), tzinfo=tz),
        datetime.combine(end, time(), tzinfo=tz),
        granularity,
    )


def period(d: date, unit: Granularity, reference: datetime) -> TimeRange:
    """The calendar day, ISO week, month, season, year or decade that contains ``d``."""
    start = _PERIOD_START[unit](d)
    return span(start, shift(start, unit, 1), unit, reference)


def relative_period(reference: datetime, unit: Granularity, n: int) -> TimeRange:
    """The period ``n`` units from the reference's own (-1: the previous one)."""
    return period(shift(reference.date(), unit, n), unit, reference)


def season_of_year(year: int, season: str, reference: datetime) -> TimeRange:
    """A named season of a year; winter runs from December of that year."""
    return period(date(year, SEASON_MONTH[season], 1), _G.SEASON, reference)


def cycle_offset(current: int, wanted: int, length: int, relation: int | None) -> int:
    """Steps from ``current`` to ``wanted`` in a cycle: None = most recent (current included),
    -1 = most recent before current, +1 = first after current, 0 = same turn of the cycle."""
    if relation is None:
        return -((current - wanted) % length)
    if relation < 0:
        return -((current - wanted - 1) % length + 1)
    if relation > 0:
        return (wanted - current - 1) % length + 1
    return wanted - current


@dataclass(frozen=True)
class Cycle:
    """Weekdays, months or seasons: ``position`` places a date in the cycle (0-based)."""

    unit: Granularity
    length: int
    position: Callable[[date], int]


WEEKDAYS = Cycle(_G.DAY, 7, date.weekday)  # Monday 0
MONTHS = Cycle(_G.MONTH, 12, lambda d: d.month - 1)
SEASONS = Cycle(_G.SEASON, 4, lambda d: d.month % 12 // 3)  # winter 0: the meteorological year


def cycle_range(reference: datetime, cycle: Cycle, wanted: int, relation: int | None) -> TimeRange:
    """One turn of a weekday, month or season, picked by relation (see ``cycle_offset``)."""
    today = reference.date()
    steps = cycle_offset(cycle.position(today), wanted, cycle.length, relation)
    return period(shift(today, cycle.unit, steps), cycle.unit, reference)


def weekend_range(reference: datetime, week_offset: int) -> TimeRange:
    """Saturday and Sunday of the ISO week ``week_offset`` weeks from the reference's."""
    saturday = shift(reference.date(), _G.WEEK, week_offset)
    saturday += timedelta(days=5 - saturday.weekday())
    return span(saturday, saturday + timedelta(days=2), _G.DAY, reference)


def recent_range(reference: datetime, days: int = 30) -> TimeRange:
    """The ``days`` days ending with the reference day."""
    today = reference.date()
    return span(today - timedelta(days=days - 1), today + timedelta(days=1), _G.DAY, reference)


def _iso_date(m: re.Match[str], reference: datetime) -> TimeRange | None:
    try:
        day = date(int(m["y"]), int(m["m"]), int(m["d"]))
    except ValueError:
        return None
    if not m["time"]:
        return period(day, _G.DAY, reference)
    clock = time.fromisoformat(m["time"])
    start = datetime.combine(day, clock, tzinfo=reference.tzinfo)
    width = timedelta(seconds=1) if m["time"].count(":") == 2 else timedelta(minutes=1)
    return TimeRange(start, start + width, _G.INSTANT)


# Year first is unambiguous in both languages; digits are delimited by lookarounds, since CJK
# characters count as word characters and \b would not fire between 在 and 2024.
ISO_DATE_RULE = Rule(
    re.compile(
        r"(?<![\d.:/-])(?P<y>\d{4})(?P<sep>[-/.])(?P<m>\d{1,2})(?P=sep)(?P<d>\d{1,2})"
        r"(?:[T ](?P<time>\d{2}:\d{2}(?::\d{2})?))?(?![\d:/-]|\.\d)"
    ),
    _iso_date,
)


# --- English ----------------------------------------------------------------------------------

RELATION_WORDS = {"last": -1, "previous": -1, "this": 0, "current": 0, "next": 1, "coming": 1}
UNIT_WORDS = {"day": _G.DAY, "week": _G.WEEK, "month": _G.MONTH, "year": _G.YEAR,
              "decade": _G.DECADE}  # fmt: skip
NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
    "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
    "a couple of": 2, "a couple": 2, "couple of": 2, "couple": 2, "a few": 3, "few": 3,
}  # fmt: skip
_FIXED = {
    "today": (_G.DAY, 0), "tonight": (_G.DAY, 0), "earlier today": (_G.DAY, 0),
    "this morning": (_G.DAY, 0), "this afternoon": (_G.DAY, 0), "this evening": (_G.DAY, 0),
    "yesterday": (_G.DAY, -1), "last night": (_G.DAY, -1), "tomorrow": (_G.DAY, 1),
    "the day before yesterday": (_G.DAY, -2), "the day after tomorrow": (_G.DAY, 2),
}  # fmt: skip
WEEKDAY_NUMBERS = {name.lower(): i for i, name in enumerate(calendar.day_name)}
_MONTH = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTH_ABBR = {"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8,
               "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12}  # fmt: skip
MONTH_NUMBERS = {**_MONTH, **_MONTH_ABBR}
# Bare years are still years before these words ("2019 was", "2019 and 2020").
_YEAR_FOLLOWERS = frozenset({"was", "is", "were", "will", "would", "had", "has", "and", "or", "to",
                             "through", "until", "when", "where", "before", "after"})  # fmt: skip
_DATEPARSER_SETTINGS = {"PREFER_DATES_FROM": "past", "RETURN_AS_TIMEZONE_AWARE": True,
                        "PARSERS": ["absolute-time"]}  # fmt: skip


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


def warm_up() -> None:
    """Load dateparser's data now: its first parse in a process takes ~125 ms (the next ~1),
    which would otherwise fall on the first message or question holding a date. Build both
    languages' rule tables too (imports, regex compiles, the holiday list)."""
    dateparser.parse("13 October 2023", languages=["en"], settings=_DATEPARSER_SETTINGS)
    _rules_for("en")
    _rules_for("zh")


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


def decade_range(digit: int, century: int | None, reference: datetime) -> TimeRange:
    """The decade ``digit``0-``digit``9 of a century (19, 20); without one, the latest such
    decade that has begun ("the 90s" is the 1990s, "the 20s" said in 2024 the 2020s)."""
    tens = digit * 10
    if century is None:
        century = 20 if 2000 + tens <= reference.year else 19
    return period(date(century * 100 + tens, 1, 1), _G.DECADE, reference)


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


# --- Public API -------------------------------------------------------------------------------


@cache
def _rules_for(lang: str) -> RuleSet:
    # Imported here: these modules build on the calendar helpers above.
    if lang.lower().startswith("zh"):
        from service.nlp.temporal_zh import ZH_RULES

        return ZH_RULES
    from service.nlp.temporal_en import EN_PHRASE_RULES

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
_FILLER = frozenset({"in", "on", "during", "around", "about", "at", "the", "在", "于", "期间",
                     "的时候", "时候", "那天", "当天"})  # fmt: skip
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

"""Calendar arithmetic and the vocabulary both languages share: ranges, granularities, rules.

The choices every range follows are documented in service/nlp/time/__init__.py."""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from enum import StrEnum


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


def decade_range(digit: int, century: int | None, reference: datetime) -> TimeRange:
    """The decade ``digit``0-``digit``9 of a century (19, 20); without one, the latest such
    decade that has begun ("the 90s" is the 1990s, "the 20s" said in 2024 the 2020s)."""
    tens = digit * 10
    if century is None:
        century = 20 if 2000 + tens <= reference.year else 19
    return period(date(century * 100 + tens, 1, 1), _G.DECADE, reference)

"""Holidays by name, and the day (or days) each one falls on in a given year.

The names and date rules are data (``nlp_models/time_phrases.json``). Four kinds of date:

- fixed: the same day every year (Christmas, Halloween, 元旦, 劳动节 May 1). 国庆节 is the
  whole golden week, October 1-7, since that is what people mean by their 国庆 holiday.
- nth_weekday: "the 4th Thursday of November" (Thanksgiving, US); n = -1 is the last one.
- easter: Western Easter Sunday (``dateutil.easter``) plus an offset (Good Friday = -2).
- lunar: a day of the Chinese calendar plus an offset; 除夕 is the day before 春节, as the
  12th lunar month has 29 or 30 days.
- solar_term: a day of the 24 solar terms (清明, 冬至).

Chinese-calendar days come from ``lunar_python``; each holiday's day in a year is computed once
per process, as one conversion costs a few milliseconds.

Which occurrence a phrase means, like a bare month name (see ``english.py``): a bare name or "on
X" is the most recent occurrence that has begun by the reference day; "last X" / 去年X is the
one of the previous calendar year; "this X" / 今年X the one of the current year; "next X" the
first one after the reference day; "X 2019" / 2019年X the one of that year. Every holiday is a
DAY range, one day long unless ``days`` says otherwise.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from enum import StrEnum
from functools import cache
from typing import Any

from dateutil.easter import easter  # type: ignore[import-untyped]
from lunar_python import Lunar  # type: ignore[import-untyped]

from service.nlp.time.calendar import Granularity, TimeRange, span
from service.nlp.time.periods import time_phrase_words


class DateRule(StrEnum):
    FIXED = "fixed"
    NTH_WEEKDAY = "nth_weekday"
    EASTER = "easter"
    LUNAR = "lunar"
    SOLAR_TERM = "solar_term"


@dataclass(frozen=True)
class Holiday:
    """One holiday: how to find its first day in a year, how many days it lasts, its names."""

    key: str
    rule: DateRule
    month: int = 0
    day: int = 0
    weekday: int = 0  # Monday 0, for nth_weekday
    n: int = 0  # which such weekday of the month; -1 = the last
    offset: int = 0  # days after the rule's date
    term: str = ""  # a solar term's Chinese name
    days: int = 1
    names_en: tuple[str, ...] = ()
    names_en_capitalised: tuple[str, ...] = ()
    names_zh: tuple[str, ...] = ()
    names_zh_with_year: tuple[str, ...] = ()

    def first_day_in(self, year: int) -> date:
        """The holiday's first day in a Gregorian year."""
        return _first_day(self, year)

    def rule_date(self, year: int) -> date:
        """The date the rule gives for a year, before the offset."""
        if self.rule is DateRule.FIXED:
            return date(year, self.month, self.day)
        if self.rule is DateRule.NTH_WEEKDAY:
            return nth_weekday(year, self.month, self.weekday, self.n)
        if self.rule is DateRule.EASTER:
            sunday: date = easter(year)
            return sunday
        if self.rule is DateRule.SOLAR_TERM:
            return solar_term(year, self.term)
        return _lunar_in_year(year, self.month, self.day, self.offset)


def nth_weekday(year: int, month: int, weekday: int, n: int) -> date:
    """The ``n``-th ``weekday`` (Monday 0) of a month; n = -1 is its last."""
    days = [d for d in calendar.Calendar().itermonthdates(year, month) if d.month == month]
    return [d for d in days if d.weekday() == weekday][n if n < 0 else n - 1]


@cache
def _first_day(holiday: Holiday, year: int) -> date:
    return holiday.rule_date(year) + timedelta(days=holiday.offset)


def _to_date(solar: Any) -> date:
    """A ``lunar_python`` Solar as a date."""
    return date(solar.getYear(), solar.getMonth(), solar.getDay())


def solar_term(year: int, term: str) -> date:
    """The day a solar term (by its Chinese name, 清明) falls on in a Gregorian year."""
    for lunar_year in (year, year + 1):  # a lunar year's table starts with the winter before
        day = _to_date(Lunar.fromYmd(lunar_year, 1, 1).getJieQiTable()[term])
        if day.year == year:
            return day
    raise ValueError(f"no {term} in {year}")


def _lunar_in_year(year: int, month: int, day: int, offset: int) -> date:
    """The lunar date (before ``offset``) whose shifted day falls in the Gregorian ``year``:
    a late-winter lunar date (腊八, 12/8) may belong to the lunar year before."""
    for lunar_year in (year, year - 1):
        solar = _to_date(Lunar.fromYmd(lunar_year, month, day).getSolar())
        if (solar + timedelta(days=offset)).year == year:
            return solar
    raise ValueError(f"no lunar {month}/{day} in {year}")


@cache
def holidays() -> tuple[Holiday, ...]:
    """Every holiday in ``nlp_models/time_phrases.json``, read once."""
    return tuple(
        Holiday(
            key=row.key,
            rule=DateRule(row.rule),
            month=row.month,
            day=row.day,
            weekday=row.weekday,
            n=row.n,
            offset=row.offset,
            term=row.term,
            days=row.days,
            names_en=row.en,
            names_en_capitalised=row.en_capitalised,
            names_zh=row.zh,
            names_zh_with_year=row.zh_with_year,
        )
        for row in time_phrase_words().holidays
    )


@cache
def holidays_by_name(lang: str) -> dict[str, Holiday]:
    """Name -> holiday, for lang "en" (lowercase), "en_capitalised", "zh" or "zh_with_year"."""
    by_name: dict[str, Holiday] = {}
    for holiday in holidays():
        names = {
            "en": holiday.names_en,
            "en_capitalised": holiday.names_en_capitalised,
            "zh": holiday.names_zh,
            "zh_with_year": holiday.names_zh_with_year,
        }[lang]
        by_name.update(dict.fromkeys(names, holiday))
    return by_name


def holiday_range(
    holiday: Holiday, reference: datetime, *, year: int | None = None, relation: int | None = None
) -> TimeRange:
    """The occurrence a phrase means: of ``year`` if given, else picked by ``relation``
    (None: most recent begun, -1: previous year's, 0: this year's, +1: first after today)."""
    today = reference.date()
    if year is not None:
        first = holiday.first_day_in(year)
    elif relation is not None and relation <= 0:
        first = holiday.first_day_in(today.year + relation)
    elif relation is not None:
        first = holiday.first_day_in(today.year)
        if first <= today:
            first = holiday.first_day_in(today.year + 1)
    else:
        first = holiday.first_day_in(today.year)
        if first > today:
            first = holiday.first_day_in(today.year - 1)
    return span(first, first + timedelta(days=holiday.days), Granularity.DAY, reference)

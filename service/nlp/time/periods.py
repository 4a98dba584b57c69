"""Parts of a period and spans back from now, shared by the English and Chinese time rules.

The bounds callers can rely on (each part is whole days, months or years of its period):

- A month: early = days 1-10, mid = 11-20, late / end = 21 to the last day (上旬 / 中旬 / 下旬,
  月初 / 月中 / 月底); first half = days 1-15, second half = 16 to the end (上半月 / 下半月).
- A year: early = Jan-Apr, mid = May-Aug, late / end = Sep-Dec (年初 / 年中 / 年底); first
  half = Jan-Jun, second half = Jul-Dec (上半年 / 下半年).
- A season: early, mid and late are its first, second and third month.
- An ISO week: early = Monday-Tuesday, mid = Wednesday-Thursday, late / end = Friday-Sunday.
- A decade: early = its years 0-3, mid = 4-6, late = 7-9 ("the early nineties" = 1990-1993).

A part's granularity is the unit its bounds are counted in: DAY for parts of weeks and months,
MONTH for parts of seasons and years, YEAR for parts of decades.

Quarters are calendar quarters (Q1 = Jan-Mar, 一季度), with MONTH granularity; a quarter named
without a year is the most recent one that has begun, "last / this / next quarter" (上个季度)
the one before, containing or after the reference day.

A span back from now ("in the last two weeks", 过去两周, 最近三个月) runs from the reference day
moved back by the span to the end of the reference day, with DAY granularity: said on
2025-03-12, "the past two weeks" is 2025-02-26 .. 2025-03-13.
"""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta
from enum import StrEnum
from functools import cache

from pydantic import BaseModel, ConfigDict

from service.core.resources import NLP_MODELS_DIR
from service.nlp.time.calendar import Granularity, TimeRange, add_months, shift, span

TIME_PHRASES_PATH = NLP_MODELS_DIR / "time_phrases.json"


class Part(StrEnum):
    EARLY = "early"
    MID = "mid"
    LATE = "late"
    FIRST_HALF = "first_half"
    SECOND_HALF = "second_half"


_G = Granularity
# The unit a part of each period is counted in, and where (in that unit, from the period's
# start) its thirds and halves split; the last part runs to the period's end, whatever a
# month's length.
_SUB_UNIT = {
    _G.WEEK: _G.DAY,
    _G.MONTH: _G.DAY,
    _G.SEASON: _G.MONTH,
    _G.YEAR: _G.MONTH,
    _G.DECADE: _G.YEAR,
}
_THIRDS: dict[Granularity, tuple[int, int]] = {
    _G.WEEK: (2, 4),
    _G.MONTH: (10, 20),
    _G.SEASON: (1, 2),
    _G.YEAR: (4, 8),
    _G.DECADE: (4, 7),
}
_HALF: dict[Granularity, int] = {_G.MONTH: 15, _G.YEAR: 6, _G.DECADE: 5}


def _bounds(unit: Granularity, part: Part) -> tuple[int, int | None] | None:
    first, second = _THIRDS[unit]
    half = _HALF.get(unit)
    return {
        Part.EARLY: (0, first),
        Part.MID: (first, second),
        Part.LATE: (second, None),
        Part.FIRST_HALF: None if half is None else (0, half),
        Part.SECOND_HALF: None if half is None else (half, None),
    }[part]


def part_of(whole: TimeRange, part: Part, reference: datetime) -> TimeRange | None:
    """The early / mid / late third or a half of a week, month, season, year or decade."""
    if whole.granularity not in _THIRDS:
        return None
    bounds = _bounds(whole.granularity, part)
    if bounds is None:  # "the first half of the week": no agreed bounds
        return None
    unit = _SUB_UNIT[whole.granularity]
    first_day = whole.start.date()
    start = shift(first_day, unit, bounds[0])
    end = whole.end.date() if bounds[1] is None else shift(first_day, unit, bounds[1])
    return span(start, end, unit, reference)


def quarter_range(year: int, quarter: int, reference: datetime) -> TimeRange:
    """Calendar quarter 1-4 of a year."""
    start = date(year, 3 * quarter - 2, 1)
    return span(start, add_months(start, 3), _G.MONTH, reference)


def latest_quarter(reference: datetime, quarter: int) -> TimeRange:
    """The most recent quarter ``quarter`` that has begun by the reference day."""
    year = reference.year
    if date(year, 3 * quarter - 2, 1) > reference.date():
        year -= 1
    return quarter_range(year, quarter, reference)


def relative_quarter(reference: datetime, n: int) -> TimeRange:
    """The quarter ``n`` quarters from the reference's own."""
    start = add_months(date(reference.year, (reference.month - 1) // 3 * 3 + 1, 1), 3 * n)
    return span(start, add_months(start, 3), _G.MONTH, reference)


def period_of_days(start: date, days: int, reference: datetime) -> TimeRange:
    """``days`` whole days from ``start``."""
    return span(start, start + timedelta(days=days), _G.DAY, reference)


def span_back(reference: datetime, start: date) -> TimeRange:
    """From ``start`` to the end of the reference day."""
    return span(start, reference.date() + timedelta(days=1), _G.DAY, reference)


def units_back(reference: datetime, unit: Granularity, n: int) -> TimeRange:
    """The last ``n`` days, weeks, months or years, up to the end of the reference day."""
    return span_back(reference, shift(reference.date(), unit, -n))


class HolidayRow(BaseModel):
    """One holiday as ``time_phrases.json`` writes it (holidays.Holiday reads it)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str
    rule: str
    month: int = 0
    day: int = 0
    weekday: int = 0
    n: int = 0
    offset: int = 0
    term: str = ""
    days: int = 1
    en: tuple[str, ...] = ()
    en_capitalised: tuple[str, ...] = ()
    zh: tuple[str, ...] = ()
    zh_with_year: tuple[str, ...] = ()


class WindowWords(BaseModel):
    """The words of one form of window (windows.py): said before the first period, between
    two, after the last; lowercase."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    leads: frozenset[str] = frozenset()
    joins: frozenset[str] = frozenset()
    tails: frozenset[str] = frozenset()


class TimePhraseWords(BaseModel):
    """``nlp_models/time_phrases.json``: part words per table, decade words, holidays, and the
    words of windows by form ("between", "since", "after", "before", "until")."""

    model_config = ConfigDict(frozen=True)

    parts: dict[str, dict[str, str]]
    decades_en: dict[str, int]
    holidays: tuple[HolidayRow, ...]
    windows: dict[str, WindowWords]


@cache
def time_phrase_words() -> TimePhraseWords:
    """``nlp_models/time_phrases.json``, read and validated once."""
    with TIME_PHRASES_PATH.open(encoding="utf-8") as f:
        return TimePhraseWords.model_validate(json.load(f))


def part_words(table: str) -> dict[str, Part]:
    """One table of part words ("en", "zh_year", "zh_month", "zh_decade") -> the part meant."""
    return {word: Part(part) for word, part in time_phrase_words().parts[table].items()}

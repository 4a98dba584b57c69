"""Parts of periods, spans back from now, two steps back, holidays and decades (issue #24)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from service.nlp.time.calendar import Granularity, TimeRange
from service.nlp.time.holidays import holiday_range, holidays
from service.nlp.time.tags import find_time_tags, resolve_phrase

DAY, WEEK, MONTH = Granularity.DAY, Granularity.WEEK, Granularity.MONTH
YEAR, DECADE = Granularity.YEAR, Granularity.DECADE


def at(day: str) -> datetime:
    return datetime.fromisoformat(day).replace(tzinfo=UTC)


def said_on(day: str) -> datetime:
    return at(day) + timedelta(hours=15)


# phrase, message date, expected start, expected end (exclusive), granularity.
# Weekdays: 2024-01-03 Wed, 2024-02-29 Thu, 2024-03-05 Tue, 2024-12-25 Wed, 2025-03-12 Wed.
PARTS = [
    # A month's thirds are days 1-10, 11-20 and 21 to its end, leap day included.
    ("上个月底", "2024-03-05", "2024-02-21", "2024-03-01", DAY),
    ("the end of last month", "2024-03-05", "2024-02-21", "2024-03-01", DAY),
    ("月底", "2024-02-10", "2024-02-21", "2024-03-01", DAY),
    ("in mid-November", "2024-03-05", "2023-11-11", "2023-11-21", DAY),
    ("in mid-November", "2024-11-15", "2024-11-11", "2024-11-21", DAY),
    ("at the end of October", "2024-03-05", "2023-10-21", "2023-11-01", DAY),
    ("early December 2023", "2024-03-05", "2023-12-01", "2023-12-11", DAY),
    ("the beginning of next month", "2024-12-25", "2025-01-01", "2025-01-11", DAY),
    ("十月底", "2024-03-05", "2023-10-21", "2023-11-01", DAY),
    ("2023年11月上旬", "2024-03-05", "2023-11-01", "2023-11-11", DAY),
    ("中旬", "2024-03-05", "2024-03-11", "2024-03-21", DAY),
    ("下个月初", "2024-12-25", "2025-01-01", "2025-01-11", DAY),
    # A year's thirds are Jan-Apr, May-Aug and Sep-Dec; its halves Jan-Jun and Jul-Dec.
    ("in early 2025", "2024-03-05", "2025-01-01", "2025-05-01", MONTH),
    ("mid-2024", "2025-03-12", "2024-05-01", "2024-09-01", MONTH),
    ("late last year", "2024-01-03", "2023-09-01", "2024-01-01", MONTH),
    ("the second half of 2023", "2025-03-12", "2023-07-01", "2024-01-01", MONTH),
    ("年初", "2024-03-05", "2024-01-01", "2024-05-01", MONTH),
    ("去年年底", "2024-01-03", "2023-09-01", "2024-01-01", MONTH),
    ("去年底", "2024-01-03", "2023-09-01", "2024-01-01", MONTH),
    ("上半年", "2024-03-05", "2024-01-01", "2024-07-01", MONTH),
    ("去年下半年", "2024-03-05", "2023-07-01", "2024-01-01", MONTH),
    # A week's: Mon-Tue, Wed-Thu, Fri-Sun. A season's: its months. A decade's: 0-3, 4-6, 7-9.
    ("the end of last week", "2025-03-12", "2025-03-07", "2025-03-10", DAY),
    ("in early summer", "2025-03-12", "2024-06-01", "2024-07-01", MONTH),
    ("the early nineties", "2025-03-12", "1990-01-01", "1994-01-01", YEAR),
    ("the late 90s", "2025-03-12", "1997-01-01", "2000-01-01", YEAR),
    ("九十年代初", "2025-03-12", "1990-01-01", "1994-01-01", YEAR),
    ("80年代中期", "2025-03-12", "1984-01-01", "1987-01-01", YEAR),
    ("the last week of May", "2025-03-12", "2024-05-25", "2024-06-01", DAY),
]

SPANS = [
    # From the reference day moved back by the span to the end of the reference day.
    ("in the last two weeks", "2024-01-05", "2023-12-22", "2024-01-06", DAY),
    ("over the past three months", "2024-05-31", "2024-02-29", "2024-06-01", DAY),
    ("the past 3 months", "2024-05-31", "2024-02-29", "2024-06-01", DAY),
    ("in the last couple of weeks", "2025-03-12", "2025-02-26", "2025-03-13", DAY),
    ("the last few days", "2025-03-12", "2025-03-09", "2025-03-13", DAY),
    ("over the past year", "2024-02-29", "2023-02-28", "2024-03-01", DAY),
    ("the last 24 hours", "2025-03-12", "2025-03-11", "2025-03-13", DAY),
    ("过去两周", "2024-01-05", "2023-12-22", "2024-01-06", DAY),
    ("最近三个月", "2025-03-12", "2024-12-12", "2025-03-13", DAY),
    ("这几天", "2025-03-12", "2025-03-09", "2025-03-13", DAY),
    ("这两天", "2025-03-12", "2025-03-10", "2025-03-13", DAY),
    ("最近半年", "2025-03-12", "2024-09-12", "2025-03-13", DAY),
    ("过去的一年里", "2025-03-12", "2024-03-12", "2025-03-13", DAY),
]

TWO_STEPS = [
    ("the week before last", "2024-01-03", "2023-12-18", "2023-12-25", WEEK),
    ("the month before last", "2024-01-15", "2023-11-01", "2023-12-01", MONTH),
    ("the year before last", "2024-01-15", "2022-01-01", "2023-01-01", YEAR),
    ("the week after next", "2024-12-25", "2025-01-06", "2025-01-13", WEEK),
    ("上上周", "2024-01-03", "2023-12-18", "2023-12-25", WEEK),
    ("上上个月", "2024-02-29", "2023-12-01", "2024-01-01", MONTH),
    ("上上周五", "2025-03-12", "2025-02-28", "2025-03-01", DAY),
    ("大前年", "2025-03-12", "2022-01-01", "2023-01-01", YEAR),
]

HOLIDAYS = [
    # Bare: the latest begun by the reference day; "last": the previous year's; "next": the
    # first after the reference day.
    ("Christmas", "2024-12-25", "2024-12-25", "2024-12-26", DAY),
    ("Christmas", "2024-12-24", "2023-12-25", "2023-12-26", DAY),
    ("last Christmas", "2024-12-28", "2023-12-25", "2023-12-26", DAY),
    ("next Christmas", "2024-12-25", "2025-12-25", "2025-12-26", DAY),
    ("on New Year's Eve", "2025-03-12", "2024-12-31", "2025-01-01", DAY),
    ("at Thanksgiving", "2024-03-05", "2023-11-23", "2023-11-24", DAY),
    ("Thanksgiving 2024", "2025-03-12", "2024-11-28", "2024-11-29", DAY),
    ("Easter", "2024-04-15", "2024-03-31", "2024-04-01", DAY),
    ("Good Friday", "2025-05-01", "2025-04-18", "2025-04-19", DAY),
    ("Mother's Day", "2024-06-01", "2024-05-12", "2024-05-13", DAY),
    ("Memorial Day", "2024-06-01", "2024-05-27", "2024-05-28", DAY),
    ("去年圣诞节", "2025-03-12", "2024-12-25", "2024-12-26", DAY),
    # Lunar festivals move: 春节 was 2023-01-22, 2024-02-10, 2025-01-29.
    ("春节", "2024-03-01", "2024-02-10", "2024-02-11", DAY),
    ("春节", "2024-01-15", "2023-01-22", "2023-01-23", DAY),
    ("2025年春节", "2024-01-15", "2025-01-29", "2025-01-30", DAY),
    ("明年春节", "2024-03-01", "2025-01-29", "2025-01-30", DAY),
    ("除夕", "2024-03-01", "2024-02-09", "2024-02-10", DAY),
    ("中秋节", "2023-12-01", "2023-09-29", "2023-09-30", DAY),
    ("Chinese New Year", "2025-03-12", "2025-01-29", "2025-01-30", DAY),
    ("清明节", "2024-05-01", "2024-04-04", "2024-04-05", DAY),
    # 国庆节 is the golden week, October 1-7.
    ("国庆节", "2024-10-03", "2024-10-01", "2024-10-08", DAY),
    ("今年国庆", "2024-03-05", "2024-10-01", "2024-10-08", DAY),
]

MONTHS_AND_DECADES = [
    ("十月份", "2025-03-12", "2024-10-01", "2024-11-01", MONTH),
    ("三月份", "2025-03-12", "2025-03-01", "2025-04-01", MONTH),
    ("2023年五月份", "2025-03-12", "2023-05-01", "2023-06-01", MONTH),
    ("the nineties", "2025-03-12", "1990-01-01", "2000-01-01", DECADE),
    ("in the twenties", "2025-03-12", "2020-01-01", "2030-01-01", DECADE),
    ("九十年代", "2025-03-12", "1990-01-01", "2000-01-01", DECADE),
    ("90年代", "2025-03-12", "1990-01-01", "2000-01-01", DECADE),
    ("上世纪八十年代", "2025-03-12", "1980-01-01", "1990-01-01", DECADE),
]


# Quarters are calendar quarters; without a year, the latest begun.
QUARTERS = [
    ("Q3", "2025-03-12", "2024-07-01", "2024-10-01", MONTH),
    ("Q1 2024", "2025-03-12", "2024-01-01", "2024-04-01", MONTH),
    ("last quarter", "2025-01-02", "2024-10-01", "2025-01-01", MONTH),
    ("一季度", "2025-03-12", "2025-01-01", "2025-04-01", MONTH),
    ("去年第四季度", "2025-03-12", "2024-10-01", "2025-01-01", MONTH),
]

VARIANTS = [
    ("end of October", "2024-03-05", "2023-10-21", "2023-11-01", DAY),
    ("late in 2023", "2025-03-12", "2023-09-01", "2024-01-01", MONTH),
    ("the past fortnight", "2025-03-12", "2025-02-26", "2025-03-13", DAY),
    ("this past weekend", "2025-03-12", "2025-03-08", "2025-03-10", DAY),
    ("the Friday before last", "2025-03-12", "2025-02-28", "2025-03-01", DAY),
    ("the summer before last", "2025-03-12", "2023-06-01", "2023-09-01", Granularity.SEASON),
    ("the Christmas before last", "2025-03-12", "2023-12-25", "2023-12-26", DAY),
    ("Christmas morning", "2025-03-12", "2024-12-25", "2024-12-26", DAY),
    ("春节期间", "2025-03-12", "2025-01-29", "2025-01-30", DAY),
    ("最近这几天", "2025-03-12", "2025-03-09", "2025-03-13", DAY),
    ("过去24小时", "2025-03-12", "2025-03-11", "2025-03-13", DAY),
    ("二十世纪九十年代", "2025-03-12", "1990-01-01", "2000-01-01", DECADE),
    ("2024年2月的最后一周", "2025-03-12", "2024-02-23", "2024-03-01", DAY),
    ("下个月的第一个星期", "2025-03-12", "2025-04-01", "2025-04-08", DAY),
    ("上个月的月底", "2025-03-12", "2025-02-21", "2025-03-01", DAY),
]


@pytest.mark.parametrize(
    ("phrase", "said", "start", "end", "granularity"),
    PARTS + SPANS + TWO_STEPS + HOLIDAYS + MONTHS_AND_DECADES + QUARTERS + VARIANTS,
)
def test_phrase_resolves_to_range(
    phrase: str, said: str, start: str, end: str, granularity: Granularity
) -> None:
    assert resolve_phrase(phrase, said_on(said)) == TimeRange(at(start), at(end), granularity)


# text, lang, the tagged expressions.
TAGGED = [
    (
        "We moved at the end of October and it rained over the past two weeks.",
        "en",
        ["at the end of October", "over the past two weeks"],
    ),
    ("I loved the end of the movie, but we lost in the last game.", "en", []),
    ("She stopped mid-sentence. At the end of the day it does not matter.", "en", []),
    ("She is in her early 20s and spent the last day of school at home.", "en", []),
    ("It was the last two weeks of the trip.", "en", []),
    ("In the last quarter of the game, the fourth quarter, early years", "en", []),
    ("The week before last Friday we met.", "en", ["last Friday"]),
    ("上个月底我搬家了，这几天很忙。", "zh", ["上个月底", "这几天"]),
    ("今年中国经济增长，我2024年初中毕业。", "zh", ["今年", "2024年"]),
    ("在这三个月中我学会了很多，岁月中的故事", "zh", ["这三个月"]),
    ("每年春节都回家，王国庆去了北京，一五一十地说了", "zh", []),
    ("我接近两年没回家，附近三天有雨，这一年过得很快", "zh", []),
]


@pytest.mark.parametrize(("text", "lang", "expected"), TAGGED)
def test_tags_in_ordinary_sentences(text: str, lang: str, expected: list[str]) -> None:
    tags = find_time_tags(text, said_on("2025-03-12"), lang)
    assert [t.expression for t in tags] == expected


@pytest.mark.parametrize("year", [1950, 2000, 2024, 2025, 2060])
def test_every_holiday_has_a_date_each_year(year: int) -> None:
    for holiday in holidays():
        got = holiday_range(holiday, said_on("2025-03-12"), year=year)
        assert got.start.year == year and got.granularity is DAY


def test_lunar_festival_after_the_new_year_belongs_to_its_gregorian_year() -> None:
    laba = next(h for h in holidays() if h.key == "laba_festival")
    assert laba.first_day_in(2025) == date(2025, 1, 7)  # lunar 12/8 of the year before

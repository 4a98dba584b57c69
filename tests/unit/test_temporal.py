"""Time expressions resolved against a message's own timestamp (service/nlp/time/)."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo

import pytest

from service.nlp.time.calendar import Granularity, TimeRange
from service.nlp.time.tags import find_time_tags, resolve_phrase

DAY, WEEK, MONTH = Granularity.DAY, Granularity.WEEK, Granularity.MONTH
SEASON, YEAR, DECADE = Granularity.SEASON, Granularity.YEAR, Granularity.DECADE


def at(day: str, tz: tzinfo = UTC) -> datetime:
    """Midnight of an ISO date, or an ISO datetime, in ``tz``."""
    return datetime.fromisoformat(day).replace(tzinfo=tz)


def said_on(day: str) -> datetime:
    """A message timestamp in the afternoon of ``day``."""
    return at(day) + timedelta(hours=15)


# phrase, message date, expected start, expected end (exclusive), granularity.
# Weekdays of the message dates: 2024-01-01 Mon, 01-07 Sun, 01-10 Wed, 01-15 Mon, 02-29 Thu,
# 03-10 Sun, 04-29 Mon, 05-01 Wed, 05-02 Thu, 05-03 Fri, 05-04 Sat, 05-06 Mon, 12-31 Tue.
ENGLISH = [
    ("today", "2024-05-03", "2024-05-03", "2024-05-04", DAY),
    ("yesterday", "2024-01-01", "2023-12-31", "2024-01-01", DAY),
    ("tomorrow", "2024-02-28", "2024-02-29", "2024-03-01", DAY),
    ("the day before yesterday", "2024-03-01", "2024-02-28", "2024-02-29", DAY),
    ("the day after tomorrow", "2024-12-30", "2025-01-01", "2025-01-02", DAY),
    # ISO weeks start on Monday, whatever weekday the message is from.
    ("last week", "2024-01-01", "2023-12-25", "2024-01-01", WEEK),
    ("last week", "2024-01-07", "2023-12-25", "2024-01-01", WEEK),
    ("this week", "2024-01-07", "2024-01-01", "2024-01-08", WEEK),
    ("next week", "2024-12-31", "2025-01-06", "2025-01-13", WEEK),
    ("last month", "2024-01-15", "2023-12-01", "2024-01-01", MONTH),
    ("last month", "2024-02-29", "2024-01-01", "2024-02-01", MONTH),
    ("this month", "2024-02-29", "2024-02-01", "2024-03-01", MONTH),
    ("next month", "2024-12-31", "2025-01-01", "2025-02-01", MONTH),
    ("last year", "2024-01-01", "2023-01-01", "2024-01-01", YEAR),
    ("next year", "2024-12-31", "2025-01-01", "2026-01-01", YEAR),
    # "N units ago" is the calendar unit containing the shifted day, month ends clamped.
    ("a year ago", "2024-02-29", "2023-01-01", "2024-01-01", YEAR),
    ("12 months ago", "2024-02-29", "2023-02-01", "2023-03-01", MONTH),
    ("365 days ago", "2024-02-29", "2023-03-01", "2023-03-02", DAY),
    ("a month ago", "2024-03-31", "2024-02-01", "2024-03-01", MONTH),
    ("3 days ago", "2024-01-02", "2023-12-30", "2023-12-31", DAY),
    ("two weeks ago", "2024-01-10", "2023-12-25", "2024-01-01", WEEK),
    ("a couple of days ago", "2024-05-03", "2024-05-01", "2024-05-02", DAY),
    ("a few months ago", "2024-01-15", "2023-10-01", "2023-11-01", MONTH),
    ("twelve years ago", "2024-05-03", "2012-01-01", "2013-01-01", YEAR),
    ("in 3 days", "2024-12-30", "2025-01-02", "2025-01-03", DAY),
    ("in two weeks", "2024-05-03", "2024-05-13", "2024-05-20", WEEK),
    # Weekends are Saturday and Sunday; "last" is the one before the current week's.
    ("last weekend", "2024-05-04", "2024-04-27", "2024-04-29", DAY),
    ("last weekend", "2024-05-06", "2024-05-04", "2024-05-06", DAY),
    ("this weekend", "2024-05-03", "2024-05-04", "2024-05-06", DAY),
    # Weekdays: last = before today, next = after today, this = current week, bare = latest.
    ("last Friday", "2024-05-03", "2024-04-26", "2024-04-27", DAY),
    ("last Friday", "2024-05-04", "2024-05-03", "2024-05-04", DAY),
    ("next Friday", "2024-05-02", "2024-05-03", "2024-05-04", DAY),
    ("next Friday", "2024-05-03", "2024-05-10", "2024-05-11", DAY),
    ("this Friday", "2024-04-29", "2024-05-03", "2024-05-04", DAY),
    ("on Friday", "2024-05-01", "2024-04-26", "2024-04-27", DAY),
    ("Friday", "2024-05-03", "2024-05-03", "2024-05-04", DAY),
    # Meteorological seasons; winter of Y runs Dec Y - Feb Y+1.
    ("last summer", "2024-05-03", "2023-06-01", "2023-09-01", SEASON),
    ("last summer", "2024-07-15", "2023-06-01", "2023-09-01", SEASON),
    ("this spring", "2024-01-10", "2024-03-01", "2024-06-01", SEASON),
    ("last winter", "2024-01-10", "2022-12-01", "2023-03-01", SEASON),
    ("this winter", "2024-01-10", "2023-12-01", "2024-03-01", SEASON),
    ("next winter", "2024-01-10", "2024-12-01", "2025-03-01", SEASON),
    ("in the winter", "2024-06-01", "2023-12-01", "2024-03-01", SEASON),
    ("last fall", "2024-05-03", "2023-09-01", "2023-12-01", SEASON),
    ("the summer of 2019", "2024-05-03", "2019-06-01", "2019-09-01", SEASON),
    ("winter 2023", "2024-05-03", "2023-12-01", "2024-03-01", SEASON),
    # A month name alone is the latest such month not after the message's month.
    ("in May", "2024-03-10", "2023-05-01", "2023-06-01", MONTH),
    ("in May", "2024-05-03", "2024-05-01", "2024-06-01", MONTH),
    ("in May", "2024-08-01", "2024-05-01", "2024-06-01", MONTH),
    ("next May", "2024-03-10", "2024-05-01", "2024-06-01", MONTH),
    ("next May", "2024-05-03", "2025-05-01", "2025-06-01", MONTH),
    ("last May", "2024-05-03", "2023-05-01", "2023-06-01", MONTH),
    ("in May 2023", "2024-05-03", "2023-05-01", "2023-06-01", MONTH),
    ("March 2023", "2024-05-03", "2023-03-01", "2023-04-01", MONTH),
    ("Dec 2023", "2024-05-03", "2023-12-01", "2024-01-01", MONTH),
    ("on 8 May, 2023", "2024-05-03", "2023-05-08", "2023-05-09", DAY),
    ("May 8th", "2024-05-03", "2023-05-08", "2023-05-09", DAY),
    ("May 8th", "2024-05-08", "2024-05-08", "2024-05-09", DAY),
    ("the 3rd of March", "2024-05-03", "2024-03-03", "2024-03-04", DAY),
    ("in 2022", "2024-05-03", "2022-01-01", "2023-01-01", YEAR),
    ("2019", "2024-05-03", "2019-01-01", "2020-01-01", YEAR),
    ("in the 90s", "2024-05-03", "1990-01-01", "2000-01-01", DECADE),
    ("the 2010s", "2024-05-03", "2010-01-01", "2020-01-01", DECADE),
    ("the 20s", "2024-05-03", "2020-01-01", "2030-01-01", DECADE),
    ("the week before", "2024-05-03", "2024-04-22", "2024-04-29", WEEK),
    ("the week after", "2024-05-03", "2024-05-06", "2024-05-13", WEEK),
    # Vague recency: the 30 days ending with the message's day.
    ("recently", "2024-05-03", "2024-04-04", "2024-05-04", DAY),
    ("lately", "2024-03-01", "2024-02-01", "2024-03-02", DAY),
    ("earlier this year", "2024-05-03", "2024-01-01", "2024-05-04", DAY),
    ("2024-05-03", "2024-06-01", "2024-05-03", "2024-05-04", DAY),
]

CHINESE = [
    ("今天", "2024-05-03", "2024-05-03", "2024-05-04", DAY),
    ("昨天", "2024-01-01", "2023-12-31", "2024-01-01", DAY),
    ("前天", "2024-03-01", "2024-02-28", "2024-02-29", DAY),
    ("明天", "2024-02-28", "2024-02-29", "2024-03-01", DAY),
    ("后天", "2024-12-30", "2025-01-01", "2025-01-02", DAY),
    ("上周", "2024-01-01", "2023-12-25", "2024-01-01", WEEK),
    ("上星期", "2024-01-07", "2023-12-25", "2024-01-01", WEEK),
    ("上个星期", "2024-05-03", "2024-04-22", "2024-04-29", WEEK),
    ("这周", "2024-01-07", "2024-01-01", "2024-01-08", WEEK),
    ("本周", "2024-05-03", "2024-04-29", "2024-05-06", WEEK),
    ("下周", "2024-12-31", "2025-01-06", "2025-01-13", WEEK),
    ("上个月", "2024-01-15", "2023-12-01", "2024-01-01", MONTH),
    ("上月", "2024-02-29", "2024-01-01", "2024-02-01", MONTH),
    ("这个月", "2024-02-29", "2024-02-01", "2024-03-01", MONTH),
    ("本月", "2024-05-03", "2024-05-01", "2024-06-01", MONTH),
    ("下个月", "2024-12-31", "2025-01-01", "2025-02-01", MONTH),
    ("去年", "2024-01-01", "2023-01-01", "2024-01-01", YEAR),
    ("今年", "2024-05-03", "2024-01-01", "2025-01-01", YEAR),
    ("明年", "2024-12-31", "2025-01-01", "2026-01-01", YEAR),
    ("前年", "2024-05-03", "2022-01-01", "2023-01-01", YEAR),
    ("3天前", "2024-01-02", "2023-12-30", "2023-12-31", DAY),
    ("三天前", "2024-05-03", "2024-04-30", "2024-05-01", DAY),
    ("两周前", "2024-01-10", "2023-12-25", "2024-01-01", WEEK),
    ("两个月前", "2024-01-15", "2023-11-01", "2023-12-01", MONTH),
    ("一年前", "2024-02-29", "2023-01-01", "2024-01-01", YEAR),
    ("十年前", "2024-05-03", "2014-01-01", "2015-01-01", YEAR),
    ("十二个月前", "2024-05-03", "2023-05-01", "2023-06-01", MONTH),
    ("2023年5月", "2024-05-03", "2023-05-01", "2023-06-01", MONTH),
    ("2024年5月3日", "2024-06-01", "2024-05-03", "2024-05-04", DAY),
    ("2022年", "2024-05-03", "2022-01-01", "2023-01-01", YEAR),
    ("5月8日", "2024-05-03", "2023-05-08", "2023-05-09", DAY),
    ("5月3号", "2024-05-03", "2024-05-03", "2024-05-04", DAY),
    ("五月", "2024-03-10", "2023-05-01", "2023-06-01", MONTH),
    ("去年春天", "2024-05-03", "2023-03-01", "2023-06-01", SEASON),
    ("今年夏天", "2024-05-03", "2024-06-01", "2024-09-01", SEASON),
    ("去年秋天", "2024-05-03", "2023-09-01", "2023-12-01", SEASON),
    ("去年冬天", "2024-05-03", "2023-12-01", "2024-03-01", SEASON),
    # 上周五 is Friday *of last week*; a bare weekday is the latest one, today included.
    ("上周五", "2024-05-03", "2024-04-26", "2024-04-27", DAY),
    ("下周三", "2024-05-03", "2024-05-08", "2024-05-09", DAY),
    ("这周一", "2024-05-03", "2024-04-29", "2024-04-30", DAY),
    ("上个星期五", "2024-05-06", "2024-05-03", "2024-05-04", DAY),
    ("星期天", "2024-05-03", "2024-04-28", "2024-04-29", DAY),
    ("周日", "2024-05-05", "2024-05-05", "2024-05-06", DAY),
    ("最近", "2024-05-03", "2024-04-04", "2024-05-04", DAY),
]


@pytest.mark.parametrize(("phrase", "said", "start", "end", "granularity"), ENGLISH + CHINESE)
def test_phrase_resolves_to_range(
    phrase: str, said: str, start: str, end: str, granularity: Granularity
) -> None:
    assert resolve_phrase(phrase, said_on(said)) == TimeRange(at(start), at(end), granularity)


def test_iso_datetime_is_an_instant() -> None:
    got = resolve_phrase("2024-05-03 14:30", said_on("2024-06-01"))
    assert got == TimeRange(at("2024-05-03T14:30"), at("2024-05-03T14:31"), Granularity.INSTANT)


def test_ranges_keep_the_reference_time_zone_across_dst() -> None:
    berlin = ZoneInfo("Europe/Berlin")  # clocks go forward on 2024-03-31
    got = resolve_phrase("last week", datetime(2024, 4, 3, 9, 0, tzinfo=berlin))
    assert got is not None
    assert (got.start, got.end) == (at("2024-03-25", berlin), at("2024-04-01", berlin))
    assert got.start.utcoffset() == timedelta(hours=1)
    assert got.end.utcoffset() == timedelta(hours=2)


def test_day_is_the_reference_local_day() -> None:
    # 23:30 in Shanghai on 05-03 is still 05-03 there, though it is 15:30 UTC.
    shanghai = ZoneInfo("Asia/Shanghai")
    got = resolve_phrase("昨天", datetime(2024, 5, 3, 23, 30, tzinfo=shanghai))
    assert got == TimeRange(at("2024-05-02", shanghai), at("2024-05-03", shanghai), DAY)


# text, lang, [(expression, start_char, end_char)]
TAGGED = [
    (
        "Yesterday I met Anna, and next Friday we fly to Rome.",
        "en",
        [("Yesterday", 0, 9), ("next Friday", 26, 37)],
    ),
    ("We met the day before yesterday.", "en", [("the day before yesterday", 7, 31)]),
    ("May I come in? In May I went to Rome.", "en", [("In May", 15, 21)]),
    (
        "I paid 2000 dollars in 2019, and 2020 was worse.",
        "en",
        [("in 2019", 20, 27), ("2020", 33, 37)],
    ),
    ("We met the week before the exam.", "en", []),
    ("You may go, they march on.", "en", []),
    ("I have 3 dogs", "en", []),
    ("She is in her 90s and runs Neo4j 5.2 on port 7687.", "en", []),
    (
        "昨天我去了北京，上周五和下周三都有会。",
        "zh",
        [("昨天", 0, 2), ("上周五", 8, 11), ("下周三", 12, 15)],
    ),
    ("我2023年5月搬到上海，两个月前换了工作。", "zh", [("2023年5月", 1, 8), ("两个月前", 13, 17)]),
    ("上个星期五很忙", "zh", [("上个星期五", 0, 5)]),
    ("每周一开会，一周一次，最近的超市很远", "zh", []),
]


@pytest.mark.parametrize(("text", "lang", "expected"), TAGGED)
def test_tags_and_offsets(text: str, lang: str, expected: list[tuple[str, int, int]]) -> None:
    tags = find_time_tags(text, said_on("2024-05-03"), lang)
    assert [(t.expression, t.start_char, t.end_char) for t in tags] == expected
    assert all(text[t.start_char : t.end_char] == t.expression for t in tags)


def test_tags_in_a_message_resolve_against_its_timestamp() -> None:
    tags = find_time_tags("Yesterday I met Anna, and next Friday we fly.", said_on("2024-05-01"))
    assert [t.range.start for t in tags] == [at("2024-04-30"), at("2024-05-03")]


@pytest.mark.parametrize(
    ("phrase", "expected_start"),
    [("in march 2023", "2023-03-01"), ("in march", "2024-03-01"), ("  last month. ", "2024-04-01")],
)
def test_resolve_phrase_is_lenient_about_case_and_padding(phrase: str, expected_start: str) -> None:
    got = resolve_phrase(phrase, said_on("2024-05-03"))
    assert got is not None and got.start == at(expected_start)


@pytest.mark.parametrize(
    "phrase", ["hello", "last month and next week", "I met Anna yesterday", ""]
)
def test_resolve_phrase_refuses_what_is_not_one_time_phrase(phrase: str) -> None:
    assert resolve_phrase(phrase, said_on("2024-05-03")) is None


def test_resolve_phrase_detects_chinese() -> None:
    assert resolve_phrase("上个月", said_on("2024-05-03")) == resolve_phrase(
        "上个月", said_on("2024-05-03"), lang="zh"
    )
    assert resolve_phrase("上个月", said_on("2024-05-03"), lang="en") is None


def test_naive_reference_is_refused() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        find_time_tags("yesterday", datetime(2024, 5, 3))


def test_message_without_time_words_is_cheap() -> None:
    """Without a time word the parser is skipped: measured against the same message with one,
    in the same run (a ratio, as these machines are shared)."""
    plain = (
        "I really like working with Python and Neo4j because the graph model makes "
        "relationships easy to query and to explain to my colleagues"
    )
    dated = plain.replace("because", "since last Tuesday because")
    reference = said_on("2024-05-03")
    assert find_time_tags(plain, reference) == [] and find_time_tags(dated, reference)

    def cost(text: str) -> float:
        began = time.perf_counter()
        for _ in range(200):
            find_time_tags(text, reference)
        return time.perf_counter() - began

    assert cost(plain) < cost(dated) / 4

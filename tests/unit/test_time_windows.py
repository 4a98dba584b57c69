"""Windows of time from phrases (service/nlp/time/windows.py), in English and Chinese."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from service.nlp.time.windows import Window, resolve_window

REF = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)


def day(year: int, month: int, d: int = 1) -> datetime:
    return datetime(year, month, d, tzinfo=UTC)


@pytest.mark.parametrize(
    ("phrase", "start", "end"),
    [
        # one period, as search reads it
        ("last month", day(2026, 5), day(2026, 6)),
        ("上个月", day(2026, 5), day(2026, 6)),
        # two periods joined: from the start of the first to the end of the second
        ("between March and May", day(2026, 3), day(2026, 6)),
        ("between march and may", day(2026, 3), day(2026, 6)),
        ("from March to May", day(2026, 3), day(2026, 6)),
        ("March to May 2026", day(2026, 3), day(2026, 6)),
        ("从三月到五月", day(2026, 3), day(2026, 6)),
        ("3月到5月", day(2026, 3), day(2026, 6)),
        ("三月到五月之间", day(2026, 3), day(2026, 6)),
        ("between November and February", day(2025, 11), day(2026, 3)),
        # since / after: up to the reference
        ("since last month", day(2026, 5), REF),
        ("上个月以来", day(2026, 5), REF),
        ("自上个月以来", day(2026, 5), REF),
        ("从三月开始", day(2026, 3), REF),
        ("去年以来", day(2025, 1), REF),
        ("since 2025", day(2025, 1), REF),
        ("after March", day(2026, 4), REF),
        ("三月以后", day(2026, 4), REF),
        # before / until: from the beginning
        ("before May", None, day(2026, 5)),
        ("五月之前", None, day(2026, 5)),
        ("until April", None, day(2026, 5)),
        ("直到四月为止", None, day(2026, 5)),
    ],
)
def test_a_phrase_is_a_window(phrase: str, start: datetime | None, end: datetime | None) -> None:
    assert resolve_window(phrase, REF) == Window(start, end)


@pytest.mark.parametrize(
    "phrase",
    ["hello", "since", "between March and hello", "March or May", "the March report", "上个月的事"],
)
def test_words_that_make_no_window_are_none(phrase: str) -> None:
    assert resolve_window(phrase, REF) is None


def test_the_window_moves_with_the_reference() -> None:
    earlier = datetime(2025, 2, 10, tzinfo=UTC)
    assert resolve_window("between March and May", earlier) == Window(day(2024, 3), day(2024, 6))
    assert resolve_window("上个月以来", earlier) == Window(day(2025, 1), earlier)

"""How many everyday time phrases ``resolve_phrase`` gets right, per class and language.

Run: ``PYTHONPATH=$PWD python -m bench.time_phrases`` (``--misses`` lists the failures).
Every phrase is said on Wednesday 2025-03-12 at 15:00 UTC; the expected ranges follow the
rules documented in ``service/nlp/time/``.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from datetime import UTC, date, datetime, time

from service.nlp.time.calendar import Granularity, TimeRange
from service.nlp.time.tags import resolve_phrase

REFERENCE = datetime(2025, 3, 12, 15, 0, tzinfo=UTC)
D, W, M = Granularity.DAY, Granularity.WEEK, Granularity.MONTH
Y, DEC = Granularity.YEAR, Granularity.DECADE


@dataclass(frozen=True)
class Case:
    phrase: str
    start: str
    end: str
    granularity: Granularity

    def expected(self) -> TimeRange:
        def midnight(day: str) -> datetime:
            return datetime.combine(date.fromisoformat(day), time(), tzinfo=UTC)

        return TimeRange(midnight(self.start), midnight(self.end), self.granularity)


def cases(rows: list[tuple[str, str, str, Granularity]]) -> list[Case]:
    return [Case(*row) for row in rows]


# class -> language -> cases
SUITE: dict[str, dict[str, list[Case]]] = {
    "part of a period": {
        "en": cases(
            [
                ("in mid-November", "2024-11-11", "2024-11-21", D),
                ("at the end of October", "2024-10-21", "2024-11-01", D),
                ("in early 2025", "2025-01-01", "2025-05-01", M),
                ("late 2023", "2023-09-01", "2024-01-01", M),
                ("mid-2024", "2024-05-01", "2024-09-01", M),
                ("early last year", "2024-01-01", "2024-05-01", M),
                ("the end of last month", "2025-02-21", "2025-03-01", D),
                ("the beginning of this month", "2025-03-01", "2025-03-11", D),
                ("in late May", "2024-05-21", "2024-06-01", D),
                ("early next month", "2025-04-01", "2025-04-11", D),
                ("at the start of the year", "2025-01-01", "2025-05-01", M),
                ("the middle of last year", "2024-05-01", "2024-09-01", M),
                ("in the first half of 2024", "2024-01-01", "2024-07-01", M),
                ("the second half of last year", "2024-07-01", "2025-01-01", M),
                ("early December 2023", "2023-12-01", "2023-12-11", D),
                ("the end of last week", "2025-03-07", "2025-03-10", D),
                ("in early summer", "2024-06-01", "2024-07-01", M),
            ]
        ),
        "zh": cases(
            [
                ("年初", "2025-01-01", "2025-05-01", M),
                ("月底", "2025-03-21", "2025-04-01", D),
                ("上个月底", "2025-02-21", "2025-03-01", D),
                ("上半年", "2025-01-01", "2025-07-01", M),
                ("去年下半年", "2024-07-01", "2025-01-01", M),
                ("月初", "2025-03-01", "2025-03-11", D),
                ("上个月中旬", "2025-02-11", "2025-02-21", D),
                ("下旬", "2025-03-21", "2025-04-01", D),
                ("去年年底", "2024-09-01", "2025-01-01", M),
                ("2024年初", "2024-01-01", "2024-05-01", M),
                ("十月底", "2024-10-21", "2024-11-01", D),
                ("2023年11月上旬", "2023-11-01", "2023-11-11", D),
                ("下个月初", "2025-04-01", "2025-04-11", D),
                ("今年年中", "2025-05-01", "2025-09-01", M),
                ("去年底", "2024-09-01", "2025-01-01", M),
                ("本月中旬", "2025-03-11", "2025-03-21", D),
            ]
        ),
    },
    "span back from now": {
        "en": cases(
            [
                ("in the last two weeks", "2025-02-26", "2025-03-13", D),
                ("over the past three months", "2024-12-12", "2025-03-13", D),
                ("the past 3 months", "2024-12-12", "2025-03-13", D),
                ("in the last couple of weeks", "2025-02-26", "2025-03-13", D),
                ("the last few days", "2025-03-09", "2025-03-13", D),
                ("over the past year", "2024-03-12", "2025-03-13", D),
                ("in the past 10 days", "2025-03-02", "2025-03-13", D),
                ("the last 6 months", "2024-09-12", "2025-03-13", D),
                ("during the past week", "2025-03-05", "2025-03-13", D),
                ("these past two years", "2023-03-12", "2025-03-13", D),
                ("the last thirty days", "2025-02-10", "2025-03-13", D),
            ]
        ),
        "zh": cases(
            [
                ("过去两周", "2025-02-26", "2025-03-13", D),
                ("最近三个月", "2024-12-12", "2025-03-13", D),
                ("这几天", "2025-03-09", "2025-03-13", D),
                ("过去的一年", "2024-03-12", "2025-03-13", D),
                ("近两个月", "2025-01-12", "2025-03-13", D),
                ("最近几周", "2025-02-19", "2025-03-13", D),
                ("过去10天", "2025-03-02", "2025-03-13", D),
                ("这两天", "2025-03-10", "2025-03-13", D),
                ("最近半年", "2024-09-12", "2025-03-13", D),
                ("近三年", "2022-03-12", "2025-03-13", D),
            ]
        ),
    },
    "two steps back": {
        "en": cases(
            [
                ("the week before last", "2025-02-24", "2025-03-03", W),
                ("the month before last", "2025-01-01", "2025-02-01", M),
                ("the year before last", "2023-01-01", "2024-01-01", Y),
                ("the week after next", "2025-03-24", "2025-03-31", W),
                ("the weekend before last", "2025-03-01", "2025-03-03", D),
            ]
        ),
        "zh": cases(
            [
                ("上上周", "2025-02-24", "2025-03-03", W),
                ("上上个月", "2025-01-01", "2025-02-01", M),
                ("上上个星期", "2025-02-24", "2025-03-03", W),
                ("大前年", "2022-01-01", "2023-01-01", Y),
                ("下下周", "2025-03-24", "2025-03-31", W),
                ("上上周五", "2025-02-28", "2025-03-01", D),
            ]
        ),
    },
    "holiday": {
        "en": cases(
            [
                ("last Christmas", "2024-12-25", "2024-12-26", D),
                ("on New Year's Eve", "2024-12-31", "2025-01-01", D),
                ("at Thanksgiving", "2024-11-28", "2024-11-29", D),
                ("Christmas 2022", "2022-12-25", "2022-12-26", D),
                ("next Easter", "2025-04-20", "2025-04-21", D),
                ("last Easter", "2024-03-31", "2024-04-01", D),
                ("on Valentine's Day", "2025-02-14", "2025-02-15", D),
                ("Halloween", "2024-10-31", "2024-11-01", D),
                ("Mother's Day", "2024-05-12", "2024-05-13", D),
                ("on Christmas Eve", "2024-12-24", "2024-12-25", D),
                ("next Thanksgiving", "2025-11-27", "2025-11-28", D),
                ("Chinese New Year", "2025-01-29", "2025-01-30", D),
                ("New Year's Day", "2025-01-01", "2025-01-02", D),
                ("the Fourth of July", "2024-07-04", "2024-07-05", D),
            ]
        ),
        "zh": cases(
            [
                ("去年圣诞节", "2024-12-25", "2024-12-26", D),
                ("国庆节", "2024-10-01", "2024-10-08", D),
                ("中秋节", "2024-09-17", "2024-09-18", D),
                ("春节", "2025-01-29", "2025-01-30", D),
                ("去年春节", "2024-02-10", "2024-02-11", D),
                ("2023年春节", "2023-01-22", "2023-01-23", D),
                ("除夕", "2025-01-28", "2025-01-29", D),
                ("端午节", "2024-06-10", "2024-06-11", D),
                ("元宵节", "2025-02-12", "2025-02-13", D),
                ("今年中秋节", "2025-10-06", "2025-10-07", D),
                ("七夕", "2024-08-10", "2024-08-11", D),
                ("元旦", "2025-01-01", "2025-01-02", D),
                ("明年春节", "2026-02-17", "2026-02-18", D),
                ("劳动节", "2024-05-01", "2024-05-02", D),
                ("情人节", "2025-02-14", "2025-02-15", D),
                ("感恩节", "2024-11-28", "2024-11-29", D),
            ]
        ),
    },
    "month or decade, no year": {
        "en": cases(
            [
                ("the nineties", "1990-01-01", "2000-01-01", DEC),
                ("in the eighties", "1980-01-01", "1990-01-01", DEC),
                ("in the early nineties", "1990-01-01", "1994-01-01", Y),
                ("the late 90s", "1997-01-01", "2000-01-01", Y),
                ("in the twenties", "2020-01-01", "2030-01-01", DEC),
                ("in October", "2024-10-01", "2024-11-01", M),
            ]
        ),
        "zh": cases(
            [
                ("十月份", "2024-10-01", "2024-11-01", M),
                ("三月份", "2025-03-01", "2025-04-01", M),
                ("2023年五月份", "2023-05-01", "2023-06-01", M),
                ("九十年代", "1990-01-01", "2000-01-01", DEC),
                ("八十年代", "1980-01-01", "1990-01-01", DEC),
                ("90年代", "1990-01-01", "2000-01-01", DEC),
                ("上世纪八十年代", "1980-01-01", "1990-01-01", DEC),
                ("八零年代", "1980-01-01", "1990-01-01", DEC),
                ("九十年代初", "1990-01-01", "1994-01-01", Y),
            ]
        ),
    },
}


def score(misses: bool) -> None:
    print(f"Reference: {REFERENCE.isoformat()}\n")
    print("| class | en | zh |")
    print("| --- | --- | --- |")
    totals = {"en": [0, 0], "zh": [0, 0]}
    failures: list[str] = []
    for name, by_lang in SUITE.items():
        cells = []
        for lang in ("en", "zh"):
            right = 0
            for case in by_lang[lang]:
                got = resolve_phrase(case.phrase, REFERENCE)
                if got == case.expected():
                    right += 1
                else:
                    failures.append(f"{case.phrase!r}: got {got}")
            totals[lang][0] += right
            totals[lang][1] += len(by_lang[lang])
            cells.append(f"{right}/{len(by_lang[lang])}")
        print(f"| {name} | {cells[0]} | {cells[1]} |")
    en, zh = totals["en"], totals["zh"]
    print(f"| **all** | **{en[0]}/{en[1]}** | **{zh[0]}/{zh[1]}** |")
    if misses:
        print("\n" + "\n".join(failures))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", action="store_true", help="list the phrases resolved wrong")
    score(parser.parse_args().misses)

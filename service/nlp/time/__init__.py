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
decade words ("the nineties") are English rules of their own in ``english_phrases``, with the bounds
documented in ``periods`` and ``holidays``. Chinese rules live in ``chinese``; explicit
English dates ("8 May, 2023", "May 8th") go through ``dateparser``, pinned to the reference so
it never reads the clock.
"""

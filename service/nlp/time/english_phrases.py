"""English time phrases beyond single periods: parts of periods, spans, holidays, decade words.

``find_time_tags`` runs these after the rules in ``english.py``. What they mean:

- "early / mid / late X", "the beginning / start / middle / end of X", "the first / second half
  of X", where X is a month ("mid-November", with or without a year), a year ("early 2025"),
  a season, "last / this / next week / month / year", "the week / month / year" (the current
  one) or a decade ("the late 90s"): the part of X documented in ``periods``. A bare month or
  season is picked as in ``calendar.season_of_year`` (the latest not after the reference).
- "the last / past N days / weeks / months / years" ("in the last two weeks", "over the past
  3 months", "the past few days", "the last 24 hours"; "the" may go when N is said) and "in
  recent weeks" (N = 3): a span back from now, see ``periods``. Not "the last week of May"
  (a week of May) nor "last week" (the previous ISO week); "the last day" and "the previous
  month" (often of a story, not of now) need a number.
- "the week / month / year / weekend before last" and "... after next": two periods away;
  "the Friday / summer / May before last": the one before "last Friday / summer / May".
- "this past week / weekend": the last 7 days / the latest weekend begun.
- Quarters: "Q3", "Q3 2023", "the first quarter of 2024" (a year is needed here: "the fourth
  quarter" alone is mostly sport), "last / this / next quarter"; see ``periods``.
- Holiday names, bare or after "last / this / next", or with a year ("Christmas 2022",
  "Easter last year", "the Christmas before last"): see ``holidays``. "Christmas morning",
  "Easter weekend", "Thanksgiving break" are the holiday's own days.
- "the twenties" ... "the nineties": as "the 20s" ... "the 90s" (the latest such decade begun).
  Decades after "early / mid / late" need "the" or a century ("in her early 20s" is an age).
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

from service.nlp.time.calendar import (
    MONTHS,
    SEASON_MONTH,
    SEASONS,
    WEEKDAYS,
    Granularity,
    Resolver,
    Rule,
    RuleSet,
    TimeRange,
    cycle_range,
    decade_range,
    period,
    relative_period,
    season_of_year,
    shift,
    weekend_range,
)
from service.nlp.time.english import (
    EN_RULES,
    MONTH_NUMBERS,
    NUM,
    RELATION_WORDS,
    UNIT_WORDS,
    WEEKDAY_NUMBERS,
    alternation,
    count,
)
from service.nlp.time.holidays import Holiday, holiday_range, holidays_by_name
from service.nlp.time.periods import (
    latest_quarter,
    part_of,
    part_words,
    period_of_days,
    quarter_range,
    relative_quarter,
    span_back,
    time_phrase_words,
    units_back,
)

_G = Granularity
_BEFORE = part_words("en_before")
_OF = part_words("en_of")
_DECADE_WORDS: dict[str, int] = time_phrase_words().decades_en
_HOLIDAYS = holidays_by_name("en")
_HOLIDAYS_CAPITALISED = holidays_by_name("en_capitalised")
# Month names that are also common words count only capitalised or with a year.
_AMBIGUOUS_MONTHS = frozenset({"may", "march", "mar", "jan", "sept", "dec"})

_REL = rf"(?P<rel>{alternation(RELATION_WORDS)})"
_MONTH_CAP = rf"(?P<month>(?-i:{alternation(n.title() for n in MONTH_NUMBERS)}))"
_SEASON = rf"(?P<season>{alternation(SEASON_MONTH)})"
_DECADE = rf"(?:(?P<century>19|20)|')?(?P<decade>\d)0'?s|(?P<dword>{alternation(_DECADE_WORDS)})"
# A period a part can be taken of; each branch has its own groups, read by _whole_period.
_PERIOD = (
    rf"(?:{_REL}\s+(?:(?P<unit>week|month|year|decade)|(?P<rseason>{alternation(SEASON_MONTH)}))"
    r"|(?:the\s+)?(?P<this_unit>week|month|year|decade)"
    rf"|(?P<month>{alternation(MONTH_NUMBERS)})\.?(?:,?\s+(?:of\s+)?(?P<myear>(?:19|20)\d{{2}}))?"
    rf"|(?:the\s+)?{_SEASON}(?:\s+(?:of\s+)?(?P<syear>(?:19|20)\d{{2}}))?"
    r"|(?P<year>(?:19|20)\d{2})(?!'?s)"
    rf"|(?P<the>the\s+)?(?:{_DECADE}))"
)


def _whole_period(m: re.Match[str], ref: datetime) -> TimeRange | None:
    g = m.groupdict()
    if g["unit"] or g["this_unit"]:
        unit = UNIT_WORDS[(g["unit"] or g["this_unit"]).lower()]
        return relative_period(ref, unit, RELATION_WORDS[g["rel"].lower()] if g["rel"] else 0)
    if g["rseason"]:
        wanted = SEASON_MONTH[g["rseason"].lower()] % 12 // 3
        return cycle_range(ref, SEASONS, wanted, RELATION_WORDS[g["rel"].lower()])
    if g["month"]:
        if g["month"].lower() in _AMBIGUOUS_MONTHS and g["month"].islower() and not g["myear"]:
            return None  # "late may be"
        month = MONTH_NUMBERS[g["month"].lower()]
        if g["myear"]:
            return period(date(int(g["myear"]), month, 1), _G.MONTH, ref)
        return cycle_range(ref, MONTHS, month - 1, None)
    if g["season"]:
        season = g["season"].lower()
        if g["syear"]:
            return season_of_year(int(g["syear"]), season, ref)
        return cycle_range(ref, SEASONS, SEASON_MONTH[season] % 12 // 3, None)
    if g["year"]:
        return period(date(int(g["year"]), 1, 1), _G.YEAR, ref)
    return _decade(m, ref)


def _decade(m: re.Match[str], ref: datetime) -> TimeRange:
    if m["dword"]:
        return decade_range(_DECADE_WORDS[m["dword"].lower()], None, ref)
    return decade_range(int(m["decade"]), int(m["century"]) if m["century"] else None, ref)


def _part(m: re.Match[str], ref: datetime) -> TimeRange | None:
    is_decade = m["decade"] is not None or m["dword"] is not None
    if is_decade and not (m["the"] or m.groupdict().get("lead") or m["century"]):
        return None  # "in her early 20s": an age
    whole = _whole_period(m, ref)
    word = " ".join(m["part"].lower().split())
    part = _BEFORE.get(word) or _OF[word]
    return None if whole is None else part_of(whole, part, ref)


_ORDINAL = {"first": 0, "second": 1, "third": 2, "fourth": 3, "last": -1, "final": -1}


def _week_of(m: re.Match[str], ref: datetime) -> TimeRange | None:
    """The first (days 1-7) ... fourth week of a month or year, or its last 7 days."""
    whole = _whole_period(m, ref)
    if whole is None or whole.granularity not in (_G.MONTH, _G.YEAR):
        return None
    index = _ORDINAL[m["ord"].lower()]
    first, last = whole.start.date(), whole.end.date()
    start = last - timedelta(days=7) if index < 0 else first + timedelta(days=7 * index)
    return period_of_days(start, 7, ref)


def _span(m: re.Match[str], ref: datetime) -> TimeRange | None:
    unit = m["unit"].lower()
    if unit == "fortnight":
        return units_back(ref, _G.WEEK, 2 * (count(m) if m.groupdict().get("n") else 1))
    if m.groupdict().get("n") is None:
        if unit in ("day", "hour") or m["word"].lower() in ("previous", "preceding"):
            return None  # "the last day" of something, "the previous year" of a story
        n = 1
    else:
        n = count(m)
    if unit == "hour":
        return span_back(ref, (ref - timedelta(hours=n)).date())
    return units_back(ref, UNIT_WORDS[unit], n)


def _recent_units(m: re.Match[str], ref: datetime) -> TimeRange:
    return units_back(ref, UNIT_WORDS[m["unit"].lower()], 3)  # "in recent weeks": a few


_QUARTERS = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "1st": 1,
    "2nd": 2,
    "3rd": 3,
    "4th": 4,
}


def _quarter(m: re.Match[str], ref: datetime) -> TimeRange:
    groups = m.groupdict()
    quarter = int(groups["qn"]) if groups.get("qn") else _QUARTERS[m["q"].lower()]
    if m["year"]:
        return quarter_range(int(m["year"]), quarter, ref)
    if groups.get("rel"):
        return quarter_range(ref.year + RELATION_WORDS[m["rel"].lower()], quarter, ref)
    return latest_quarter(ref, quarter)


def _relative_quarter(m: re.Match[str], ref: datetime) -> TimeRange:
    return relative_quarter(ref, RELATION_WORDS[m["rel"].lower()])


def _latest_weekend(m: re.Match[str], ref: datetime) -> TimeRange:
    return weekend_range(ref, 0 if ref.weekday() >= 5 else -1)


def _cycle_before_last(m: re.Match[str], ref: datetime) -> TimeRange:
    """One turn before "last X": a week before last Friday, a year before last summer / May."""
    if m["wd"]:
        last = cycle_range(ref, WEEKDAYS, WEEKDAY_NUMBERS[m["wd"].lower()], -1)
        return period(last.start.date() - timedelta(days=7), _G.DAY, ref)
    if m["season"]:
        last = cycle_range(ref, SEASONS, SEASON_MONTH[m["season"].lower()] % 12 // 3, -1)
    else:
        last = cycle_range(ref, MONTHS, MONTH_NUMBERS[m["month"].lower()] - 1, -1)
    return period(shift(last.start.date(), _G.YEAR, -1), last.granularity, ref)


def _two_away(m: re.Match[str], ref: datetime) -> TimeRange:
    steps = -2 if m["dir"].lower().startswith("before") else 2
    unit = m["unit"].lower()
    if unit == "weekend":
        return weekend_range(ref, steps)
    return relative_period(ref, UNIT_WORDS[unit], steps)


def _holiday(m: re.Match[str], ref: datetime) -> TimeRange:
    holiday = _HOLIDAY_KEYS[_name_key(m["name"])]
    if m["year"]:
        return holiday_range(holiday, ref, year=int(m["year"]))
    if m["before_last"]:
        return holiday_range(holiday, ref, year=ref.year - 2)
    if m["yrel"]:
        return holiday_range(holiday, ref, year=ref.year + RELATION_WORDS[m["yrel"].lower()])
    relation = RELATION_WORDS[m["rel"].lower()] if m["rel"] else None
    return holiday_range(holiday, ref, relation=relation)


def _name_key(name: str) -> str:
    """The spelling variants that ``_name_pattern`` accepts, made one ("St. Patrick's" and
    "st patricks" alike)."""
    return " ".join(re.sub(r"['’.]", "", name.lower()).replace("-", " ").split())


_HOLIDAY_KEYS: dict[str, Holiday] = {
    _name_key(name): holiday
    for table in (_HOLIDAYS, _HOLIDAYS_CAPITALISED)
    for name, holiday in table.items()
}


def _name_pattern(name: str) -> str:
    """A holiday name as a regex: any run of spaces, an optional apostrophe, "St" or "St."."""
    escaped = re.escape(name).replace(r"\ ", r"\s+").replace(r"\-", r"[-\s]?")
    return escaped.replace("'", "['’]?").replace(r"st\.", r"st\.?")


def _holiday_names() -> str:
    anycase = "|".join(_name_pattern(n) for n in sorted(_HOLIDAYS, key=len, reverse=True))
    exact = "|".join(_name_pattern(n) for n in sorted(_HOLIDAYS_CAPITALISED, key=len, reverse=True))
    return rf"(?P<name>{anycase}|(?-i:{exact}))"


def _holiday_gate() -> re.Pattern[str]:
    """Any holiday name, lowercase: the case-insensitive holiday rule costs several times more."""
    names = sorted({n.lower() for n in [*_HOLIDAYS, *_HOLIDAYS_CAPITALISED]}, key=len, reverse=True)
    return re.compile("|".join(_name_pattern(n) for n in names))


def _holiday_keywords() -> str:
    """The longest word of each holiday name that the base rules' pre-check would miss
    ("christmas", not "mother's day"): the pre-check scans every message, so it stays short."""
    names = [n for n in [*_HOLIDAYS, *_HOLIDAYS_CAPITALISED] if not EN_RULES.trigger.search(n)]
    return alternation({max(re.findall(r"[a-z]+", n.lower()), key=len) for n in names})


def _en(pattern: str, resolve: Resolver) -> Rule:
    return Rule(re.compile(pattern, re.IGNORECASE), resolve)


_NAMED_TIME = alternation(
    [*WEEKDAY_NUMBERS, *MONTH_NUMBERS, *SEASON_MONTH, *UNIT_WORDS, "weekend", "night"]
)
_SPAN_UNIT = r"(?P<unit>hour|day|week|fortnight|month|year|decade)s?\b(?!\s+(?:of|before|after)\b)"
_SPAN_LEAD = r"(?:(?:in|over|during|for|within|throughout)\s+)?"

EN_PHRASE_RULES = RuleSet(
    trigger=re.compile(rf"ties|hour|q[1-4]|quarter|{_holiday_keywords()}"),
    rules=(
        _en(
            rf"\b(?P<lead>the\s+)?(?P<part>{alternation(_BEFORE)})(?:-|\s+)(?:of\s+)?{_PERIOD}\b",
            _part,
        ),
        _en(
            rf"\b(?:(?:at|by|towards?|around|near|in|during)\s+)?(?:the\s+)?"
            rf"(?P<part>{alternation(_OF)})\s+of\s+{_PERIOD}\b",
            _part,
        ),
        _en(rf"\b(?P<part>{alternation(_BEFORE)})\s+in\s+{_PERIOD}\b", _part),
        _en(
            r"\b(?:(?:in|during|on)\s+)?the\s+(?P<ord>first|second|third|fourth|last|final)\s+"
            rf"week\s+of\s+{_PERIOD}\b",
            _week_of,
        ),
        _en(
            rf"\b{_SPAN_LEAD}(?:the|these|those|this)\s+(?P<word>last|past|previous|preceding)\s+"
            rf"(?:{NUM}\s+)?{_SPAN_UNIT}",
            _span,
        ),
        _en(rf"\b{_SPAN_LEAD}(?:last|past)\s+{NUM}\s+{_SPAN_UNIT}", _span),
        _en(r"\bin\s+recent\s+(?P<unit>day|week|month|year)s\b", _recent_units),
        _en(
            r"\bthe\s+(?P<unit>week|month|year|weekend)\s+(?P<dir>before\s+last|after\s+next)\b"
            rf"(?!\s+(?:{_NAMED_TIME}))",  # "the week before last Friday" is not two weeks back
            _two_away,
        ),
        _en(
            rf"\bthe\s+(?:(?P<wd>{alternation(WEEKDAY_NUMBERS)})|{_SEASON}|{_MONTH_CAP})"
            r"\s+before\s+last\b",
            _cycle_before_last,
        ),
        _en(r"\b(?:over\s+)?(?:this|the)\s+past\s+weekend\b", _latest_weekend),
        _en(
            r"\b(?:(?:in|during)\s+)?(?:the\s+)?(?P<q>first|second|third|fourth|1st|2nd|3rd|4th)"
            r"\s+quarter\s+of\s+(?:(?P<year>(?:19|20)\d{2})|(?P<rel>last|this|next)\s+year)\b",
            _quarter,
        ),
        _en(
            r"\b(?:(?:in|during)\s+)?Q(?P<qn>[1-4])(?:\s+(?:of\s+)?(?P<year>(?:19|20)\d{2}))?\b",
            _quarter,
        ),
        _en(rf"\b{_REL}\s+quarter\b(?!\s+of\b)", _relative_quarter),
        Rule(
            re.compile(
                rf"\b(?:{_REL}\s+|(?:over|for)\s+)?(?:the\s+)?{_holiday_names()}"
                r"(?:\s+(?:morning|afternoon|evening|night|weekend|break|holidays?|vacation)\b)?"
                rf"(?:\s+(?:of\s+)?(?P<year>(?:19|20)\d{{2}})\b|\s+(?P<yrel>last|this|next)\s+year\b"
                r"|\s+(?P<before_last>before\s+last)\b)?"
                r"(?![\w'’])",
                re.IGNORECASE,
            ),
            _holiday,
            gate=_holiday_gate(),
        ),
        _en(rf"\b(?:in\s+)?the\s+(?P<dword>{alternation(_DECADE_WORDS)})\b", _decade),
    ),
)

"""Chinese time expressions: the rule table behind ``find_time_tags(..., lang="zh")``.

Same calendar as the English rules (see ``temporal``), with two Chinese readings:

- 上周五 / 这周一 / 下周三 are weekdays *of* the previous / current / next ISO week (not "the last
  Friday"); a bare 周五 / 星期五 is the most recent one, today included. 日 and 天 are Sunday.
- 去年春天 / 今年冬天 / 2023年秋天 are the season of that year, winter starting in its December.
- M月D日 and M月 without a year are the most recent such day or month not after the reference.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date, datetime, timedelta

from service.nlp.temporal import (
    ISO_DATE_RULE,
    MONTHS,
    WEEKDAYS,
    Granularity,
    Rule,
    RuleSet,
    TimeRange,
    cycle_range,
    period,
    recent_range,
    relative_period,
    season_of_year,
    shift,
    weekend_range,
)

_DAY, _WEEK, _MONTH, _YEAR = Granularity.DAY, Granularity.WEEK, Granularity.MONTH, Granularity.YEAR

_DIGIT = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6,
          "七": 7, "八": 8, "九": 9}  # fmt: skip
_CN_NUMBER = r"(?:[一二三四五六七八九]?十[一二三四五六七八九]?|[零一二两三四五六七八九])"
_MONTH_NUMBER = r"(?:\d{1,2}|十[一二]?|[一二三四五六七八九])"
_DAY_NUMBER = r"(?:\d{1,2}|[二三]?十[一二三四五六七八九]?|[一二三四五六七八九])"
_REL_PREFIX = {"上": -1, "这": 0, "本": 0, "下": 1}
_YEAR_WORD = {"前年": -2, "去年": -1, "今年": 0, "明年": 1, "后年": 2}
_WEEKDAY = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_SEASON = {"春": "spring", "夏": "summer", "秋": "autumn", "冬": "winter"}
_UNIT = {"天": _DAY, "周": _WEEK, "星期": _WEEK, "个星期": _WEEK, "礼拜": _WEEK, "个礼拜": _WEEK,
         "个月": _MONTH, "年": _YEAR}  # fmt: skip

_FIXED: dict[str, tuple[Granularity, int]] = {
    "今天": (_DAY, 0), "今日": (_DAY, 0), "今晚": (_DAY, 0), "今早": (_DAY, 0),
    "昨天": (_DAY, -1), "昨日": (_DAY, -1), "昨晚": (_DAY, -1), "前天": (_DAY, -2),
    "大前天": (_DAY, -3), "明天": (_DAY, 1), "后天": (_DAY, 2), "大后天": (_DAY, 3),
    **{word: (_YEAR, n) for word, n in _YEAR_WORD.items()},
    **{p + w: (_WEEK, n) for p, n in _REL_PREFIX.items()
       for w in ("周", "星期", "个星期", "礼拜", "个礼拜")},
    **{p + w: (_MONTH, n) for p, n in _REL_PREFIX.items() for w in ("月", "个月")},
}  # fmt: skip


def cn_number(text: str) -> int:
    """Arabic digits or a Chinese numeral up to 99 (十二, 二十五, 两); 几 ("a few") is 3."""
    if text.isdigit():
        return int(text)
    if text == "几":
        return 3
    if "十" in text:
        tens, _, ones = text.partition("十")
        return (_DIGIT[tens] if tens else 1) * 10 + (_DIGIT[ones] if ones else 0)
    return _DIGIT[text]


def _alternation(words: Iterable[str]) -> str:
    return "|".join(sorted(words, key=len, reverse=True))


def _year(m: re.Match[str], ref: datetime) -> int:
    groups = m.groupdict()
    return int(groups["y"]) if groups.get("y") else ref.year + _YEAR_WORD[groups["yw"]]


def _fixed(m: re.Match[str], ref: datetime) -> TimeRange:
    unit, n = _FIXED[m[0]]
    return relative_period(ref, unit, n)


def _weekday(m: re.Match[str], ref: datetime) -> TimeRange:
    weekday = _WEEKDAY[m["wd"]]
    if not m["rel"]:
        return cycle_range(ref, WEEKDAYS, weekday, None)
    day = shift(ref.date(), _WEEK, _REL_PREFIX[m["rel"]])
    return period(day + timedelta(days=weekday - day.weekday()), _DAY, ref)


def _weekend(m: re.Match[str], ref: datetime) -> TimeRange:
    return weekend_range(ref, _REL_PREFIX[m["rel"]])


def _offset(m: re.Match[str], ref: datetime) -> TimeRange:
    sign = -1 if m["dir"].endswith("前") else 1
    return relative_period(ref, _UNIT[m["unit"]], sign * cn_number(m["n"]))


def _calendar_date(m: re.Match[str], ref: datetime) -> TimeRange:
    year = _year(m, ref)
    if not m["m"]:
        return period(date(year, 1, 1), _YEAR, ref)
    if not m["d"]:
        return period(date(year, cn_number(m["m"]), 1), _MONTH, ref)
    return period(date(year, cn_number(m["m"]), cn_number(m["d"])), _DAY, ref)


def _month_day(m: re.Match[str], ref: datetime) -> TimeRange | None:
    month, day, today = cn_number(m["m"]), cn_number(m["d"]), ref.date()
    for year in range(today.year, today.year - 8, -1):  # 2月29日 may lie a few years back
        try:
            candidate = date(year, month, day)
        except ValueError:
            continue
        if candidate <= today:
            return period(candidate, _DAY, ref)
    return None


def _month(m: re.Match[str], ref: datetime) -> TimeRange | None:
    month = cn_number(m["m"])
    return cycle_range(ref, MONTHS, month - 1, None) if 1 <= month <= 12 else None


def _season(m: re.Match[str], ref: datetime) -> TimeRange:
    return season_of_year(_year(m, ref), _SEASON[m["season"]], ref)


_MONTH_GROUP = rf"(?P<m>{_MONTH_NUMBER})"
_YEAR_PREFIX = rf"(?:(?<!\d)(?P<y>\d{{4}})年|(?P<yw>{_alternation(_YEAR_WORD)}))"
# A count or a weekday right after a number or 每/隔 is a duration or a habit, not a date.
_NOT_AFTER_NUMBER = r"(?<![\d〇零一二两三四五六七八九十几每隔])"

ZH_RULES = RuleSet(
    trigger=re.compile(r"[\d天周月年期拜近晚早]"),
    rules=(
        Rule(re.compile(_alternation(_FIXED)), _fixed),
        Rule(
            re.compile(
                rf"{_NOT_AFTER_NUMBER}(?:(?P<rel>[上这本下])个?)?(?:周|星期|礼拜)"
                r"(?P<wd>[一二三四五六日天])"
            ),
            _weekday,
        ),
        Rule(re.compile(r"(?P<rel>[上这本下])个?周末"), _weekend),
        Rule(
            re.compile(
                rf"{_NOT_AFTER_NUMBER}(?P<n>\d{{1,2}}|几|{_CN_NUMBER})"
                r"(?P<unit>天|周|个?星期|个?礼拜|个月|年)(?P<dir>以前|之前|前|以后|之后|后)"
            ),
            _offset,
        ),
        Rule(
            re.compile(rf"{_YEAR_PREFIX}(?:{_MONTH_GROUP}月(?:(?P<d>{_DAY_NUMBER})[日号])?)?"),
            _calendar_date,
        ),
        Rule(re.compile(rf"(?<![\d年十]){_MONTH_GROUP}月(?P<d>{_DAY_NUMBER})[日号]"), _month_day),
        Rule(re.compile(rf"(?<![\d年个十]){_MONTH_GROUP}月"), _month),
        Rule(re.compile(rf"{_YEAR_PREFIX}(?P<season>[春夏秋冬])[天季]"), _season),
        Rule(re.compile(r"最近(?!的)|近来|近期"), lambda m, ref: recent_range(ref)),
        ISO_DATE_RULE,
    ),
)

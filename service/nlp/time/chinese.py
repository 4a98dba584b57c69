"""Chinese time expressions: the rule table behind ``find_time_tags(..., lang="zh")``.

Same calendar (``calendar.py``) as the English rules (``english.py``), with two Chinese readings:

- 上周五 / 这周一 / 下周三 are weekdays *of* the previous / current / next ISO week (not "the last
  Friday"); a bare 周五 / 星期五 is the most recent one, today included. 日 and 天 are Sunday.
- 去年春天 / 今年冬天 / 2023年秋天 are the season of that year, winter starting in its December.
- M月D日 and M月 (M月份) without a year are the most recent such day or month not after the
  reference.
- 上上 / 下下 are two steps away (上上周, 上上个月, 上上周五); 大前年 / 大后年 three years.
- 年初 / 年中 / 年底 (年末), 上半年 / 下半年, 月初 / 月中 / 月底, 上旬 / 中旬 / 下旬 are parts of
  the year or month named before them (2024年初, 去年年底, 上个月底, 十月中旬), else of the current
  one; 九十年代初 / 末 of a decade. Bounds in ``periods``. 年中 needs a doubled 年 after a year
  (今年年中), as 今年中国 is "China this year". 三月的第一周 is days 1-7 of March, 第四周 days
  22-28, 最后一周 the month's last 7 days.
- 过去 / 最近 / 近 / 这 + a count + a unit (过去两周, 最近三个月, 近半年, 这几天 with 几 = 3,
  这两天) are spans back from now, see ``periods``; 这些天 is 3 days. 这一年 is not a span.
- 一季度 / 第三季度 / 去年四季度 / 上个季度 are calendar quarters, see ``periods``.
- 九十年代 / 90年代 / 八零年代 without a century are the latest such decade begun; 上世纪 and
  二十世纪 mean the 1900s.
- Festivals by name, bare or after a year word or 上个 / 这个 / 下个: see ``holidays``.
  国庆 counts only after one of those, as it is also a given name; 国庆节 counts alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date, datetime, timedelta

from service.nlp.time.calendar import (
    ISO_DATE_RULE,
    MONTHS,
    WEEKDAYS,
    Granularity,
    Rule,
    RuleSet,
    TimeRange,
    cycle_range,
    decade_range,
    period,
    recent_range,
    relative_period,
    season_of_year,
    shift,
    weekend_range,
)
from service.nlp.time.holidays import holiday_range, holidays_by_name
from service.nlp.time.periods import (
    latest_quarter,
    part_of,
    part_words,
    period_of_days,
    quarter_range,
    relative_quarter,
    span_back,
    units_back,
)

_DAY, _WEEK, _MONTH, _YEAR = Granularity.DAY, Granularity.WEEK, Granularity.MONTH, Granularity.YEAR

_DIGIT = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_CN_NUMBER = r"(?:[一二三四五六七八九]?十[一二三四五六七八九]?|[零一二两三四五六七八九])"
_MONTH_NUMBER = r"(?:\d{1,2}|十[一二]?|[一二三四五六七八九])"
_DAY_NUMBER = r"(?:\d{1,2}|[二三]?十[一二三四五六七八九]?|[一二三四五六七八九])"
_REL_PREFIX = {"上上": -2, "上": -1, "这": 0, "本": 0, "下": 1, "下下": 2}
_YEAR_WORD = {"大前年": -3, "前年": -2, "去年": -1, "今年": 0, "明年": 1, "后年": 2, "大后年": 3}
_WEEKDAY = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_SEASON = {"春": "spring", "夏": "summer", "秋": "autumn", "冬": "winter"}
_UNIT = {
    "天": _DAY,
    "周": _WEEK,
    "星期": _WEEK,
    "个星期": _WEEK,
    "礼拜": _WEEK,
    "个礼拜": _WEEK,
    "个月": _MONTH,
    "年": _YEAR,
}

_FIXED: dict[str, tuple[Granularity, int]] = {
    "今天": (_DAY, 0),
    "今日": (_DAY, 0),
    "今晚": (_DAY, 0),
    "今早": (_DAY, 0),
    "昨天": (_DAY, -1),
    "昨日": (_DAY, -1),
    "昨晚": (_DAY, -1),
    "前天": (_DAY, -2),
    "大前天": (_DAY, -3),
    "明天": (_DAY, 1),
    "后天": (_DAY, 2),
    "大后天": (_DAY, 3),
    **{word: (_YEAR, n) for word, n in _YEAR_WORD.items()},
    **{
        p + w: (_WEEK, n)
        for p, n in _REL_PREFIX.items()
        for w in ("周", "星期", "个星期", "礼拜", "个礼拜")
    },
    **{p + w: (_MONTH, n) for p, n in _REL_PREFIX.items() for w in ("月", "个月")},
}


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


def alternation(words: Iterable[str]) -> str:
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


def _year_part(m: re.Match[str], ref: datetime) -> TimeRange | None:
    if m.groupdict().get("again") is None and m["part"] == "中":
        return None  # 今年中国 is "China this year"; mid-year needs 今年年中
    year = _year(m, ref) if m.groupdict().get("y") or m.groupdict().get("yw") else ref.year
    return part_of(period(date(year, 1, 1), _YEAR, ref), _YEAR_PARTS[m["part"]], ref)


def _named_month(m: re.Match[str], ref: datetime) -> TimeRange | None:
    """The month of a ``_MONTH_WHOLE`` match: 2024年10月, 十月, 上个月, or 月 alone (this one)."""
    groups = m.groupdict()
    if groups.get("ym"):
        return period(date(_year(m, ref), cn_number(groups["ym"]), 1), _MONTH, ref)
    if groups.get("m"):
        month = cn_number(groups["m"])
        return cycle_range(ref, MONTHS, month - 1, None) if 1 <= month <= 12 else None
    return relative_period(ref, _MONTH, _REL_PREFIX[groups["rel"]] if groups.get("rel") else 0)


def _month_part(m: re.Match[str], ref: datetime) -> TimeRange | None:
    whole = _named_month(m, ref)
    return None if whole is None else part_of(whole, _MONTH_PARTS[m["part"]], ref)


def _week_of_month(m: re.Match[str], ref: datetime) -> TimeRange | None:
    """第一周 = days 1-7 ... 第四周 = days 22-28; 最后一周 = the month's last 7 days."""
    whole = _named_month(m, ref)
    if whole is None:
        return None
    if m["ord"]:
        start = whole.start.date() + timedelta(days=7 * (cn_number(m["ord"]) - 1))
    else:
        start = whole.end.date() - timedelta(days=7)
    return period_of_days(start, 7, ref)


def _decade(m: re.Match[str], ref: datetime) -> TimeRange | None:
    first = m["dec"][0]
    digit = int(first) if first.isdigit() else _DIGIT[first]
    century = _CENTURY.get(m["cent"] or "") or (int(m["cd"]) if m["cd"] else None)
    decade = decade_range(digit, century, ref)
    return part_of(decade, _DECADE_PARTS[m["part"]], ref) if m["part"] else decade


def _span(m: re.Match[str], ref: datetime) -> TimeRange | None:
    if m["unit"] in _HOURS:
        if m["n"] == "半":
            return None
        return span_back(ref, (ref - timedelta(hours=cn_number(m["n"]))).date())
    unit = _SPAN_UNIT[m["unit"]]
    if m["n"] == "半":  # 最近半年, 过去半个月
        half = {_YEAR: (_MONTH, 6), _MONTH: (_DAY, 15)}.get(unit)
        return None if half is None else units_back(ref, *half)
    n = cn_number(m["n"])
    if n == 1 and m["lead"].endswith("这"):
        return None  # 这一年, 这一天: "this year", "that day"
    return units_back(ref, unit, n)


def _quarter(m: re.Match[str], ref: datetime) -> TimeRange:
    if m["rel"]:
        return relative_quarter(ref, _REL_PREFIX[m["rel"]])
    quarter = cn_number(m["q"])
    if m["y"] or m["yw"]:
        return quarter_range(_year(m, ref), quarter, ref)
    return latest_quarter(ref, quarter)


def _holiday(m: re.Match[str], ref: datetime) -> TimeRange:
    holiday = _HOLIDAYS.get(m["name"]) or _HOLIDAYS_WITH_YEAR[m["name"]]
    if m["y"] or m["yw"]:
        return holiday_range(holiday, ref, year=_year(m, ref))
    relation = _REL_PREFIX[m["rel"]] if m["rel"] else None
    return holiday_range(holiday, ref, relation=relation)


_MONTH_GROUP = rf"(?P<m>{_MONTH_NUMBER})"
_YEAR_PREFIX = rf"(?:(?<!\d)(?P<y>\d{{4}})年|(?P<yw>{alternation(_YEAR_WORD)}))"
# A count or a weekday right after a number or 每/隔 is a duration or a habit, not a date.
_NOT_AFTER_NUMBER = r"(?<![\d〇零一二两三四五六七八九十几每隔])"

_YEAR_PARTS = part_words("zh_year")
_MONTH_PARTS = part_words("zh_month")
_DECADE_PARTS = part_words("zh_decade")
_HOLIDAYS = holidays_by_name("zh")
_HOLIDAYS_WITH_YEAR = holidays_by_name("zh_with_year")
_CENTURY = {
    "上世纪": 19,
    "上个世纪": 19,
    "二十世纪": 19,
    "20世纪": 19,
    "本世纪": 20,
    "二十一世纪": 20,
    "21世纪": 20,
}
_HOURS = ("小时", "个小时", "个钟头")
_SPAN_UNIT = {**_UNIT, "日": _DAY, "月": _MONTH}
# A 年 or 月 after these is a count, an age or a habit (三个月中, 岁月, 每年底), not a date.
_NOT_A_DATE = r"(?<![\d〇零一二两三四五六七八九十几个每半多岁日正腊上下这本去今明前后])"
_ONE_CHAR_YEAR_PARTS = alternation(p for p in _YEAR_PARTS if len(p) == 1)  # 年初, 去年底
_WORD_YEAR_PARTS = alternation(p for p in _YEAR_PARTS if len(p) > 1)  # 上半年
_TEN_DAY_PARTS = alternation(p for p in _MONTH_PARTS if p.endswith("旬"))  # 上旬 alone
_MONTH_WHOLE = (
    rf"(?:{_YEAR_PREFIX}(?P<ym>{_MONTH_NUMBER})月|(?<![\d年个十])(?P<m>{_MONTH_NUMBER})月"
    rf"|(?P<rel>上上|下下|[上这本下])个?月|{_NOT_A_DATE}月)份?"
)
_PART_RULES = (
    Rule(
        re.compile(
            rf"{_YEAR_PREFIX}的?(?P<again>年)?(?P<part>{alternation(_YEAR_PARTS)})(?![中期])"
        ),
        _year_part,
    ),
    Rule(
        re.compile(
            rf"{_NOT_A_DATE}(?P<again>年)(?P<part>{_ONE_CHAR_YEAR_PARTS})(?![中国文心央间华期])"
        ),
        _year_part,
    ),
    Rule(re.compile(rf"(?<![年去今明])(?P<part>{_WORD_YEAR_PARTS})"), _year_part),
    # 上个月底, 上个月的月底, 这个月月初
    Rule(
        re.compile(rf"{_MONTH_WHOLE}(?:的?月)?(?P<part>{alternation(_MONTH_PARTS)})"), _month_part
    ),
    Rule(
        re.compile(rf"{_MONTH_WHOLE}的?(?:第(?P<ord>[一二三四1-4])|最后一)(?:周|个星期|个礼拜)"),
        _week_of_month,
    ),
    Rule(re.compile(rf"(?<!月)(?P<part>{_TEN_DAY_PARTS})"), _month_part),
    Rule(
        re.compile(
            rf"(?:(?P<cent>{alternation(_CENTURY)})|(?<!\d)(?P<cd>19|20))?"
            r"(?P<dec>[一二三四五六七八九]十|[1-9]0|00|[〇零一二三四五六七八九][〇零])年代"
            rf"(?P<part>{alternation(_DECADE_PARTS)})?"
        ),
        _decade,
    ),
)
_SPAN_RULE = Rule(
    re.compile(
        r"(?P<lead>(?:过去|最近)?这|过去|最近|(?<![附接将])近)的?"
        rf"(?P<n>几|半|\d{{1,3}}|{_CN_NUMBER})(?P<unit>{alternation([*_SPAN_UNIT, *_HOURS])})"
        r"(?:以来|来|里|内)?"
    ),
    _span,
)
_QUARTER_RULE = Rule(
    re.compile(
        rf"(?:{_YEAR_PREFIX}的?)?(?<![\d〇零一二两三四五六七八九十])第?(?P<q>[一二三四1-4])季度"
        r"|(?P<rel>上上|下下|[上这本下])个?季度"
    ),
    _quarter,
)
_FEW_DAYS_RULE = Rule(
    re.compile(r"(?:最近)?这些(?:天|日子)"), lambda m, ref: units_back(ref, _DAY, 3)
)
_HOLIDAY_RULE = Rule(
    re.compile(
        r"(?<![\d〇零一二两三四五六七八九十几每隔年])"
        rf"(?:{_YEAR_PREFIX}的?|(?P<rel>上|这|下)一?个)?(?P<name>{alternation(_HOLIDAYS)})"
    ),
    _holiday,
)
_HOLIDAY_AFTER_YEAR_RULE = Rule(
    re.compile(
        rf"(?:{_YEAR_PREFIX}的?|(?P<rel>上|这|下)一?个)(?P<name>{alternation(_HOLIDAYS_WITH_YEAR)})"
    ),
    _holiday,
)

_TRIGGER_CHARS = r"[\d天周月年期拜近晚早旬季节]"
# Holiday names without one of those characters (元旦, 中秋): the pre-check looks for them whole.
_UNTRIGGERED_HOLIDAYS = [n for n in _HOLIDAYS if not re.search(_TRIGGER_CHARS, n)]

ZH_RULES = RuleSet(
    trigger=re.compile(rf"{_TRIGGER_CHARS}|{alternation(_UNTRIGGERED_HOLIDAYS)}"),
    rules=(
        Rule(re.compile(alternation(_FIXED)), _fixed),
        Rule(
            re.compile(
                rf"{_NOT_AFTER_NUMBER}(?:(?P<rel>上上|下下|[上这本下])个?)?(?:周|星期|礼拜)"
                r"(?P<wd>[一二三四五六日天])"
            ),
            _weekday,
        ),
        Rule(re.compile(r"(?P<rel>上上|下下|[上这本下])个?周末"), _weekend),
        Rule(
            re.compile(
                rf"{_NOT_AFTER_NUMBER}(?P<n>\d{{1,2}}|几|{_CN_NUMBER})"
                r"(?P<unit>天|周|个?星期|个?礼拜|个月|年)(?P<dir>以前|之前|前|以后|之后|后)"
            ),
            _offset,
        ),
        Rule(
            re.compile(rf"{_YEAR_PREFIX}(?:{_MONTH_GROUP}月(?:(?P<d>{_DAY_NUMBER})[日号]|份)?)?"),
            _calendar_date,
        ),
        Rule(re.compile(rf"(?<![\d年十]){_MONTH_GROUP}月(?P<d>{_DAY_NUMBER})[日号]"), _month_day),
        Rule(re.compile(rf"(?<![\d年个十]){_MONTH_GROUP}月份?"), _month),
        Rule(re.compile(rf"{_YEAR_PREFIX}(?P<season>[春夏秋冬])[天季]"), _season),
        Rule(re.compile(r"最近(?!的)|近来|近期"), lambda m, ref: recent_range(ref)),
        ISO_DATE_RULE,
        *_PART_RULES,
        _SPAN_RULE,
        _HOLIDAY_RULE,
        _HOLIDAY_AFTER_YEAR_RULE,
        _QUARTER_RULE,
        _FEW_DAYS_RULE,
    ),
)

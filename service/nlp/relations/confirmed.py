"""A yes-or-no question that the next speaker says yes to: what it asked is said.

"Is Tobin still at Ridgeway?" / "Yep, six years now." — the question states nothing, but the
answer confirms it. The pipeline reads the question again as a statement (``statements``) and
gives its relations to the answer. A yes-word must open the answer ("yes", "yep", 对, 嗯嗯, 是的);
"no", a question back, or anything else confirms nothing; in Chinese, saying the question's
verb again says yes (你去过大理吗？/ 去过).

The statement is the question with its question marks gone and, in English, its auxiliary put
after the subject ("Is Tobin still at X?" → "Tobin is still at X.", "Do you still work at X?" →
"you do still work at X."), a tag dropped ("You work at X, right?"). Modal questions ("Can you
…?", "Will you …?") ask for something and are left alone. In Chinese, 吗, 呢, 是不是, 有没有 and
a closing 对吧 are taken out (知音琴行是不是在张掖路那边？→ 知音琴行在张掖路那边).
"""

from __future__ import annotations

import re

CONFIRMED = "confirmed"  # the extractor's prefix
CONFIRMED_WEIGHT = 0.9  # a yes is a little less than saying it

# What opens an answer that says yes.
_YES = {
    "en": re.compile(
        r"^\W*(?:yes|yess+|yeah|yea|yep|yup|ya|yah|sure|definitely|of course|right|correct|"
        r"exactly|mhm|uh-huh|totally|indeed|still am|still is|i am|he is|she is|they are)\b",
        re.I,
    ),
    "zh": re.compile(r"^\W*(?:对|是的|是啊|是呀|是滴|嗯|没错|对的|可不|当然|没毛病)"),
}
# An answer that says yes by saying how often or how much: "Twice!", "Every night", "I do",
# 天天玩, 好几次了; a denial in its first clause undoes it ("I don't", 一直没去).
_OFTEN = {
    "en": re.compile(
        r"^\W*(?:absolutely|for sure|always|all the time|constantly|twice|once|loads|"
        r"every (?:day|night|week|weekend|morning|evening|year|summer|winter)|"
        r"(?:a few|a couple(?: of)?|many|so many|three|four|five) times|"
        r"(?:i|we|they|he|she) (?:do|did|have|does|has)|still (?:do|does|have|has)|"
        r"loved? it)\b",
        re.I,
    ),
    "zh": re.compile(
        r"^\W*(?:经常|天天|每天|一直|那必须|必须的|那当然|好几次|[两三四五几]次|常去|老去)"
    ),
}
_DENIED = {
    "en": re.compile(r"^[^,.!?;]*(?:\bnot\b|n't\b|n’t\b|\bnever\b)", re.I),
    "zh": re.compile(r"^[^，,。！!？?]*[不没别]"),
}
_NO = re.compile(r"^\W*(?:yes|yeah|yep|yup)?\W*(?:but|no|nope|not)\b", re.I)
_SENTENCE = {"en": re.compile(r"[^.!?]*\?+"), "zh": re.compile(r"[^。！!？?\n]*[？?]+")}
_AUX = {
    "is": "is", "are": "are", "was": "was", "were": "were", "isn't": "is", "aren't": "are",
    "wasn't": "was", "weren't": "were", "do": "do", "does": "does", "did": "did", "don't": "do",
    "doesn't": "does", "didn't": "did", "have": "have", "has": "has", "haven't": "have",
    "hasn't": "has",
}  # fmt: skip
_INVERTED = re.compile(
    r"^\s*(?:(?:so|and|but|oh|wait|hey|ok|okay)\W+)?(?:[A-Z][\w'’-]+,?\s+)??"
    rf"(?P<aux>{'|'.join(re.escape(a) for a in sorted(_AUX, key=len, reverse=True))})\s+"
    r"(?P<rest>.+)$",
    re.I,
)
_TAG = re.compile(
    r",?\s*(?:right|yeah|no|correct|isn'?t (?:it|he|she)|aren'?t (?:you|they)|don'?t (?:you|they)"
    r"|didn'?t (?:you|they)|innit|eh)\s*$",
    re.I,
)
# A wh-question, or a modal one (an offer, a request, a plan): no yes confirms a fact.
_NOT_YES_NO = re.compile(
    r"^\W*(?:[A-Z][\w'-]+,?\s+)?(?:who|what|where|when|why|how|which|can|could|will|would|"
    r"should|shall|may|might|must|wanna|want)\b",
    re.I,
)
# A Chinese answer's first clause of one to four characters, its particles aside (去过啊，…).
_ZH_ECHO = re.compile(r"^\W*([\u4e00-\u9fff]{1,4}?)[啊呀呢的啦哈]*(?:[，,。！!～~\s]|$)")
_ZH_NOT = re.compile(r"[不没别]")
_ZH_ASKING = re.compile(r"是不是|是否|(?<=[在去有])没有?(?=[，。？?]|$)")
_ZH_CLOSING = re.compile(r"(?:对吧|对不对|是吧|好吗|吗|呢|吧|嘛|啊|呀|没有|没)*[？?]+$")


def says_yes(text: str, lang: str, question: str = "") -> bool:
    """Whether an answer opens by saying yes (and not "yes, but no"); in Chinese also by
    saying the question's verb again (你去过大理吗？/ 去过，前年去的)."""
    key = "en" if lang == "en" else "zh"
    if _YES[key].match(text):
        return not _NO.match(text)
    if _OFTEN[key].match(text):
        return not _DENIED[key].match(text)
    if lang == "en":
        return False
    echo = _ZH_ECHO.match(text)
    return echo is not None and echo.group(1) in question and not _ZH_NOT.search(echo.group(1))


def statements(text: str, lang: str) -> list[str]:
    """The yes-or-no questions of ``text`` said as statements; none for a modal question or a
    wh-question (what is asked there is not a yes or a no)."""
    if lang == "en":
        return [s for q in questions(text, lang) if (s := _english(q))]
    return [s for q in questions(text, lang) if (s := _chinese(q))]


def questions(text: str, lang: str) -> list[str]:
    """The sentences of ``text`` that end in a question mark."""
    pattern = _SENTENCE["en" if lang == "en" else "zh"]
    return [q.strip() for q in pattern.findall(text)]


def _english(question: str) -> str | None:
    body = _TAG.sub("", question.replace("’", "'").rstrip("?").strip())
    if not body or _NOT_YES_NO.match(body):
        return None
    inverted = _INVERTED.match(body)
    if inverted is None:
        return body + "."  # "You're still at X?": already a statement
    aux = _AUX[inverted.group("aux").lower()]
    words = inverted.group("rest").split()
    end = subject_end(words)
    if end == 0:
        return None
    subject, rest = " ".join(words[:end]), " ".join(words[end:])
    return f"{subject} {aux} {rest}." if rest else None


def subject_end(words: list[str]) -> int:
    """How many words the subject after the auxiliary holds: a pronoun, "your" and a noun, or a
    run of names."""
    if not words:
        return 0
    if words[0].lower() in {"you", "he", "she", "they", "we", "it", "u"}:
        return 1
    if words[0].lower() in {"your", "his", "her", "their"} and len(words) > 1:
        return 2
    count = 0
    for word in words:
        if not word[:1].isupper():
            break
        count += 1
    return count


def _chinese(question: str) -> str | None:
    if re.search(r"谁|什么|哪|怎么|为什么|几[个点号月]|多少|咋", question):
        return None
    statement = _ZH_CLOSING.sub("", _ZH_ASKING.sub("", question)).strip("，, ")
    return statement + "。" if len(statement) >= 3 else None

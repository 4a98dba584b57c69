"""Who someone is, asked and answered (service/nlp/relations/who_is.py).

Made-up lines; none of their names or sentences is in graph-dev.json.
"""

from __future__ import annotations

import pytest

from service.core.domain import MessageIn
from service.nlp.relations.who_is import answered


def _answers(said: list[tuple[str, str]], lang: str = "en") -> list[tuple[str, str, str] | None]:
    messages = [MessageIn(speaker=s, content=t) for s, t in said]
    return [
        None if r is None else (r.source.name, r.type.value, r.target.name)
        for r in answered(messages, [lang] * len(messages))
    ]


@pytest.mark.parametrize(
    ("question", "answer", "lang", "expected"),
    [
        ("Wait. Who's Ottilie?", "My cousin from Duluth.", "en", "FAMILY_OF"),
        ("Who is Ottilie?", "Oh, my little sister. She's staying a week.", "en", "FAMILY_OF"),
        ("Who's Ottilie?", "She's my roommate.", "en", "FRIEND_OF"),
        ("奥蒂莉是谁？", "我表妹呀，刚从长春过来。", "zh", "FAMILY_OF"),
        ("那奥蒂莉是谁啊？", "我大学同学。", "zh", "FRIEND_OF"),
    ],
)
def test_the_answerer_is_kin_or_friend_of_whom_was_asked_about(
    question: str, answer: str, lang: str, expected: str
) -> None:
    name = "Ottilie" if lang == "en" else "奥蒂莉"
    found = _answers([("Bram", question), ("Ione", answer)], lang)
    assert found == [None, ("Ione", expected, name)]


@pytest.mark.parametrize(
    ("said", "lang"),
    [
        ([("Bram", "Who's Ottilie?"), ("Ione", "His sister, I think.")], "en"),  # whose?
        ([("Bram", "Who's Ottilie?"), ("Ione", "My friend's landlord.")], "en"),
        ([("Bram", "Who's Ottilie?"), ("Bram", "My cousin, right?")], "en"),  # no answer
        ([("Bram", "Ottilie is here."), ("Ione", "My cousin!")], "en"),  # nothing asked
        ([("柏林", "奥蒂莉是谁？"), ("邝文", "我妈说她是新来的。")], "zh"),
    ],
)
def test_no_answer_of_ones_own_kin_or_friend(said: list[tuple[str, str]], lang: str) -> None:
    assert _answers(said, lang) == [None, None]


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        ("How's your brother doing?", "Tobin's good, he just started at a bank.", "FAMILY_OF"),
        ("how is your mom", "Oh, Tobin is fine, thanks.", "FAMILY_OF"),
        ("What's your roommate up to?", "Tobin just moved out actually.", "FRIEND_OF"),
    ],
)
def test_kin_asked_after_is_the_name_that_answers(
    question: str, answer: str, expected: str
) -> None:
    assert _answers([("Bram", question), ("Ione", answer)]) == [None, ("Ione", expected, "Tobin")]


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("How's your brother doing?", "Everything is fine."),  # no name
        ("How's your brother and his wife?", "Tobin is good."),  # which one?
        ("How's your brother?", "Honestly no idea, Tobin might know."),  # not said of
        ("How's Tobin?", "Tobin is good."),  # no kin asked after
    ],
)
def test_no_kin_without_a_name_said_of_first(question: str, answer: str) -> None:
    assert _answers([("Bram", question), ("Ione", answer)]) == [None, None]


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        ("你哥最近怎么样？", ("王磊挺好的，刚跳槽去了京东。"), ("Ione", "FAMILY_OF", "王磊")),
        ("你闺蜜最近在忙什么？", "小雨刚换了工作。", ("Ione", "FRIEND_OF", "小雨")),
        ("你哥最近怎么样？", "最近挺忙的。", None),  # a time word, no name
        ("你哥最近怎么样？", "他挺好的。", None),
    ],
)
def test_chinese_kin_asked_after_is_the_name_that_answers(
    question: str, answer: str, expected: tuple[str, str, str] | None
) -> None:
    assert _answers([("Bram", question), ("Ione", answer)], "zh") == [None, expected]


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        ("Thaddeus. My son-in-law. Still at the bank?", ("Ione", "FAMILY_OF", "Thaddeus")),
        ("This is Ottilie. My cousin.", ("Ione", "FAMILY_OF", "Ottilie")),
        ("Ottilie? My roommate! Small world.", ("Ione", "FRIEND_OF", "Ottilie")),
        ("Ottilie. My sister's friend.", None),  # whose kin: not the speaker's
        ("Ottilie, my cousin, is here.", None),  # the apposition is the rows' (en_kin)
    ],
)
def test_a_name_then_my_kin_alone_introduces_them(
    said: str, expected: tuple[str, str, str] | None
) -> None:
    assert _answers([("Ione", said)]) == [expected]


@pytest.mark.parametrize(
    ("said", "lang", "expected"),
    [
        (
            [
                ("Cato", "Can I borrow the car? Ottilie needs a ride."),
                ("Bram", "Who's Ottilie?"),
                ("Ione", "His friend from chess club. They're on the team."),
            ],
            "en",
            ("Cato", "FRIEND_OF", "Ottilie"),
        ),
        (
            [("柏林", "奥蒂莉周末要来住两天。"), ("邝文", "奥蒂莉是谁？"), ("小雯", "他表妹。")],
            "zh",
            ("柏林", "FAMILY_OF", "奥蒂莉"),
        ),
    ],
)
def test_his_or_her_kin_is_of_whoever_named_them_before_the_question(
    said: list[tuple[str, str]], lang: str, expected: tuple[str, str, str]
) -> None:
    assert _answers(said, lang)[2] == expected


@pytest.mark.parametrize(
    "said",
    [
        # the one who named Ottilie asks: "his" is someone else
        [("Bram", "Ottilie is coming."), ("Bram", "Who's Ottilie?"), ("Ione", "His sister.")],
        # nobody named Ottilie before the question
        [("Cato", "Nice weather."), ("Bram", "Who's Ottilie?"), ("Ione", "His sister.")],
    ],
)
def test_no_his_or_her_kin_without_a_third_who_named_them(said: list[tuple[str, str]]) -> None:
    assert _answers(said)[2] is None

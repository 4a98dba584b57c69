"""Kin nouns said to the listener (service/nlp/relations/vocatives.py).

Made-up conversations; none of their names or sentences is in graph-dev.json.
"""

from __future__ import annotations

import pytest

from service.core.config import Settings
from service.core.domain import MessageIn
from service.nlp.pipeline import Extractor
from service.nlp.relations.vocatives import (
    FRIENDS_EXTRACTOR,
    INFERRED_EXTRACTOR,
    Vocative,
    addressed_kin,
    vocative,
)
from tests.unit.test_discourse import relations


@pytest.mark.parametrize(
    ("text", "lang", "expected"),
    [
        ("Mom, I got the job at the cannery!", "en", Vocative("mom", opens=True)),
        ("Hey sis, are you still in Tacoma?", "en", Vocative("sis", opens=True)),
        ("Thanks Grandpa.", "en", Vocative("grandpa", opens=True)),
        ("I'll be home by nine, Dad 🙏", "en", Vocative("dad", opens=False)),
        ("妈，我这次考了全班第三！", "zh", Vocative("妈", opens=True)),
        ("妈妈你答应给我买的滑板呢？", "zh", Vocative("妈妈", opens=True)),
        ("谢谢奶奶", "zh", Vocative("奶奶", opens=True)),
        ("明天一早就到，爸。", "zh", Vocative("爸", opens=False)),
        ("Mom, Dad, I'm moving to Fresno.", "en", Vocative("mom", True, then="dad")),
        ("奶奶，姑父，我先走了。", "zh", Vocative("奶奶", True, then="姑父")),
        ("Honestly, Mom, the flat in Leith is fine.", "en", Vocative("mom", opens=False)),
        ("我觉得吧，爸，这车早该换了。", "zh", Vocative("爸", opens=False)),
        ("I know, Mom. I'll be home by nine.", "en", Vocative("mom", opens=False)),  # a sentence
        ("我马上就到，妈。你们先吃", "zh", Vocative("妈", opens=False)),
    ],
)
def test_a_kin_noun_said_to_the_listener(text: str, lang: str, expected: Vocative) -> None:
    assert vocative(text, lang) == expected


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Mom said the lease runs out in June.", "en"),
        ("My mom, she never lets me cook.", "en"),
        ("Uncle Bertram, when did you land?", "en"),  # a name follows: the kin-title frame reads it
        ("Honey, I'm home!", "en"),  # said to friends too: not kin
        ("Mama mia, that's a lot of pasta.", "en"),
        ("妈妈说明天下雨。", "zh"),
        ("我妈，唉，天天催我结婚。", "zh"),
        ("阿姨，您好！", "zh"),  # said to any older woman
        ("I drove my aunt, mom, and sister to Tacoma.", "en"),  # a list of kin
        ("We met Lena, Mom and Dad at the fair.", "en"),
    ],
)
def test_no_address_by_a_kin_noun(text: str, lang: str) -> None:
    assert vocative(text, lang) is None


def _addressed(said: list[tuple[str, str]], lang: str = "en") -> list[str | None]:
    messages = [MessageIn(speaker=s, content=t) for s, t in said]
    found = addressed_kin(messages, [lang] * len(messages))
    return [None if a is None else a.listeners[0] for a in found]


def test_two_speakers_the_other_is_addressed() -> None:
    said = [("Dov", "Mom, guess what happened."), ("Yael", "Tell me!"), ("Dov", "Love you, Mom.")]
    assert _addressed(said) == ["Yael", None, "Yael"]


def test_a_line_answers_the_one_before() -> None:
    said = [("Ari", "the bus was late"), ("Dov", "Mom, you said noon."), ("Yael", "Sure.")]
    assert _addressed(said) == [None, "Ari", None]


def test_those_who_say_the_noun_are_not_whom_it_addresses() -> None:
    said = [
        ("秦朗", "妈，我周末回来吃饭。"),
        ("秦雯", "妈，我也回来！"),
        ("许丽华", "好，都回来。"),
    ]
    assert _addressed(said, "zh") == ["许丽华", "许丽华", None]


def test_a_second_noun_is_said_to_the_next_nearest_speaker() -> None:
    said = [
        ("Ines", "Dinner's at six."),
        ("Pilar", "Mom, Dad, I'm moving to Fresno."),
        ("Tomás", "Fresno?!"),
    ]
    messages = [MessageIn(speaker=s, content=t) for s, t in said]
    found = addressed_kin(messages, ["en"] * len(messages))
    assert found[1] is not None and found[1].listeners == ("Ines", "Tomás")


def test_a_second_noun_with_no_other_speaker_left_addresses_nobody_more() -> None:
    said = [("Pilar", "Mom, Dad, I'm home!"), ("Ines", "Hi sweetie.")]
    messages = [MessageIn(speaker=s, content=t) for s, t in said]
    found = addressed_kin(messages, ["en"] * len(messages))
    assert found[0] is not None and found[0].listeners == ("Ines",)


@pytest.fixture(scope="module")
def extractor() -> Extractor:
    return Extractor(Settings())


def test_the_speaker_is_kin_of_whom_they_call_grandpa(extractor: Extractor) -> None:
    found = relations(
        extractor,
        [
            ("Wilhelmina", "Grandpa, did you really drive a tram in Lisbon for forty years?"),
            ("Anselm", "Forty-two, kiddo. Started when I was sixteen."),
        ],
    )
    assert ("Wilhelmina", "FAMILY_OF", "Anselm") in found


def test_a_name_the_message_opens_with_is_whom_you_means(extractor: Extractor) -> None:
    # Two speakers, but 周思远 is the one addressed: 你姐我 makes the speaker his sister.
    found = relations(
        extractor,
        [("林晚", "周思远，你姐我今天心情好，请你吃饭。"), ("卓然", "林晚，也请我呗。")],
    )
    assert ("林晚", "FAMILY_OF", "卓然") not in found
    assert ("林晚", "FAMILY_OF", "周思远") in found


def test_the_speaker_is_kin_of_both_listeners_called(extractor: Extractor) -> None:
    found = relations(
        extractor,
        [
            ("蒋慧", "小杰来了？吃饭没？"),
            ("蒋杰", "姐，姐夫，我借个梯子就走。"),
            ("孔德明", "梯子在阳台上。"),
        ],
    )
    assert {("蒋杰", "FAMILY_OF", "蒋慧"), ("蒋杰", "FAMILY_OF", "孔德明")} <= found


def test_who_call_one_mom_are_siblings_and_mom_and_dad_a_couple(extractor: Extractor) -> None:
    found = relations(
        extractor,
        [
            ("Marla", "Brody, if you're not down in two minutes, you're walking!"),
            ("Brody", "Mom, relax. First period is study hall."),
            ("Dean", "I went to study hall every single day."),
            ("Brody", "You sell mattresses, Dad."),
            ("Kenzie", "Dad, can I borrow the car?"),
        ],
    )
    assert {("Dean", "FAMILY_OF", "Marla"), ("Kenzie", "FAMILY_OF", "Brody")} <= found, found


def test_two_moms_of_one_child_are_no_couple(extractor: Extractor) -> None:
    """A couple is a mother and a father; 妈 said to two people implies no couple (the two are
    still one family circle, family.py)."""
    found = relations(
        extractor,
        [
            ("周琳", "小川，吃饭了！"),
            ("周小川", "妈，马上来。"),
            ("孙丽", "小川，快点！"),
            ("周小川", "知道了妈，别催了。"),
        ],
        read_by=INFERRED_EXTRACTOR,
    )
    assert not {("周琳", "FAMILY_OF", "孙丽"), ("孙丽", "FAMILY_OF", "周琳")} & found, found


def test_who_calls_the_group_sisters_is_everyones_friend(extractor: Extractor) -> None:
    said = [
        ("宋雯", "姐妹们，大新闻！我进舞蹈社了！"),
        ("周可", "真的假的？"),
        ("林悦", "厉害啊！"),
    ]
    found = relations(extractor, said, read_by=FRIENDS_EXTRACTOR)
    assert found == {("宋雯", "FRIEND_OF", "周可"), ("宋雯", "FRIEND_OF", "林悦")}
    # 姐妹们 as a word of the sentence, not an address of the group
    unsaid = [("宋雯", "姐妹们的事我不管。"), ("周可", "好吧。")]
    assert relations(extractor, unsaid, read_by=FRIENDS_EXTRACTOR) == set()

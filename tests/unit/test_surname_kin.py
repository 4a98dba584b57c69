"""Kin who speak and share a family name (service/nlp/relations/surname_kin.py).

Made-up conversations; none of their names or sentences is in graph-dev.json or the scene set.
"""

from __future__ import annotations

import pytest

from service.core.config import Settings
from service.nlp.pipeline import Extractor
from service.nlp.relations.surname_kin import EXTRACTOR
from tests.conversations import relations


@pytest.fixture(scope="module")
def extractor() -> Extractor:
    return Extractor(Settings())


def test_my_niece_is_the_one_speaker_of_my_family_name(extractor: Extractor) -> None:
    found = relations(
        extractor,
        [
            ("韩小雨", "韩叔，我今天来店里帮忙。"),
            ("吴敏", "小雨真懂事，还在读书吗？"),
            ("韩立军", "我侄女以后要接我的班哈哈。"),
        ],
        read_by=EXTRACTOR,
    )
    assert found == {("韩立军", "FAMILY_OF", "韩小雨")}


def test_a_bare_sibling_noun_opening_a_clause_is_the_speakers_own(extractor: Extractor) -> None:
    found = relations(
        extractor,
        [
            ("邵国强", "吃饭了，都坐下！"),
            ("邵乐乐", "爸，哥又偷吃了一块肉！"),
            ("邵天宇", "我没有！"),
        ],
        read_by=EXTRACTOR,
    )
    assert found == {("邵乐乐", "FAMILY_OF", "邵天宇")}  # 爸 is a tie of its own already


@pytest.mark.parametrize(
    "said",
    [
        # two others of the name: which one is the niece is not said
        [("韩小雨", "韩叔好！"), ("韩冬", "我也来了。"), ("韩立军", "我侄女以后要接我的班。")],
        # a kin noun of the mother's line names someone of another family name
        [("韩小雨", "今天好热。"), ("韩立军", "我舅明天从杭州过来。")],
        # the kin is named: 我哥韩冬 is not the speaker present
        [("韩小雨", "今天好热。"), ("韩冬", "嗯。"), ("韩立军", "我哥韩冬下周结婚。")],
        # different family names
        [("吴敏", "今天好热。"), ("韩立军", "我侄女以后要接我的班。")],
    ],
)
def test_no_tie_without_one_speaker_of_the_name_and_a_bare_noun_of_the_fathers_line(
    extractor: Extractor, said: list[tuple[str, str]]
) -> None:
    assert relations(extractor, said, read_by=EXTRACTOR) == set()

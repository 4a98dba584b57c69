"""write_plan's near-duplicate rule: a neighbour by vector must share its words too."""

from __future__ import annotations

import pytest

from service.ingest.write_plan import wording_alike


@pytest.mark.parametrize(
    ("text", "other"),
    [
        ("I work at Google as an engineer.", "I'm working at Google as an engineer."),
        ("We adopted a puppy named Max.", "We adopted a little puppy, his name is Max."),
        ("我每天跑步五公里。", "我每天都跑五公里。"),
    ],
)
def test_a_rewording_is_alike(text: str, other: str) -> None:
    assert wording_alike(text, other, 0.5)


@pytest.mark.parametrize(
    ("text", "other"),
    [
        ("小李在腾讯工作。", "小李很喜欢喝咖啡。"),
        ("Ana moved to Porto.", "Ben sold his old motorbike."),
    ],
)
def test_different_words_are_not_alike(text: str, other: str) -> None:
    assert not wording_alike(text, other, 0.5)


def test_no_floor_leaves_the_vector_to_decide() -> None:
    assert wording_alike("小李在腾讯工作。", "小李很喜欢喝咖啡。", 0.0)

"""Pronouns resolved from the earlier messages of a batch (service/nlp/relations/discourse.py).

Made-up conversations; none of their names is in graph-dev.json.
"""

from __future__ import annotations

import pytest

from service.core.config import Settings
from service.nlp.pipeline import Extractor
from service.nlp.relations.discourse import WINDOW, Conversation, History
from tests.conversations import relations


@pytest.fixture(scope="module")
def extractor() -> Extractor:
    return Extractor(Settings())


def test_one_recent_person_is_whom_he_means(extractor: Extractor) -> None:
    found = relations(
        extractor,
        [
            ("Wren", "My brother Osric finally finished the house move."),
            ("Pell", "Nice! Where did he end up?"),
            ("Wren", "He lives in Tarragona now, right by the sea."),
        ],
    )
    assert ("Osric", "LIVES_IN", "Tarragona") in found


def test_two_recent_people_resolve_nobody(extractor: Extractor) -> None:
    found = relations(
        extractor,
        [
            ("Wren", "Osric and Thaddeus came over for dinner last night."),
            ("Wren", "He lives in Tarragona now, right by the sea."),
        ],
    )
    assert not {r for r in found if r[1] == "LIVES_IN"}


def test_a_name_in_the_fact_wins_over_the_conversation(extractor: Extractor) -> None:
    found = relations(
        extractor,
        [
            ("Wren", "My brother Osric finally finished the house move."),
            ("Pell", "Margit said she works at Brindlecombe Press these days."),
        ],
    )
    assert ("Margit", "WORKS_AT", "Brindlecombe Press") in found
    assert not {r for r in found if r[0] == "Osric" and r[1] == "WORKS_AT"}


def test_a_named_subject_keeps_the_conversation_out(extractor: Extractor) -> None:
    """NER calls Ysolde an organisation here: no relation, but none given to Osric either."""
    found = relations(
        extractor,
        [
            ("Wren", "My brother Osric finally finished the house move."),
            ("Pell", "Ysolde said she works at Brindlecombe Press these days."),
        ],
    )
    assert not {r for r in found if r[0] == "Osric" and r[1] == "WORKS_AT"}


def test_the_speaker_and_the_answered_are_not_he(extractor: Extractor) -> None:
    found = relations(
        extractor,
        [
            ("Pell", "Osric! Long time."),
            ("Osric", "Pell, good to hear from you."),
            ("Pell", "He lives in Tarragona now, right by the sea."),
        ],
    )
    assert not {r for r in found if r[1] == "LIVES_IN"}


def test_you_is_whom_the_message_answers(extractor: Extractor) -> None:
    found = relations(
        extractor,
        [
            ("Pell", "Can't believe it's been twenty years, honestly."),
            ("Wren", "you've been my best friend since we were kids"),
        ],
    )
    assert ("Wren", "FRIEND_OF", "Pell") in found or ("Pell", "FRIEND_OF", "Wren") in found


def test_a_name_fades_after_the_window() -> None:
    history = History().after(("Osric",))
    for _ in range(WINDOW):
        assert history.context(None).antecedent([]) == "Osric"
        history = history.after(())
    assert history.context(None).antecedent([]) is None


def test_the_antecedent_skips_the_excluded_and_needs_exactly_one() -> None:
    talk = Conversation("Pell", ("Osric", "Pell", "osric"))
    assert talk.antecedent(["pell"]) == "Osric"
    assert talk.antecedent([]) is None
    assert Conversation().antecedent([]) is None


def test_a_kin_noun_stands_for_the_relative_named_before(extractor: Extractor) -> None:
    found = relations(
        extractor,
        [
            ("Wren", "My brother Osric just got a new job!"),
            ("Pell", "Oh nice, where?"),
            ("Wren", "My brother works at Quillhaven Press now."),
        ],
    )
    assert ("Osric", "WORKS_AT", "Quillhaven Press") in found


def test_two_relatives_by_one_noun_resolve_nobody(extractor: Extractor) -> None:
    found = relations(
        extractor,
        [
            ("Wren", "My brother Osric and my brother Thaddeus came over."),
            ("Wren", "My brother works at Quillhaven Press now."),
        ],
    )
    assert not {r for r in found if r[1] == "WORKS_AT"}


def test_someone_elses_kin_noun_is_not_the_speakers(extractor: Extractor) -> None:
    found = relations(
        extractor,
        [
            ("Wren", "My brother Osric just got a new job!"),
            ("Pell", "My brother works at Quillhaven Press now."),
        ],
    )
    assert ("Osric", "WORKS_AT", "Quillhaven Press") not in found


def test_a_message_nobody_answered_speaks_to_whoever_answers_it(extractor: Extractor) -> None:
    found = relations(
        extractor,
        [("Wren", "Your sister Imelda called again."), ("Pell", "Ugh, what did she want?")],
    )
    assert ("Pell", "FAMILY_OF", "Imelda") in found


def test_asked_whether_it_still_holds_it_held(extractor: Extractor) -> None:
    still = [("Wren", "Do you still work at Gorseway Bakery?"), ("Pell", "Six years in May.")]
    assert ("Pell", "WORKS_AT", "Gorseway Bakery") in relations(extractor, still)
    asked = [("Wren", "Do you work at Gorseway Bakery?"), ("Pell", "Six years in May.")]
    assert not {r for r in relations(extractor, asked) if r[1] == "WORKS_AT"}


def test_kin_said_to_the_listener_by_name_or_as_we(extractor: Extractor) -> None:
    father = [
        ("Wren", "I'm your father, Imelda. You don't talk to me like that."),
        ("Imelda", "Ugh."),
    ]
    assert ("Imelda", "FAMILY_OF", "Wren") in relations(extractor, father)
    cousins = [("Wren", "We're cousins, we share everything."), ("Pell", "Not my sweaters.")]
    assert ("Wren", "FAMILY_OF", "Pell") in relations(extractor, cousins)
    three = [*cousins, ("Osric", "Same here.")]  # "we" of three speakers: whom, unsaid
    assert not {r for r in relations(extractor, three) if r[1] == "FAMILY_OF"}
    married_in = [("Osric", "Thanks for having me, Mrs. Pell."), ("Wren", "We're family now.")]
    assert ("Wren", "FAMILY_OF", "Osric") in relations(extractor, married_in)
    fond = [("Osric", "Thanks for having me."), ("Wren", "Anytime, we're like family.")]
    assert not {r for r in relations(extractor, fond) if r[1] == "FAMILY_OF"}


def test_this_is_my_cousin_names_the_cousin(extractor: Extractor) -> None:
    said = [("Wren", "Pell, this is my cousin Imelda, she just moved here."), ("Pell", "Hi!")]
    assert ("Wren", "FAMILY_OF", "Imelda") in relations(extractor, said)


def test_speaking_as_the_listeners_kin_or_friend(extractor: Extractor) -> None:
    said = [
        ("Imelda", "Just say it."),
        ("Wren", "As your big brother, I think the tattoo is a mistake."),
        ("Osric", "As your friend I agree."),
    ]
    found = relations(extractor, said)
    assert ("Imelda", "FAMILY_OF", "Wren") in found
    assert ("Wren", "FRIEND_OF", "Osric") in found
    as_a_guest = [("Imelda", "Hi."), ("Wren", "As a guest, I brought wine.")]
    assert not {r for r in relations(extractor, as_a_guest) if r[1] == "FAMILY_OF"}


def test_he_of_a_sentence_naming_nobody_is_the_one_named_before(extractor: Extractor) -> None:
    said = [
        ("柏玉兰", "思齐这孩子特别懂事。他姐姐柏露在南京读研。"),
        ("邝文", "真不错。"),
    ]
    assert ("思齐", "FAMILY_OF", "柏露") in relations(extractor, said)
    unnamed = [("柏玉兰", "我女朋友挺忙的。她妹妹柏露也是。"), ("邝文", "哦。")]
    assert not {r for r in relations(extractor, unnamed) if r[1] == "FAMILY_OF"}


def test_your_ranked_kin_is_kin_of_whom_the_line_answers(extractor: Extractor) -> None:
    said = [
        ("邝思齐", "我的网又断了，谁会修啊？"),
        ("邝文", "你三舅柏林就在电信上班，找他。"),
        ("柏玉兰", "别找我弟了，他也修不好。"),
    ]
    assert ("邝思齐", "FAMILY_OF", "柏林") in relations(extractor, said)


def test_how_long_and_why_questions_take_their_clause_as_said(extractor: Extractor) -> None:
    def lives(said: list[tuple[str, str]]) -> set[tuple[str, str, str]]:
        return {r for r in relations(extractor, said) if r[1] in {"LIVES_IN", "WORKS_AT"}}

    assert lives([("Ione", "Hi."), ("Bram", "Why did you move to Yakima, Ione?")]) == {
        ("Ione", "LIVES_IN", "Yakima")
    }
    assert not lives([("Ione", "Hi."), ("Bram", "Why would you move to Yakima?")])
    assert not lives([("Ione", "Hi."), ("Bram", "Did you move to Yakima?")])
    assert lives([("柏林", "嗯。"), ("邝文", "你在绿源物流干了多久了？")]) == {
        ("柏林", "WORKS_AT", "绿源物流")
    }
    moved = [("柏林", "嗯。"), ("邝文", "你为啥搬到岳阳啊？")]
    assert lives(moved) == {("柏林", "LIVES_IN", "岳阳")}
    assert not lives([("柏林", "嗯。"), ("邝文", "你为啥不去岳阳？")])


def test_a_stay_of_years_at_an_organisation_is_a_job_or_studies(extractor: Extractor) -> None:
    def placed(text: str) -> set[tuple[str, str, str]]:
        found = relations(extractor, [("Ione", "Hi."), ("Bram", text)])
        return {r for r in found if r[1] in {"VISITED", "WORKS_AT", "STUDIES_AT"}}

    assert placed("I've been at Kellerman Freight for eleven years.") == {
        ("Bram", "WORKS_AT", "Kellerman Freight")
    }
    assert placed("Ione, how long have you been at Kellerman Freight now?") == {
        ("Ione", "WORKS_AT", "Kellerman Freight")
    }
    assert placed("I was at Dunmore College for two years.") == {
        ("Bram", "STUDIES_AT", "Dunmore College")
    }
    assert placed("I was at Dunmore College last night for a play.") <= {
        ("Bram", "VISITED", "Dunmore College")
    }

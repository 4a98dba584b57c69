"""Entity types decided by evidence: the context frames, heads and gazetteers of
service/nlp/entities/type_evidence.py, and the linker's vote over every mention. The sentences are
made up for these tests; none is from a dev conversation."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from spacy.language import Language

from service.core.config import Settings
from service.core.domain import MessageIn, Scope
from service.nlp.entities.link_rows import KnownEntity, LinkInput
from service.nlp.entities.linking import link
from service.nlp.entities.mentions import VOTE_TYPES, EntityLabel, EntityMention, TypeVote
from service.nlp.entities.names import entity_key
from service.nlp.entities.type_evidence import TypeEvidence, load_gazetteers, relation_votes
from service.nlp.pipeline import Extractor
from service.nlp.relations.extractor import Endpoint, RelationMention, RelationType

AT = datetime(2026, 5, 4, 10, tzinfo=UTC)


@pytest.fixture(scope="module")
def evidence() -> TypeEvidence:
    return TypeEvidence()


def voted(evidence: TypeEvidence, english: Language, text: str, name: str) -> set[str]:
    doc = english(text)
    start = text.index(name)
    span = doc.char_span(start, start + len(name), alignment_mode="expand")
    assert span is not None
    return {f"{v.label.value} {v.why}" for v in evidence.english(span)}


@pytest.mark.parametrize(
    ("text", "name", "vote"),
    [
        ("My roommate Bettina fixes bikes on weekends.", "Bettina", "PERSON frame:person_noun"),
        ("I had lunch with Dr. Okafor today.", "Okafor", "PERSON frame:title"),
        ("She answers phones at Greenleaf Dental now.", "Greenleaf Dental", "ORG head:org"),
        ("We ran the Harbourside Half Marathon.", "Harbourside Half Marathon", "EVENT head:event"),
        (
            "Tickets for the Lakeshore Folk Festival sold out.",
            "Lakeshore Folk Festival",
            "EVENT head:event",
        ),
        ("I finally drive a Corolla again.", "Corolla", "PRODUCT frame:product"),
        ("I log every ride on Wahoo.", "Wahoo", "PRODUCT frame:product"),
        ("I post photos of my garden on Glimmr.", "Glimmr", "PRODUCT frame:product"),
        # one's own things kept or done in X: X holds them
        ("I keep all my recipes in Plumbook.", "Plumbook", "PRODUCT frame:holds_contents"),
        ("I do my budgeting in Tallybee now.", "Tallybee", "PRODUCT frame:holds_contents"),
        ("Tallyho is the best app for budgets.", "Tallyho", "PRODUCT frame:is_a_app"),
        ("Brightwave hired me last week!", "Brightwave", "ORG frame:employer"),
        ("Brightwave's HQ is downtown.", "Brightwave", "ORG frame:org_part"),
        ("We moved to Lisbon in spring.", "Lisbon", "PLACE gazetteer:place"),
        ("We moved to Lisbon in spring.", "Lisbon", "PLACE frame:place"),
        ("Hannah says hi.", "Hannah", "PERSON gazetteer:given_name"),
        ("My Garmo watch died on the trail.", "Garmo", "PRODUCT frame:product_part"),
        ("They moved me to the Pemberly plant.", "Pemberly", "ORG frame:org_part"),
        ("Zapply crashed again during my call.", "Zapply", "PRODUCT frame:device"),
        ("I keep my notes in FlowDesk.", "FlowDesk", "PRODUCT name:product"),
        ("I finally got the Kettle 5 running.", "Kettle 5", "PRODUCT name:product"),
        ("I left my Corvala at the garage.", "Corvala", "PRODUCT frame:owned"),
        ("That amp beats his battered Brevik.", "Brevik", "PRODUCT frame:owned"),
        ("Honestly this Zuno never listens to me.", "Zuno", "PRODUCT frame:owned"),
        # a given name pointed at is a thing all the same
        ("Honestly this Beatrix never listens to me.", "Beatrix", "PRODUCT frame:owned"),
        (
            "We grabbed pizza from Marco Tarrant's after the game.",
            "Marco Tarrant",
            "ORG frame:business",
        ),
        ("Marlow's has been open since 1990.", "Marlow", "ORG frame:business"),
        ("We walked around downtown Cleveland all day.", "Cleveland", "PLACE frame:place_modifier"),
        ("We drove down from Charlotte on Friday.", "Charlotte", "PLACE frame:known_place"),
        ("Taco Loco (Fresno) has the best tacos.", "Taco Loco", "ORG frame:branch"),
        ("Quinta tickets sold out in an hour.", "Quinta", "EVENT frame:event_part"),
        ("We got tickets to Riverbloom for August.", "Riverbloom", "EVENT frame:event_part"),
        (
            "The band opens the tour at Riverbloom next week.",
            "Riverbloom",
            "EVENT frame:event_venue",
        ),
        ("I quit my job at Dunmore last week.", "Dunmore", "ORG frame:employment"),
        ("handing in my notice at Dunmore Friday", "Dunmore", "ORG frame:employment"),
        (
            "Brenna plans my workouts, honestly the best app ever.",
            "Brenna",
            "PRODUCT frame:described_app",
        ),
        ("Wow, 90 day streak! Quillo keeps me honest.", "Quillo", "PRODUCT context:app"),
        ("Ohio State won the game again.", "Ohio State", "ORG head:org"),
        ("Our stack is Rust and Vexbase.", "Vexbase", "PRODUCT frame:is_a_stack"),
        ("Strida is how I track my runs.", "Strida", "PRODUCT frame:way_of"),
        ("Rivet Labs is an Austin startup.", "Austin", "PLACE frame:business_place"),
        ("I need the claims report in Tallysheet.", "Tallysheet", "PRODUCT frame:document_in"),
        (
            "Marrowfield Kayaks rents boats by the hour.",
            "Marrowfield Kayaks",
            "ORG head:trade_plural",
        ),
        ("We spent a week in northern Portugal.", "Portugal", "PLACE frame:place_modifier"),
        ("Heading to Riverfest tomorrow!", "Riverfest", "EVENT head:event"),
        ("Are you still on Quillo these days?", "Quillo", "PRODUCT frame:on_platform"),
        ("DragonCon was amazing this year.", "DragonCon", "EVENT head:event"),
        ("The Eastfield Homecoming is Saturday.", "Eastfield Homecoming", "EVENT head:event"),
        # a name joined to a pronoun only people are, or said to be someone's kin
        ("Ama and I went to Lisbon in May.", "Ama", "PERSON frame:a_person"),
        ("Me and Ama went to Lisbon in May.", "Ama", "PERSON frame:a_person"),
        ("Ama is Kwame's daughter.", "Ama", "PERSON frame:a_person"),
        ("Ama is my cousin.", "Ama", "PERSON frame:a_person"),
        ("My go-to editor is Quillo.", "Quillo", "PRODUCT frame:is_a_editor"),  # kind first
        ("Ama interned at Brightwave last summer.", "Ama", "PERSON frame:person_verb"),
    ],
)
def test_english_context_votes(
    evidence: TypeEvidence, english: Language, text: str, name: str, vote: str
) -> None:
    assert vote in voted(evidence, english, text, name)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Our Hannah is home for the summer.", "Hannah"),  # a given name: a person
        ("Say hi to my Aunt Rose.", "Aunt Rose"),
        ("My sister Bettina called.", "Bettina"),
    ],
)
def test_a_person_after_a_possessive_is_owned_by_nobody(
    evidence: TypeEvidence, english: Language, text: str, name: str
) -> None:
    assert not any("frame:owned" in v for v in voted(evidence, english, text, name))


@pytest.mark.parametrize(
    ("text", "name", "frame"),
    [
        ("We stayed at Emma's place.", "Emma", "frame:business"),  # her place, a noun after
        ("Ask Kenta about the app.", "Kenta", "context:app"),  # NER's person: not an app
        ("I moved to Washington state last year.", "Washington", "head:org"),
        ("Jonah booked tickets for us.", "Jonah", "frame:event_part"),
        ("I grew up in North Berwick.", "Berwick", "frame:place_modifier"),
        ("We were on Maui for a week.", "Maui", "frame:on_platform"),  # a place
        ("We watched a falcon with Falcon.", "Falcon", "head:event"),
        ("FlowDesk and I are not friends.", "FlowDesk", "frame:a_person"),  # an app's shape
        ("Lisbon and Porto are lovely.", "Lisbon", "frame:a_person"),
        ("Lisbon is my favourite city.", "Lisbon", "frame:a_person"),
        ("Quillo says my streak is over.", "Quillo", "frame:person_verb"),  # apps say things
        ("I do my shopping in Leeds.", "Leeds", "frame:holds_contents"),  # a place of the world
        ("I work in Plumbook most days.", "Plumbook", "frame:holds_contents"),  # nothing kept
    ],
)
def test_a_frame_does_not_fire_beside_its_look_alike(
    evidence: TypeEvidence, english: Language, text: str, name: str, frame: str
) -> None:
    assert not any(frame in v for v in voted(evidence, english, text, name))


def test_a_first_name_possessive_weighs_less_than_the_given_name(
    evidence: TypeEvidence, english: Language
) -> None:
    doc = english("Dinner at Emma's tonight?")
    span = doc.char_span(10, 14)
    assert span is not None
    weights = {v.why: (v.label, v.weight) for v in evidence.english(span)}
    assert weights["frame:business"][1] < weights["gazetteer:given_name"][1]


def test_a_family_name_prefix_is_no_product_shape(
    evidence: TypeEvidence, english: Language
) -> None:
    assert not any(
        "name:product" in v for v in voted(evidence, english, "Ask McAllister.", "McAllister")
    )


def test_a_place_named_in_full_outweighs_its_first_word() -> None:
    votes = load_gazetteers().votes("Da Nang", TypeEvidence().table.weights)
    assert [v.label for v in votes] == [EntityLabel.PLACE]


def test_a_first_name_before_a_head_word_is_no_person() -> None:
    weights = TypeEvidence().table.weights
    assert load_gazetteers().votes("Dakota State", weights) == []
    assert load_gazetteers().votes("Dakota Reyes", weights)[0].label == EntityLabel.PERSON


def test_a_name_that_is_a_place_and_a_given_name_says_nothing() -> None:
    gazetteers = load_gazetteers()
    assert "austin" in gazetteers.places and "austin" in gazetteers.given_names
    assert gazetteers.votes("Austin", TypeEvidence().table.weights) == []


@pytest.mark.parametrize(
    ("text", "name", "label"),
    [
        ("我表姐王芳下个月结婚。", "王芳", EntityLabel.PERSON),
        ("周末我去青松救援队帮忙。", "青松救援队", EntityLabel.ORG),
        ("明年我想跑成都马拉松。", "成都马拉松", EntityLabel.EVENT),
        ("他上周刚提了辆小鹏G6。", "小鹏G6", EntityLabel.PRODUCT),
        ("我们天天玩蛋仔派对。", "蛋仔派对", EntityLabel.PRODUCT),
        ("我搬到洛阳两年了。", "洛阳", EntityLabel.PLACE),
        ("我在京东方上班。", "京东方", EntityLabel.ORG),  # 在 + a work verb: an employer
        ("我帮她约我们骨科的崔主任", "崔主任", EntityLabel.PERSON),  # a family name and a title
        ("德天瀑布真的很壮观", "德天瀑布", EntityLabel.PLACE),  # a place by its generic word
        ("上周末千岛湖景区人太多了", "千岛湖景区", EntityLabel.PLACE),
    ],
)
def test_chinese_context_votes(
    evidence: TypeEvidence, text: str, name: str, label: EntityLabel
) -> None:
    start = text.index(name)
    assert label in {v.label for v in evidence.chinese(text, start, start + len(name))}


def test_a_title_alone_is_no_person(evidence: TypeEvidence) -> None:
    votes = evidence.chinese("主任说了算", 0, 2)
    assert all(v.why != "frame:person_noun" for v in votes)


def test_relations_vote_for_their_endpoints() -> None:
    source, target = relation_votes("WORKS_AT")
    assert source is not None and source.label == EntityLabel.PERSON
    assert target is not None and target.label == EntityLabel.ORG
    assert relation_votes("LIKES")[1] is None


def _mention(text: str, source: str, label: EntityLabel, *votes: TypeVote) -> EntityMention:
    start = source.index(text)
    return EntityMention(text, label, start, start + len(text), "spacy:X", 0.85, votes)


def _fact(memory_id: str, text: str, *mentions: EntityMention) -> LinkInput:
    return LinkInput(memory_id, text, "en", "Ines", AT, list(mentions))


def test_the_type_is_the_heaviest_vote_over_every_mention() -> None:
    hired = TypeVote(EntityLabel.ORG, 0.8, "frame:employer")
    one, two = "Juniper Clinic called me.", "I love Juniper Clinic."
    facts = [
        _fact("m1", one, _mention("Juniper Clinic", one, EntityLabel.PERSON, hired)),
        _fact("m2", two, _mention("Juniper Clinic", two, EntityLabel.PERSON)),
    ]
    (row,) = [e for e in link(Scope(user_id="u"), facts, []).entities if e.name != "Ines"]
    assert row.type == "ORG"
    # NER's guess counts once however often it is made (0.85 x 0.6); a frame is context.
    assert row.label_votes[VOTE_TYPES.index("PERSON")] == pytest.approx(0.51)
    assert row.type_votes[VOTE_TYPES.index("PERSON")] == 0.0
    assert row.type_votes[VOTE_TYPES.index("ORG")] == pytest.approx(0.8)


def test_stored_votes_are_weighed_with_the_batch() -> None:
    scope = Scope(user_id="u")
    stored = [0.0] * len(VOTE_TYPES)
    stored[VOTE_TYPES.index("PLACE")] = 3.0
    known = KnownEntity(
        entity_key(scope, "Marlow"), "Marlow", "PLACE", 1.0, ("Marlow",), tuple(stored)
    )
    text = "Marlow texted me."
    facts = [_fact("m1", text, _mention("Marlow", text, EntityLabel.PERSON))]
    (row,) = [e for e in link(scope, facts, [known]).entities if e.name == "Marlow"]
    assert row.type == "PLACE"  # one NER guess does not outweigh what the scope saw before
    # The row carries this batch's votes only: the store adds them to the stored ones.
    assert row.type_votes[VOTE_TYPES.index("PLACE")] == 0.0
    assert row.label_votes[VOTE_TYPES.index("PERSON")] == pytest.approx(0.51)


def test_a_relation_votes_for_its_target() -> None:
    text = "Ines works at Quillby."
    start = text.index("Quillby")
    relation = RelationMention(
        RelationType.WORKS_AT,
        Endpoint("Ines", EntityLabel.PERSON, None, None),
        Endpoint("Quillby", EntityLabel.PERSON, start, start + 7),
        "dep:test",
        0.9,
    )
    mention = EntityMention("Quillby", EntityLabel.PERSON, start, start + 7, "spacy:PERSON", 0.85)
    facts = [LinkInput("m1", text, "en", "Ines", AT, [mention], [relation])]
    (row,) = [e for e in link(Scope(user_id="u"), facts, []).entities if e.name == "Quillby"]
    assert row.type == "ORG"


def test_what_a_name_says_of_itself_counts_once() -> None:
    given = TypeVote(EntityLabel.PERSON, 0.8, "gazetteer:given_name")
    kind = TypeVote(EntityLabel.PRODUCT, 1.2, "frame:product")
    texts = ["Alexa is on again.", "Alexa woke me up.", "Alexa plays jazz.", "I reset Alexa."]
    facts = [
        _fact(f"m{i}", t, _mention("Alexa", t, EntityLabel.PERSON, given, *([kind] * (i == 3))))
        for i, t in enumerate(texts)
    ]
    (row,) = [e for e in link(Scope(user_id="u"), facts, []).entities if e.name == "Alexa"]
    assert row.type == "PRODUCT"  # four mentions of a given name weigh as one


def test_a_sentence_opening_exclamation_is_no_name(english: Language) -> None:
    from service.nlp.entities.patterns import EntityExtractor

    extractor = EntityExtractor(english)
    found = {m.text for m in extractor.extract("Hongera! Tyler, you did it.", "en")}
    assert "Hongera" not in found


def test_a_one_word_sentence_and_an_emoji_are_no_names(english: Language) -> None:
    from service.nlp.entities.patterns import EntityExtractor

    extractor = EntityExtractor(english)
    found = {m.text for m in extractor.extract("Marlo. The Quillby Bakery is mine 🧁", "en")}
    assert "Marlo" not in found and "🧁" not in found
    found = {m.text for m in extractor.extract("I stream on Twitchy every Fri night.", "en")}
    assert "Twitchy every" not in found


def test_someone_who_speaks_is_a_person_whatever_the_sentence_makes_of_them() -> None:
    """ "your bike, Ines" reads as a bike named Ines; Ines is one of the people talking."""
    said = [
        MessageIn(content="Did Omar like the gift?", speaker="Ines"),
        MessageIn(content="lol I'll still fix your bike, Ines", speaker="Marco"),
    ]
    (fact,) = Extractor(Settings()).extract(said, [AT, AT])[1]
    (ines,) = [m for m in fact.mentions if m.text == "Ines"]
    assert "PERSON speaker" in {f"{v.label.value} {v.why}" for v in ines.votes}
    assert ines.voted_label is EntityLabel.PERSON
    assert not any(r.target.name == "Ines" for r in fact.relations)  # nobody owns her


def test_a_hobby_word_of_the_table_stays_a_concept() -> None:
    """去了趟X露营: 露营 (camping) is the table's hobby, no one's name, whatever a context
    seems to say of it, and visits nothing."""
    said = [MessageIn(content="我们周末去了趟千岛湖露营。", speaker="王芳")]
    (fact,) = Extractor(Settings()).extract(said, [AT])[0]
    (camping,) = [m for m in fact.mentions if m.text == "露营"]
    assert camping.voted_label is EntityLabel.CONCEPT
    assert not any(v.label in (EntityLabel.PERSON, EntityLabel.PLACE) for v in camping.votes)
    assert not any(r.source.name == "露营" for r in fact.relations)

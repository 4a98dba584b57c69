"""Fact splitting helpers, slot rules and entity-name normalisation (pure logic)."""

from __future__ import annotations

from typing import Any

import pytest
import spacy

from service.core.domain import Scope
from service.embedding.manifest import resolve_model_path
from service.nlp.entities.mentions import EntityLabel
from service.nlp.entities.names import display_name, entity_key, identity_form
from service.nlp.facts import (
    find_slot,
    irregular_forms,
    is_filler,
    resolve_first_person,
    resolve_first_person_tokens,
    split_chinese,
)
from service.nlp.pipeline import STATEMENT_CONFIDENCE, slot_of
from service.nlp.relations.table import Endpoint, RelationMention, RelationType


@pytest.mark.parametrize(
    "text",
    ["Hi Bob!", "Hey Mel! ", "Good to see you!", "Thanks so much!", "lol", "ok", "haha!!"],
)
def test_greetings_and_filler_are_not_facts(text: str) -> None:
    assert is_filler(text, "en")


@pytest.mark.parametrize(
    "text", ["Hey, I went hiking.", "I adopted a cat.", "Thanks to Ann I won."]
)
def test_statements_are_facts(text: str) -> None:
    assert not is_filler(text, "en")


def test_chinese_filler_and_statements() -> None:
    assert is_filler("你好！", "zh") and is_filler("谢谢", "zh")
    assert not is_filler("我在上海工作。", "zh")


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("I moved to Boston.", "Ann moved to Boston."),
        ("I'm happy my dog likes me.", "Ann is happy Ann's dog likes Ann."),
        ("I've been to Rome and I'll go again.", "Ann has been to Rome and Ann will go again."),
        ("The book is mine.", "The book is Ann's."),
        ("Idaho is big.", "Idaho is big."),
    ],
)
def test_first_person_becomes_the_speaker(sentence: str, expected: str) -> None:
    assert resolve_first_person(sentence, "Ann", "en") == expected


def test_chinese_first_person_keeps_we() -> None:
    assert resolve_first_person("我们说我喜欢猫", "李明", "zh") == "我们说李明喜欢猫"
    assert resolve_first_person("I moved.", None, "en") == "I moved."


def test_chinese_clauses_have_exact_offsets() -> None:
    text = "我叫李明。我在上海工作！  你呢？"
    spans = split_chinese(text)
    assert [text[s:e] for s, e in spans] == ["我叫李明。", "我在上海工作！", "你呢？"]


@pytest.mark.parametrize(
    ("sentence", "lang", "slot", "value"),
    [
        ("I just moved to New York City last month.", "en", "lives_in", "New York City"),
        ("I live in Boston.", "en", "lives_in", "Boston"),
        ("I work at Google now.", "en", "works_at", "Google"),
        ("My favorite color is green.", "en", "favourite_color", "green"),
        ("I work as a nurse at the hospital.", "en", "job", "nurse"),
        ("我住在上海。", "zh", "lives_in", "上海"),
        ("我在阿里巴巴工作", "zh", "works_at", "阿里巴巴"),
        ("我最喜欢的颜色是蓝色", "zh", "favourite_颜色", "蓝色"),
    ],
)
def test_slot_rules(sentence: str, lang: str, slot: str, value: str) -> None:
    found = find_slot(sentence, lang)
    assert found is not None and (found.slot, found.value) == (slot, value)


@pytest.mark.parametrize("sentence", ["My sister lives in Chicago.", "Bob works at Google."])
def test_slots_are_only_about_the_speaker(sentence: str) -> None:
    assert find_slot(sentence, "en") is None


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Melanie's", "melanie"),
        ("  The  Kubernetes ", "kubernetes"),
        ("K8s", "kubernetes"),
        ("paintings", "painting"),
        ("hobbies", "hobby"),
        ("classes", "class"),
        ("Paris", "paris"),
        ("Jules", "jules"),  # a name keeps its final s: only lower-case words are folded
        ("NYC", "new york city"),
        ("阿里巴巴集团", "阿里巴巴集团"),
    ],
)
def test_normalised_names(name: str, expected: str) -> None:
    assert identity_form(name) == expected


def test_entity_keys_are_per_scope_not_per_type() -> None:
    a, b = Scope(user_id="a"), Scope(user_id="b")
    assert entity_key(a, "Boston") == entity_key(a, "boston's")
    assert entity_key(a, "Boston") != entity_key(b, "Boston")
    assert display_name("“Melanie’s”") == "Melanie"


@pytest.fixture(scope="module")
def english() -> Any:
    return spacy.load(resolve_model_path("en_core_web_sm", "spacy"))


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("I'm swamped with the kids.", "Ann is swamped with the kids."),  # passive
        ("I'll always remember our trip.", "Ann will always remember our trip."),
        ("I'd love to go.", "Ann would love to go."),
        ("I will go.", "Ann will go."),  # the auxiliary carries the person
        ("I really love painting.", "Ann really loves painting."),
        ("My name is Ann.", "Ann."),
    ],
)
def test_first_person_on_the_parse(english: Any, sentence: str, expected: str) -> None:
    assert resolve_first_person_tokens(english(sentence)[:], "Ann") == expected


def test_an_irregular_past_the_tagger_calls_present_keeps_its_form(english: Any) -> None:
    sentence = english("I rewrote the parser we use at work.")[:]
    assert "rewrote" in irregular_forms(english)
    assert resolve_first_person_tokens(sentence, "Ann", irregular_forms(english)) == (
        "Ann rewrote the parser we use at work."
    )


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [("我叫张伟，在腾讯工作。", "张伟，在腾讯工作。"), ("我是张伟。", "张伟。")],
)
def test_a_self_introduction_does_not_double_the_name(sentence: str, expected: str) -> None:
    assert resolve_first_person(sentence, "张伟", "zh") == expected


@pytest.mark.parametrize(
    ("extractor", "confidence", "sets"),
    [
        ("dep:en_work_at", 0.6, True),  # a rule's reading is a statement's
        ("learned:en", 0.9, True),
        ("learned:en", 0.6, False),  # too unsure to retire the job stated before
    ],
)
def test_a_learned_job_sets_the_speakers_slot_only_when_sure(
    extractor: str, confidence: float, sets: bool
) -> None:
    job = RelationMention(
        RelationType.WORKS_AT,
        Endpoint("Ann", EntityLabel.PERSON),
        Endpoint("Ravelin Foods", EntityLabel.ORG, 10, 23),
        extractor,
        confidence,
    )
    slot = slot_of([job], STATEMENT_CONFIDENCE, "Ann")
    assert (slot is not None and slot.value == "Ravelin Foods") is sets

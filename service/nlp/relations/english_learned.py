"""The learned reader on one English fact: the pairs of its names, and the speaker's; "it" or
"they" stands for the one thing the fact named before it, as it does for the rules."""

from __future__ import annotations

from spacy.tokens import Span

from service.nlp.entities.mentions import EntityLabel
from service.nlp.relations.english_clauses import THING_PRONOUNS, FactContext, endpoint
from service.nlp.relations.english_pairs import Anchor, pairs
from service.nlp.relations.learned import Party, stated
from service.nlp.relations.table import (
    Endpoint,
    RelationMention,
    mention_endpoint,
    speaker_endpoint,
)


def learned_relations(fact: FactContext, sentence: Span) -> list[RelationMention]:
    """What the model reads between the fact's names and the two parties: the speaker, and
    whom "you" is (the person addressed by name, else the speaker answered); the caller keeps
    those whose two ends no rule linked."""
    names: list[Endpoint] = []
    anchors: list[Anchor] = []
    for mention in fact.mentions:
        span = sentence.doc.char_span(
            fact.base + mention.start, fact.base + mention.end, alignment_mode="expand"
        )
        if span is not None and span.start >= sentence.start and span.end <= sentence.end:
            names.append(mention_endpoint(mention))
            anchors.append(Anchor(span.root, mention.voted_label.value))
    for token in sentence:
        if token.lower_ in THING_PRONOUNS and token.pos_ == "PRON":
            thing = endpoint(fact, token)  # "It's out in Apex": the one thing named before
            if thing is not None and thing.label is not EntityLabel.OTHER:
                names.append(thing)
                anchors.append(Anchor(token, thing.label.value))
    listener = fact.addressee or speaker_endpoint(fact.conversation.answers)
    found = pairs(sentence, anchors, fact.speaker is not None, listener is not None)
    return stated(
        "en", sentence.text, found, names, {Party.SPEAKER: fact.speaker, Party.ADDRESSEE: listener}
    )

"""What the earlier messages of a batch tell one fact about whom it means (no LLM).

A fact's own words come first (``english_clauses.py``). Only when they leave "he", "she",
"him", "her" or "his" unresolved, in a fact that names no other person, does the conversation
answer: the one person named in the last ``WINDOW`` messages (and in the message's earlier
facts) who is neither the speaker nor the person addressed. Two such people: nobody. "you"
that no name in the fact resolves is the speaker the message answers.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from service.nlp.entities.patterns import EntityLabel, EntityMention
from service.nlp.relations.table import RelationMention, RelationType

# How many earlier messages keep a name salient; chosen on the dev set's tuning half.
WINDOW = 2
# Relations whose target is a person even when the mention's label says otherwise.
_PERSON_TARGETS = frozenset({RelationType.FAMILY_OF, RelationType.FRIEND_OF})


@dataclass(frozen=True)
class Conversation:
    """One fact's view of its batch: whom its message answers, and who was named lately."""

    answers: str | None = None  # the last other speaker before this message
    recent: tuple[str, ...] = ()  # people named lately, the most recent first
    current: tuple[str, ...] = ()  # of them, those the message's earlier facts named

    def antecedent(self, exclude: Iterable[str]) -> str | None:
        """The one recently named person not in ``exclude`` (casefolded), else None."""
        skip = {name.casefold() for name in exclude}
        found: dict[str, str] = {}
        for name in self.recent:
            if name.casefold() not in skip:
                found.setdefault(name.casefold(), name)
        return next(iter(found.values())) if len(found) == 1 else None

    def last_named(self, exclude: Iterable[str]) -> str | None:
        """The one person the message's earlier sentences named (多亏志远…。他那块表…), else
        the one recently named, not in ``exclude``."""
        inside = Conversation(self.answers, self.current).antecedent(exclude)
        return inside if inside is not None else self.antecedent(exclude)


@dataclass(frozen=True)
class History:
    """The people each earlier message of a batch named, oldest first."""

    named: tuple[tuple[str, ...], ...] = ()

    def context(self, answers: str | None, current: tuple[str, ...] = ()) -> Conversation:
        """The view of a fact whose message answers ``answers`` and whose earlier facts in
        the same message named ``current``."""
        window = [name for message in reversed(self.named[-WINDOW:]) for name in message]
        return Conversation(answers, (*reversed(current), *window), tuple(reversed(current)))

    def after(self, people: tuple[str, ...]) -> History:
        return History((*self.named, people))


def people_named(
    mentions: Iterable[EntityMention], relations: Iterable[RelationMention]
) -> tuple[str, ...]:
    """The people a fact names, in text order: PERSON mentions, and kin or friends it relates
    ("my brother Sam" makes Sam salient whatever his mention's label)."""
    people = [m.text for m in mentions if m.label is EntityLabel.PERSON]
    for r in relations:
        if r.type in _PERSON_TARGETS:
            people += [r.source.name, r.target.name]
    return tuple(dict.fromkeys(people))


NO_CONVERSATION = Conversation()

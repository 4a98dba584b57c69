"""What the earlier messages of a batch tell one fact about whom it means (no LLM).

A fact's own words come first (``english_clauses.py``). Only when they leave "he", "she",
"him", "her" or "his" unresolved, in a fact that names no other person, does the conversation
answer: the one person named in the last ``WINDOW`` messages (and in the message's earlier
facts) who is neither the speaker nor the person addressed. Two such people: nobody. "you"
that no name in the fact resolves is the speaker the message answers.

Chinese 你 is the person the message addresses (``second_person``): the speaker it opens with as a
vocative (美兰！…, 浩然你…), else the other speaker of a two-person conversation. With three
speakers and no vocative, 你 names nobody.

An English kin or friend noun without a name ("my brother works at X") is the one person an
earlier fact named with that noun and owner ("my brother Sam"): ``english_kin_named``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from service.nlp.entities.patterns import EntityLabel, EntityMention
from service.nlp.relations.table import RelationMention, RelationType

# How many earlier messages keep a name salient; chosen on the dev set's tuning half.
WINDOW = 2
# Relations whose target is a person even when the mention's label says otherwise.
_PERSON_TARGETS = frozenset({RelationType.FAMILY_OF, RelationType.FRIEND_OF})
# After a name a message opens with, what makes it an address: 美兰！…, 浩然你…
_VOCATIVE_END = re.compile(r"\s*(?:[，,！!：:、～~]|[你您])")


@dataclass(frozen=True)
class Kin:
    """A person named as someone's kin or friend: 刘洋 as 王芳's 表哥."""

    owner: str
    noun: str
    name: str


@dataclass(frozen=True)
class Conversation:
    """One fact's view of its batch: whom its message answers, and who was named lately."""

    answers: str | None = None  # the last other speaker before this message, else the next
    recent: tuple[str, ...] = ()  # people named lately, the most recent first
    current: tuple[str, ...] = ()  # of them, those the message's earlier facts named
    you: str | None = None  # whom the message addresses (Chinese 你; see ``second_person``)
    kin: tuple[Kin, ...] = ()  # kin and friends named so far in the batch (我表哥刘洋)

    def kin_of(self, owner: str, noun: str) -> str | None:
        """The one person the batch named as ``owner``'s ``noun`` (我表哥 → 刘洋), else None."""
        names = {k.name for k in self.kin if k.owner == owner and k.noun == noun}
        return next(iter(names)) if len(names) == 1 else None

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
    kin: tuple[Kin, ...] = ()  # every kin or friend named so far, the whole batch

    def context(
        self,
        answers: str | None,
        current: tuple[str, ...] = (),
        you: str | None = None,
        kin: tuple[Kin, ...] = (),
    ) -> Conversation:
        """The view of a fact whose message answers ``answers``, addresses ``you`` and whose
        earlier facts in the same message named ``current`` and ``kin``."""
        window = [name for message in reversed(self.named[-WINDOW:]) for name in message]
        recent = (*reversed(current), *window)
        return Conversation(answers, recent, tuple(reversed(current)), you, (*self.kin, *kin))

    def after(self, people: tuple[str, ...], kin: tuple[Kin, ...] = ()) -> History:
        return History((*self.named, people), (*self.kin, *kin))


def people_named(
    mentions: Iterable[EntityMention], relations: Iterable[RelationMention]
) -> tuple[str, ...]:
    """The people a fact names, in text order: mentions voted PERSON, and kin or friends it relates
    ("my brother Sam" makes Sam salient whatever his mention's label)."""
    people = [m.text for m in mentions if m.voted_label is EntityLabel.PERSON]
    for r in relations:
        if r.type in _PERSON_TARGETS:
            people += [r.source.name, r.target.name]
    return tuple(dict.fromkeys(people))


def nearest_speaker(speakers: Sequence[str | None], i: int, skip: set[str]) -> str | None:
    """The speaker not in ``skip`` closest before message ``i`` (whom it answers), else the one
    closest after it (who answers it)."""
    before = (s for s in reversed(speakers[:i]) if s and s not in skip)
    after = (s for s in speakers[i + 1 :] if s and s not in skip)
    return next(before, None) or next(after, None)


def second_person(
    said: Sequence[tuple[str | None, str]], named: Sequence[Sequence[str]] = ()
) -> list[str | None]:
    """Whom each ``(speaker, text)`` message addresses: the person it opens with as a vocative
    (a speaker of the batch, by full name or by the name without a one-character surname, or
    a person the message names, ``named``), else, when the batch has exactly two speakers, the
    other one."""
    speakers = list(dict.fromkeys(s for s, _ in said if s))
    people = [*named, *([()] * (len(said) - len(named)))]
    return [
        _vocative(text, speaker, [*speakers, *own]) or _other(speaker, speakers)
        for (speaker, text), own in zip(said, people, strict=True)
    ]


def _vocative(text: str, speaker: str | None, people: list[str]) -> str | None:
    opening = text.lstrip()
    for name in (s for s in people if s != speaker):
        forms = (name, name[1:]) if len(name) == 3 else (name,)
        for form in forms:
            if opening.startswith(form) and _VOCATIVE_END.match(opening, len(form)):
                return name
    return None


def _other(speaker: str | None, speakers: list[str]) -> str | None:
    others = [s for s in speakers if s != speaker]
    return others[0] if len(speakers) == 2 and len(others) == 1 else None


def english_kin_named(relations: Iterable[RelationMention]) -> tuple[Kin, ...]:
    """The kin and friends an English fact names by a noun, read from the word each relation
    was read from: "my brother Sam" is the speaker's brother."""
    return tuple(
        Kin(r.source.name, r.via, r.target.name)
        for r in relations
        if r.type in _PERSON_TARGETS and r.via and r.target.start is not None
    )


NO_CONVERSATION = Conversation()

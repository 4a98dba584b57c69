"""Family circles: people who are each family of the same person are family of each other,
when one of the two speaks in the conversation (no LLM).

"Mom, I'm home." ties Ada to June; "Theo. My son-in-law." ties June to Theo; so Ada and
Theo are family too. Family here is kin by blood or by marriage, as the relation FAMILY_OF is
read everywhere else, so it carries across a chain. A tie is added only when one end is a
speaker: the conversation is among them, while a tie between two people merely talked about
("my brother's boss's wife") has drifted too far. Each tie inferred is weighed below the ties
it comes from and kept by the message that closed the chain; a path walks the chain instead
(cypher/find_path.cypher).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from service.core.domain import INFERRED_PREFIX
from service.nlp.entities.mentions import casefold_name
from service.nlp.entities.names import short_forms
from service.nlp.relations.table import RelationMention, RelationType, between_people

EXTRACTOR = f"{INFERRED_PREFIX}family_circle"
CONFIDENCE = 0.55
# Ties weaker than this are not carried further: a guess built on a guess is not kept.
MIN_LINK_CONFIDENCE = 0.6


class _Circles:
    """Disjoint sets of people (casefolded), each a family circle, with a name to show."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}
        self.shown: dict[str, str] = {}

    def find(self, key: str) -> str:
        while self.parent.setdefault(key, key) != key:
            key = self.parent[key]
        return key

    def members(self, root: str) -> list[str]:
        return [k for k in list(self.parent) if self.find(k) == root]

    def join(self, a: str, b: str) -> list[tuple[str, str]]:
        """Merge the circles of ``a`` and ``b``; the pairs, one from each, newly in one."""
        left, right = self.find(a), self.find(b)
        if left == right:
            return []
        pairs = [(x, y) for x in self.members(left) for y in self.members(right)]
        self.parent[left] = right
        return pairs


def family_circles(
    said: Sequence[Sequence[RelationMention]], speaker_names: Iterable[str]
) -> list[list[RelationMention]]:
    """Per message, the FAMILY_OF ties its relations newly imply: each pair, one of them a
    speaker, whose circles the message's own family ties join, unless already tied. A name
    said in full is the speaker who goes by its short form ("Nathan" is the speaker Nate)."""
    shown = {casefold_name(name): name for name in speaker_names}
    speakers = frozenset(shown)
    circles = _Circles()
    circles.shown.update(shown)
    tied: set[frozenset[str]] = set()
    found: list[list[RelationMention]] = []
    for relations in said:
        ties = list(_family_ties(relations, speakers))
        tied.update(frozenset((a, b)) for a, b, _ in ties)
        implied: list[RelationMention] = []
        for a, b, r in ties:
            circles.shown.setdefault(a, r.source.name)
            circles.shown.setdefault(b, r.target.name)
            for x, y in circles.join(a, b):
                if (x in speakers or y in speakers) and frozenset((x, y)) not in tied:
                    tied.add(frozenset((x, y)))
                    implied.append(_tie(circles.shown[x], circles.shown[y]))
        found.append(implied)
    return found


def _family_ties(
    relations: Iterable[RelationMention], speakers: frozenset[str]
) -> Iterator[tuple[str, str, RelationMention]]:
    """The message's FAMILY_OF ties strong enough to carry, by their people's keys."""
    for r in relations:
        if r.type is RelationType.FAMILY_OF and r.confidence >= MIN_LINK_CONFIDENCE:
            a, b = _person(r.source.name, speakers), _person(r.target.name, speakers)
            if a != b:
                yield a, b, r


def _person(name: str, speakers: frozenset[str]) -> str:
    """The casefolded name, or the speaker it is the full form of."""
    key = casefold_name(name)
    if key in speakers:
        return key
    return next((form for form in short_forms(name, "PERSON") if form in speakers), key)


def _tie(a: str, b: str) -> RelationMention:
    return between_people(RelationType.FAMILY_OF, a, b, EXTRACTOR, CONFIDENCE)

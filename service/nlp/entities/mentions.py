"""An entity mention and its label: what every extractor returns and the linker reads, and
the stop list of names that are never entities (nlp_models/stop_entities.txt)."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from pathlib import Path

from service.core.errors import ConfigurationError
from service.core.resources import NLP_MODELS_DIR

STOP_ENTITIES_PATH = NLP_MODELS_DIR / "stop_entities.txt"


class EntityLabel(StrEnum):
    PERSON = "PERSON"
    ORG = "ORG"
    PLACE = "PLACE"
    PRODUCT = "PRODUCT"  # named tools, apps, languages, frameworks, games, vehicles, brands
    EVENT = "EVENT"  # named festivals, races, conferences, weddings
    CONCEPT = "CONCEPT"  # hobbies, topics, nationalities: what has no type of the above
    TEMPORAL = "TEMPORAL"
    OTHER = "OTHER"  # a proper noun that neither NER nor the table could type


# The order of an entity's stored type votes (Entity.type_votes, one weight per type); a tie
# goes to the earlier type. cypher/merge_entities.cypher adds a batch's votes in this order.
VOTE_TYPES = tuple(
    label.value
    for label in (
        EntityLabel.PERSON,
        EntityLabel.ORG,
        EntityLabel.PLACE,
        EntityLabel.PRODUCT,
        EntityLabel.EVENT,
        EntityLabel.CONCEPT,
        EntityLabel.OTHER,
    )
)


@dataclass(frozen=True)
class TypeVote:
    """Evidence that a mention names a thing of this type, and how much it weighs."""

    label: EntityLabel
    weight: float
    why: str  # "head:org", "frame:person_noun", "gazetteer:place", …

    @property
    def of_name(self) -> bool:
        """Evidence from the name itself (its head word, a gazetteer), the same at every
        mention, so it counts once; a frame is the context's and adds up."""
        return self.why.startswith(("head:", "gazetteer:", "name:"))


@dataclass(frozen=True)
class EntityMention:
    """One entity in a text; ``start``/``end`` are character offsets into that text.
    ``votes`` is what its context says of its type (service/nlp/entities/type_evidence.py)."""

    text: str
    label: EntityLabel
    start: int
    end: int
    extractor: str  # "spacy:<NER label>" or "pattern:<row id>"
    confidence: float
    votes: tuple[TypeVote, ...] = ()

    @property
    def voted_label(self) -> EntityLabel:
        """The type its context votes for when that outweighs its extractor's label ("Brightwave
        hired me": NER's PERSON, the frame's ORG); the entity's type is the vote over every
        mention (service/nlp/entities/linking.py)."""
        totals: dict[EntityLabel, float] = {}
        for vote in self.votes:
            totals[vote.label] = totals.get(vote.label, 0.0) + vote.weight
        best = max(totals, key=lambda label: totals[label], default=None)
        if best is None or totals[best] <= self.confidence + totals.get(self.label, 0.0):
            return self.label
        return best


def casefold_name(text: str) -> str:
    """NFKC, case-folded, single-spaced: how stop lists and gazetteers compare a surface.

    Unlike ``names.identity_form`` it keeps possessives, articles and plurals."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


@cache
def load_stop_entities(path: Path = STOP_ENTITIES_PATH) -> frozenset[str]:
    """Normalised stop entities, one a line; blank lines and ``#`` comments are skipped."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise ConfigurationError(f"cannot read stop-entity list {path}: {e}") from e
    return frozenset(
        casefold_name(line) for line in lines if line.strip() and not line.lstrip().startswith("#")
    )

"""Relations the extractor reads in an invented conversation, for the unit tests."""

from __future__ import annotations

from datetime import UTC, datetime

from service.core.domain import MessageIn
from service.nlp.pipeline import Extractor

SAID = datetime(2024, 5, 10, tzinfo=UTC)


def relations(
    extractor: Extractor, said: list[tuple[str, str]], read_by: str = ""
) -> set[tuple[str, str, str]]:
    """(source, type, target) of every relation read in the ``(speaker, text)`` messages, or of
    those whose extractor starts with ``read_by``."""
    messages = [MessageIn(speaker=speaker, content=text) for speaker, text in said]
    facts = extractor.extract(messages, [SAID] * len(messages))
    return {
        (r.source.name, r.type.value, r.target.name)
        for message in facts
        for fact in message
        for r in fact.relations
        if r.extractor.startswith(read_by)
    }

"""Mentions of invented sentences, for the relation readers' unit tests."""

from __future__ import annotations

from service.nlp.entities.patterns import EntityLabel, EntityMention


def mentions(text: str, labels: dict[str, EntityLabel]) -> list[EntityMention]:
    """Each name of ``labels`` at its first place in ``text`` after the one before, labelled."""
    found, after = [], 0
    for name, label in labels.items():
        start = text.index(name, after)
        after = start + len(name)
        found.append(EntityMention(name, label, start, start + len(name), "test", 1.0))
    return found

"""The names a scope or a batch already knows, found again in text where no extractor marked
them: at a sentence start, as a possessive, by a short form, in another case. The linker builds
one from its entity directory (linking.py); the pipeline one from the batch's own names, so its
later messages are read for them before anything is stored.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace

from service.nlp.entities.names import identity_form, short_forms
from service.nlp.entities.patterns import EntityLabel, EntityMention, trim_span

GAZETTEER_CONFIDENCE = 0.8
_HAN = re.compile(r"[\u4e00-\u9fff]")
# A word of a name: letters and digits, with the marks names carry inside (Node.js, C++, A&M).
_WORD = re.compile(r"\w(?:[\w.+#&'’-]*[\w+#])?")


class Gazetteer:
    """Finds known names in text: English names as runs of words (a one-word name only
    capitalised, so "Mark" the person is not "mark" the verb), Chinese names as substrings.
    Longest first; a name inside a mention already found is not found again. Looked up word
    run by word run in a dict, so its cost follows the text, not the number of names."""

    def __init__(self, forms: dict[str, EntityLabel]) -> None:
        self.forms = {identity_form(f): label for f, label in forms.items() if identity_form(f)}
        latin = [f for f in self.forms if not _HAN.search(f)]
        self._max_words = max((len(_WORD.findall(f)) for f in latin), default=0)
        self._max_han = max((len(f) for f in self.forms if _HAN.search(f)), default=0)
        self._last: tuple[str, list[tuple[int, int]]] | None = None

    def find(self, text: str, mentions: Sequence[EntityMention]) -> list[EntityMention]:
        taken = [(m.start, m.end) for m in mentions]
        found: list[EntityMention] = []
        for span in sorted(self._candidates(text), key=lambda se: (se[0] - se[1], se[0])):
            start, end = trim_span(text, *span)  # "ACME's" -> ACME
            surface = text[start:end]
            latin_word = " " not in surface and not _HAN.search(surface)
            if latin_word and not surface[0].isupper():
                continue
            if any(s < end and start < e for s, e in taken):
                continue
            label = self.forms[identity_form(surface)]
            found.append(
                EntityMention(surface, label, start, end, "gazetteer", GAZETTEER_CONFIDENCE)
            )
            taken.append((start, end))
        return sorted(found, key=lambda m: m.start)

    def widen(self, text: str, mentions: Sequence[EntityMention]) -> list[EntityMention]:
        """Each mention that is part of a known name said around it made whole: NER often reads
        only "Seo" of "Seo-yeon" when the part after the hyphen is lower case, and "Run Club"
        of "Ancoats Run Club" at a sentence's start after the batch named it whole."""
        hyphened = [self._whole(text, m) for m in mentions]
        if self._max_words < 2:
            return hyphened
        spans = self._candidates(text)
        return [self._enclosing(text, m, spans, hyphened) for m in hyphened]

    def _enclosing(
        self,
        text: str,
        mention: EntityMention,
        spans: list[tuple[int, int]],
        mentions: Sequence[EntityMention],
    ) -> EntityMention:
        """The longest known name around the mention that holds no other mention."""
        own = identity_form(mention.text)
        around = [
            (start, end)
            for start, end in (trim_span(text, *span) for span in spans)
            if identity_form(text[start:end]) != own  # "the Grand Canyon" is no longer name
            and start <= mention.start
            and mention.end <= end
            and end - start > mention.end - mention.start
            and not any(o is not mention and o.start < end and start < o.end for o in mentions)
        ]
        if not around:
            return mention
        start, end = max(around, key=lambda se: se[1] - se[0])
        label = self.forms[identity_form(text[start:end])]
        return replace(mention, text=text[start:end], start=start, end=end, label=label)

    def _whole(self, text: str, mention: EntityMention) -> EntityMention:
        if not text.startswith("-", mention.end):
            return mention
        word = _WORD.match(text, mention.start)
        end = word.end() if word else mention.end
        label = self.forms.get(identity_form(text[mention.start : end]))
        if end <= mention.end or label is None:
            return mention
        return replace(mention, text=text[mention.start : end], end=end, label=label)

    def _candidates(self, text: str) -> list[tuple[int, int]]:
        """Spans of the text whose normalised form is a known name; the last text's are kept,
        for ``widen`` and ``find`` read each fact one after the other."""
        if self._last is not None and self._last[0] == text:
            return self._last[1]
        spans = self._scan(text)
        self._last = (text, spans)
        return spans

    def _scan(self, text: str) -> list[tuple[int, int]]:
        spans = []
        words = [w.span() for w in _WORD.finditer(text)]
        for i, (start, _) in enumerate(words):
            for j in range(i, min(i + self._max_words, len(words))):
                end = words[j][1]
                if identity_form(text[start:end]) in self.forms:
                    spans.append((start, end))
        for start in (han.start() for han in _HAN.finditer(text)):
            for end in range(start + 2, min(start + self._max_han, len(text)) + 1):
                if identity_form(text[start:end]) in self.forms:
                    spans.append((start, end))
        return spans


def batch_forms(
    mentions: Iterable[EntityMention], speakers: Iterable[str]
) -> dict[str, EntityLabel]:
    """The names a batch itself introduces, with their short forms: what its later messages
    are read for before anything is stored (the speakers are people)."""
    forms: dict[str, EntityLabel] = {s: EntityLabel.PERSON for s in speakers if s.strip()}
    for speaker in list(forms):
        if _HAN.search(speaker):  # 陈志远 is 志远 to the others: "多亏志远…，他那块表…"
            for short in short_forms(speaker, EntityLabel.PERSON.value):
                forms.setdefault(short, EntityLabel.PERSON)
    for m in sorted(mentions, key=lambda m: -len(m.text)):
        forms.setdefault(m.text, m.label)
        for short in short_forms(m.text, m.label.value):
            forms.setdefault(short, m.label)
    return forms

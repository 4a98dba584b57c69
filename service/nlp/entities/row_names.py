"""Names a relation row read whole where the mentions hold only their parts.

NER and the pattern table cut some names short or in pieces: "Haven Legal Aid needs to hire"
gives "Haven Legal" ("Aid" reads as a noun), "Riverside Running Club" gives "Riverside" and
"Running". A relation row reads its ends on the parse or in its regex, from the frame around
them ("X, over in Y"; 在X当护士), and may read the whole name. When a row's end holds one or
more mentions and more besides, and is a name as a whole, the mentions give way to it:

- English: every word of it capitalised (a lower-case "of", "and", "the" or "&" inside), and it
  does not open with a title or kin word ("Grandma Rosa" is Rosa);
- Chinese: it ends with an organisation's word of ``zh_suffixes.tsv`` (中山大学附属第五医院),
  so a part of an organisation (X总部, X分公司) stays the organisation's.

The widened mention keeps the label of the longest mention it holds; the type vote decides.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from functools import cache

from service.nlp.entities.chinese_frames import COUNTED_INSIDE
from service.nlp.entities.chinese_lexicon import ChineseLexicon
from service.nlp.entities.mentions import EntityLabel, EntityMention
from service.nlp.entities.type_evidence import load_type_evidence
from service.nlp.relations.table import RelationMention

EXTRACTOR = "row_name"
_RULED = ("dep:", "pattern:", "grammar:")  # the rows' extractors, not the learned reader's
_INNER_WORDS = frozenset({"of", "and", "the", "&", "de", "du", "la", "le"})


def widened(
    text: str, lang: str, mentions: list[EntityMention], relations: Iterable[RelationMention]
) -> list[EntityMention]:
    """``mentions`` with those a row's end holds replaced by that end, where it is a name."""
    found = list(mentions)
    for start, end in _row_ends(relations):
        inside = [m for m in found if start <= m.start and m.end <= end]
        if not inside or any((m.start, m.end) == (start, end) for m in inside):
            continue
        crossed = any(m.start < end and start < m.end and m not in inside for m in found)
        if crossed or not _is_name(text[start:end], lang):
            continue
        longest = max(inside, key=lambda m: m.end - m.start)
        whole = replace(
            longest, text=text[start:end], start=start, end=end, extractor=EXTRACTOR, votes=()
        )
        found = sorted([m for m in found if m not in inside] + [whole], key=lambda m: m.start)
    return found


def _row_ends(relations: Iterable[RelationMention]) -> list[tuple[int, int]]:
    """The character spans of the ends the rows read (not the learned reader's)."""
    return [
        (end.start, end.end)
        for r in relations
        if r.extractor.startswith(_RULED)
        for end in (r.source, r.target)
        if end.start is not None and end.end is not None
    ]


def _is_name(surface: str, lang: str) -> bool:
    if lang != "en":  # 北京一家医院 is "a hospital in Beijing"
        return surface.endswith(_organisation_words()) and not COUNTED_INSIDE.search(surface)
    words = surface.split()
    if len(words) < 2 or words[0].lower().rstrip(".") in _titles():
        return False
    return all(w[:1].isupper() or w.lower() in _INNER_WORDS for w in words)


@cache
def _titles() -> frozenset[str]:
    words = load_type_evidence().en
    return words.titles | words.person_nouns


@cache
def _organisation_words() -> tuple[str, ...]:
    suffixes = ChineseLexicon.load().suffixes
    return tuple(s for s, rule in suffixes.items() if rule.label is EntityLabel.ORG)

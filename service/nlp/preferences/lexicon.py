"""What people like, do and give up, by kind: ``nlp_models/preference_kinds.json``.

An item (coffee, 跑步) has a canonical name, which is the name of its entity, other forms that
name it ("latte" is coffee, 慢跑 is 跑步), and in English the verbs that say doing it ("climbed"
is climbing). Its kind (hot drink, sport …) is what "the same kind" means when a change of mind
names only the new thing: "switched to green tea" retires the other hot drinks.

No lexical resource on the package registries ships WordNet's hypernyms for offline use, so the
kinds are a list; bench/RESULTS.md ("Changes of mind") records the comparison.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import lemminflect
from pydantic import BaseModel, ConfigDict, ValidationError

from service.core.errors import ConfigurationError
from service.core.resources import NLP_MODELS_DIR
from service.nlp.entities.names import identity_form
from service.nlp.language import Lang
from service.nlp.tables import describe

PREFERENCE_KINDS_PATH = NLP_MODELS_DIR / "preference_kinds.json"
_WORD = re.compile(r"[a-z0-9]+(?:['’-][a-z0-9]+)*", re.IGNORECASE)
_SENTENCE_ENDS = frozenset(".!?…\n")


class _ItemRow(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    forms: tuple[str, ...] = ()
    verbs: tuple[str, ...] = ()  # English lemmas: "climb" says climbing
    weak: tuple[str, ...] = ()  # forms that yield to any other item beside them ("drinking")


class _Table(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    kinds: dict[str, dict[Lang, dict[str, _ItemRow]]]


@dataclass(frozen=True)
class Item:
    """A thing liked or done: its canonical name (its entity's) and its kind."""

    name: str
    kind: str


@dataclass(frozen=True)
class ItemSpan:
    """An item named in a text, at [start, end); ``weak`` when a general word named it."""

    item: Item
    start: int
    end: int
    weak: bool = False


class Lexicon:
    """The items of one language, looked up by any of their forms."""

    def __init__(self, lang: Lang, rows: dict[str, dict[str, _ItemRow]]) -> None:
        self.lang = lang
        self._forms: dict[str, tuple[Item, bool]] = {}
        self.verbs: dict[str, Item] = {}
        self._by_name: dict[str, Item] = {}
        self._verb_only: set[str] = set()  # forms only a verb gives ("boulder" of climbing)
        for kind, items in rows.items():
            for name, row in items.items():
                item = Item(name, kind)
                self._by_name[identity_form(name)] = item
                for form in (name, *row.forms):
                    self._forms.setdefault(form.lower(), (item, False))
                for form in row.weak:
                    self._forms.setdefault(form.lower(), (item, True))
                for verb in row.verbs:
                    self.verbs.setdefault(verb, item)
                    for form in verb_forms(verb):
                        if form not in self._forms:
                            self._verb_only.add(form)
                        self._forms.setdefault(form, (item, False))
        # English forms are runs of whole words, looked up word run by word run (a plural s
        # allowed); Chinese ones are substrings, found by one alternation.
        self._max_words = max((len(f.split()) for f in self._forms), default=1)
        # The first words of the forms of more than one word: no run starts elsewhere.
        self._first_words = {f.split(" ", 1)[0] for f in self._forms if " " in f}
        forms = sorted(self._forms, key=len, reverse=True)
        self._pattern = re.compile("|".join(re.escape(f) for f in forms))

    def find(self, text: str, start: int = 0, end: int | None = None) -> list[ItemSpan]:
        """The items named in ``text[start:end]``, longest form first, without overlaps; a weak
        form only where nothing else is named."""
        end = len(text) if end is None else end
        found = self._find_words(text, start, end) if self.lang == "en" else []
        if self.lang != "en":
            for match in self._pattern.finditer(text, start, end):
                item, weak = self._forms[match.group()]
                found.append(ItemSpan(item, match.start(), match.end(), weak))
        strong = [s for s in found if not s.weak]
        return strong or found

    def _find_words(self, text: str, start: int, end: int) -> list[ItemSpan]:
        matched = list(_WORD.finditer(text, start, end))
        words = [
            (m.start(), m.end(), m.group().lower())
            for i, m in enumerate(matched)
            if not self._in_a_name(text, matched, i)
        ]
        found, i = [], 0
        while i < len(words):
            longest = self._max_words if words[i][2] in self._first_words else 1
            for n in range(min(longest, len(words) - i), 0, -1):
                form = " ".join(w for _, _, w in words[i : i + n])
                hit = self._forms.get(form) or self._forms.get(form.removesuffix("s"))
                if hit is not None:
                    found.append(ItemSpan(hit[0], words[i][0], words[i + n - 1][1], hit[1]))
                    i += n
                    break
            else:
                i += 1
        return found

    def _in_a_name(self, text: str, words: list[re.Match[str]], i: int) -> bool:
        """A capitalised word inside a sentence that is a verb's form ("moved to Boulder") or
        a word of a longer capitalised name ("Juniper Yoga"): a name, no item. A product's
        one-word name ("I quit Instagram") stays one."""
        word = words[i].group()
        if not word[:1].isupper() or _opens_sentence(text, words[i].start()):
            return False
        pairs = [(i - 1, i), (i, i + 1)]
        beside = [
            words[b if a == i else a].group()
            for a, b in pairs
            if a >= 0 and b < len(words) and not text[words[a].end() : words[b].start()].strip()
        ]
        return word.lower() in self._verb_only or any(w[:1].isupper() for w in beside)

    def kind_of(self, name: str) -> str | None:
        """The kind of an entity's name, when it is an item (by its canonical name or a form)."""
        item = self._by_name.get(identity_form(name))
        if item is None:
            hit = self._forms.get(name.lower())
            item = hit[0] if hit else None
        return item.kind if item else None


def verb_forms(verb: str) -> tuple[str, ...]:
    """A verb's inflections ("bake" → bakes, baked, baking), from LemmInflect's dictionary."""
    found = [verb]
    for forms in lemminflect.getAllInflections(verb, upos="VERB").values():
        found += forms
    return tuple(dict.fromkeys(found))


@cache
def lexicon(lang: Lang, path: Path = PREFERENCE_KINDS_PATH) -> Lexicon:
    """The lexicon of ``lang``; a bad file raises ConfigurationError naming it."""
    try:
        table = _Table.model_validate_json(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise ConfigurationError(f"cannot read preference kinds {path}: {e}") from e
    except ValidationError as e:
        raise ConfigurationError(f"{path}: {describe(e)}") from e
    return Lexicon(lang, {kind: langs.get(lang, {}) for kind, langs in table.kinds.items()})


def kind_of(name: str) -> str | None:
    """The kind of an item named in either language (None: not an item)."""
    return lexicon("en").kind_of(name) or lexicon("zh").kind_of(name)


def with_names(items: list[ItemSpan], names: Sequence[ItemSpan]) -> list[ItemSpan]:
    """The items of a text and the names it mentions that no item overlaps, in text order."""
    free = [n for n in names if not any(i.start < n.end and n.start < i.end for i in items)]
    return sorted([*items, *free], key=lambda s: s.start)


def within(spans: Sequence[ItemSpan], start: int, end: int) -> list[ItemSpan]:
    """The spans that begin in [start, end)."""
    return [s for s in spans if start <= s.start < end]


def _opens_sentence(text: str, at: int) -> bool:
    """Whether only punctuation and spaces stand between ``at`` and the text's start or the
    end of a sentence before it."""
    i = at
    while i > 0 and not text[i - 1].isalnum() and text[i - 1] not in _SENTENCE_ENDS:
        i -= 1
    return i == 0 or text[i - 1] in _SENTENCE_ENDS

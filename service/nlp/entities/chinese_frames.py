"""Names the Chinese entity finder missed, read off the frame that holds them as its object.

A frame of ``nlp_models/zh_frame_objects.json`` says where its object stands (在X上班, 搬到X,
是X的老师) and what type it votes for (where one works: an organisation; where one moves: a
place). jieba's words bound the object; it becomes a mention only when it looks like a name: a
proper noun, a word jieba does not know or rarely sees, or a name-ending word after one (青松 +
一中, 红星 + 舞蹈团); never a pronoun, a time word, a verb, a common noun alone (在公司上班) or
one of the words of ``zh_not_entities.txt`` and ``zh_generic_heads.txt``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from service.core.errors import ConfigurationError
from service.core.resources import NLP_MODELS_DIR
from service.nlp.entities.chinese_lexicon import NEVER_INSIDE_NAMES, ChineseLexicon, Word
from service.nlp.entities.mentions import EntityLabel, EntityMention, casefold_name
from service.nlp.relations.chinese_words import alternation, check_classes, load_relation_words
from service.nlp.tables import describe

FRAME_OBJECTS_PATH = NLP_MODELS_DIR / "zh_frame_objects.json"

__all__ = ["FRAME_OBJECTS_PATH", "FrameObjects", "ObjectShape", "load_frame_objects"]

# Extractors whose label is jieba's guess from its tag alone: a frame's type overrides it.
GUESSED_TYPES = ("jieba:", "zh:place_verb", "learned")
# Extractors that read a person's name off its first character: a place frame overrides them.
NAME_GUESS = ("jieba:nr", "zh:surname", "zh:split")
PROPER_TAGS = frozenset({"nr", "nrt", "nrfg", "ns", "nt", "nz", "j", "eng"})
# Below this count in jieba's dictionary a word may be part of a name (星辰, 草莓 are; 公司 not).
RARE_WORD_FREQ = 200
# Below this count a noun of three characters or more in a place frame is a place's name.
RARE_PLACE_FREQ = 50
_NOT_IN_NAMES = re.compile(r"[我你您他她它咱的了着过吗呢吧啊]")
_PUNCTUATION = re.compile(r"[，,。！？；;!?、：:…~～\s]")
_OPENS_NO_NAME = re.compile(r"^[这那哪某每各另一二两三四五六七八九十几个]")
# A counted noun inside (北京一家医院): "a hospital in Beijing", no name.
COUNTED_INSIDE = re.compile(r"[一这那每][家个所间座]")
_NAMED_MAY_HOLD = tuple(tag for tag in NEVER_INSIDE_NAMES if tag != "t")


class ObjectShape(StrEnum):
    AT = "at"  # 在 + object + filler + trigger (在青松一中上班)
    AFTER = "after"  # trigger + filler + object (加入了红星舞蹈团)
    IS_OF = "is_of"  # 是 + object + 的 + trigger (是星河幼儿园的老师)


class ObjectFrame(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    shape: ObjectShape
    classes: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    label: EntityLabel
    confidence: float = Field(gt=0.0, le=1.0)
    opener: str = "在"  # the word before an AT object (去 of 去X玩)
    patterns: tuple[str, ...] = ()  # trigger regexes, matched anywhere (店，叫 of 开了家店，叫X)
    # The object runs to the clause's end whatever its words: a name given (叫记一笔) may be
    # made of common words, verbs too.
    to_clause_end: bool = False


class FrameObjectTable(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    filler: str
    verb_filler: str
    max_chars: int = Field(ge=2)
    ends: frozenset[str]
    frames: tuple[ObjectFrame, ...]


@cache
def load_frame_objects(path: Path = FRAME_OBJECTS_PATH) -> FrameObjectTable:
    """The table at ``path``; an unreadable or invalid one raises ConfigurationError."""
    try:
        table = FrameObjectTable.model_validate_json(path.read_text(encoding="utf-8"))
        re.compile(table.filler)
        re.compile(table.verb_filler)
        for frame in table.frames:
            for pattern in frame.patterns:
                re.compile(pattern)
    except OSError as e:
        raise ConfigurationError(f"cannot read the frame objects {path}: {e}") from e
    except ValidationError as e:
        raise ConfigurationError(f"{path}: {describe(e)}") from e
    except re.error as e:
        raise ConfigurationError(f"{path}: bad filler regex: {e}") from e
    check_classes(path, table.frames)
    return table


@dataclass(frozen=True)
class _Compiled:
    frame: ObjectFrame
    trigger: re.Pattern[str]


class FrameObjects:
    """Mentions proposed by the frames of ``zh_frame_objects.json``."""

    def __init__(
        self,
        frequency: dict[str, int],
        lexicon: ChineseLexicon | None = None,
        table: FrameObjectTable | None = None,
    ) -> None:
        self._frequency = frequency  # jieba's dictionary counts
        self._lexicon = lexicon if lexicon is not None else ChineseLexicon.load()
        self.table = table if table is not None else load_frame_objects()
        classes = load_relation_words().classes
        self._frames = [_Compiled(f, _trigger(f, classes)) for f in self.table.frames]
        self._filler = re.compile(self.table.filler)
        self._verb_filler = re.compile(self.table.verb_filler)
        self._heads = {h for group in load_relation_words().heads.values() for h in group}

    def find(
        self, text: str, words: Sequence[Word], known: Sequence[EntityMention]
    ) -> list[EntityMention]:
        """Objects of the frames in ``text`` (its jieba ``words``) that are no ``known``
        mention yet, or that a known one names only in part (溪湖 of 梅溪湖)."""
        found: dict[tuple[int, int], EntityMention] = {}
        for frame, start, end in self._objects(text, words):
            mention = self._mention(frame, text, words, start, end)
            if mention is not None and self._adds_to(mention, known, frame.to_clause_end):
                found.setdefault((start, end), mention)
        return sorted(found.values(), key=lambda m: m.start)

    def retyped(
        self, text: str, words: Sequence[Word], known: Sequence[EntityMention]
    ) -> list[EntityMention]:
        """``known`` with the frame's type on a mention that is a frame's object, where only
        jieba's tag guessed its type (在墨大读研: a school, though jieba tags 墨大 a place)."""
        votes = {(s, e): frame.label for frame, s, e in self._objects(text, words)}
        found = []
        for mention in known:
            label = votes.get((mention.start, mention.end))
            guessed = mention.extractor.startswith(GUESSED_TYPES)
            guessed = guessed and not text.startswith("的", mention.end)  # 用招行的卡: 招行 owns
            if mention.label is EntityLabel.PERSON:  # 住在/开在 + a name read as a person's
                guessed = label is EntityLabel.PLACE and mention.extractor.startswith(NAME_GUESS)
            if label is not None and guessed and mention.label is not label:
                mention = replace(mention, label=self._label(mention.text, label))
            found.append(mention)
        return found

    def _objects(self, text: str, words: Sequence[Word]) -> Iterator[tuple[ObjectFrame, int, int]]:
        starts = {w.start: i for i, w in enumerate(words)}
        for compiled in self._frames:
            for start, end in self._spans(compiled, text, words, starts):
                yield compiled.frame, start, end

    def _spans(
        self, compiled: _Compiled, text: str, words: Sequence[Word], starts: dict[int, int]
    ) -> Iterator[tuple[int, int]]:
        shape = compiled.frame.shape
        for trigger in compiled.trigger.finditer(text):
            if trigger.start() not in starts and not trigger.group("pattern"):
                continue  # inside a word: 在 of 现在, 用 of 费用
            if shape is ObjectShape.AFTER and compiled.frame.to_clause_end:
                span = self._object_to_clause_end(text, words, starts, trigger.end())
                if span is not None:
                    yield span
            elif shape is ObjectShape.AFTER:
                span = self._object_after(text, words, starts, trigger.end())
                if span is not None:
                    yield span
            else:
                span = self._object_before(compiled.frame, text, words, trigger.start())
                if span is not None:
                    yield span

    def _object_after(
        self, text: str, words: Sequence[Word], starts: dict[int, int], at: int
    ) -> tuple[int, int] | None:
        """The words after a trigger and its filler, up to one that ends a noun phrase."""
        filler = self._filler.match(text, at)
        start = filler.end() if filler else at
        if start not in starts:
            return None
        end = start
        for word in words[starts[start] :]:
            if word.end - start > self.table.max_chars or not self._inside(word):
                break
            end = word.end
        return (start, end) if end - start >= 2 else None

    def _object_to_clause_end(
        self, text: str, words: Sequence[Word], starts: dict[int, int], at: int
    ) -> tuple[int, int] | None:
        """The words after a trigger up to punctuation or a closing particle (叫小满吧)."""
        if at not in starts:
            return None
        end = at
        for word in words[starts[at] :]:
            if _PUNCTUATION.match(word.word) or word.tag.startswith(("y", "u", "x")):
                break
            end = word.end
        return (at, end) if 2 <= end - at <= self.table.max_chars else None

    def _object_before(
        self, frame: ObjectFrame, text: str, words: Sequence[Word], at: int
    ) -> tuple[int, int] | None:
        """在 + object + filler before a trigger (AT), 是 + object + 的 before one (IS_OF)."""
        opener, closer = ("是", "的") if frame.shape is ObjectShape.IS_OF else (frame.opener, "")
        before = [w for w in words if w.end <= at and at - w.end <= self.table.max_chars + 4]
        opened = next((w for w in reversed(before) if w.word == opener), None)
        if opened is None or _PUNCTUATION.search(text, opened.end, at):
            return None
        start, end = opened.end, at
        if closer:
            if not text.startswith(closer, end - 1):
                return None
            end -= 1
        else:
            end -= _ending_filler(self._verb_filler, text[start:end])
        if not any(w.end == end for w in words):
            return None  # not where a word of jieba's ends
        return (start, end) if end - start >= 2 else None

    def _inside(self, word: Word) -> bool:
        """Whether a word may stand inside an object that follows its verb."""
        if word.word in self.table.ends or word.tag.startswith(NEVER_INSIDE_NAMES):
            return False
        if word.tag.startswith(("v", "d", "f", "m", "q", "a")):
            return self._frequency.get(word.word, 0) == 0 or word.tag == "eng"
        return True

    def _mention(
        self,
        frame: ObjectFrame,
        text: str,
        words: Sequence[Word],
        start: int,
        end: int,
    ) -> EntityMention | None:
        surface = text[start:end]
        inside = [w for w in words if start <= w.start and w.end <= end]
        if not self._plausible(surface, inside, frame.label, frame.to_clause_end):
            return None
        extractor = f"zh:frame:{frame.id}"
        label = self._label(surface, frame.label)
        return EntityMention(surface, label, start, end, extractor, frame.confidence)

    def _plausible(
        self,
        surface: str,
        inside: Sequence[Word],
        label: EntityLabel,
        frame_named: bool = False,
    ) -> bool:
        """A name, not a phrase: see the module's docstring. A name the text gives (叫X) may
        be made of any words."""
        if len(surface) < 2 or len(surface) > self.table.max_chars:
            return False
        if _NOT_IN_NAMES.search(surface) or _OPENS_NO_NAME.match(surface):
            return False
        if COUNTED_INSIDE.search(surface):
            return False
        form = casefold_name(surface)
        if form in self._lexicon.not_entities or surface in self._lexicon.generic_heads:
            return False
        # A name the text gives may hold a time character (叫夜跑侠, 叫春晓): jieba's tag
        # of one character is no time word there.
        never = _NAMED_MAY_HOLD if frame_named else NEVER_INSIDE_NAMES
        if any(w.tag.startswith(never) for w in inside):
            return False
        if any(w.word in self._lexicon.generic_heads for w in inside[:-1]):
            return False  # 新公司, 游戏公司: a kind, not a name
        if frame_named:
            return True
        if len(inside) == 1:
            word, count = inside[0], self._frequency.get(inside[0].word, 0)
            if label is EntityLabel.PLACE and len(word.word) >= 3 and word.tag == "n":
                return count < RARE_PLACE_FREQ  # 去鼓浪屿玩: jieba knows it, hardly ever
            return word.tag in PROPER_TAGS or count == 0
        return any(self._name_like(w) for w in inside)

    def _name_like(self, word: Word) -> bool:
        """A word that may be (part of) a name: proper, unknown or rare, and no verb."""
        if word.word in self._lexicon.generic_heads or word.word in self._heads:
            return False
        if word.word in self._lexicon.suffixes:
            return False
        count = self._frequency.get(word.word, 0)
        if word.tag in PROPER_TAGS or count == 0:
            return True
        return count < RARE_WORD_FREQ and len(word.word) >= 2 and not word.tag.startswith("v")

    def _label(self, surface: str, label: EntityLabel) -> EntityLabel:
        """The frame's label, unless a name-ending word says otherwise (音乐节: an event)."""
        for cut in range(1, len(surface) - 1):
            rule = self._lexicon.suffixes.get(surface[cut:])
            if rule is not None:
                return rule.label
        if load_relation_words().head_type(surface) is not None:
            return EntityLabel.ORG
        return label

    def _adds_to(
        self, mention: EntityMention, known: Sequence[EntityMention], named: bool = False
    ) -> bool:
        """No known mention crosses it or is it; one inside it must end where it ends (溪湖 of
        梅溪湖) or before a name-ending word (南山 + 外国语学校), and name no person, unless
        the text gives the whole as a name (叫竹林小院: 竹林 is part of it)."""
        for other in known:
            if other.end <= mention.start or mention.end <= other.start:
                continue
            if (other.start, other.end) == (mention.start, mention.end):
                return False
            if other.start < mention.start or other.end > mention.end:
                return False
            if named:
                continue
            if other.label is EntityLabel.PERSON:
                return False
            tail = mention.text[other.end - mention.start :]
            if tail and self._label(mention.text, EntityLabel.OTHER) is EntityLabel.OTHER:
                return False
        return True


def _ending_filler(filler: re.Pattern[str], span: str) -> int:
    """How many characters at the end of ``span`` are filler before the trigger (一直)."""
    for cut in range(max(0, len(span) - 4), len(span)):
        tail = span[cut:]
        if filler.fullmatch(tail) and tail:
            return len(tail)
    return 0


def _trigger(frame: ObjectFrame, classes: dict[str, tuple[str, ...]]) -> re.Pattern[str]:
    """One regex for a frame's words (at the start of a jieba word) and its patterns (group
    ``pattern``, anywhere)."""
    words = [*frame.words, *(w for c in frame.classes for w in classes[c])]
    parts = [alternation(words)] if words else []
    if frame.patterns:
        parts.append("(?P<pattern>" + "|".join(f"(?:{p})" for p in frame.patterns) + ")")
    else:
        parts.append("(?P<pattern>(?!))")
    return re.compile("|".join(parts))

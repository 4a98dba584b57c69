"""Chinese entity mentions without an LLM: jieba's part-of-speech tags plus small data tables.

The pattern table (``patterns.py``) finds Chinese names only inside a few context phrases
(我叫X, 在X工作). ``ChineseEntityFinder`` finds them in plain sentences:

- jieba's tagger, once per text: ``nr`` words led by a family name and a given name of common
  given-name characters are people, ``ns`` places, ``nt`` organisations, ``nz`` other proper
  nouns (腾讯, 清华); well-known brands jieba lacks are added to its dictionary first;
- names jieba cut apart: 欧阳/娜娜, 宋/建国, 小/刘, and family name + title (朱老师);
- a word of ``zh_suffixes.tsv`` joins the word before it: 浙江 + 大学, 商汤 + 科技, 大洋 + 路;
  an organisation's word joins a brand jieba cut apart or tagged as a common word (暖/阳 +
  书店, 蓝鲸 + 摄影 + 协会), and an organisation's name goes on through one (X大学 + 附属医院);
- Latin words are products or tools, with an adjacent brand: 佳能R6, Mate 60; 《三体》 is a
  title of a work;
- a word jieba's dictionary does not know (or knows as a rare common noun) is a name where the
  context expects one (``zh_context_rules.jsonl``): 用钉钉, 在小红书上找, 美团的总部.

- a learned reader (``chinese_names.py``), trained on the relation corpus's names, reads the
  names the rules above leave out, character by character; it only adds, where they found none.

Overlapping candidates keep the longest. Mentions in ``zh_not_entities.txt`` or
``stop_entities.txt`` are dropped. The tables are data in ``nlp_models/`` (``chinese_lexicon.py``).
"""

from __future__ import annotations

import itertools
import logging
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from functools import cache
from types import MappingProxyType

import jieba
import jieba.posseg

from service.nlp.entities.chinese_lexicon import (
    NEVER_INSIDE_NAMES,
    ChineseLexicon,
    ContextRule,
    HeadKind,
    SuffixRule,
)
from service.nlp.entities.chinese_names import Reading, is_world_place, read_names
from service.nlp.entities.chinese_names import Span as NameSpan
from service.nlp.entities.mentions import EntityLabel, EntityMention, casefold_name
from service.nlp.entities.type_evidence import load_type_evidence
from service.nlp.linear import LinearModel
from service.nlp.relations.chinese_words import load_relation_words
from service.nlp.time.holidays import holidays_by_name
from service.nlp.time.tags import leading_time

__all__ = ["LEARNED", "ChineseEntityFinder", "Token", "merge_mentions"]

# Below this count in jieba's dictionary a common noun may still be a brand (携程, 商汤).
RARE_WORD_FREQ = 200
# A name only the learned reader found: below the rules' tagged names.
LEARNED_CONFIDENCE = 0.7
LEARNED = "learned"  # its mentions' extractor
PROPER_TAGS = frozenset({"nr", "nrt", "nrfg", "ns", "nt", "nz", "j", "eng"})
NICKNAME_PREFIXES = frozenset("小老阿")
# A brand before an organisation's word is rarer than this in jieba's dictionary, or a noun
# rarer than BRAND_NOUN_FREQ (星光 + 合唱团; not 学校 + 合唱团, 连锁 + 书店).
BRAND_NOUN_FREQ = 500
# Numbers and determiners: 一家外企 is no name.
# Measure words that stand between a verb or a number and a thing (买了台X, 一辆X).
MEASURE_CHARS = frozenset("辆台部块架款个只件套把条")
COUNTING_CHARS = frozenset("一二两三四五六七八九十几每某各另")
# The heads of a club's or team's name, and the tags of what it does before them (夜/tg 跑/v).
GROUP_HEADS = frozenset("团队社")
GROUP_DOINGS = frozenset({"n", "vn", "v", "t", "tg", "ng"})
# Characters that spell foreign names by sound.
TRANSLITERATION_CHARS = frozenset(
    "斯姆尔克特拉德里森娜丝莎妮亚伦恩诺布夫基罗维奇埃奥乔约翰汉密顿格兰玛丽安艾伊詹杰威廉汤姆卡蒂"
)
# Words before a place (去, 住在) or before a place or an organisation (在, 从).
PLACE_VERBS: Mapping[str, EntityLabel] = MappingProxyType(
    {
        **dict.fromkeys(("去", "到", "回", "住在", "搬到", "来自", "去过"), EntityLabel.PLACE),
        **dict.fromkeys(("在", "从"), EntityLabel.OTHER),
    }
)
# Tags jieba gives a given name it cut off its family name: 宋/nr 建国/ns, 李/nr 红梅/nr.
GIVEN_NAME_TAGS = frozenset({"nr", "nrt", "nrfg", "ns", "nz", "n", "a", "ng", "j", "i"})
# Characters jieba's HMM glues to the end of a name: 麦婷刚买了 gives 麦婷刚.
NAME_TRAILERS = frozenset("刚说也在和都就还又去来是的了把被给跟要会才已好")
# Characters that never occur inside a name found from context alone.
FUNCTION_CHARS = frozenset(
    "的了是在我你他她它们这那哪个些么吗呢吧啊呀和跟与及或都也就还又很太最更把被给不没有上下里"
)

_HAN = re.compile(r"[\u4e00-\u9fff]+")
_PARTICLES = frozenset("了的着过地得")
# Doubled characters that are words, not given names (常常, 刚刚, 天天, 慢慢 …).
_NO_DOUBLE = frozenset("常刚天慢渐偏明稍往仅人个年月日星时处样件")
_LATIN = re.compile(
    r"(?<![A-Za-z0-9])[A-Za-z][A-Za-z0-9+#\-]*(?:\.[A-Za-z0-9]+)*"
    r"(?: (?:[A-Za-z]*\d[A-Za-z0-9]*|[A-Z][a-z]*)(?![A-Za-z0-9]))*"
)


@dataclass(frozen=True)
class Token:
    """One word of jieba's segmentation, with its tag and character offsets."""

    word: str
    tag: str
    start: int
    end: int


class ChineseEntityFinder:
    """Names of people, organisations, places and products in Chinese text.

    jieba's dictionary loads here, once (about a second), from the copy jieba ships.
    """

    def __init__(self, lexicon: ChineseLexicon | None = None) -> None:
        self._lexicon = lexicon if lexicon is not None else ChineseLexicon.load()
        logging.getLogger("jieba").setLevel(logging.WARNING)
        self._words = jieba.Tokenizer()
        self._words.initialize()
        for name in self._lexicon.known_names:  # whole words, tagged as proper nouns
            self._words.add_word(name, tag="nz")
        for suffix in self._lexicon.suffixes:  # 卫东 + 茶行, not 卫东 + 茶 + 行
            if len(suffix) > 1:
                self._words.suggest_freq(suffix, tune=True)
        self._tagger = jieba.posseg.POSTokenizer(self._words)
        lex = self._lexicon
        self._surnames, self._compound_surnames = lex.surnames, lex.compound_surnames
        self._given_chars, self._titles = lex.given_name_chars, lex.titles
        self._suffixes, self._stop = lex.suffixes, lex.not_entities
        # Words said after a person's name to address them: titles (马总) and kin (海燕姐).
        person_nouns = load_type_evidence().zh.person_nouns
        self._after_names = sorted(lex.titles | frozenset(person_nouns), key=len, reverse=True)

    def find(
        self, text: str, learned: bool = True, model: LinearModel | None = None
    ) -> list[EntityMention]:
        """Mentions in ``text``, sorted by start, none overlapping another; without ``learned``,
        the rules' alone (``model``: another name reader's, bench/chinese_names.py)."""
        tokens = self.tokens(text)
        # Between equally long spans the first in this order wins: the context says more
        # than a tag (在高德上查: an app, though jieba tags 高德 as a person).
        found = [
            *self._in_context(text, tokens),
            *self._split_names(tokens),
            *self._joined(tokens),
            *self._brands(text, tokens),
            *self._groups(text, tokens),
            *self._latin(text, tokens),
            *_titles_of_works(text),
            *self._tagged(tokens),
            *self._after_place_verb(tokens),  # last: any label from the word itself wins
        ]
        found = [m for m in found if not _after_a_measure(text, m)]
        kept = _longest_first(mention for mention in found if self._allowed(mention))
        kept = _places_in_phrases(text, self._org_goes_on(text, tokens, kept))
        if not learned:
            return kept
        return sorted([*kept, *self._learned(text, tokens, kept, model)], key=lambda m: m.start)

    def _learned(
        self, text: str, tokens: list[Token], kept: list[EntityMention], model: LinearModel | None
    ) -> Iterator[EntityMention]:
        """Names the learned reader finds (chinese_names.py) where the rules found none, whole
        jieba words only (not 幸会幸 of 幸会幸会), not a common word jieba knows (小时) unless a
        city of the world (海口), and a person without the title or kin word said after the name
        (海燕姐 → 海燕)."""
        bounds = {t.start for t in tokens} | {len(text)}
        for span in read_names(Reading(text, tokens, self._lexicon), model):
            if span.start not in bounds or span.end not in bounds:
                continue
            end = self._name_end(text, span)
            surface = text[span.start : end]
            words = [t for t in tokens if span.start <= t.start and t.end <= end]
            if len(words) == 1 and self._is_common_word(words[0]) and not is_world_place(surface):
                continue
            if self._holds_function_word(words, span):
                continue
            if words and words[0].word in _MODALS:
                continue  # 那叫会过日子: a modal verb opens a verb phrase, not a name
            if " " in surface and surface.isascii() and surface.islower():
                continue  # see you every day: English said in a Chinese message
            if surface in _holidays():
                continue  # 国庆, 春节: a time (service/nlp/time/), not a thing
            if _FIELD_OF_STUDY in surface or text.startswith(_FIELD_OF_STUDY, end):
                continue  # 口腔医学专业, 数据科学专业: a field of study, not a body
            mention = EntityMention(
                surface, EntityLabel(span.kind), span.start, end, LEARNED, LEARNED_CONFIDENCE
            )
            inside = any(m.start < end and span.start < m.end for m in kept)
            if not inside and self._allowed(mention):
                yield mention

    def _holds_function_word(self, words: list[Token], span: NameSpan) -> bool:
        """Whether a word of the span, or the given name after a family name, is one that never
        stands in a name: a pronoun, a particle, an adverb (王常常来: 常常 is 'often')."""
        never = (*NEVER_INSIDE_NAMES, "d")
        if any(w.tag.startswith(never) for w in words):
            return True
        given = "".join(w.word for w in words)[1:]
        tag: str = self._tagger.word_tag_tab.get(given, "")
        return span.kind == EntityLabel.PERSON.value and tag.startswith(never)

    def _name_end(self, text: str, span: NameSpan) -> int:
        if span.kind != EntityLabel.PERSON.value:
            return span.end
        for title in self._after_names:
            end = span.end - len(title)
            if text.endswith(title, span.start, span.end) and end - span.start >= 2:
                return end
        return span.end

    def _is_common_word(self, token: Token) -> bool:
        known = self.word_counts.get(token.word, 0) >= RARE_WORD_FREQ
        return known and token.tag not in PROPER_TAGS

    @property
    def lexicon(self) -> ChineseLexicon:
        return self._lexicon

    @property
    def word_counts(self) -> dict[str, int]:
        """jieba's dictionary: word -> count (0 or missing: a word it does not know)."""
        counts: dict[str, int] = self._words.FREQ
        return counts

    def tokens(self, text: str) -> list[Token]:
        """jieba's words of ``text`` with their tags and offsets."""
        result, start = [], 0
        for word, tag in self._tagger.cut(text, HMM=True):
            result.append(Token(word, tag, start, start + len(word)))
            start += len(word)
        return result

    def _tagged(self, tokens: list[Token]) -> Iterator[EntityMention]:
        """Names that jieba's tags alone give."""
        for token in tokens:
            if len(token.word) < 2:
                continue
            person = self._person(token)
            known = self._lexicon.known_names.get(token.word)
            native = self._native(token)
            if native is not None:
                yield native
            elif known is not None:
                yield _mention(token.word, known, token.start, "zh:known", 0.85)
            elif token.tag in PROPER_TAGS and self._is_city(token.word):
                yield _mention(token.word, EntityLabel.PLACE, token.start, "zh:city", 0.8)
            elif token.tag in ("nr", "nrfg") and self._is_transliterated(token.word):
                yield _mention(token.word, EntityLabel.PERSON, token.start, "zh:foreign", 0.7)
            elif person is not None:
                yield person
            elif token.tag == "nt":
                label = self._label_by_ending(token.word, EntityLabel.ORG)  # 西工区/nt
                yield _mention(token.word, label, token.start, "jieba:nt", 0.85)
            elif token.tag == "nrt":
                yield _mention(token.word, EntityLabel.ORG, token.start, "jieba:nrt", 0.7)
            elif token.tag == "ns":
                yield _mention(token.word, EntityLabel.PLACE, token.start, "jieba:ns", 0.8)
            elif token.tag == "nz":
                # nz is any other proper noun: a language (日语) or, most often, a company.
                label = EntityLabel.CONCEPT if token.word[-1] in "语文" else EntityLabel.ORG
                yield _mention(token.word, label, token.start, "jieba:nz", 0.7)
            else:
                yield from self._suffixed_word(token)

    def _native(self, token: Token) -> EntityMention | None:
        """A place's people that jieba knows as one word (湘潭人/nz, 潮汕人/ns): the place."""
        if token.tag not in PROPER_TAGS or len(token.word) < 3 or not token.word.endswith("人"):
            return None
        stem = token.word[:-1]
        place = self._is_city(stem) or [t.tag for t in self.tokens(stem)] == ["ns"]
        return _mention(stem, EntityLabel.PLACE, token.start, "zh:native", 0.8) if place else None

    def _label_by_ending(self, word: str, label: EntityLabel) -> EntityLabel:
        """A place's one-character ending word (区, 县, 路) over jieba's tag: 西工区 is a place
        though jieba tags it an organisation."""
        rule = self._suffixes.get(word[-1])
        if len(word) >= 3 and rule is not None and rule.label is EntityLabel.PLACE:
            return EntityLabel.PLACE
        return label

    def _suffixed_word(self, token: Token) -> Iterator[EntityMention]:
        """One word that ends in a name-ending word, tagged as another kind of name: 玄武湖/nr."""
        idiom = token.tag == "i" and len(token.word) == 3  # 春熙路/i
        if len(token.word) < 3 or not (
            token.tag in PROPER_TAGS or idiom or not self._known(token.word)
        ):
            return
        for cut in (len(token.word) - 2, len(token.word) - 1):
            rule = self._suffixes.get(token.word[cut:])
            if rule is not None and cut >= 2:
                yield _mention(token.word, rule.label, token.start, "zh:suffix_in_word", 0.7)
                return

    def _after_place_verb(self, tokens: list[Token]) -> Iterator[EntityMention]:
        """A proper noun that is no person's name right after 去/住在/在 ...: a place where the
        verb says so (去迪士尼玩, 住在沙田), else a name of unknown kind (在西二旗办公)."""
        for i, token in enumerate(tokens[1:], start=1):
            before, after = tokens[i - 1], tokens[i + 1] if i + 1 < len(tokens) else None
            kind = PLACE_VERBS.get(before.word)
            if kind is None or token.tag not in ("nr", "nrt", "nrfg", "nz", "j"):
                continue
            if len(token.word) < 2 or self._is_person_word(token):
                continue
            if after is None or after.tag[:1] in ("x", "v", "u", "f", "r", "n"):
                yield _mention(token.word, kind, token.start, "zh:place_verb", 0.6)

    def _split_names(self, tokens: list[Token]) -> Iterator[EntityMention]:
        """Names jieba cut in two: 欧阳/ns 娜娜/nz, 宋/nr 建国/ns, 小/a 刘/nr, 闺蜜林/n 小禾/nr."""
        for first, second in itertools.pairwise(tokens):
            given = second.word
            if first.word in self._compound_surnames or self._is_surname_token(first, given):
                doubled = len(given) == 2 and given[0] == given[1] and given[0] not in _NO_DOUBLE
                fits = self._could_be_given_name(given) and second.tag in GIVEN_NAME_TAGS
                if fits or (doubled and second.tag != "x"):  # 林 + 可可: a doubled given name
                    text = first.word + given
                    yield _mention(text, EntityLabel.PERSON, first.start, "zh:surname", 0.7)
            elif first.word in NICKNAME_PREFIXES and self._is_surname_token(second):
                text = first.word + given
                yield _mention(text, EntityLabel.PERSON, first.start, "zh:nickname", 0.7)
            elif first.word[-1] in self._surnames and self._is_nickname(second):
                text = first.word[-1] + given
                yield _mention(text, EntityLabel.PERSON, second.start - 1, "zh:surname", 0.7)
            cut = self._name_cut_short(first, second)
            if cut is not None:
                yield cut
            if len(first.word) == 1 and first.word in self._surnames and given in self._titles:
                text = first.word + given
                yield _mention(text, EntityLabel.PERSON, first.start, "zh:title", 0.7)
        for token in tokens:
            word = token.word
            if len(word) == 2 and word[0] in "小老" and word[1] in self._surnames:
                yield _mention(word, EntityLabel.PERSON, token.start, "zh:nickname", 0.7)
            elif word[0] in self._surnames and word[1:] in self._titles:
                yield _mention(word, EntityLabel.PERSON, token.start, "zh:title", 0.7)

    def _name_cut_short(self, first: Token, second: Token) -> EntityMention | None:
        """A two-character name whose given name's second character jieba's HMM glued to the
        next word (邱晓/nr 彤来/n): that character and a trailer (来, 也) make no word."""
        glued, rest = second.word[:1], second.word[1:]
        if len(first.word) != 2 or first.word[0] not in self._surnames or self._known(second.word):
            return None
        if self._person(first) is None:
            return None
        if glued not in self._given_chars or not all(char in NAME_TRAILERS for char in rest):
            return None
        return _mention(first.word + glued, EntityLabel.PERSON, first.start, "zh:surname", 0.75)

    def _is_surname_token(self, token: Token, given: str = "") -> bool:
        """A family name jieba left alone; tagged as a common noun (龙/n) only before a
        two-character given name."""
        tags = ("nr", "ng", "zg", "n") if len(given) == 2 else ("nr", "ng", "zg")
        return token.tag in tags and token.word in self._surnames

    @staticmethod
    def _is_transliterated(word: str) -> bool:
        """A foreign name written in the characters used for sounds (詹姆斯, 玛丽亚)."""
        return (
            len(word) >= 3 and sum(char in TRANSLITERATION_CHARS for char in word) >= len(word) - 1
        )

    def _is_nickname(self, token: Token) -> bool:
        return token.tag in ("nr", "nrfg") and len(token.word) == 2 and token.word[0] == "小"

    def _could_be_given_name(self, word: str) -> bool:
        """One or two characters, each common in given names (not 客 of 顾客)."""
        return 1 <= len(word) <= 2 and all(char in self._given_chars for char in word)

    def _is_city(self, word: str) -> bool:
        """Whether jieba's dictionary knows the word with 市 or 县 after it as a place: a name
        tagged as a person's may be a city's (桂林/nr, 桂林市/ns)."""
        return any(self._tagger.word_tag_tab.get(word + end) == "ns" for end in "市县")

    def _person(self, token: Token) -> EntityMention | None:
        """A person's name: a tagged name led by a family name, 小X/老X, or an unknown X哥/X姐."""
        word = token.word
        if word[-1] in "哥姐" and len(word) == 2 and not self._known(word):
            return _mention(word, EntityLabel.PERSON, token.start, "zh:nickname", 0.7)
        if token.tag not in ("nr", "nrfg"):
            return None
        if len(word) == 2 and word[0] in NICKNAME_PREFIXES:
            if word[1] in self._given_chars or word[1] in self._surnames:
                return _mention(word, EntityLabel.PERSON, token.start, "zh:nickname", 0.7)
            return None
        given = self._given_name(word)
        if given is None:
            return None
        if len(given) == 2 and given[-1] in NAME_TRAILERS:
            word, given = word[:-1], given[:-1]
        if not self._could_be_given_name(given):
            return None
        return _mention(word, EntityLabel.PERSON, token.start, "jieba:nr", 0.8)

    def _given_name(self, word: str) -> str | None:
        """What follows a leading family name, or None when the word starts with none."""
        if word[:2] in self._compound_surnames and len(word) > 2:
            return word[2:]
        if word[0] in self._surnames:
            return word[1:]
        return None

    def _known(self, word: str) -> bool:
        """Whether jieba's dictionary holds ``word`` as a word."""
        return bool(self._words.FREQ.get(word))

    def _is_person_word(self, token: Token) -> bool:
        return token.tag in ("nr", "nrfg") and self._person(token) is not None

    def _joined(self, tokens: list[Token]) -> Iterator[EntityMention]:
        """A name-ending word with the name before it: 浙江大学, 中洲路, 秦岭野生动物研究基地."""
        for i, token in enumerate(tokens):
            head = tokens[i - 1] if i > 0 else None
            if head is not None and head.tag == "ns" and token.tag == "nt":  # 成都 + 电子科技大学
                text = head.word + token.word
                yield _mention(text, EntityLabel.ORG, head.start, "zh:place_org", 0.75)
            rule = self._suffixes.get(token.word)
            if token.word in _branch_words():
                continue  # 珠海 + 分公司: the place of a branch, no name
            if rule is None and head is not None and self._head_fits(head, HeadKind.PROPER):
                rule = self._ending_suffix(token)  # 瑞鹏 + 宠物医院, 大唐 + 不夜城
                if rule is not None:
                    text = head.word + token.word
                    yield _mention(text, rule.label, head.start, f"zh:suffix:{rule.suffix}", 0.7)
                continue
            if rule is None or head is None:
                continue
            if self._head_fits(head, rule.head):
                text = head.word + token.word
                yield _mention(text, rule.label, head.start, f"zh:suffix:{rule.suffix}", 0.75)
            first = self._institution_start(tokens, i)
            if first is not None:
                text = "".join(t.word for t in tokens[first : i + 1])
                start = tokens[first].start
                yield _mention(text, rule.label, start, f"zh:institution:{rule.suffix}", 0.6)

    def _brands(self, text: str, tokens: list[Token]) -> Iterator[EntityMention]:
        """An organisation's word after a brand of two to four characters, perhaps with a
        trade noun between (蓝鲸 + 摄影 + 协会): the brand starts at a word, holds no function
        character and is no frequent common word (this 书店, 学校的合唱团 are no names)."""
        starts = {token.start: i for i, token in enumerate(tokens)}
        for i, token in enumerate(tokens):
            rule = self._suffixes.get(token.word)
            if rule is None or rule.label is not EntityLabel.ORG or i == 0:
                continue
            before = [token.start]
            middle = tokens[i - 1]
            if middle.tag in ("n", "vn") and 2 <= len(middle.word) <= 3:
                before.append(middle.start)  # 志愿者, 摄影, 会计师
            for end in before:
                start = self._brand_start(text, tokens, starts, end)
                if start is None or _clause_inside(text[start : token.start]):
                    continue
                if rule.head is HeadKind.BRAND and is_world_place(text[start:end]):
                    continue  # 桂林米粉: a town's dish, not a shop
                name = text[start : token.end]
                yield _mention(name, EntityLabel.ORG, start, f"zh:brand:{rule.suffix}", 0.65)
                break

    def _groups(self, text: str, tokens: list[Token]) -> Iterator[EntityMention]:
        """A club or team named by a brand, what it does and 团, 队 or 社 (山城 + 夜跑 + 团,
        炫风 + 街舞 + 社): jieba cuts what the group does apart from its head, so no
        suffix of the table ends it; 我们队 and 社区志愿队 are no names."""
        starts = {token.start: i for i, token in enumerate(tokens)}
        for i, head in enumerate(tokens):
            if not self._group_head(head):
                continue
            # What it does is in the head (舞蹈队, 跑团 of the table) or in a word or two of
            # three characters at most before it (夜 + 跑团, 街舞 + 社).
            whole = len(head.word) == 3 or head.word in self._suffixes
            for first in (i, i - 1, i - 2) if whole else (i - 1, i - 2):
                doing = tokens[first:i] if first > 0 else None
                if doing is None or any(_no_doing(t) for t in doing):
                    continue
                if head.start - tokens[first].start > 3:
                    continue
                start = self._brand_start(text, tokens, starts, tokens[first].start)
                if start is not None and not _clause_inside(text[start : head.start]):
                    name = text[start : head.end]
                    yield _mention(name, EntityLabel.ORG, start, "zh:group", 0.65)
                    break

    @staticmethod
    def _group_head(token: Token) -> bool:
        return token.tag in ("n", "x") and len(token.word) <= 3 and token.word[-1] in GROUP_HEADS

    def _brand_start(
        self, text: str, tokens: list[Token], starts: Mapping[int, int], end: int
    ) -> int | None:
        """Where a brand ending at ``end`` starts: one word of two to four characters, else
        the two characters before ``end`` if they start a word."""
        last = next((t for t in tokens if t.end == end), None)
        if last is not None and 2 <= len(last.word) <= 4 and self._is_brand_word(last.word):
            return last.start
        start = end - 2
        if start < 0 or start not in starts or not self._is_brand_word(text[start:end]):
            return None
        cut = tokens[starts[start] : starts[start] + 2]
        if any(t.tag[:1] in ("v", "d", "p", "r", "u") for t in cut if t.start < end):
            return None  # 只去 + 公司, 家离 + 诊所: a verb or an adverb, no brand
        return start

    def _is_brand_word(self, word: str) -> bool:
        if not all("\u4e00" <= char <= "\u9fff" for char in word):
            return False
        if any(char in FUNCTION_CHARS or char in COUNTING_CHARS for char in word):
            return False
        if casefold_name(word) in self._stop or word in self._suffixes:
            return False
        freq: int = self._words.FREQ.get(word, 0)
        tag: str = self._tagger.word_tag_tab.get(word, "")
        if tag in PROPER_TAGS or freq < RARE_WORD_FREQ:
            return True
        return tag == "n" and freq < BRAND_NOUN_FREQ

    def _org_goes_on(
        self, text: str, tokens: list[Token], mentions: list[EntityMention]
    ) -> list[EntityMention]:
        """An organisation followed at once by an organisation's word (X大学 + 附属医院,
        X中学 + 合唱团) is one organisation; a branch word (分公司) keeps its place apart."""
        ends = {token.start: token for token in tokens}
        found = []
        for mention in mentions:
            after = ends.get(mention.end)
            rule = self._suffixes.get(after.word) if after else None
            if (
                after
                and rule
                and rule.label is EntityLabel.ORG
                and mention.label is EntityLabel.ORG
            ):
                mention = _mention(
                    text[mention.start : after.end],
                    EntityLabel.ORG,
                    mention.start,
                    f"zh:org_part:{rule.suffix}",
                    mention.confidence,
                )
            found.append(mention)
        return _longest_first(found)

    def _ending_suffix(self, token: Token) -> SuffixRule | None:
        """The name-ending word a common word ends with (医院 of 宠物医院), if it is longer than
        that; one character (区 of 市区) only at the end of an idiom (不夜城/i)."""
        word = token.word
        if token.tag in PROPER_TAGS:
            return None
        for cut in range(1, len(word)):
            rule = self._suffixes.get(word[cut:])
            short = len(word) - cut == 1 and token.tag not in ("i", "l")
            if rule is not None and rule.head is not HeadKind.PLACE and not short:
                return rule
        return None

    def _head_fits(self, head: Token, kind: HeadKind) -> bool:
        word = head.word
        if len(word) < 2 or casefold_name(word) in self._stop or word in self._suffixes:
            return False
        if word[0] in _PARTICLES:  # 报名了市马拉松: jieba's 了市 opens no name
            return False
        if kind is HeadKind.PLACE:
            return head.tag == "ns"
        if kind is HeadKind.BRAND and (head.tag == "ns" or is_world_place(word)):
            return False
        if self._is_person_word(head):
            return kind is HeadKind.ANY
        if head.tag in PROPER_TAGS or not self._known(word):
            return head.tag not in ("m", "t", "r", "x")
        return (
            kind is HeadKind.NOUN
            and head.tag in ("n", "vn")
            and word not in self._lexicon.generic_heads
        )

    @staticmethod
    def _institution_start(tokens: list[Token], suffix: int) -> int | None:
        """Where a place name opens a longer institution name ending at ``suffix``, if it does."""
        length = len(tokens[suffix].word)
        for j in range(suffix - 1, max(suffix - 6, -1), -1):
            token = tokens[j]
            length += len(token.word)
            if length > 14:
                return None
            if token.tag == "ns" and suffix - j >= 3:
                return j
            if token.tag not in ("n", "vn", "nz", "j", "ns") and not (
                token.tag == "v" and len(token.word) > 1
            ):
                return None
        return None

    def _latin(self, text: str, tokens: list[Token]) -> Iterator[EntityMention]:
        """Latin product and tool names, with a brand written right before them (佳能R6)."""
        ends = {token.end: token for token in tokens}
        for match in _LATIN.finditer(text):
            start, end = match.span()
            if end - start < 2 or _in_english_phrase(text, start, end):
                continue
            brand = ends.get(start)
            if brand is not None and (self._is_brand(brand) or _counted_brand(text, brand)):
                start = brand.start
            yield EntityMention(text[start:end], EntityLabel.PRODUCT, start, end, "zh:latin", 0.75)

    def _is_brand(self, token: Token) -> bool:
        if len(token.word) < 2 or self._is_person_word(token):
            return False
        return token.tag in ("nr", "nrt", "nz", "nt") or not self._known(token.word)

    def _in_context(self, text: str, tokens: list[Token]) -> Iterator[EntityMention]:
        """Words jieba does not know as names, where the context expects one (用钉钉吧)."""
        words_at = {token.start: token for token in tokens}
        for rule in self._lexicon.context_rules:
            for left in rule.left.finditer(text):
                start = left.end()
                word = self._name_at(text, start, rule, words_at)
                if word is not None and rule.include_right:
                    right = rule.right.match(text, start + len(word))
                    if right and _inside_verb(tokens, right.start()):
                        continue  # 去万象城逛街: 街 of the verb 逛街 ends no place
                    word += right.group() if right else ""
                if word is not None:
                    yield _mention(word, rule.label, start, f"zh:context:{rule.name}", 0.6)

    def _name_at(
        self, text: str, start: int, rule: ContextRule, words_at: Mapping[int, Token]
    ) -> str | None:
        """A plausible name of 2-4 Han characters at ``start`` in the context of ``rule``."""
        han = _HAN.match(text, start)
        if han is None:
            return None
        ends = range(start + 2, min(han.end(), start + 4) + 1)
        for end in ends if rule.shortest else reversed(ends):
            if rule.shortest:
                after = words_at.get(end)
                if after is None and end < len(text):
                    continue  # inside a word
                fits = rule.right.match(text, end) or (after and after.tag.startswith("v"))
            else:
                fits = rule.right.match(text, end)
            if fits and self._could_be_name(text[start:end]):
                return text[start:end]
        return None

    def _could_be_name(self, word: str) -> bool:
        """No function character, no common word of two or more characters (nor any verb,
        phrase or adverb) inside, and no place name before more (惠州 of 惠州大亚湾)."""
        if any(char in FUNCTION_CHARS for char in word) or word[0] in COUNTING_CHARS:
            return False
        parts = self._words.lcut(word, HMM=False)
        if self._tagger.word_tag_tab.get(parts[0]) in ("nz", "nt", "nrt"):
            return True  # a brand and its product: 腾讯 + 会议
        for part in parts:
            tag = self._tagger.word_tag_tab.get(part, "")
            if tag == "ns" and len(parts) > 1 and len(part) > 1:
                return False
            common = tag[:1] in ("n", "v", "a", "l", "i", "d") and tag not in PROPER_TAGS
            frequent = self._words.FREQ.get(part, 0) >= RARE_WORD_FREQ
            if len(part) > 1 and common and (frequent or tag[:1] in ("v", "l", "i", "d")):
                return False  # 北京分部, 飞书办公, 打游戏
        return True

    def _allowed(self, mention: EntityMention) -> bool:
        surface = casefold_name(mention.text)
        if surface in self._stop or mention.label is EntityLabel.TEMPORAL:
            return False
        if mention.extractor.startswith(("jieba:", LEARNED)) and surface in _verb_words():
            return False  # 在青岛长大: 长大/ns is the verb of a relation, not a place
        if len(set(surface)) == 1 and len(surface) >= 3:
            return False  # 行行行, 好好好: an answer said thrice (悦悦 is a name)
        if surface.endswith("家") and surface[:-1] in _kin_words():
            return False  # 姥姥家, 奶奶家: a relative's home, named by no name
        if mention.extractor == "jieba:nt" and surface.endswith(_people_words()):
            return False  # 高中同学/nt: classmates from high school, no organisation
        if mention.extractor.startswith(("jieba:", LEARNED)) and _a_time(surface):
            return False  # 九月份/nz: a month, not a name (a holiday is an event: 国庆节)
        if mention.extractor.startswith("jieba:") and _idiom_shaped(surface):
            return False  # 人山人海/ns, 高高兴兴: the shapes of set phrases, not of names
        return len(surface) >= 2 and not surface.isdigit()


_FIELD_OF_STUDY = "专业"
# Modal verbs, a closed class: what they open is something done (会过日子, 能吃苦).
_MODALS = frozenset(
    {"会", "能", "要", "想", "可以", "应该", "该", "得", "肯", "敢", "愿意", "能够"}
)


def _idiom_shaped(surface: str) -> bool:
    """Four characters shaped ABAC (人山人海, 一心一意) or AABB (高高兴兴)."""
    if len(surface) != 4:
        return False
    a, b, c, d = tuple(surface)
    return a == c != b or (a == b and c == d and a != c)


def _a_time(surface: str) -> bool:
    """The whole word is a time expression of the time table, and no holiday's name."""
    return surface not in _holidays() and leading_time(surface, "zh") == len(surface)


@cache
def _people_words() -> tuple[str, ...]:
    """Kin, friend and peer nouns (同学, 同事, 表哥)."""
    classes = load_relation_words().classes
    return tuple(w for c in ("KIN", "KIN_SHORT", "FRIEND", "PEER") for w in classes.get(c, ()))


@cache
def _kin_words() -> frozenset[str]:
    classes = load_relation_words().classes
    return frozenset((*classes.get("KIN", ()), *classes.get("KIN_SHORT", ())))


@cache
def _holidays() -> frozenset[str]:
    return frozenset(holidays_by_name("zh")) | frozenset(holidays_by_name("zh_with_year"))


def _after_a_measure(text: str, mention: EntityMention) -> bool:
    """A jieba word that opens with a measure word after 了 or a number (买了台大疆: 台大 is
    台 + the start of 大疆, not 台大 the university)."""
    opens = mention.text[:1] in MEASURE_CHARS and mention.extractor.startswith("jieba:")
    return opens and mention.start > 0 and text[mention.start - 1] in "了一两几这那每"


def _no_doing(token: Token) -> bool:
    """A word that says no group's doing: not a noun, verb or time word, or a function word
    (陈晨是学校合唱团: 是 joins the name to its group)."""
    return token.tag not in GROUP_DOINGS or any(char in FUNCTION_CHARS for char in token.word)


def _clause_inside(words: str) -> bool:
    """Whether a brand holds an aspect particle or a measure word (义乌开了个 + 公司): a
    clause, not a name."""
    return any(char in "了着过个" for char in words)


# Words after a place that make it a description, not a mention: 潮汕菜, 东北口音.
PLACE_AS_STYLE = ("菜", "口音", "风味")


def _places_in_phrases(text: str, mentions: list[EntityMention]) -> list[EntityMention]:
    """A place before a style word is none (吃潮汕菜); a city's 市 before 中心 is the city
    centre's (住在柳州市中心: 柳州)."""
    found = []
    for mention in mentions:
        after = text[mention.end :]
        if mention.label is EntityLabel.PLACE and after.startswith(PLACE_AS_STYLE):
            continue
        if after.startswith("中心") and mention.text.endswith("市") and len(mention.text) > 2:
            mention = replace(mention, text=mention.text[:-1], end=mention.end - 1)
        found.append(mention)
    return found


# Classes of zh_relation_words.json whose words are verbs (住, 长大, 上班, 入职 …).
VERB_CLASSES = (
    "WORK_VERB",
    "JOIN_WORK",
    "HIRED",
    "SETTLE",
    "MOVE_TO",
    "STUDY_VERB",
    "CREATE_VERB",
    "OWN_VERB",
    "LIKE_VERB",
    "DISLIKE_VERB",
    "LEISURE_VERB",
    "VISIT_PURPOSE",
)


@cache
def _verb_words() -> frozenset[str]:
    """The verbs of the relation word classes: jieba tags a few as names (长大/ns)."""
    classes = load_relation_words().classes
    return frozenset(word for name in VERB_CLASSES for word in classes.get(name, ()))


def _branch_words() -> frozenset[str]:
    """Words of a branch of an organisation (分公司, 分店), from zh_relation_words.json."""
    return frozenset(load_relation_words().classes.get("BRANCH", ()))


_LATIN_BEFORE = re.compile(r"[A-Za-z][ \t]*$")
_LATIN_AFTER = re.compile(r"[ \t]*[A-Za-z]")


def _in_english_phrase(text: str, start: int, end: int) -> bool:
    """A lower-case word between other Latin words is English prose (I use it every day), not
    a product name; one among Chinese words is one (也一直用pytorch)."""
    if not text[start:end].islower():
        return False
    return bool(_LATIN_BEFORE.search(text, 0, start) or _LATIN_AFTER.match(text, end))


_WORK_TITLE = re.compile(r"《(?P<title>[^《》\n]{1,20})》")


def _titles_of_works(text: str) -> Iterator[EntityMention]:
    """Books, films, songs and games between title marks: 《三体》."""
    for match in _WORK_TITLE.finditer(text):
        start = match.start("title")
        yield _mention(match.group("title"), EntityLabel.PRODUCT, start, "zh:work_title", 0.85)


def _counted_brand(text: str, brand: Token) -> bool:
    """提了辆理想L6: a word of two or more characters after a measure word and before a model
    name is its brand, even a common word (理想)."""
    counted = brand.start > 0 and text[brand.start - 1] in MEASURE_CHARS
    return counted and len(brand.word) >= 2 and brand.tag not in ("m", "q", "r", "x")


def _inside_verb(tokens: list[Token], at: int) -> bool:
    """Whether ``at`` falls inside (not at the start of) a word jieba tags a verb."""
    return any(t.start < at < t.end and t.tag.startswith("v") for t in tokens)


def _mention(
    text: str, label: EntityLabel, start: int, extractor: str, confidence: float
) -> EntityMention:
    return EntityMention(text, label, start, start + len(text), extractor, confidence)


def _longest_first(mentions: Iterable[EntityMention]) -> list[EntityMention]:
    """Non-overlapping mentions, preferring the longer, then the earlier in ``mentions``."""
    return _take_free(sorted(mentions, key=lambda m: m.start - m.end))


def _take_free(ranked: Iterable[EntityMention]) -> list[EntityMention]:
    kept: list[EntityMention] = []
    taken: set[int] = set()
    for mention in ranked:
        span = range(mention.start, mention.end)
        if taken.isdisjoint(span):
            kept.append(mention)
            taken.update(span)
    return sorted(kept, key=lambda m: m.start)


def merge_mentions(primary: list[EntityMention], extra: list[EntityMention]) -> list[EntityMention]:
    """Both lists as one, sorted by start, no two overlapping: the longer span wins an overlap,
    ``primary`` wins between equally long spans."""
    ranked = sorted(
        [*((m, 0) for m in primary), *((m, 1) for m in extra)],
        key=lambda pair: (pair[0].start - pair[0].end, pair[1], pair[0].start),
    )
    return _take_free(mention for mention, _ in ranked)

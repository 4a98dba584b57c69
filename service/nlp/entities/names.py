"""Entity names: one key per thing per scope, whatever case, spacing, possessive or type.

An entity's key is the scope plus its normalised canonical name; its type is a property the
evidence decides (nlp/entities/linking.py), never part of the key, so "Acme Robotics" typed ORG
by one sentence and OTHER by the next is one node. ``short_forms`` lists the other names a
known entity answers to (nlp_models/short_forms.json).
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

import jieba
import nicknames

from service.core.domain import Scope
from service.core.ids import scope_key
from service.core.resources import NLP_MODELS_DIR
from service.nlp.tables import read_lines

ALIASES_PATH = NLP_MODELS_DIR / "aliases.json"
SHORT_FORMS_PATH = NLP_MODELS_DIR / "short_forms.json"
TITLES_PATH = NLP_MODELS_DIR / "zh_titles.txt"
_POSSESSIVE = re.compile(r"(?:'s|’s|'|’)$")
_ARTICLE = re.compile(r"^(?:the|a|an)\s+")
_EDGE_PUNCT = " \t\n.,;:!?\"'“”‘’()[]{}<>«»、，。！？；：（）"
_SINGULAR = [
    (re.compile(r"ies$"), "y"),
    (re.compile(r"(ss|sh|ch|x)es$"), r"\1"),
    (re.compile(r"(?<![su])s$"), ""),
]
_INVARIANT = {"kubernetes", "series", "news", "physics", "mathematics", "species", "always"}
_HAN = re.compile(r"[\u4e00-\u9fff]")


@lru_cache(maxsize=1)
def _aliases(path: Path = ALIASES_PATH) -> dict[str, str]:
    raw: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    return {k: v for k, v in raw.items() if not k.startswith("_")}


@lru_cache(maxsize=1 << 16)
def identity_form(name: str) -> str:
    """The identity form of an entity name, the part of its key after the scope.

    Case-folded, NFKC, single-spaced, without possessive or article; a lower-case single
    word (a common noun: "potteries") also without its plural. Names keep their final s
    (Paris, Jules): only lower-case surfaces are folded."""
    text = unicodedata.normalize("NFKC", name).strip(_EDGE_PUNCT)
    text = " ".join(_POSSESSIVE.sub("", text).split())
    common_noun = text.islower() and " " not in text
    text = _ARTICLE.sub("", text.casefold())
    if text in _aliases():
        return _aliases()[text]
    if common_noun and len(text) > 3 and text not in _INVARIANT:
        for pattern, replacement in _SINGULAR:
            text, count = pattern.subn(replacement, text)
            if count:
                break
    return _aliases().get(text, text)


def display_name(name: str) -> str:
    """The name as shown: original case, possessive and edge punctuation removed."""
    text = unicodedata.normalize("NFKC", name).strip(_EDGE_PUNCT)
    return " ".join(_POSSESSIVE.sub("", text).split())


def entity_key(scope: Scope, name: str) -> str:
    """Unique key of an entity: scope + normalised name (the type is not part of it)."""
    return f"{scope_key(scope)}\x1d{identity_form(name)}"


@dataclass(frozen=True)
class ShortFormRules:
    """nlp_models/short_forms.json: trailing words an organisation is also named without."""

    org_suffixes_en: tuple[str, ...]
    place_suffixes_en: tuple[str, ...]
    # Words after a town an organisation is named for: Jackson State is not "Jackson".
    town_named_suffixes_en: frozenset[str]
    initials_skip_en: frozenset[str]
    nicknames_en: dict[str, tuple[str, ...]]
    org_suffixes_zh: tuple[str, ...]
    org_abbreviations_zh: dict[str, str]  # 大学 -> 大: 浙江大学 is also 浙大
    org_two_char_short_zh: frozenset[str]  # 阿里巴巴集团 is also 阿里
    place_suffixes_zh: tuple[str, ...]  # 杭州市 is also 杭州
    event_abbreviations_en: dict[str, str]  # festival -> fest: W.C. Handy Festival, Handy Fest
    event_abbreviations_zh: dict[str, str]  # 马拉松 -> 马: 厦门马拉松 is also 厦马
    org_infixes_zh: tuple[str, ...]  # 大学附属: 江城大学附属医院 is also 江城医院
    person_titles_zh: tuple[str, ...]  # 周敏 is also 周老师
    person_titles_en: frozenset[str]  # Uncle Ivo is also Ivo
    min_short_chars_en: int
    min_short_chars_zh: int


def _nicknames(listed: dict[str, list[str]]) -> dict[str, tuple[str, ...]]:
    """A name's nicknames: those listed, and the nicknames package's that begin as the name
    does (Douglas → Doug, Nathan → Nate); one that does not (Aaron → Erin) is too often a name
    of someone else."""
    found = {name: dict.fromkeys(forms) for name, forms in listed.items()}
    for triplet in nicknames.name_triplets():
        name, nickname = triplet.name1, triplet.name2
        if triplet.relationship == "has_nickname" and nickname[:2] == name[:2]:
            found.setdefault(name, {})[nickname] = None
    return {name: tuple(forms) for name, forms in found.items()}


def _longest_first(words: list[str]) -> tuple[str, ...]:
    return tuple(sorted(words, key=len, reverse=True))


@cache
def short_form_rules(path: Path = SHORT_FORMS_PATH) -> ShortFormRules:
    raw = json.loads(path.read_text(encoding="utf-8"))
    return ShortFormRules(
        org_suffixes_en=tuple(raw["org_suffixes_en"]),
        place_suffixes_en=tuple(raw["place_suffixes_en"]),
        town_named_suffixes_en=frozenset(raw.get("town_named_suffixes_en", [])),
        initials_skip_en=frozenset(raw["initials_skip_en"]),
        nicknames_en=_nicknames(raw["nicknames_en"]),
        # Longest first: 有限公司 is stripped whole, not as 公司.
        org_suffixes_zh=_longest_first(raw["org_suffixes_zh"]),
        org_abbreviations_zh=dict(raw["org_abbreviations_zh"]),
        org_two_char_short_zh=frozenset(raw["org_two_char_short_zh"]),
        place_suffixes_zh=_longest_first(raw["place_suffixes_zh"]),
        event_abbreviations_en=dict(raw.get("event_abbreviations_en", {})),
        event_abbreviations_zh=dict(raw.get("event_abbreviations_zh", {})),
        org_infixes_zh=_longest_first(raw.get("org_infixes_zh", [])),
        person_titles_zh=tuple(read_lines(TITLES_PATH)),
        person_titles_en=frozenset(raw["person_titles_en"]),
        min_short_chars_en=int(raw["min_short_chars_en"]),
        min_short_chars_zh=int(raw["min_short_chars_zh"]),
    )


def short_forms(name: str, entity_type: str) -> list[str]:
    """Normalised short forms a known entity also answers to: a person's first name and its
    common nicknames (Rebecca Stone -> rebecca, becca; 王小明 -> 小明), an organisation
    without its trailing word and by its initials (Finch Analytics -> finch; University of
    Washington -> uw; 腾讯科技 -> 腾讯; 浙江大学 -> 浙江, 浙大), a place without a generic
    trailing phrase (Zion National Park -> zion). Cached: the linker asks again on every add."""
    return list(_cached_short_forms(name, entity_type))


@lru_cache(maxsize=1 << 16)
def _cached_short_forms(name: str, entity_type: str) -> tuple[str, ...]:
    return tuple(_derive_short_forms(name, entity_type))


def _derive_short_forms(name: str, entity_type: str) -> list[str]:
    norm = identity_form(name)
    if _HAN.search(norm):
        return _chinese_short_forms(norm, entity_type)
    plain = _unaccented(norm)  # people type Zurich for Zürich, Jose for José
    forms = _latin_short_forms(name, norm, entity_type)
    if plain == norm:
        return forms
    return list(dict.fromkeys([plain, *(g for f in forms for g in (f, _unaccented(f)))]))


def _unaccented(norm: str) -> str:
    """The name without the accents of its Latin letters (zürich -> zurich)."""
    parts = unicodedata.normalize("NFKD", norm)
    return unicodedata.normalize("NFKC", "".join(c for c in parts if not unicodedata.combining(c)))


def _latin_short_forms(name: str, norm: str, entity_type: str) -> list[str]:
    rules, words = short_form_rules(), norm.split()
    if entity_type == "PERSON":
        if len(words) > 1 and words[0].rstrip(".") in rules.person_titles_en:
            return [" ".join(words[1:])]  # a title or kin word is no first name
        first = words[0].rstrip(".") if words else ""
        forms = [first] if len(words) > 1 and len(first) >= 2 and first.isalpha() else []
        return forms + list(rules.nicknames_en.get(first, ()))
    if len(words) < 2:
        return []
    if entity_type == "PLACE":
        return [norm[: -len(s)].strip() for s in rules.place_suffixes_en if norm.endswith(" " + s)][
            :1
        ]
    forms = _organisation_short_forms(words, rules)
    if entity_type == "EVENT":
        forms += _clipped_event_kind(words, rules)
    if display_name(name).lower().startswith("the ") and len(words) >= 2:
        forms.append(words[-1])  # The Paper Lanterns -> lanterns, as bands and teams are called
    return forms


def _clipped_event_kind(words: list[str], rules: ShortFormRules) -> list[str]:
    """An event by its kind's clipped word after the rest of its name or its last word
    (W.C. Handy Festival -> w.c. handy fest, handy fest)."""
    clipped = rules.event_abbreviations_en.get(words[-1])
    stem = words[:-1]
    if clipped is None or not stem:
        return []
    forms = [" ".join([*stem, clipped])]
    if len(stem) > 1 and len(stem[-1]) >= rules.min_short_chars_en:
        forms.append(f"{stem[-1]} {clipped}")
    return forms


def _organisation_short_forms(words: list[str], rules: ShortFormRules) -> list[str]:
    stripped = list(words)
    while len(stripped) > 1 and stripped[-1] in rules.org_suffixes_en:
        stripped.pop()
    if stripped == words and words[0] not in rules.initials_skip_en:
        stripped = words[:-1]  # Finch Analytics -> finch
    short = " ".join(stripped)
    keep = len(short) >= rules.min_short_chars_en and stripped[-1] not in rules.initials_skip_en
    keep = keep and words[-1] not in rules.town_named_suffixes_en
    forms = [short] if keep else []
    significant = [w for w in words if w not in rules.initials_skip_en]
    if len(words) >= 3 and len(significant) >= 2:
        forms.append("".join(w[0] for w in significant))  # University of Washington -> uw
    return forms


def _chinese_short_forms(norm: str, entity_type: str) -> list[str]:
    """王小明 -> 小明, 老王, 王老师; 阿里巴巴集团 -> 阿里巴巴, 阿里; 浙江大学 -> 浙江, 浙大;
    招商银行 -> 招商, 招行; 杭州市 -> 杭州; 华为mate 60 -> mate 60 (a Latin product name after
    its Chinese brand)."""
    rules = short_form_rules()
    if entity_type == "PERSON":
        return _chinese_person_short_forms(norm, rules)
    if entity_type == "PLACE":
        return _without_suffix(norm, rules.place_suffixes_zh, rules)[:1]
    if entity_type == "EVENT":
        return _event_short_forms(norm, rules)
    if entity_type == "PRODUCT" and _HAN_ONLY.fullmatch(norm):
        return _without_last_word(norm)
    latin = _BRANDED_LATIN.match(norm)
    if latin:
        return [latin.group(1)]
    return _chinese_organisation_short_forms(norm, rules, entity_type)


def _without_infix(norm: str, rules: ShortFormRules) -> list[str]:
    """A name without a middle word people leave out (江城大学附属医院 -> 江城医院)."""
    for infix in rules.org_infixes_zh:
        at = norm.find(infix)
        if at >= rules.min_short_chars_zh and at + len(infix) < len(norm):
            return [norm[:at] + norm[at + len(infix) :]]
    return []


def _event_short_forms(norm: str, rules: ShortFormRules) -> list[str]:
    """An event by its place's first character and its kind's mark (厦门马拉松 -> 厦马); not
    by the place alone, which is the place."""
    for suffix, mark in rules.event_abbreviations_zh.items():
        stem = norm[: -len(suffix)]
        if norm.endswith(suffix) and len(stem) >= rules.min_short_chars_zh:
            return [stem[0] + mark]
    return []


def _without_last_word(norm: str) -> list[str]:
    """A title without its last word, when both are words of their own (黑神话悟空 -> 黑神话,
    植物大战僵尸 -> 植物大战): a game or a film is called by its first words."""
    words = jieba.lcut(norm, HMM=False)
    stem = norm[: -len(words[-1])]
    return [stem] if len(words) > 1 and len(words[-1]) >= 2 and len(stem) >= 3 else []


def _without_suffix(norm: str, suffixes: tuple[str, ...], rules: ShortFormRules) -> list[str]:
    """The name without the first of ``suffixes`` it ends with, then that suffix."""
    for suffix in suffixes:
        stem = norm[: -len(suffix)]
        if norm.endswith(suffix) and len(stem) >= rules.min_short_chars_zh:
            return [stem, suffix]
    return []


def _chinese_organisation_short_forms(
    norm: str, rules: ShortFormRules, entity_type: str = "ORG"
) -> list[str]:
    """Without its suffix (美的集团 -> 美的), abbreviated (浙江大学 -> 浙大), and a four-character
    company name by its first two (阿里巴巴集团 -> 阿里)."""
    cut = _without_suffix(norm, rules.org_suffixes_zh, rules)
    if not cut and len(norm) == 4 and _HAN_ONLY.fullmatch(norm) and entity_type == "ORG":
        return [norm[:2]]  # a brand and its trade, no suffix: 蓝鲸互娱 is also 蓝鲸
    if not cut:
        return _without_infix(norm, rules)
    stem, suffix = cut
    forms = [stem]
    mark = rules.org_abbreviations_zh.get(suffix)
    if mark is not None:
        forms += _abbreviations(stem, mark)
    elif len(stem) == 4 and suffix in rules.org_two_char_short_zh:
        forms.append(stem[:2])
    return forms


def _abbreviations(stem: str, mark: str) -> list[str]:
    """A short stem by its first character (浙江 + 大学 -> 浙大); a place and a two-character
    field (湖州 + 丝绸 + 大学, 中国 + 农业 + 银行) by the first characters of both and by the
    field's alone, as a local calls it (湖丝大, 丝大; 中农行, 农行), and by the place whole
    before the field's mark (上海交通 + 大学 -> 上海交大)."""
    if len(stem) <= 3:
        return [stem[0] + mark]
    if len(stem) <= 5:
        field = stem[-2]
        return [stem[0] + field + mark, field + mark, stem[:-2] + field + mark]
    return []


_HAN_ONLY = re.compile(r"[\u4e00-\u9fff]+")
_BRANDED_LATIN = re.compile(r"^[\u4e00-\u9fff]{1,4}\s?([a-z][a-z0-9 .+-]{2,})$")


# What follows a family name in a familiar form (王哥, 李姐, 郑叔, 刘姨): no given name.
_FAMILIAR_ENDS = frozenset({"哥", "姐", "叔", "姨", "婶", "伯", "爷", "嫂", "妹", "弟"})


def _chinese_person_short_forms(norm: str, rules: ShortFormRules) -> list[str]:
    """How friends call someone: the given name of a three-character name, the familiar
    forms 老 / 小 + surname and surname + 哥 / 姐 / 叔 (老吴, 小吴, 丁姐, 郑叔), the given
    name's last character doubled or after 小 / 阿 (王悦 -> 悦悦, 小悦, 阿悦) or before 哥 /
    姐, and surname + title."""
    if not 2 <= len(norm) <= 3 or not all(_HAN.match(c) for c in norm):
        return []
    surname, given = norm[0], norm[1:]
    if given in rules.person_titles_zh or given in _FAMILIAR_ENDS:
        return []  # 崔主任, 王哥: no given name to shorten; 主任, 哥哥 name no one
    forms = [given] if len(given) == 2 else []
    titled = [surname + title for title in rules.person_titles_zh]
    last = given[-1]
    familiar = [last * 2, "小" + last, "阿" + last, last + "哥", last + "姐"]
    by_surname = ["老" + surname, "小" + surname, surname + "哥", surname + "姐", surname + "叔"]
    return list(dict.fromkeys([*forms, *by_surname, *familiar, *titled]))

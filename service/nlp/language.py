"""Chinese text: telling it from English, and the spaCy pipeline it runs on."""

from __future__ import annotations

import re
from typing import Literal

import spacy
from spacy.language import Language

Lang = Literal["en", "zh"]

# CJK Unified Ideographs, Extension A, Compatibility Ideographs and Extensions B-F.
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ebef]")


def detect_lang(text: str) -> Lang:
    """ "zh" when CJK ideographs are at least 20% of the letters, else "en"."""
    letters = sum(1 for char in text if char.isalpha())
    if letters == 0:
        return "en"
    return "zh" if len(_CJK.findall(text)) >= 0.2 * letters else "en"


def blank_chinese() -> Language:
    """spaCy's Chinese pipeline without models: one token per character, then sentences.

    Character tokens make every character span a token span, so the pattern table's regexes
    never fall between tokens; a word segmenter (jieba) would cut names unpredictably.
    """
    nlp = spacy.blank("zh", config={"nlp": {"tokenizer": {"segmenter": "char"}}})
    nlp.add_pipe("sentencizer")
    return nlp

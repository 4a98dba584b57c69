"""Facts: split messages into self-contained statements, attributed to their speaker.

A fact is one sentence (English, from spaCy's parser) or one clause ending in 。！？；
(Chinese). Greetings and filler become no fact (the Message node keeps every word). First
person is resolved to the speaker's name in ``text``; ``source_text`` keeps the original words.
Slot rules (nlp_models/slots.jsonl) name what a fact sets about its speaker ("lives_in",
"works_at", "favourite_colour" …) so that a newer value can supersede an older one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from spacy.language import Language
from spacy.tokens import Span, Token

from service.core.errors import ConfigurationError
from service.core.resources import NLP_MODELS_DIR
from service.nlp.tables import read_lines

SLOTS_PATH = NLP_MODELS_DIR / "slots.jsonl"
ZH_REACTIONS_PATH = NLP_MODELS_DIR / "zh_reactions.txt"
EN_REACTIONS_PATH = NLP_MODELS_DIR / "en_reactions.txt"

_GREETING = re.compile(
    r"^(?:(?:(?:hi|hey|hello|yo|hiya|howdy|good (?:morning|afternoon|evening|night))"
    r"(?: there| [A-Z][a-z]+)?|bye|goodbye|(?:it'?s )?(?:so )?(?:good|great|nice) to "
    r"(?:see|hear from|talk to|meet) you(?: again| too)?|"
    r"see (?:you|ya)(?: later| soon)?|thanks?(?: you)?(?: so much| a lot)?|thx|ty|cheers|"
    r"lol|haha+|wow|ok(?:ay)?|sure|yes|yeah|yep|no|nope|cool|great|nice|awesome|"
    r"take care|talk (?:to you )?(?:later|soon)|you too|me too|same here|"
    r"how are you(?: doing)?|what'?s up|how'?s it going)[\s,!.?~:)(]*)+$",
    re.IGNORECASE,
)
_ZH_GREETING = re.compile(
    r"^(?:你好|您好|嗨|哈喽|早上好|晚上好|晚安|谢谢|多谢|再见|拜拜|好的|嗯|哈哈+|是的|对)[\s，,！!。.~]*$"
)
_ZH_SPLIT = re.compile(r"(?<=[。！？；!?;])|\n+")
_MIN_CONTENT_CHARS = 3
_ZH_I = re.compile(r"我(?!们)")
_ZH_CJK = re.compile(r"[\u4e00-\u9fff]")
# A slot fact is about the speaker only when the speaker is its subject: "I (just) moved to …".
_EN_SUBJECT = re.compile(r"(?:\b(?:I|I'm|I've|I'd)\s+(?:[a-z]+\s+){0,3}|\b[Mm]y\s+)$")
_ZH_SUBJECT = re.compile(r"我[^，。！？；们]{0,6}$")

# First person → speaker, longest forms first; contractions keep their meaning.
_FIRST_PERSON = [
    (re.compile(r"\bI'?m\b"), "{name} is"),
    (re.compile(r"\bI'?ve\b"), "{name} has"),
    (re.compile(r"\bI'?ll\b"), "{name} will"),
    (re.compile(r"\bI'?d\b"), "{name} would"),
    (re.compile(r"\bI\b"), "{name}"),
    (re.compile(r"\b[Mm]yself\b"), "{name}"),
    (re.compile(r"\b[Mm]ine\b"), "{name}'s"),
    (re.compile(r"\b[Mm]y\b"), "{name}'s"),
    (re.compile(r"(?<=\w )\bme\b"), "{name}"),
]


_IRREGULAR_3SG = {
    "have": "has",
    "do": "does",
    "go": "goes",
    "be": "is",
    "am": "is",
    "'m": "is",
    "’m": "is",
    "'ve": "has",
    "’ve": "has",
    # Contracted modals keep their meaning once spelled out: "I'll" -> "Ann will".
    "'ll": "will",
    "’ll": "will",
    "'d": "would",
    "’d": "would",
}
# A subject of the verb, of the passive too ("I'm swamped": nsubjpass + auxpass).
_SUBJECTS = {"nsubj", "nsubjpass"}
_AUXILIARIES = {"aux", "auxpass"}
_PRONOUNS = {
    "i": "{name}",
    "me": "{name}",
    "myself": "{name}",
    "my": "{name}'s",
    "mine": "{name}'s",
}


def third_person(verb: str) -> str:
    """The third-person singular of a present-tense verb: work → works, carry → carries."""
    lower = verb.lower()
    if lower in _IRREGULAR_3SG:
        irregular = _IRREGULAR_3SG[lower]
        return irregular.capitalize() if verb[:1].isupper() else irregular
    if lower.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if len(lower) > 1 and lower.endswith("y") and lower[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def verb_exceptions(nlp: Language) -> dict[str, list[str]]:
    """The English rule lemmatizer's irregular verb forms and their lemmas (rewrote: rewrite);
    empty when the pipeline has no such lemmatizer."""
    if "lemmatizer" not in nlp.pipe_names:
        return {}
    lookups = nlp.get_pipe("lemmatizer").lookups
    if not lookups.has_table("lemma_exc"):
        return {}
    return dict(lookups.get_table("lemma_exc").get("verb", {}))


def irregular_forms(nlp: Language) -> frozenset[str]:
    """The irregular past forms of English verbs (rewrote, ran, found): the lemmatizer's
    exceptions that are not their own lemma, never a present tense to give an -s."""
    exceptions = verb_exceptions(nlp)
    return frozenset(word for word, lemmas in exceptions.items() if word not in lemmas)


def resolve_first_person_tokens(
    sentence: Span, speaker: str | None, irregular: frozenset[str] = frozenset()
) -> str:
    """First person → speaker on a parsed English sentence, with verb agreement (I work →
    Ann works, I'm → Ann is, I've → Ann has). A form in ``irregular`` keeps its ending even
    when the tagger calls it present (I rewrote → Ann rewrote)."""
    if not speaker:
        return str(sentence.text).strip()
    parts: list[str] = []
    for token in sentence:
        word = token.text
        pronoun = _PRONOUNS.get(word.lower())
        if pronoun and token.tag_ in {"PRP", "PRP$"}:
            word = pronoun.format(name=speaker)
        elif _has_first_person_subject(token) and (
            token.lower_ in _IRREGULAR_3SG
            or (token.tag_ == "VBP" and token.lower_ not in irregular)
        ):
            word = third_person(word)
            if token.text.startswith(("'", "’")):
                word = " " + word
        parts.append(word + token.whitespace_)
    return without_self_introduction("".join(parts).strip(), speaker)


def _has_first_person_subject(token: Token) -> bool:
    if token.tag_ not in {"VBP", "VB"} and token.lower_ not in _IRREGULAR_3SG:
        return False
    if any(c.dep_ in _AUXILIARIES for c in token.children):
        return False  # "I will go": the auxiliary carries the person, "go" stays
    return any(c.dep_ in _SUBJECTS and c.lower_ == "i" for c in token.children) or (
        token.dep_ in _AUXILIARIES
        and any(c.dep_ in _SUBJECTS and c.lower_ == "i" for c in token.head.children)
    )


@dataclass(frozen=True)
class SlotRule:
    id: str
    slot: str
    lang: str
    regex: re.Pattern[str]


@dataclass(frozen=True)
class SlotValue:
    slot: str
    value: str
    rule_id: str


@lru_cache(maxsize=1)
def en_reaction_words(path: Path = EN_REACTIONS_PATH) -> frozenset[str]:
    """The English words of a bare reaction ("wow", "congrats"), lower case."""
    return frozenset(word.lower() for word in read_lines(path))


@lru_cache(maxsize=1)
def _zh_reactions(path: Path = ZH_REACTIONS_PATH) -> re.Pattern[str]:
    words = read_lines(path)
    return re.compile("|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)))


def is_filler(sentence: str, lang: str) -> bool:
    """A greeting, thanks or bare reaction ("Wow!", "哈哈，那挺好。", "真的吗？"): no fact in it."""
    text = sentence.strip()
    if lang == "zh":
        rest = _zh_reactions().sub("", text)
        return bool(_ZH_GREETING.match(text)) or len(text) < 2 or len(_ZH_CJK.findall(rest)) < 2
    letters = sum(c.isalnum() for c in text)
    return letters < _MIN_CONTENT_CHARS or bool(_GREETING.match(text))


def without_self_introduction(text: str, speaker: str) -> str:
    """ "Ana's name is Ana", "Ana is Ana", "张伟叫张伟" (a resolved "I'm Ana" / 我叫张伟) read
    as the name once."""
    name = re.escape(speaker)
    pattern = re.compile(
        rf"{name}(?:'s name is|’s name is| is| am|叫|是|的名字是|名字叫|的名字叫)\s?(?={name})"
    )
    return pattern.sub("", text)


def resolve_first_person(sentence: str, speaker: str | None, lang: str) -> str:
    """The sentence with I/me/my (我) replaced by the speaker's name, when it is known."""
    if not speaker:
        return sentence
    if lang == "zh":
        # A name is text, not a template.
        return without_self_introduction(_ZH_I.sub(lambda _: speaker, sentence), speaker)
    text = sentence
    for pattern, replacement in _FIRST_PERSON:
        # A name is text, not a template: re.escape-free replacement through a function.
        text = pattern.sub(_literal(replacement.format(name=speaker)), text)
    return without_self_introduction(text, speaker)


def _literal(text: str) -> Callable[[re.Match[str]], str]:
    return lambda _: text


def split_chinese(text: str) -> list[tuple[int, int]]:
    """Clause spans (start, end) of Chinese text, ending at 。！？； or a newline."""
    spans, start = [], 0
    for match in _ZH_SPLIT.finditer(text):
        end = match.start()
        if end > start and text[start:end].strip():
            spans.append((start, end))
        start = match.end() if match.end() > match.start() else end
    if text[start:].strip():
        spans.append((start, len(text)))
    return [_trim(text, s, e) for s, e in spans]


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


@lru_cache(maxsize=4)
def load_slot_rules(path: Path = SLOTS_PATH) -> list[SlotRule]:
    rules = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            rules.append(SlotRule(row["id"], row["slot"], row["lang"], re.compile(row["regex"])))
        except (ValueError, KeyError, re.error) as e:
            raise ConfigurationError(f"{path.name} line {number}: {e}") from e
    return rules


def find_slot(sentence: str, lang: str) -> SlotValue | None:
    """The first slot rule that matches the (original, first-person) sentence."""
    for rule in load_slot_rules():
        if rule.lang != lang:
            continue
        match = rule.regex.search(sentence)
        subject = _ZH_SUBJECT if lang == "zh" else _EN_SUBJECT
        if match and subject.search(sentence[: match.start()]):
            groups = match.groupdict()
            slot = rule.slot.format(kind=(groups.get("kind") or "").strip().replace(" ", "_"))
            value = " ".join(groups["value"].split()).strip(" .,'\"")
            if value:
                return SlotValue(slot=slot, value=value, rule_id=rule.id)
    return None

"""An organisation said again by a common noun: "this diner", 这家店, 那个学校.

Sal: "Ever since I bought the Blue Kettle…" / Eddie: "I've made those eggs at this diner for
twenty years." The second line names no organisation, but "this diner" is the one the lines
just before named. When the last few lines (``WINDOW``) named exactly one organisation and a
sentence that names none says "this" or "that" with a noun of ``_NOUNS``, the pipeline reads
the sentence again with the name in the noun's place and keeps what it then says of the name.

Of two organisations named in the window, which one the noun means the lines cannot tell, and
nothing is read. "Our company", 我们公司 are left alone: said after a client or a rival was
named, they are not it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from service.nlp.entities.patterns import EntityLabel, EntityMention

EXTRACTOR = "named_before"
WEIGHT = 0.85  # what the sentence says of the name, read again: a little less than saying it
WINDOW = 3  # lines back, this one's earlier sentences aside

_EN_REFERENCE = re.compile(
    r"\b(?:this|that)\s+(?:(?:whole|new|old|little|tiny|local)\s+)?"
    r"(?:company|firm|startup|office|shop|store|lab|agency|studio|practice|diner|restaurant|"
    r"cafe|café|bar|bakery|school|college|university|gym|clinic|hospital|club|band|salon|"
    r"hotel|bank|team)\b(?!['’-])",
    re.I,
)
# 这家店, 那个学校; not 这家店叫X (a name follows) nor 我们公司 (see above)
_ZH_REFERENCE = re.compile(
    r"[这那](?:家|个|所|间)?(?:公司|单位|厂|工厂|团队|集团|银行|医院|事务所|研究所|店|饭店|"
    r"餐厅|面馆|学校|健身房|咖啡馆|俱乐部|乐队)(?![\u4e00-\u9fff]?[名叫])"
)


def reference(text: str, lang: str) -> re.Match[str] | None:
    """Where a text first says an organisation by "this" or "that" and a noun, if it does."""
    return (_EN_REFERENCE if lang == "en" else _ZH_REFERENCE).search(text)


def antecedent(recent: Sequence[EntityMention]) -> EntityMention | None:
    """The one organisation the recent lines name (by name, in any case), or none."""
    orgs = {m.text.casefold(): m for m in recent if m.voted_label is EntityLabel.ORG}
    return next(iter(orgs.values())) if len(orgs) == 1 else None


def restated(text: str, said: re.Match[str], name: str) -> str:
    """The text with the name for "this diner", 这家店."""
    return f"{text[: said.start()]}{name}{text[said.end() :]}"

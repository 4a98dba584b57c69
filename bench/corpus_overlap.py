"""Which messages of the relation corpus overlap an evaluation set, and dropping them.

The learned readers must not be trained on what they are scored on. A corpus message
overlaps when it shares a run of 6 words (English) or 8 characters (Chinese) with a message of
an evaluation set, or names a thing that the issue's examples of unseen conversations name
(those conversations are scored but not given out).

    python -m bench.corpus_overlap ../shared/data/graph-dev.json bench/data/graph-heldout.json \
        bench/data/graph-third.json [--drop]

With ``--drop`` the overlapping messages are removed from ``nlp_models/relation_corpus/``;
retrain afterwards (scripts/train_relation_model.py).
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from service.nlp.linear import corpus_path

WORDS = 6
CHARACTERS = 8
# Issue 29's examples of the unseen conversations it is scored on: their sentences, and the
# names in them.
UNSEEN_TEXTS = {
    "en": [
        "My flatmate Odile does the books at Birchwood Dental. It's out in Apex.",
        "She fosters kittens through Second Chance Shelter, and I help out at Second Chance on "
        "weekends.",
        "Riverside Medical just took me on as a billing clerk!",
        "my brother works in the Riverside cafeteria",
    ],
    "zh": [
        "我在海信干了三年多了",
        "我们美团今年也在裁员",
        "她是顺丰的HR",
        "刚入职蔚来",
        "我们长沙这两天下暴雨",
        "搬到成都三年了",
        "上周刚提了辆理想L6",
    ],
}
UNSEEN_NAMES = frozenset(
    name.casefold()
    for name in (
        "Odile",
        "Birchwood Dental",
        "Apex",
        "Second Chance",
        "Second Chance Shelter",
        "Riverside Medical",
        "理想L6",
        # Names of the evaluation sets that reached writers' instructions as examples of
        # phenomena (session 21): not one message naming them is kept.
        "Runna",
        "Clio",
        "Siri",
        "Alexa",
        "陶溪川",
        "景德镇",
        "滴滴",
        "闲鱼",
    )
)


def runs(text: str, lang: str) -> set[str]:
    if lang == "en":
        words = re.findall(r"[a-z0-9']+", text.lower())
        return {" ".join(words[i : i + WORDS]) for i in range(len(words) - WORDS + 1)}
    chars = re.sub(r"\s", "", text)
    return {chars[i : i + CHARACTERS] for i in range(len(chars) - CHARACTERS + 1)}


def overlapping(line: str, lang: str, seen: set[str]) -> bool:
    example = json.loads(line)
    named = {surface.casefold() for surface, _ in example["entities"]}
    return bool(runs(example["text"], lang) & seen or named & UNSEEN_NAMES)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", type=Path, nargs="+")
    parser.add_argument("--drop", action="store_true")
    args = parser.parse_args()
    texts: dict[str, list[str]] = {lang: list(said) for lang, said in UNSEEN_TEXTS.items()}
    for path in args.sets:
        for conversation in json.loads(path.read_text(encoding="utf-8")):
            texts[conversation["lang"]] += [m["content"] for m in conversation["messages"]]
    for lang, said in texts.items():
        seen = set().union(*(runs(t, lang) for t in said))
        lines = [x for x in corpus_path(lang).read_text(encoding="utf-8").splitlines() if x]
        kept = [line for line in lines if not overlapping(line, lang, seen)]
        for line in lines:
            if line not in kept:
                print(lang, json.loads(line)["text"])
        print(f"{lang}: {len(lines) - len(kept)} of {len(lines)} overlap")
        if args.drop:
            corpus_path(lang).write_text("\n".join(kept) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

"""WordNet's hypernyms against the list of kinds (nlp_models/preference_kinds.json): which tells
better whether one thing replaces another in a change of mind (bench/data/same_kind_pairs.json).

No package on the registries Engram installs from ships WordNet's data for offline use (``wn``
and nltk download it at run time), so this reads the WordNet 3.0 database of Debian's
``wordnet-base`` (``apt-get install wordnet-base``) with a reader of its own, for the comparison
only. Run: ``python -m bench.wordnet_kinds [--wordnet /usr/share/wordnet]``. Two things are of a
kind for WordNet when some pair of their noun senses (a plural tried singular) shares a
hypernym at least ``depth`` deep; every depth is tried and the best reported (favouring
WordNet).
"""

from __future__ import annotations

import argparse
import json
from functools import cache
from pathlib import Path

from bench.common import write_result
from service.nlp.preferences.lexicon import lexicon

PAIRS = Path(__file__).resolve().parent / "data" / "same_kind_pairs.json"


class NounHypernyms:
    """The noun senses and hypernym links of a WordNet database (index.noun, data.noun)."""

    def __init__(self, folder: Path) -> None:
        self.senses: dict[str, list[str]] = {}
        for line in (folder / "index.noun").read_text(encoding="latin-1").splitlines():
            if line and not line.startswith(" "):
                fields = line.split()
                self.senses[fields[0]] = fields[-int(fields[2]) :]
        self.parents: dict[str, list[str]] = {}
        for line in (folder / "data.noun").read_text(encoding="latin-1").splitlines():
            if line and not line.startswith(" "):
                self.parents[line.split()[0]] = _hypernyms(line.split(" | ")[0].split())

    def of(self, word: str) -> list[str]:
        form = word.replace(" ", "_").lower()
        return self.senses.get(form) or self.senses.get(form.removesuffix("s"), [])

    @cache  # noqa: B019 (one reader per run)
    def ancestors(self, offset: str) -> frozenset[str]:
        return frozenset({offset}).union(*(self.ancestors(p) for p in self.parents[offset]))

    @cache  # noqa: B019
    def depth(self, offset: str) -> int:
        parents = self.parents[offset]
        return 0 if not parents else 1 + min(self.depth(p) for p in parents)

    def shared_depth(self, a: str, b: str) -> int | None:
        """The depth of the deepest hypernym some senses of a and b share (None: unknown word)."""
        xs, ys = self.of(a), self.of(b)
        if not xs or not ys:
            return None
        shared = (self.ancestors(x) & self.ancestors(y) for x in xs for y in ys)
        return max((max((self.depth(c) for c in s), default=0) for s in shared), default=0)


def _hypernyms(fields: list[str]) -> list[str]:
    at = 4 + 2 * int(fields[3], 16)
    pointers = [fields[at + 1 + 4 * i : at + 5 + 4 * i] for i in range(int(fields[at]))]
    return [p[1] for p in pointers if p[0] in ("@", "@i") and p[2] == "n"]


def main(args: argparse.Namespace) -> None:
    data = json.loads(PAIRS.read_text(encoding="utf-8"))
    labelled = [(a, b, True) for a, b in data["same"]]
    labelled += [(a, b, False) for a, b in data["different"]]
    wordnet = NounHypernyms(args.wordnet)
    depths = [(a, b, same, wordnet.shared_depth(a, b)) for a, b, same in labelled]
    scores = {
        depth: sum((d is not None and d >= depth) == same for _, _, same, d in depths)
        for depth in range(1, 15)
    }
    best = max(scores, key=lambda depth: scores[depth])
    kinds = lexicon("en")

    def listed(a: str, b: str) -> bool:
        return kinds.kind_of(a) is not None and kinds.kind_of(a) == kinds.kind_of(b)

    right = sum(listed(a, b) == same for a, b, same in labelled)
    result = {
        "pairs": len(labelled),
        "wordnet": {"best_depth": best, "accuracy": round(100 * scores[best] / len(labelled), 1)},
        "wordnet_unknown": [[a, b] for a, b, _, d in depths if d is None],
        "wordnet_wrong": [
            [a, b, same] for a, b, same, d in depths if (d is not None and d >= best) != same
        ],
        "list": {"accuracy": round(100 * right / len(labelled), 1)},
    }
    print(json.dumps(result, ensure_ascii=False))
    print("wrote", write_result("wordnet-kinds.json", result, "bench.wordnet_kinds"))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--wordnet", type=Path, default=Path("/usr/share/wordnet"))
    main(parser.parse_args())

"""The entity graph scored on the tuning and checking halves of graph-dev.json, per language.

The split is made once, by conversation: an odd-numbered id (``dev-en-01``, ``dev-zh-09``) is in
the tuning half, an even-numbered one in the checking half, so each half holds old and new
conversations of both languages. Rules are written from the tuning half only; the checking half
says whether they generalise.

Run ``../shared/tools/graph_eval.py`` against the service first, with ``--out``, then:

    python -m bench.graph_halves bench/results/graph-dev.json [--scorer PATH_TO_graph_eval.py]

It prints a table of the figures for each language: whole set, tuning half, checking half.
Any other file in graph_eval's ``--out`` format (held-out sets too) is printed per language.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
from pathlib import Path
from types import ModuleType
from typing import Any

FIGURES = (
    "entity_recall",
    "entity_precision",
    "junk_rate",
    "duplicate_rate",
    "path_success",
    "relation_recall",
    "type_accuracy",
)
_NUMBER = re.compile(r"(\d+)$")


def half(conversation_id: str) -> str:
    """``tune`` or ``check``: the parity of the id's trailing number."""
    match = _NUMBER.search(conversation_id)
    if match is None:
        raise ValueError(f"conversation id {conversation_id!r} has no number")
    return "tune" if int(match.group(1)) % 2 else "check"


def load_scorer(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("graph_eval", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load the scorer {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def table(rows: list[dict[str, Any]], scorer: ModuleType, split: bool) -> list[str]:
    lines = ["| set | n | " + " | ".join(FIGURES) + " |", "|---" * (len(FIGURES) + 2) + "|"]
    for lang in sorted({r["lang"] for r in rows}):
        of_lang = [r for r in rows if r["lang"] == lang]
        groups = [(lang, of_lang)]
        if split:
            groups += [
                (f"{lang} {h}", [r for r in of_lang if half(r["id"]) == h])
                for h in ("tune", "check")
            ]
        for name, group in groups:
            summary = scorer.summarise(group)
            cells = " | ".join(str(summary[f]) for f in FIGURES)
            lines.append(f"| {name} | {len(group)} | {cells} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, help="graph_eval.py --out file")
    parser.add_argument(
        "--scorer", type=Path, default=Path("../shared/tools/graph_eval.py"), help="graph_eval.py"
    )
    parser.add_argument("--no-split", action="store_true", help="a held-out set: languages only")
    args = parser.parse_args(argv)
    rows = json.loads(args.results.read_text(encoding="utf-8"))["conversations"]
    print("\n".join(table(rows, load_scorer(args.scorer), not args.no_split)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

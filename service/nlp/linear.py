"""A linear classifier trained offline and shipped as data: what the learned readers share.

scripts/train_relation_model.py fits scikit-learn's multinomial logistic regression on a
corpus of ``nlp_models/relation_corpus/`` and writes its weights as JSON; reading needs no
scikit-learn, only the sum of a few weights per class. The file keeps the corpus's digest, so a
corpus changed without retraining fails a test (tests/unit/test_learned_relations.py).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from service.core.errors import ConfigurationError
from service.core.resources import NLP_MODELS_DIR

CORPUS_DIR = NLP_MODELS_DIR / "relation_corpus"


def corpus_path(lang: str) -> Path:
    return CORPUS_DIR / f"{lang}.jsonl"


def model_path(name: str) -> Path:
    return CORPUS_DIR / f"model_{name}.json"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _any(_: str) -> bool:
    return True


@dataclass(frozen=True)
class Guess:
    label: str
    probability: float


@dataclass(frozen=True)
class LinearModel:
    """A multinomial logistic regression: per feature (present or absent), one weight per
    class."""

    classes: tuple[str, ...]
    intercept: tuple[float, ...]
    # per feature, its non-zero weights as (class index, weight)
    weights: dict[str, tuple[tuple[int, float], ...]]
    threshold: float  # the least probability at which the model's guess is used
    corpus_digest: str

    def probabilities(self, features: list[str]) -> list[float]:
        scores = list(self.intercept)
        # Each feature once, in the order given: a set's order moves with the hash seed, and
        # with it the sum's last digits from one process to the next.
        for feature in dict.fromkeys(features):
            for k, w in self.weights.get(feature, ()):
                scores[k] += w
        top = max(scores)
        exps = [math.exp(s - top) for s in scores]
        total = sum(exps)
        return [e / total for e in exps]

    def best(self, features: list[str], allowed: Callable[[str], bool] = _any) -> Guess:
        """The likeliest class of those ``allowed``; on a tie, the first in ``classes``."""
        probabilities = self.probabilities(features)
        k = max(
            (k for k, c in enumerate(self.classes) if allowed(c)), key=probabilities.__getitem__
        )
        return Guess(self.classes[k], probabilities[k])

    def to_json(self) -> str:
        return json.dumps(
            {
                "classes": self.classes,
                "intercept": self.intercept,
                "threshold": self.threshold,
                "corpus_digest": self.corpus_digest,
                "weights": {f: {str(k): w for k, w in ws} for f, ws in self.weights.items()},
            },
            ensure_ascii=False,
            sort_keys=True,
            separators=(",", ":"),
        )


@cache
def load_model(name: str) -> LinearModel:
    path = model_path(name)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return LinearModel(
            classes=tuple(raw["classes"]),
            intercept=tuple(raw["intercept"]),
            weights={
                f: tuple((int(k), float(w)) for k, w in ws.items())
                for f, ws in raw["weights"].items()
            },
            threshold=float(raw["threshold"]),
            corpus_digest=str(raw["corpus_digest"]),
        )
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ConfigurationError(f"cannot read the model {path}: {e}") from e

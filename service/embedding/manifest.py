"""Resolve model names to installed files through nlp_models/manifest.json (offline only)."""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from service.core.errors import ModelNotInstalledError
from service.core.resources import NLP_MODELS_DIR

MANIFEST = NLP_MODELS_DIR / "manifest.json"


@dataclass(frozen=True)
class ModelSpec:
    name: str
    kind: str
    package: str
    module: str
    subdir: str | None = None
    version: str | None = None
    dimensions: int | None = None


@lru_cache(maxsize=1)
def load_manifest() -> dict[str, ModelSpec]:
    raw = json.loads(MANIFEST.read_text(encoding="utf-8"))["models"]
    return {name: ModelSpec(name=name, **fields) for name, fields in raw.items()}


def resolve_model_path(name: str, kind: str) -> Path:
    """The folder holding model ``name``: a local path as given, else its package's files."""
    as_path = Path(name).expanduser()
    if as_path.is_dir():
        return as_path
    spec = load_manifest().get(name)
    if spec is None or spec.kind != kind:
        known = sorted(n for n, s in load_manifest().items() if s.kind == kind)
        raise ModelNotInstalledError(
            f"unknown {kind} model {name!r}: use one of {known} or a local folder"
        )
    found = importlib.util.find_spec(spec.module)
    if found is None or found.origin is None:
        raise ModelNotInstalledError(
            f"model {name!r} is not installed: pip install {spec.package}"
            + (f"=={spec.version}" if spec.version else "")
        )
    root = Path(found.origin).parent
    folder = root / spec.subdir if spec.subdir else _spacy_data_dir(root)
    if not folder.is_dir():
        raise ModelNotInstalledError(
            f"package {spec.package} has no model files at {folder}: reinstall it"
        )
    return folder


def _spacy_data_dir(root: Path) -> Path:
    # spaCy model packages keep the pipeline in a versioned sub-folder next to __init__.py.
    configs = sorted(root.glob("*/config.cfg"))
    return configs[0].parent if configs else root / "missing-config"

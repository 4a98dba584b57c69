"""Data folders that ship inside the package: Cypher statements and the NLP tables."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def package_folder(name: str) -> Path:
    """A data folder of the installed `service` package, on disk (not inside a zip)."""
    folder = files("service") / name
    if not isinstance(folder, Path) or not folder.is_dir():
        raise RuntimeError(f"package data folder service/{name} is missing; reinstall engram")
    return folder


CYPHER_DIR = package_folder("cypher")
NLP_MODELS_DIR = package_folder("nlp_models")

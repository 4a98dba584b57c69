"""Data folders that ship inside the package: Cypher statements and the NLP tables.

In the checkout they are the top-level ``cypher/`` and ``nlp_models/``; pyproject's
``package-dir`` ships them as the packages ``service.cypher`` and ``service.nlp_models``, so an
editable install and a wheel both find them here.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def package_folder(package: str) -> Path:
    """The folder of a data package of ``service``, on disk (not inside a zip)."""
    try:
        folder = files(package)
    except ModuleNotFoundError as e:
        raise RuntimeError(f"package data {package} is missing; reinstall engram") from e
    if not isinstance(folder, Path) or not folder.is_dir():
        raise RuntimeError(f"package data {package} is not a folder on disk; reinstall engram")
    return folder


CYPHER_DIR = package_folder("service.cypher")
NLP_MODELS_DIR = package_folder("service.nlp_models")

"""Data folders that ship inside the package: Cypher statements, the NLP tables, and the files
of the local Neo4j server (its Maven file, conf template and Browser guide).

In the checkout they are ``cypher/``, ``nlp_models/`` and ``neo4j/server/``; pyproject's
``package-dir`` ships them as the packages ``service.cypher``, ``service.nlp_models`` and
``service.neo4j_server``, so an editable install and a wheel both find them here.
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
NEO4J_SERVER_DIR = package_folder("service.neo4j_server")

"""The data folders the service reads ship in the wheel (pyproject's package-data)."""

from __future__ import annotations

import tomllib
from pathlib import Path, PurePosixPath

import pytest

from service.core.resources import CYPHER_DIR, NLP_MODELS_DIR

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "service"


def _shipped(relative: PurePosixPath, patterns: list[str]) -> bool:
    # setuptools globs do not cross folders: "cypher/*.cypher" misses cypher/fragments/.
    return any(
        len(relative.parts) == len(PurePosixPath(p).parts) and relative.match(p) for p in patterns
    )


@pytest.mark.parametrize("folder", [CYPHER_DIR, NLP_MODELS_DIR], ids=lambda f: f.name)
def test_every_data_file_is_declared_as_package_data(folder: Path) -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["service"]
    files = [PurePosixPath(f.relative_to(PACKAGE).as_posix()) for f in folder.rglob("*")]
    left_out = [str(f) for f in files if (PACKAGE / f).is_file() and not _shipped(f, patterns)]
    assert files and not left_out


def test_data_folders_are_read_from_the_package() -> None:
    assert CYPHER_DIR == PACKAGE / "cypher" and (CYPHER_DIR / "schema.cypher").is_file()
    assert (NLP_MODELS_DIR / "manifest.json").is_file()

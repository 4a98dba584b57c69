"""The data folders the service reads live at the top of the checkout and ship in the wheel
(pyproject's package-dir and package-data)."""

from __future__ import annotations

import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path, PurePosixPath

import pytest

from service.core.resources import CYPHER_DIR, NLP_MODELS_DIR

ROOT = Path(__file__).resolve().parents[2]
# The pages' own files (dashboard modules, GraphiQL's page, the icon) ship in service.api.
API_DIR = ROOT / "service" / "api"
SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
    "setuptools"
]


def _data_files(folder: Path, package_dir: Path | None = None) -> list[PurePosixPath]:
    """The non-Python files under ``folder``, relative to their package's folder."""
    return [
        PurePosixPath(f.relative_to(package_dir or folder).as_posix())
        for f in folder.rglob("*")
        if f.is_file() and f.suffix not in {".py", ".pyc"} and "__pycache__" not in f.parts
    ]


def _shipped(relative: PurePosixPath, patterns: list[str]) -> bool:
    # setuptools globs do not cross folders: "*.cypher" misses fragments/.
    return any(
        len(relative.parts) == len(PurePosixPath(p).parts) and relative.match(p) for p in patterns
    )


@pytest.mark.parametrize(
    ("package", "folder", "package_dir"),
    [
        ("service.cypher", CYPHER_DIR, CYPHER_DIR),
        ("service.nlp_models", NLP_MODELS_DIR, NLP_MODELS_DIR),
        ("service", API_DIR, API_DIR.parent),
    ],
    ids=lambda x: x if isinstance(x, str) else "",
)
def test_every_data_file_is_declared_as_package_data(
    package: str, folder: Path, package_dir: Path
) -> None:
    patterns = SETUPTOOLS["package-data"][package]
    files = _data_files(folder, package_dir)
    left_out = [str(f) for f in files if not _shipped(f, patterns)]
    assert files and not left_out


def test_data_folders_are_the_top_level_ones() -> None:
    assert CYPHER_DIR == ROOT / "cypher" and (CYPHER_DIR / "schema.cypher").is_file()
    assert NLP_MODELS_DIR == ROOT / "nlp_models" and (NLP_MODELS_DIR / "manifest.json").is_file()
    assert SETUPTOOLS["package-dir"] == {
        "service.cypher": "cypher",
        "service.nlp_models": "nlp_models",
    }


def test_every_package_folder_is_listed() -> None:
    on_disk = {
        ".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "service").rglob("__init__.py")
    }
    assert set(SETUPTOOLS["packages"]) == on_disk | {"service.cypher", "service.nlp_models"}


def test_the_wheel_carries_the_data_folders(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("engram-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {f"service/cypher/{f}" for f in _data_files(CYPHER_DIR)}
    expected |= {f"service/nlp_models/{f}" for f in _data_files(NLP_MODELS_DIR)}
    expected |= {f"service/{f}" for f in _data_files(API_DIR, API_DIR.parent)}
    assert "service/cypher/fragments/in_scope.cypher" in expected
    assert {"service/api/favicon.svg", "service/api/dashboard_ui/main.js"} <= expected
    assert expected <= names

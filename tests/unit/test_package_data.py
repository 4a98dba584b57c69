"""The data folders the service reads live at the top of the checkout (or, for npm's files,
are copied into service/api/vendor/ by setup) and ship in the wheel (pyproject's package-dir
and package-data)."""

from __future__ import annotations

import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path, PurePosixPath

import pytest

from service.api.offline_assets import VENDOR_DIR
from service.core.resources import CYPHER_DIR, NEO4J_SERVER_DIR, NLP_MODELS_DIR

ROOT = Path(__file__).resolve().parents[2]
# The pages' own files (dashboard modules, GraphiQL's page, the icon, npm's files in vendor/)
# ship in service.api.
API_DIR = ROOT / "service" / "api"
SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
    "setuptools"
]
# Files in the data folders that are not the service's: Maven's output beside the pom.
NOT_DATA = {"target"}


def _data_files(folder: Path, package_dir: Path | None = None) -> list[PurePosixPath]:
    """The non-Python files under ``folder``, relative to their package's folder."""
    return [
        PurePosixPath(f.relative_to(package_dir or folder).as_posix())
        for f in folder.rglob("*")
        if f.is_file()
        and f.suffix not in {".py", ".pyc"}
        and not {"__pycache__", *NOT_DATA} & set(f.relative_to(folder).parts)
    ]


def _shipped(package_dir: Path, patterns: list[str]) -> set[PurePosixPath]:
    """What setuptools ships of a package's folder: its glob patterns, as it expands them."""
    return {
        PurePosixPath(f.relative_to(package_dir).as_posix())
        for pattern in patterns
        for f in package_dir.glob(pattern)
        if f.is_file()
    }


@pytest.mark.parametrize(
    ("package", "folder", "package_dir"),
    [
        ("service.cypher", CYPHER_DIR, CYPHER_DIR),
        ("service.nlp_models", NLP_MODELS_DIR, NLP_MODELS_DIR),
        ("service.neo4j_server", NEO4J_SERVER_DIR, NEO4J_SERVER_DIR),
        ("service", API_DIR, API_DIR.parent),
    ],
    ids=lambda x: x if isinstance(x, str) else "",
)
def test_every_data_file_is_declared_as_package_data(
    package: str, folder: Path, package_dir: Path
) -> None:
    shipped = _shipped(package_dir, SETUPTOOLS["package-data"][package])
    files = _data_files(folder, package_dir)
    left_out = [str(f) for f in files if f not in shipped]
    assert files and not left_out


def test_setup_copied_npm_files_into_the_package() -> None:
    assert VENDOR_DIR == API_DIR / "vendor"
    assert (VENDOR_DIR / "graphiql" / "graphiql.min.js").is_file(), "run ./scripts/setup.sh"


def test_data_folders_are_the_top_level_ones() -> None:
    # resolve(): a worktree may link service/cypher to ../cypher instead of installing.
    assert CYPHER_DIR.resolve() == ROOT / "cypher" and (CYPHER_DIR / "schema.cypher").is_file()
    assert NLP_MODELS_DIR.resolve() == ROOT / "nlp_models"
    assert (NLP_MODELS_DIR / "manifest.json").is_file()
    assert NEO4J_SERVER_DIR.resolve() == ROOT / "neo4j" / "server"
    assert (NEO4J_SERVER_DIR / "pom.xml").is_file()
    assert SETUPTOOLS["package-dir"] == {
        "service.cypher": "cypher",
        "service.nlp_models": "nlp_models",
        "service.neo4j_server": "neo4j/server",
    }
    # A package there would hide the neo4j driver from whoever runs in the checkout.
    assert not (ROOT / "neo4j" / "__init__.py").exists()


def test_every_package_folder_is_listed() -> None:
    on_disk = {
        ".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "service").rglob("__init__.py")
    }
    assert set(SETUPTOOLS["packages"]) == on_disk | set(SETUPTOOLS["package-dir"])


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
    expected |= {f"service/neo4j_server/{f}" for f in _data_files(NEO4J_SERVER_DIR)}
    expected |= {f"service/{f}" for f in _data_files(API_DIR, API_DIR.parent)}
    assert "service/cypher/fragments/in_scope.cypher" in expected
    assert {"service/api/favicon.svg", "service/api/dashboard_ui/main.js"} <= expected
    assert {
        "service/neo4j_server/pom.xml",
        "service/neo4j_server/neo4j.conf",
        "service/neo4j_server/browser/engram-guide.html",
        "service/api/vendor/graphiql/graphiql.min.js",
        "service/api/vendor/cytoscape/dist/cytoscape.esm.min.mjs",
    } <= expected
    assert expected <= names

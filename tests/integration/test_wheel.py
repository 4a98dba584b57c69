"""A wheel built from the checkout stands alone: installed into a venv outside the checkout,
`engram serve` answers GraphQL and serves GraphiQL, the dashboard and the Browser guide from
the package's own files (docs/development.md, "Installing the package (not editable)").

The venv borrows the heavy dependencies of the venv running the tests through a .pth line
and installs Engram itself with `--no-deps`, as the docs describe.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import Neo4jTarget
from tests.integration.test_shutdown import free_port, wait_for_health

CHECKOUT = Path(__file__).resolve().parents[2]
# What a browser and a client ask for, each answered from the installed package's files.
PAGES = (
    "/graphql",  # GraphiQL's page (asked for as HTML)
    "/graphiql-assets/graphiql.min.js",
    "/dashboard",
    "/dashboard-assets/main.js",
    "/dashboard-assets/vendor/cytoscape.esm.min.mjs",
    "/favicon.svg",
    "/neo4j-browser/engram-guide.html",
)


def _clean_env() -> dict[str, str]:
    """The environment without what points back into the checkout (its egg-info, its code)."""
    return {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}


def _run(*args: str | Path, cwd: Path) -> str:
    result = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=_clean_env(), capture_output=True, text=True
    )
    assert result.returncode == 0, f"{args}: {result.stdout}{result.stderr}"
    return result.stdout


@pytest.fixture(scope="module")
def outside(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder outside the checkout, for the wheel, the venv and the server's working dir."""
    folder = tmp_path_factory.mktemp("wheel")
    assert not folder.resolve().is_relative_to(CHECKOUT)
    return folder


@pytest.fixture(scope="module")
def installed(outside: Path) -> Path:
    """The venv's bin/ with the wheel built from HEAD's files installed (`--no-deps`)."""
    dist = outside / "dist"
    pip_wheel = ["-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", dist]
    _run(sys.executable, *pip_wheel, CHECKOUT, cwd=outside)
    (wheel,) = dist.glob("engram-*.whl")
    venv = outside / "venv"
    _run(sys.executable, "-m", "venv", venv, cwd=outside)
    _run(venv / "bin" / "pip", "install", "-q", "--no-deps", wheel, cwd=outside)
    # Then the dependencies, borrowed: appended to sys.path after the venv's own site-packages.
    purelib = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    site = Path(_run(venv / "bin" / "python", "-c", purelib, cwd=outside).strip())
    borrowed = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (site / "engram-deps.pth").write_text("\n".join(sorted(borrowed)) + "\n", encoding="utf-8")
    return venv / "bin"


@pytest.fixture
def served(installed: Path, outside: Path, neo4j_target: Neo4jTarget) -> Iterator[str]:
    port = free_port()
    env = {
        **_clean_env(),
        "ENGRAM_AUTH_MODE": "local",
        "ENGRAM_API_HOST": "127.0.0.1",
        "ENGRAM_API_PORT": str(port),
        "ENGRAM_NEO4J_URI": neo4j_target.uri,
        "ENGRAM_NEO4J_USER": neo4j_target.user,
        "ENGRAM_NEO4J_PASSWORD": neo4j_target.password,
    }
    server = subprocess.Popen(
        [installed / "engram", "serve"], cwd=outside, env=env, stdout=subprocess.DEVNULL
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for_health(server, url)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def test_the_installed_package_is_the_wheel(installed: Path, outside: Path) -> None:
    code = "import service.neo4j_server as n, service.api as a; print(n.__file__, a.__file__)"
    imported = _run(installed / "python", "-c", code, cwd=outside).split()
    assert all(Path(f).is_relative_to(installed.parent) for f in imported), imported


def test_an_installed_wheel_serves_every_page_and_graphql(served: str) -> None:
    html = {"Accept": "text/html"}
    with httpx.Client(base_url=served, timeout=10) as http:
        for path in PAGES:
            answer = http.get(path, headers=html)
            assert answer.status_code == 200, f"{path}: {answer.status_code} {answer.text[:300]}"
        assert "graphiql-assets/graphiql.min.js" in http.get("/graphql", headers=html).text
        query = http.post("/graphql", json={"query": "{ __typename }"})
    assert query.status_code == 200
    assert query.json() == {"data": {"__typename": "Query"}}

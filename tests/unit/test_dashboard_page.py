"""The dashboard works offline: the page, every module it imports served by the app, no CDN."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace
from typing import cast
from urllib.parse import urlsplit
from weakref import WeakSet

import httpx
import pytest

from service.api.app import create_app
from service.api.dashboard_page import (
    DASHBOARD_ASSETS_ROUTE,
    PAGE_FILES,
    PAGE_FOLDER,
    VENDOR,
    dashboard_page,
)
from service.api.offline_assets import VENDOR_DIR
from service.core.config import Settings
from service.memory import MemoryService
from tests.unit.test_graphiql import BROWSER, ICON, MEDIA_TYPES, references

# `import … from './api.js'` and `import x from '/dashboard-assets/vendor/…'` in the modules.
IMPORT = re.compile(r"""^import [^'"]*['"]([^'"]+)['"]""", re.M)
MEDIA = {**MEDIA_TYPES, ".mjs": "text/javascript"}


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    settings = Settings(_env_file=None, auth_mode="local")
    stand_in = SimpleNamespace(write_observers=WeakSet(), model_load_ms={})
    app = create_app(settings, memory=cast(MemoryService, stand_in))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://engram.test") as http:
        yield http


def test_every_file_of_the_page_is_listed_and_installed() -> None:
    shipped = {p.name for p in PAGE_FOLDER.iterdir() if p.suffix in (".js", ".css")}
    assert shipped == set(PAGE_FILES)
    assert all((VENDOR_DIR / a.path).is_file() for a in VENDOR.values()), "run setup.sh"


async def test_the_page_and_every_module_it_imports_are_served(
    client: httpx.AsyncClient,
) -> None:
    page = await client.get("/dashboard", headers=BROWSER)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    pending, seen = references(page.text), set()
    while pending:
        url = pending.pop()
        if url in seen:
            continue
        seen.add(url)
        asset = await client.get(url)
        assert asset.status_code == 200, url
        assert asset.headers["content-type"].startswith(MEDIA[Path(url).suffix]), url
        base = url.rsplit("/", 1)[0]
        for target in IMPORT.findall(asset.text) if url.endswith(".js") else []:
            pending.append(target if target.startswith("/") else f"{base}/{target[2:]}")
    assert f"{DASHBOARD_ASSETS_ROUTE}/vendor/cytoscape.esm.min.mjs" in seen
    assert ICON in seen  # else the browser asks /favicon.ico
    assert {f"{DASHBOARD_ASSETS_ROUTE}/{n}" for n in PAGE_FILES} <= seen


async def test_the_page_names_no_other_host(client: httpx.AsyncClient) -> None:
    texts = [(await client.get("/dashboard")).text]
    texts += [(PAGE_FOLDER / name).read_text("utf-8") for name in PAGE_FILES]
    urls = [u for t in texts for u in re.findall(r"(?:https?:)?//[^\s\"'<>`]+", t)]
    # The SVG namespace is a name, never fetched.
    hosts = {urlsplit(u).hostname for u in urls} - {"www.w3.org"}
    assert hosts <= {"engram.test"}, hosts


async def test_the_icon_answers_where_browsers_ask(client: httpx.AsyncClient) -> None:
    for url in ("/favicon.svg", "/favicon.ico"):
        icon = await client.get(url)
        assert icon.status_code == 200, url
        assert icon.headers["content-type"] == "image/svg+xml", url
        assert icon.text.startswith("<svg"), url


async def test_only_the_listed_files_are_served(client: httpx.AsyncClient) -> None:
    for name in ("index.html", "vendor/package.json", "..%2Fgraphiql.html", "vendor/main.js"):
        assert (await client.get(f"{DASHBOARD_ASSETS_ROUTE}/{name}")).status_code == 404, name


def test_without_setup_the_page_says_how_to_install(tmp_path: Path) -> None:
    page = dashboard_page(tmp_path)
    assert page.status_code == 503
    assert b"make setup" in page.body and b"cytoscape/dist/cytoscape.esm.min.mjs" in page.body

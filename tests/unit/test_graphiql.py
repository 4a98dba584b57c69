"""GraphiQL works offline: our page, every file it loads served by the app, no other host."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace
from typing import cast
from urllib.parse import urlsplit
from weakref import WeakSet

import httpx
import pytest
import strawberry
from fastapi import FastAPI

from service.api.app import create_app
from service.api.graphiql import (
    ASSETS,
    GRAPHIQL_ASSETS_ROUTE,
    VENDOR_DIR,
    OfflineGraphQLRouter,
    graphiql_assets,
)
from service.core.config import Settings
from service.memory import MemoryService

BROWSER = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
MEDIA_TYPES = {".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml"}
ICON = "/favicon.svg"


class _References(HTMLParser):
    """The URLs a page fetches: <script src> and <link href>, except inline data: URLs."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs).get({"script": "src", "link": "href"}.get(tag, ""))
        if found and not found.startswith("data:"):
            self.urls.append(found)


def references(page: str) -> list[str]:
    parser = _References()
    parser.feed(page)
    parser.close()
    return parser.urls


async def _client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://engram.test") as http:
        yield http


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    settings = Settings(_env_file=None, auth_mode="local")  # type: ignore[call-arg]
    # The page and the schema's own fields need no database: a Memory is never queried (the
    # app only registers its metrics with it).
    stand_in = SimpleNamespace(write_observers=WeakSet(), model_load_ms={})
    async for http in _client(create_app(settings, memory=cast(MemoryService, stand_in))):
        yield http


@pytest.fixture
async def uninstalled(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    @strawberry.type
    class Query:
        ok: bool = True

    app = FastAPI()
    router = OfflineGraphQLRouter(strawberry.Schema(Query), vendor_dir=tmp_path)
    app.include_router(router, prefix="/graphql")
    app.mount(GRAPHIQL_ASSETS_ROUTE, graphiql_assets(tmp_path))
    async for http in _client(app):
        yield http


def test_setup_installed_the_assets() -> None:
    missing = [a.path for a in ASSETS.values() if not (VENDOR_DIR / a.path).is_file()]
    assert not missing, f"run ./scripts/setup.sh: {missing} not in {VENDOR_DIR}"


async def test_a_browser_gets_our_page_and_every_file_it_loads(
    client: httpx.AsyncClient,
) -> None:
    page = await client.get("/graphql", headers=BROWSER)
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert '<div id="graphiql">' in page.text

    urls = references(page.text)
    assets = sorted(f"{GRAPHIQL_ASSETS_ROUTE}/{name}" for name in ASSETS)
    assert sorted(urls) == sorted([*assets, ICON])
    for url in assets:
        asset = await client.get(url)
        assert asset.status_code == 200, url
        assert asset.headers["content-type"].startswith(MEDIA_TYPES[Path(url).suffix]), url
        assert len(asset.content) > 1000, url


async def test_the_page_names_no_other_host(client: httpx.AsyncClient) -> None:
    page = (await client.get("/graphql", headers=BROWSER)).text
    hosts = {urlsplit(url).hostname for url in re.findall(r"(?:https?:)?//[^\s\"'<>]+", page)}
    assert hosts <= {"engram.test"}, hosts


async def test_graphql_queries_answer_as_before(client: httpx.AsyncClient) -> None:
    posted = await client.post("/graphql", json={"query": "{ __typename }"})
    assert posted.json() == {"data": {"__typename": "Query"}}
    got = await client.get("/graphql", params={"query": "{ __typename }"}, headers=BROWSER)
    assert got.json() == {"data": {"__typename": "Query"}}


async def test_only_the_listed_files_are_served(client: httpx.AsyncClient) -> None:
    for name in ("package.json", "graphiql.min.js.map", "..%2Fpackage.json", ""):
        assert (await client.get(f"{GRAPHIQL_ASSETS_ROUTE}/{name}")).status_code == 404, name


async def test_without_setup_the_page_says_how_to_install(
    uninstalled: httpx.AsyncClient,
) -> None:
    page = await uninstalled.get("/graphql", headers=BROWSER)
    assert page.status_code == 503
    assert "make setup" in page.text and "graphiql/graphiql.min.js" in page.text
    assert (await uninstalled.get(f"{GRAPHIQL_ASSETS_ROUTE}/graphiql.min.js")).status_code == 404
    posted = await uninstalled.post("/graphql", json={"query": "{ __typename }"})
    assert posted.json() == {"data": {"__typename": "Query"}}

"""GraphiQL renders in a real browser from the files the service serves itself."""

from __future__ import annotations

import asyncio
from asyncio.subprocess import DEVNULL, PIPE
from collections.abc import AsyncIterator

import pytest

from service.api.app import create_app
from service.memory import MemoryService
from tests.browser import CHROMIUM, HEADLESS, serve
from tests.conftest import Neo4jTarget


@pytest.fixture
async def served(mem: MemoryService, neo4j_target: Neo4jTarget) -> AsyncIterator[str]:
    """The app on a free loopback port, in this event loop; yields the GraphiQL URL."""
    settings = neo4j_target.settings(auth_mode="local")
    async with serve(create_app(settings, memory=mem)) as base:
        yield f"{base}/graphql"


@pytest.mark.skipif(CHROMIUM is None, reason="needs chromium (apt-get install chromium)")
async def test_chromium_renders_the_editor_and_the_explorer(served: str) -> None:
    assert CHROMIUM is not None
    browser = await asyncio.create_subprocess_exec(
        CHROMIUM, *HEADLESS, "--dump-dom", served, stdout=PIPE, stderr=DEVNULL
    )
    dom, _ = await asyncio.wait_for(browser.communicate(), timeout=120)
    page = dom.decode()
    # React replaced "Loading…" with the IDE: the query editor, and the explorer plugin's
    # button, which appears only once its script ran against GraphiQL's.
    assert "Loading…" not in page
    assert 'class="graphiql-query-editor"' in page
    assert "CodeMirror" in page
    assert 'aria-label="Show GraphiQL Explorer"' in page

"""GraphiQL renders in a real browser from the files the service serves itself."""

from __future__ import annotations

import asyncio
import shutil
from asyncio.subprocess import DEVNULL, PIPE
from collections.abc import AsyncIterator

import pytest
import uvicorn

from service.api.app import create_app
from service.memory import MemoryService
from tests.conftest import Neo4jTarget

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# Headless, as root in a container; virtual time lets the scripts run before the DOM is dumped.
HEADLESS = ("--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=10000")


@pytest.fixture
async def served(mem: MemoryService, neo4j_target: Neo4jTarget) -> AsyncIterator[str]:
    """The app on a free loopback port, in this event loop; yields the GraphiQL URL."""
    settings = neo4j_target.settings(auth_mode="local")
    config = uvicorn.Config(create_app(settings, memory=mem), host="127.0.0.1", port=0)
    server = uvicorn.Server(config)
    serving = asyncio.create_task(server.serve())
    while not server.started:
        assert not serving.done(), "uvicorn stopped before it started"
        await asyncio.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}/graphql"
    server.should_exit = True
    await serving


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

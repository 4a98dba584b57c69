"""One real Neo4j for the whole test session, and a clean database for every test.

Where it comes from, in order: NEO4J_URI (with NEO4J_USER / NEO4J_PASSWORD) if set; else
testcontainers' Neo4jContainer when a Docker engine answers a ping; else the local server from
the Maven jars on its own test ports and a throw-away data folder.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from neo4j.exceptions import TransientError

from neo4j import AsyncGraphDatabase
from service.core.config import Settings
from service.embedding.embedder import Embedder
from service.memory import MemoryService
from service.store.local_server import LocalNeo4j

TEST_BOLT_PORT = 7697
TEST_HTTP_PORT = 7484


@dataclass
class Neo4jTarget:
    uri: str
    user: str
    password: str
    local: LocalNeo4j | None  # set when the tests may stop and start the server themselves

    def settings(self, **overrides: object) -> Settings:
        values: dict[str, object] = {
            "neo4j_uri": self.uri,
            "neo4j_user": self.user,
            "neo4j_password": self.password,
            "neo4j_bolt_port": TEST_BOLT_PORT,
            "neo4j_http_port": TEST_HTTP_PORT,
            # Pinned so that what the tests expect does not move when the default is tuned.
            "fact_min_words": 6,
            "fact_max_words": 40,
        }
        values.update(overrides)
        return Settings(_env_file=None, **values)  # type: ignore[call-arg]


def _docker_engine_answers() -> bool:
    try:
        import docker

        docker.from_env(timeout=3).ping()
    except Exception:
        return False
    return True


@pytest.fixture(scope="session")
def neo4j_target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Neo4jTarget]:
    if os.environ.get("NEO4J_URI"):
        yield Neo4jTarget(
            os.environ["NEO4J_URI"],
            os.environ.get("NEO4J_USER", "neo4j"),
            os.environ.get("NEO4J_PASSWORD", ""),
            None,
        )
        return
    if _docker_engine_answers():
        from testcontainers.neo4j import Neo4jContainer

        with Neo4jContainer("neo4j:5.26-community") as container:
            yield Neo4jTarget(container.get_connection_url(), "neo4j", container.password, None)
        return
    data_dir: Path = tmp_path_factory.mktemp("engram-test-data")
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        data_dir=data_dir,
        neo4j_bolt_port=TEST_BOLT_PORT,
        neo4j_http_port=TEST_HTTP_PORT,
        neo4j_heap="512m",
        neo4j_pagecache="256m",
    )
    server = LocalNeo4j(settings)
    server.start()
    try:
        yield Neo4jTarget(settings.bolt_uri, "neo4j", "", server)
    finally:
        server.stop()


@pytest.fixture(scope="session")
def embedder(neo4j_target: Neo4jTarget) -> Embedder:
    return Embedder(neo4j_target.settings())


@pytest.fixture(scope="session")
async def memory(neo4j_target: Neo4jTarget, embedder: Embedder) -> AsyncIterator[MemoryService]:
    service = await MemoryService.start(neo4j_target.settings(), embedder=embedder)
    yield service
    await service.close()


async def run_cypher(target: Neo4jTarget, cypher: str, **params: object) -> list[dict[str, object]]:
    """Tests' own look into the database, independent of the code under test."""
    auth = (target.user, target.password) if target.password else None
    async with (
        AsyncGraphDatabase.driver(target.uri, auth=auth) as driver,
        driver.session() as session,
    ):
        result = await session.run(cypher, params)  # type: ignore[arg-type]
        return await result.data()


async def _until_done(target: Neo4jTarget, statement: str) -> None:
    """Run the statement until it commits: Neo4j may pick another process as a deadlock's
    victim, and that process retries the same statement (going on to the next would create
    what is still there)."""
    while True:
        try:
            await run_cypher(target, statement)
            return
        except TransientError:
            continue


@asynccontextmanager
async def churning(target: Neo4jTarget, *statements: str) -> AsyncIterator[None]:
    """The statements run over and over, each in a transaction of its own, until the block
    ends: another process creating and deleting beside the code under test."""
    stop = asyncio.Event()

    async def churn() -> None:
        while not stop.is_set():
            for statement in statements:
                await _until_done(target, statement)

    task = asyncio.create_task(churn())
    try:
        yield
    finally:
        stop.set()
        await task


@pytest.fixture
async def clean_db(neo4j_target: Neo4jTarget) -> AsyncIterator[None]:
    """Wipe all data (not the schema) before the test."""
    await run_cypher(neo4j_target, "MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS")
    yield


@pytest.fixture
async def mem(memory: MemoryService, clean_db: None) -> MemoryService:
    """The shared Memory service over an empty database."""
    return memory

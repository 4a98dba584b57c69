"""The Python client against the real app (in-process transport) and a real Neo4j."""

from __future__ import annotations

import io
import json

import httpx
import pytest

from service.api.app import create_app
from service.client import EngramClient
from service.core.errors import ForbiddenError, NotFoundError, ValidationError
from service.memory import MemoryService
from tests.conftest import Neo4jTarget

KEY = "client-test-key-0123456789"


async def test_client_adds_searches_and_builds_context(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    settings = neo4j_target.settings(api_keys={KEY: {"principal": "py", "user_ids": ["ana"]}})
    transport = httpx.ASGITransport(app=create_app(settings, memory=mem))
    async with EngramClient("http://test", api_key=KEY, transport=transport) as engram:
        added = await engram.add(
            [
                {
                    "content": "I moved to Lisbon last year.",
                    "speaker": "Ana",
                    "timestamp": "2024-02-01T10:00:00Z",
                }
            ],
            user_id="ana",
        )
        assert len(added.added) == 1
        [hit] = await engram.search("Where does Ana live?", limit=1, user_id="ana")
        assert hit.memory.text == "Ana moved to Lisbon last year."
        assert hit.sources[0].text == "I moved to Lisbon last year."
        assert hit.memory.valid_from is not None and hit.memory.valid_from.year == 2023
        block = await engram.context("Where does Ana live?", token_budget=200, user_id="ana")
        assert "Lisbon" in block.text and block.tokens <= 200
        with pytest.raises(ForbiddenError, match="bob"):
            await engram.search("anything", user_id="bob")
        with pytest.raises(ValidationError, match="message 0"):
            await engram.add([{"content": ""}], user_id="ana")
        await engram.delete(added.added[0], user_id="ana")
        assert await engram.search("Where does Ana live?", limit=1, user_id="ana") == []
        with pytest.raises(NotFoundError):
            await engram.delete(added.added[0], user_id="ana")


async def test_client_downloads_a_scope_export(
    mem: MemoryService, neo4j_target: Neo4jTarget
) -> None:
    settings = neo4j_target.settings(api_keys={KEY: {"principal": "py", "user_ids": ["ana"]}})
    transport = httpx.ASGITransport(app=create_app(settings, memory=mem))
    async with EngramClient("http://test", api_key=KEY, transport=transport) as engram:
        await engram.add([{"content": "I keep two cats.", "speaker": "Ana"}], user_id="ana")
        out = io.BytesIO()
        written = await engram.export(out, user_id="ana")
        lines = [json.loads(line) for line in out.getvalue().decode().splitlines()]
        assert written == len(out.getvalue()) > 0
        assert lines[0]["record"] == "header" and lines[-1]["record"] == "end"
        assert any(r["record"] == "memory" and "cats" in r["text"] for r in lines)
        with pytest.raises(ForbiddenError):
            await engram.export(io.BytesIO(), user_id="bob")

"""`engram serve --workers N`: one process runs the app it built, several build their own."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn
from fastapi import FastAPI
from typer.testing import CliRunner

from service.api.app import create_app_from_environment
from service.api.door import DoorProtocol
from service.cli import app
from service.core.config import get_settings


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[dict[str, Any]]]:
    """What `engram serve` hands uvicorn, against a Neo4j URI so no local server starts."""
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda target, **kw: calls.append({"app": target, **kw}))
    monkeypatch.setenv("ENGRAM_NEO4J_URI", "bolt://127.0.0.1:7999")
    monkeypatch.setenv("ENGRAM_AUTH_MODE", "local")
    get_settings.cache_clear()
    yield calls
    get_settings.cache_clear()


@pytest.mark.parametrize(("args", "processes"), [([], 1), (["--workers", "3"], 3)])
def test_serve_runs_the_asked_number_of_processes(
    served: list[dict[str, Any]], args: list[str], processes: int
) -> None:
    result = CliRunner().invoke(app, ["serve", *args])
    assert result.exit_code == 0, result.output
    (call,) = served
    assert call["workers"] == processes and call["factory"] is (processes > 1)
    if processes == 1:
        assert isinstance(call["app"], FastAPI)
    else:
        assert call["app"] == "service.api.app:create_app_from_environment"


def test_the_setting_sets_the_default(
    served: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ENGRAM_API_WORKERS", "2")
    get_settings.cache_clear()
    assert CliRunner().invoke(app, ["serve"]).exit_code == 0
    assert served[0]["workers"] == 2


def test_each_worker_builds_its_app_from_the_environment(served: list[dict[str, Any]]) -> None:
    built = create_app_from_environment()
    assert isinstance(built, FastAPI) and built.state.settings.auth_mode == "local"


def test_serve_refuses_at_the_door_unless_told_not_to(
    served: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert CliRunner().invoke(app, ["serve"]).exit_code == 0
    monkeypatch.setenv("ENGRAM_REFUSE_AT_DOOR", "false")
    get_settings.cache_clear()
    assert CliRunner().invoke(app, ["serve"]).exit_code == 0
    assert [call["http"] for call in served] == [DoorProtocol, "httptools"]

from pathlib import Path

import pytest
from pydantic import ValidationError

from service.core.config import Settings


def test_defaults_run_the_local_server() -> None:
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert settings.uses_local_server
    assert settings.bolt_uri == "bolt://127.0.0.1:7687"


def test_env_prefix_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENGRAM_NEO4J_URI", "bolt://localhost:9999")
    monkeypatch.setenv("ENGRAM_API_PORT", "8123")
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert not settings.uses_local_server
    assert settings.bolt_uri == "bolt://localhost:9999"
    assert settings.api_port == 8123


def test_remote_neo4j_without_password_is_refused() -> None:
    with pytest.raises(ValidationError, match="PASSWORD is required"):
        Settings(_env_file=None, neo4j_uri="neo4j+s://abc.databases.neo4j.io")  # type: ignore[call-arg]


def test_remote_neo4j_with_password_is_accepted() -> None:
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        neo4j_uri="neo4j+s://abc.databases.neo4j.io",
        neo4j_password="s3cret",
    )
    assert settings.bolt_uri.startswith("neo4j+s://")
    assert "s3cret" not in repr(settings)


def test_bad_port_is_refused() -> None:
    with pytest.raises(ValidationError):
        Settings(_env_file=None, api_port=70000)  # type: ignore[call-arg]


def test_data_dir_is_expanded() -> None:
    settings = Settings(_env_file=None, data_dir=Path("~/engram-x"))  # type: ignore[call-arg]
    assert settings.data_dir.is_absolute()
    assert "~" not in str(settings.data_dir)

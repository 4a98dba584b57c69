"""docs/configuration.md lists every setting and is what `python -m service.config_doc` writes;
a replaced setting is refused by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.config_doc import env_name, render_configuration
from service.core.config import Settings

REFERENCE = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"
REGENERATE = "run `python -m service.config_doc` and commit docs/configuration.md"


@pytest.mark.parametrize("name", sorted(Settings.model_fields))
def test_every_setting_is_in_the_configuration_reference(name: str) -> None:
    assert f"| `{env_name(name)}` |" in REFERENCE.read_text(encoding="utf-8"), REGENERATE


@pytest.mark.parametrize("name", sorted(Settings.model_fields))
def test_every_setting_says_what_it_does(name: str) -> None:
    assert Settings.model_fields[name].description, f"{name} needs a docstring in Settings"


def test_the_configuration_reference_is_up_to_date() -> None:
    assert REFERENCE.read_text(encoding="utf-8") == render_configuration(), REGENERATE


def test_a_default_under_home_reads_the_same_on_every_machine() -> None:
    assert "| `ENGRAM_DATA_DIR` | `Path` | `~/.local/share/engram` |" in render_configuration()


def test_a_replaced_setting_refuses_to_start_and_names_its_successor(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ENGRAM_MAX_REQUESTS_IN_FLIGHT", "8")
    with pytest.raises(ValueError, match="ENGRAM_MAX_READS_IN_FLIGHT"):
        Settings(_env_file=None)  # type: ignore[call-arg]

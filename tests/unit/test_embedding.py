"""The ONNX backend gives the vectors sentence-transformers gives; it refuses what it cannot run."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from service.core.config import Settings
from service.core.errors import ConfigurationError
from service.embedding.embedder import Embedder
from service.embedding.manifest import resolve_model_path
from service.embedding.onnx_encoder import OnnxSentenceEncoder, exported_model

TEXTS = [
    "Alice adopted a golden retriever puppy last weekend.",
    "ok",
    "Melanie painted a sunrise over the lake in 2022 and gave it to her kids, who loved it.",
    "我上个月在北京的科技公司开始工作。",
    "Émile's café — naïve façade!",
    "word " * 400,  # longer than the model's 256 tokens: truncated the same way
]


@pytest.fixture(scope="module")
def model_dir() -> Path:
    return resolve_model_path("all-MiniLM-L6-v2", "sentence-transformers")


@pytest.fixture(scope="module")
def backends() -> tuple[Embedder, Embedder]:
    def make(backend: str) -> Embedder:
        return Embedder(Settings(_env_file=None, embedding_backend=backend))  # type: ignore[call-arg]

    return make("onnx"), make("torch")


def test_onnx_and_torch_give_the_same_unit_vectors(backends: tuple[Embedder, Embedder]) -> None:
    onnx, torch = (np.array(b.embed(TEXTS, batch_size=4)) for b in backends)
    assert onnx.shape == torch.shape == (len(TEXTS), 384)
    assert np.allclose(np.linalg.norm(onnx, axis=1), 1.0, atol=1e-5)
    assert (onnx * torch).sum(axis=1).min() > 0.9999


def test_batching_does_not_change_a_vector(backends: tuple[Embedder, Embedder]) -> None:
    onnx = backends[0]
    together = np.array(onnx.embed(TEXTS, batch_size=64))
    alone = np.array([onnx.embed([t])[0] for t in TEXTS])
    assert np.allclose(together, alone, atol=1e-5)


def test_token_counts_agree(backends: tuple[Embedder, Embedder]) -> None:
    onnx, torch = backends
    assert [onnx.count_tokens(t) for t in TEXTS] == [torch.count_tokens(t) for t in TEXTS]


def test_the_export_is_made_once_and_reused(model_dir: Path, tmp_path: Path) -> None:
    first = exported_model(model_dir, tmp_path)
    stamp = first.stat().st_mtime_ns
    assert exported_model(model_dir, tmp_path) == first
    assert first.stat().st_mtime_ns == stamp
    assert list(tmp_path.iterdir()) == [first]  # no partial file left behind


def test_a_pooling_it_cannot_reproduce_is_refused(model_dir: Path, tmp_path: Path) -> None:
    copy = tmp_path / "cls-model"
    shutil.copytree(model_dir, copy)
    config = copy / "1_Pooling" / "config.json"
    pooling = json.loads(config.read_text())
    pooling.update(pooling_mode_mean_tokens=False, pooling_mode_cls_token=True)
    config.write_text(json.dumps(pooling))
    with pytest.raises(ConfigurationError, match="ENGRAM_EMBEDDING_BACKEND=torch"):
        OnnxSentenceEncoder(copy, tmp_path / "cache", threads=1)


def test_int8_backend_is_close_and_recorded_as_another_model(
    backends: tuple[Embedder, Embedder],
) -> None:
    int8 = Embedder(Settings(_env_file=None, embedding_backend="onnx-int8"))  # type: ignore[call-arg]
    assert int8.model_name == "all-MiniLM-L6-v2+int8" != backends[0].model_name
    near, exact = np.array(int8.embed(TEXTS)), np.array(backends[0].embed(TEXTS))
    assert np.allclose(np.linalg.norm(near, axis=1), 1.0, atol=1e-5)
    # Close, but not the same vectors: memories of the two must not share one ranking.
    similarity = (near * exact).sum(axis=1)
    assert similarity.min() > 0.85 and similarity.max() < 0.9999


def test_vectors_are_float_lists_whose_repr_is_their_size(
    backends: tuple[Embedder, Embedder],
) -> None:
    for backend in backends:
        [vector] = backend.embed(TEXTS[:1])
        assert isinstance(vector, list) and all(type(x) is float for x in vector)
        # What the driver's debug-log formatting renders for every RUN's parameters.
        assert repr({"embedding": vector}) == "{'embedding': Vector(<384 floats>)}"
        assert vector == list(vector)

"""Sentence embeddings from a locally installed sentence-transformers model."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from service.core.config import Settings
from service.core.errors import ConfigurationError
from service.embedding.manifest import resolve_model_path

# The model hub is never asked: models come from installed packages (nlp_models/manifest.json).
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"


class Vector(list[float]):
    """An embedding: a plain float list to Neo4j and to the code, whose repr gives only its
    size. The driver renders every RUN's parameters for its debug log even while that log is
    off, so a write's vectors would otherwise be turned into text nobody reads, at real CPU
    cost on the write path (bench/RESULTS.md, "Vectors' repr")."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Vector(<{len(self)} floats>)"


def model_name_of(settings: Settings) -> str:
    """The name memories record as their embedding model, known without loading the model:
    the int8 backend gives other vectors than the float model's, so memories must say so."""
    if settings.embedding_backend == "onnx-int8":
        return f"{settings.embedding_model}+int8"
    return settings.embedding_model


class Embedder:
    """Encodes texts to unit-length vectors; batches run in a worker thread.

    Two backends give the same vectors: ONNX Runtime (default) over the model exported once to
    ONNX, and sentence-transformers on torch. ``model_name`` is what memories record as their
    embedding model, so switching backends needs no re-embedding.
    """

    def __init__(self, settings: Settings) -> None:
        self.model_name = model_name_of(settings)
        self.backend = settings.embedding_backend
        self.context_weight = settings.context_weight
        path = resolve_model_path(settings.embedding_model, "sentence-transformers")
        if self.backend in ("onnx", "onnx-int8"):
            from service.embedding.onnx_encoder import OnnxSentenceEncoder

            int8 = self.backend == "onnx-int8"
            self._onnx: Any = OnnxSentenceEncoder(
                path, settings.model_cache_dir, settings.embedding_threads, int8
            )
            dimensions: int | None = self._onnx.dimensions
        else:
            self._model: Any = _load_torch_model(str(path), settings.embedding_threads)
            dimensions = self._model.get_embedding_dimension()
        if dimensions is None or dimensions != settings.embedding_dimensions:
            raise ConfigurationError(
                f"model {self.model_name} gives {dimensions} dimensions but "
                f"ENGRAM_EMBEDDING_DIMENSIONS is {settings.embedding_dimensions}"
            )
        self.dimensions: int = dimensions

    def embed(self, texts: list[str], batch_size: int = 64) -> list[Vector]:
        if not texts:
            return []
        if self.backend != "torch":
            vectors = self._onnx.encode(texts, batch_size)
        else:
            vectors = self._model.encode(
                texts, batch_size=batch_size, normalize_embeddings=True, show_progress_bar=False
            )
        return [Vector(row.tolist()) for row in vectors]

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` under the model's own tokenizer (word pieces, no specials)."""
        if self.backend != "torch":
            return int(self._onnx.count_tokens(text))
        return len(self._model.tokenizer.tokenize(text))

    async def aembed(self, texts: list[str]) -> list[Vector]:
        return await asyncio.to_thread(self.embed, texts)

    async def aembed_memories(
        self, texts: list[str], contexts: Sequence[Sequence[str]]
    ) -> list[MemoryVectors]:
        """Each text's vectors: its own, and its own mixed with its contexts' by context_weight
        (with_context). Every distinct text is embedded once, so contexts that are texts of
        the same call cost nothing."""
        distinct = list(dict.fromkeys([*texts, *(c for group in contexts for c in group)]))
        vectors = dict(zip(distinct, await self.aembed(distinct), strict=True))
        return [
            MemoryVectors(
                search=with_context(
                    vectors[text], [vectors[c] for c in group], self.context_weight
                ),
                own=vectors[text],
            )
            for text, group in zip(texts, contexts, strict=True)
        ]


@dataclass(frozen=True)
class MemoryVectors:
    """A memory's two vectors: ``search`` (in its conversational context; what the vector
    indexes hold) and ``own`` (its text alone; what near-duplicates are judged by, so that a
    fact said after different messages is still the same fact)."""

    search: Vector
    own: Vector

    @property
    def content(self) -> Vector | None:
        """``own`` where it differs from ``search``, for the content_embedding property."""
        return None if self.own == self.search else self.own


def with_context(own: Sequence[float], context: Sequence[Sequence[float]], weight: float) -> Vector:
    """unit(own + weight x mean(context)); ``own`` as it is without context or weight."""
    if not context or weight == 0:
        return Vector(own)
    mixed = np.asarray(own) + weight * np.mean(np.asarray(context), axis=0)
    norm = float(np.linalg.norm(mixed))
    return Vector(own) if norm == 0 else Vector((mixed / norm).tolist())


def _load_torch_model(path: str, threads: int) -> Any:
    import torch
    from sentence_transformers import SentenceTransformer

    # Neo4j, spaCy and the API share the cores with torch: intra-op threads that spin while
    # another process holds a core made a one-query embedding several times slower
    # (bench/RESULTS.md).
    torch.set_num_threads(threads)
    return SentenceTransformer(path, device="cpu", local_files_only=True)

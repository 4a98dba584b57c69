"""A sentence-transformers model (Transformer → mean pooling → normalise) run by ONNX Runtime.

The same weights as the torch path, exported once with ``torch.onnx`` into a cache folder keyed
by the weights' digest, then run by onnxruntime: vectors agree with sentence-transformers to
within float rounding (tests/unit/test_embedding.py), and one short query embeds in about half
the time (bench/RESULTS.md), because ONNX Runtime skips torch's per-call dispatch.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from service.core.errors import ConfigurationError

INPUTS = ("input_ids", "attention_mask", "token_type_ids")
ST_TRANSFORMER = "sentence_transformers.models.Transformer"
ST_POOLING = "sentence_transformers.models.Pooling"
ST_NORMALIZE = "sentence_transformers.models.Normalize"


class OnnxSentenceEncoder:
    """Encodes texts to unit vectors with ONNX Runtime; safe to call from one worker thread."""

    def __init__(self, model_dir: Path, cache_dir: Path, threads: int, int8: bool = False) -> None:
        _check_pipeline(model_dir)
        max_length = json.loads((model_dir / "sentence_bert_config.json").read_text())[
            "max_seq_length"
        ]
        self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tokenizer.enable_truncation(max_length=max_length)
        self._tokenizer.enable_padding()
        self._counter = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._counter.no_truncation()
        self._counter.no_padding()
        onnx_path = exported_model(model_dir, cache_dir)
        if int8:
            onnx_path = quantized_model(onnx_path)
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # Spinning workers steal the cores Neo4j and spaCy need between calls.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = ort.InferenceSession(
            str(onnx_path), options, providers=["CPUExecutionProvider"]
        )
        self.dimensions = int(self._session.get_outputs()[0].shape[-1])

    def encode(self, texts: list[str], batch_size: int) -> np.ndarray:
        """Unit-length vectors, one row per text, in the order given."""
        out = np.empty((len(texts), self.dimensions), dtype=np.float32)
        # Similar lengths batched together waste less work on padding.
        order = np.argsort([len(t) for t in texts], kind="stable")
        for start in range(0, len(texts), batch_size):
            rows = order[start : start + batch_size]
            out[rows] = self._encode_batch([texts[i] for i in rows])
        return out

    def count_tokens(self, text: str) -> int:
        return len(self._counter.encode(text, add_special_tokens=False).ids)

    def _encode_batch(self, texts: list[str]) -> np.ndarray:
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        types = np.array([e.type_ids for e in encodings], dtype=np.int64)
        (hidden,) = self._session.run(
            None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        )
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        unit: np.ndarray = pooled / np.clip(norms, 1e-12, None)
        return unit


def exported_model(model_dir: Path, cache_dir: Path) -> Path:
    """The model's ONNX file, exported on first use; the name carries the weights' digest."""
    weights = model_dir / "model.safetensors"
    if not weights.is_file():
        raise ConfigurationError(f"no model.safetensors in {model_dir} to export to ONNX")
    digest = hashlib.sha256(weights.read_bytes()).hexdigest()[:16]
    target = cache_dir / f"{model_dir.parent.name}-{digest}.onnx"
    if target.is_file():
        return target
    cache_dir.mkdir(parents=True, exist_ok=True)
    # Export beside the target and rename: a second process starting at the same time never
    # reads a half-written file.
    fd, partial = tempfile.mkstemp(dir=cache_dir, suffix=".partial")
    os.close(fd)
    try:
        _export(model_dir, Path(partial))
        os.replace(partial, target)
    finally:
        Path(partial).unlink(missing_ok=True)
    return target


def quantized_model(fp32: Path) -> Path:
    """The exported model with int8 weights (dynamic quantisation), made once beside it."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    target = fp32.with_name(f"{fp32.stem}-int8.onnx")
    if target.is_file():
        return target
    fd, partial = tempfile.mkstemp(dir=fp32.parent, suffix=".partial")
    os.close(fd)
    try:
        quantize_dynamic(fp32, partial, weight_type=QuantType.QInt8)
        os.replace(partial, target)
    finally:
        Path(partial).unlink(missing_ok=True)
    return target


def _export(model_dir: Path, target: Path) -> None:
    import torch
    from transformers import AutoModel

    class LastHiddenState(torch.nn.Module):  # type: ignore[misc]
        def __init__(self, model: Any) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    model = LastHiddenState(AutoModel.from_pretrained(str(model_dir)).eval())
    sample = torch.ones((2, 8), dtype=torch.int64)
    axes = {name: {0: "batch", 1: "tokens"} for name in (*INPUTS, "last_hidden_state")}
    # The exporter's tracer warnings are about code paths a BERT encoder does not take.
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            model,
            (sample, sample, torch.zeros_like(sample)),
            str(target),
            input_names=list(INPUTS),
            output_names=["last_hidden_state"],
            dynamic_axes=axes,
            opset_version=17,
            dynamo=False,
        )


def _check_pipeline(model_dir: Path) -> None:
    """Only Transformer → mean pooling (→ Normalize) is reproduced here; others are refused."""
    modules = [m["type"] for m in json.loads((model_dir / "modules.json").read_text())]
    pooling = json.loads((model_dir / "1_Pooling" / "config.json").read_text())
    mean_only = pooling.get("pooling_mode_mean_tokens") and not any(
        value
        for key, value in pooling.items()
        if key.startswith("pooling_mode_") and key != "pooling_mode_mean_tokens"
    )
    tail_ok = modules[2:] in ([], [ST_NORMALIZE])
    if modules[:2] != [ST_TRANSFORMER, ST_POOLING] or not mean_only or not tail_ok:
        raise ConfigurationError(
            f"the ONNX backend runs Transformer + mean pooling models only; {model_dir} has "
            f"{modules}: set ENGRAM_EMBEDDING_BACKEND=torch"
        )

"""Deterministic ids: the same input in the same scope always gets the same id."""

from __future__ import annotations

import hashlib
import unicodedata
import uuid

from service.core.domain import Scope

_NAMESPACE = uuid.UUID("6f1c1b52-8f0e-4c55-9a56-3f5e2f0b8a11")


def scope_key(scope: Scope) -> str:
    return "\x1f".join(v or "" for v in (scope.user_id, scope.agent_id, scope.run_id))


def text_hash(text: str) -> str:
    """Hash of a text after case and whitespace folding: equal facts hash equal."""
    folded = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    return hashlib.sha256(folded.encode("utf-8")).hexdigest()


def scoped_id(scope: Scope, *parts: str) -> str:
    return str(uuid.uuid5(_NAMESPACE, scope_key(scope) + "\x1e" + "\x1e".join(parts)))

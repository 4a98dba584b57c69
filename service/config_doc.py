"""Writes docs/configuration.md from `Settings`: `python -m service.config_doc [PATH]`."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from pydantic import SecretStr
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from service.core.config import Settings

DEFAULT_PATH = Path("docs") / "configuration.md"

HEADER = """\
# Configuration

<!-- Generated from service/core/config.py by `python -m service.config_doc`; do not edit. -->

One `Settings` object (`service/core/config.py`), read once from `ENGRAM_*` environment variables or
a `.env` file in the working directory. Lists and maps (`ENGRAM_API_KEYS`,
`ENGRAM_AGENT_PRIORITY`) are JSON. A path starting with `~` is the user's home. The search
defaults (depths, fusion weights) were tuned on the LoCoMo dev set: bench/RESULTS.md.

| variable | type | default | meaning |
|---|---|---|---|
"""

# Module prefixes in a type's repr: "typing.Literal", "service.core.config.ApiKey".
_QUALIFIED = re.compile(r"\b(?:[a-z_][\w]*\.)+(?=[A-Za-z_])")
_BOUNDS = {"ge": "≥", "gt": ">", "le": "≤", "lt": "<", "min_length": "length ≥"}


def env_name(field_name: str) -> str:
    """The environment variable that sets a field."""
    prefix = Settings.model_config.get("env_prefix", "")
    return f"{prefix}{field_name}".upper()


def render_configuration() -> str:
    """The whole reference, one table row per setting."""
    rows = [_row(name, field) for name, field in Settings.model_fields.items()]
    return HEADER + "\n".join(rows) + "\n"


def _row(name: str, field: FieldInfo) -> str:
    description = " ".join((field.description or "").split())
    cells = [f"`{env_name(name)}`", _type_text(field), _default_text(field), description]
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"


def _type_text(field: FieldInfo) -> str:
    annotation = field.annotation
    text = annotation.__name__ if isinstance(annotation, type) else repr(annotation)
    text = _QUALIFIED.sub("", text)
    bounds = [
        f"{symbol} {getattr(meta, key)}"
        for meta in field.metadata
        for key, symbol in _BOUNDS.items()
        if getattr(meta, key, None) is not None
    ]
    return f"`{text}`" + (f" ({', '.join(bounds)})" if bounds else "")


def _default_text(field: FieldInfo) -> str:
    if field.default_factory is not None:
        value: Any = field.default_factory()  # type: ignore[call-arg]
    elif field.default is PydanticUndefined:
        return "required"
    else:
        value = field.default
    if value is None:
        return "unset"
    if isinstance(value, SecretStr):
        value = value.get_secret_value()
    if isinstance(value, Path):
        value = _home_relative(value)
    if isinstance(value, bool):
        value = str(value).lower()
    return f"`{value}`" if str(value) != "" else "empty"


def _home_relative(path: Path) -> str:
    """A default under the home folder as `~/…`, so that the file is the same on every machine."""
    try:
        return "~/" + path.relative_to(Path.home()).as_posix()
    except ValueError:
        return path.as_posix()


def main(argv: list[str] | None = None) -> None:
    """Write the reference to PATH (default docs/configuration.md)."""
    args = sys.argv[1:] if argv is None else argv
    path = Path(args[0]) if args else DEFAULT_PATH
    path.write_text(render_configuration(), encoding="utf-8")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()

"""Tables kept as data: JSON Lines files of rows with an `id`, validated row by row."""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from service.core.errors import ConfigurationError

R = TypeVar("R", bound=BaseModel)


def read_lines(path: Path) -> list[str]:
    """The lines of a word list without blanks and ``#`` comments."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise ConfigurationError(f"cannot read {path}: {e}") from e
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def load_table(path: Path, model: type[R], what: str) -> list[R]:
    """The validated rows of a JSONL table (blank lines skipped); a bad row or a repeated id
    raises ConfigurationError naming the file and line."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise ConfigurationError(f"cannot read {what} {path}: {e}") from e
    rows: list[R] = []
    first_line: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = model.model_validate_json(line)
        except PydanticValidationError as e:
            raise ConfigurationError(f"{path}:{number}: {describe(e)}") from e
        row_id = str(getattr(row, "id", number))
        if row_id in first_line:
            raise ConfigurationError(
                f"{path}:{number}: id {row_id!r} is already used on line {first_line[row_id]}"
            )
        first_line[row_id] = number
        rows.append(row)
    return rows


def describe(error: PydanticValidationError) -> str:
    """A validation error as one line: each field's path and message."""
    return "; ".join(
        f"{'.'.join(str(part) for part in e['loc']) or 'row'}: {e['msg']}" for e in error.errors()
    )

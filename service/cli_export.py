"""`engram export`, and `engram import` of an export (docs/export.md)."""

from __future__ import annotations

import sys
from contextlib import nullcontext
from pathlib import Path
from typing import Annotated

import pydantic
import typer

from service.cli_support import console, guard, maintain, with_progress
from service.core.config import get_settings


def export_scope(
    user_id: Annotated[str | None, typer.Option(help="the scope's user id")] = None,
    agent_id: Annotated[str | None, typer.Option(help="the scope's agent id")] = None,
    run_id: Annotated[str | None, typer.Option(help="the scope's run id")] = None,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", dir_okay=False, help="default: stdout")
    ] = None,
) -> None:
    """Write one scope as JSON Lines: `engram export --user-id alice > alice.jsonl`.

    Messages, memories with both clocks and their vectors, entities, relations and history, in
    the versioned format of docs/export.md; `engram import` restores it.
    """
    from service.core.domain import Scope
    from service.export.dump import write_export

    try:
        scope = Scope(user_id=user_id, agent_id=agent_id, run_id=run_id)
    except pydantic.ValidationError as e:
        console.print("[red]error:[/red] name the scope: --user-id, --agent-id or --run-id")
        raise typer.Exit(1) from e
    # Written beside the output and renamed once whole: a failed run leaves no whole-looking file.
    partial = output.with_name(output.name + ".partial") if output else None
    try:
        with partial.open("w", encoding="utf-8") if partial else nullcontext(sys.stdout) as out:
            counts = maintain(
                lambda s: with_progress(
                    s, "exporting", False, lambda db, show: write_export(db, scope, out, show)
                )
            )
    except BaseException:
        if partial:
            partial.unlink(missing_ok=True)
        raise
    if output and partial:
        partial.replace(output)
    held = ", ".join(f"{n} {kind.replace('_', ' ')}" for kind, n in counts.model_dump().items())
    console.print(f"exported {scope.model_dump(exclude_none=True)}: {held}", soft_wrap=True)


def restore_export(path: Path, user_id: str | None, batch_size: int | None) -> None:
    """`engram import` of an export: the whole file checked, then written back."""
    from service.embedding.embedder import model_name_of
    from service.export.check import TargetModel, check_export
    from service.export.restore import DEFAULT_BATCH, describe, restore_into

    settings = get_settings()
    target = TargetModel(model_name_of(settings), settings.embedding_dimensions)
    checked = guard(lambda: check_export(path, target))
    exported = checked.header.scope.user_id
    if user_id is not None and user_id != exported:
        console.print(
            f"[red]error:[/red] an export is restored into the scope it came from (user_id "
            f"{exported!r}), not {user_id!r}: leave --user-id out"
        )
        raise typer.Exit(1)
    size = batch_size or DEFAULT_BATCH
    report = maintain(
        lambda s: with_progress(
            s, "restoring", False, lambda db, show: restore_into(db, checked, size, show)
        )
    )
    console.print(describe(report), soft_wrap=True)

"""`engram import --bulk`: a file of messages loaded one memory each (service/ingest/bulk.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.markup import escape
from rich.progress import Progress

from service.cli_support import console, guard, start_local
from service.core.config import Settings, get_settings
from service.core.errors import DatabaseUnavailableError, EngramError
from service.store.local_server import LocalNeo4j

if TYPE_CHECKING:
    from service.ingest.bulk import BulkReport


def import_bulk(path: Path, user_id: str | None, batch_size: int) -> None:
    """Check every line, then load; a re-run after a failure finishes what is missing."""
    from service.ingest.importers import scoped_messages

    settings = get_settings()
    # The whole file is checked before anything is written: a bad line stops the load at once.
    total = guard(lambda: sum(1 for _ in scoped_messages(path, user_id)))
    if settings.uses_local_server:
        start_local(LocalNeo4j(settings))
    try:
        report = asyncio.run(_load(settings, path, user_id, batch_size, total))
    except DatabaseUnavailableError as e:
        console.print(
            f"[red]Neo4j stopped answering:[/red] {escape(str(e))}. Every batch before the one "
            "being written has landed; run the same command again to finish (what landed is "
            "found, not written or embedded twice)."
        )
        raise typer.Exit(2) from e
    except EngramError as e:
        console.print(f"[red]error:[/red] {escape(str(e))}")
        raise typer.Exit(1) from e
    console.print(
        f"loaded {report.messages} messages in {report.seconds:.1f}s: {report.added} memories "
        f"added ({report.memories_per_s:.0f}/s), {report.repeated} already stored"
    )


async def _load(
    settings: Settings, path: Path, user_id: str | None, batch_size: int, total: int
) -> BulkReport:
    from service.ingest.importers import scoped_messages
    from service.memory import MemoryService

    memory = await MemoryService.start(settings)
    try:
        with Progress(console=console) as progress:
            task = progress.add_task("loading", total=total)
            return await memory.import_bulk(
                scoped_messages(path, user_id),
                batch_size,
                progress=lambda done: progress.advance(task, done),
            )
    finally:
        await memory.close()

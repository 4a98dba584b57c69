"""What the `engram` commands share: the console (stderr), the local server's start, turning
Engram's errors into an exit with their message, and maintenance runs with a progress bar."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import Progress

from service.core.config import Settings, get_settings
from service.core.errors import EngramError
from service.store.local_server import LocalNeo4j, describe_stale

if TYPE_CHECKING:
    from service.store.database import Database

# What a maintenance run reports as it goes: (done, total).
ProgressFn = Callable[[int, int], None]
# stderr: stdout is for what a command outputs (`engram export`, the MCP protocol).
console = Console(stderr=True)
T = TypeVar("T")


def maintain(run: Callable[[Settings], Coroutine[Any, Any, T]]) -> T:
    """A maintenance run (reembed, relink) against the configured Neo4j, started when local;
    an Engram error ends the command with its message."""
    settings = get_settings()
    if settings.uses_local_server:
        start_local(LocalNeo4j(settings))
    try:
        return asyncio.run(run(settings))
    except EngramError as e:
        console.print(f"[red]error:[/red] {escape(str(e))}")
        raise typer.Exit(1) from e


async def with_progress(
    settings: Settings,
    label: str,
    dry_run: bool,
    run: Callable[[Database, ProgressFn], Awaitable[T]],
) -> T:
    """``run`` with a database and a progress bar (hidden on a dry run), closed after."""
    from service.store.database import Database

    db = Database(settings)
    try:
        with Progress(console=console, disable=dry_run) as progress:
            task = progress.add_task(label, total=None)

            def show(done: int, total: int) -> None:
                progress.update(task, completed=done, total=total)

            return await run(db, show)
    finally:
        await db.close()


def start_local(server: LocalNeo4j) -> None:
    began = time.monotonic()
    status = guard(server.start)
    if status.removed:
        left = describe_stale(status.removed)
        console.print(
            f"[yellow]a stale pid file from a crashed server was removed: {left}[/yellow]",
            soft_wrap=True,
        )
    console.print(
        f"Neo4j running (pid {status.pid}) after {time.monotonic() - began:.1f}s; "
        f"Bolt {status.bolt_uri}"
    )
    # On a line of its own and never wrapped, so that the link can be clicked or copied whole.
    link = status.browser_url
    console.print(f"Neo4j Browser (no login; the guide needs the API): {link}", soft_wrap=True)
    if not status.conf_current:  # e.g. started by an older version, or on other ports
        console.print(
            "[yellow]Neo4j runs on an older neo4j.conf (Browser's guide may not open): "
            "`engram neo4j stop`, then start again to apply it[/yellow]"
        )


def guard(action: Callable[[], T]) -> T:
    try:
        return action()
    except EngramError as e:
        console.print(f"[red]error:[/red] {escape(str(e))}")
        raise typer.Exit(1) from e

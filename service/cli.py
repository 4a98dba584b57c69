"""The `engram` command: run the service, manage the local Neo4j, import conversations,
export and import a scope (service/cli_export.py)."""

from __future__ import annotations

import asyncio
import time
from contextlib import aclosing
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.progress import Progress

from service.cli_bulk import import_bulk
from service.cli_export import export_scope, restore_export
from service.cli_support import console, guard, maintain, start_local, with_progress
from service.core.config import Settings, get_settings
from service.core.errors import DatabaseUnavailableError, EngramError
from service.store.local_server import LocalNeo4j, describe_stale

if TYPE_CHECKING:
    from service.ingest.importers import Conversation
    from service.lifecycle.reembed import ReembedReport
    from service.lifecycle.relink import RelinkReport

app = typer.Typer(help="Engram: long-term memory for AI agents.", no_args_is_help=True)
neo4j_app = typer.Typer(help="The local Neo4j server (used when ENGRAM_NEO4J_URI is unset).")
app.add_typer(neo4j_app, name="neo4j")


@app.command()
def serve(
    workers: Annotated[
        int | None, typer.Option(min=1, max=64, help="processes (default ENGRAM_API_WORKERS)")
    ] = None,
) -> None:
    """Run the GraphQL API; start the local Neo4j first when no URI is configured."""
    import uvicorn

    from service.api.app import create_app
    from service.api.door import DoorProtocol

    settings = get_settings()
    api = guard(lambda: create_app(settings))  # refuses what settings lack before Neo4j starts
    if settings.uses_local_server:
        start_local(LocalNeo4j(settings))
    console.print(f"GraphiQL: http://{settings.api_host}:{settings.api_port}/graphql")
    processes = workers or settings.api_workers
    # With more than one, each process builds its own app from the environment.
    uvicorn.run(
        api if processes == 1 else "service.api.app:create_app_from_environment",
        factory=processes > 1,
        workers=processes,
        host=settings.api_host,
        port=settings.api_port,
        timeout_graceful_shutdown=settings.shutdown_grace_s,  # docs/operations.md
        # engram.access logs each request once, with its id; uvicorn's line would be a second
        # write per request, a fifth of what a Busy answer costs (bench/RESULTS.md).
        access_log=False,
        http=DoorProtocol if settings.refuse_at_door else "httptools",
    )


@app.command()
def mcp() -> None:
    """Serve the MCP tools over stdio for one agent, in the scope ENGRAM_MCP_USER_ID (…) names."""
    from service.mcp.transports import stdio_server

    settings = get_settings()
    server = guard(lambda: stdio_server(settings))
    if settings.uses_local_server:
        start_local(LocalNeo4j(settings))  # its messages go to stderr; stdout is the protocol
    server.run("stdio")


@app.command("import")
def import_file(
    path: Annotated[
        Path, typer.Argument(exists=True, dir_okay=False, help="JSONL, LoCoMo or an export")
    ],
    user_id: Annotated[
        str | None, typer.Option(help="one scope for all; default: one per conversation")
    ] = None,
    batch_size: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=1000,
            help="messages per transaction (64, --bulk 500); an export's records (500)",
        ),
    ] = None,
    bulk: Annotated[
        bool,
        typer.Option(
            "--bulk", help="one memory per message, no extraction, exact repeats only checked"
        ),
    ] = False,
) -> None:
    """Import conversations with a progress bar; re-running writes nothing twice.

    A file `engram export` wrote (its first line says so) is restored as it was stored, into
    the scope it was exported from: nothing is extracted again (docs/export.md). With --bulk
    each message is stored as one memory, embedded while the batch before it is written: for
    loads of millions (docs/write-path.md, "Bulk load").
    """
    from service.export.check import is_export

    if is_export(path):
        restore_export(path, user_id, batch_size)
    elif bulk:
        from service.ingest.bulk import DEFAULT_BULK_BATCH

        import_bulk(path, user_id, batch_size or DEFAULT_BULK_BATCH)
    else:
        _import_conversations(path, user_id, batch_size or 64)


def _import_conversations(path: Path, user_id: str | None, batch_size: int) -> None:
    """`engram import` of conversations: JSON Lines or LoCoMo, extracted as they are added."""
    from service.ingest.importers import read_conversations

    settings = get_settings()
    if settings.uses_local_server:
        start_local(LocalNeo4j(settings))
    conversations = guard(lambda: read_conversations(path))
    try:
        summary = asyncio.run(_import(settings, conversations, user_id, batch_size))
    except ImportInterrupted as stop:
        done = stop.summary
        console.print(
            f"[red]Neo4j stopped answering[/red] in conversation {stop.conversation} at message "
            f"{stop.offset}: {done['messages']:.0f} messages were written before that "
            f"({done['added']:.0f} memories added); the {stop.in_flight} being written then may "
            "have landed too. Run the same command again to finish; what was written is not "
            "written twice."
        )
        raise typer.Exit(2) from stop
    except EngramError as e:
        console.print(f"[red]error:[/red] {escape(str(e))}")
        raise typer.Exit(1) from e
    console.print(
        f"imported {summary['messages']:.0f} messages from {len(conversations)} conversation(s) "
        f"in {summary['seconds']:.1f}s: {summary['added']:.0f} added, "
        f"{summary['updated']:.0f} updated, {summary['superseded']:.0f} superseded, "
        f"{summary['unchanged']:.0f} unchanged"
    )


async def _import(
    settings: Settings, conversations: list[Conversation], user_id: str | None, batch_size: int
) -> dict[str, float]:
    from service.core.domain import Scope
    from service.memory import MemoryService

    summary = dict.fromkeys(("messages", "added", "updated", "superseded", "unchanged"), 0.0)
    began = time.monotonic()
    memory = await MemoryService.start(settings)
    total = sum(len(c.messages) for c in conversations)
    try:
        batches = [
            (conv, start, conv.messages[start : start + batch_size])
            for conv in conversations
            for start in range(0, len(conv.messages), batch_size)
        ]
        scopes = {conv.id: Scope(user_id=user_id or conv.id) for conv in conversations}
        # Batch n + 1 is extracted while batch n is written (Memory.add_batches).
        pairs = ((batch, scopes[conv.id]) for conv, _, batch in batches)
        async with aclosing(memory.add_batches(pairs)) as results:
            with Progress(console=console) as progress:
                task = progress.add_task("importing", total=total)
                for conv, start, batch in batches:
                    try:
                        result = await anext(results)
                    except DatabaseUnavailableError as e:
                        # Each batch is one transaction: what is counted landed, whole. The
                        # batch in flight may have landed too (a commit whose acknowledgement
                        # was lost), also whole; a re-run skips what landed (ids come from
                        # content).
                        raise ImportInterrupted(conv.id, start, len(batch), summary) from e
                    for key in ("added", "updated", "superseded", "unchanged"):
                        summary[key] += len(getattr(result, key))
                    summary["messages"] += len(batch)
                    progress.advance(task, len(batch))
    finally:
        await memory.close()
    summary["seconds"] = time.monotonic() - began
    return summary


class ImportInterrupted(Exception):
    """The database went away mid-import; carries what had been written."""

    def __init__(
        self, conversation: str, offset: int, in_flight: int, summary: dict[str, float]
    ) -> None:
        super().__init__(f"import stopped in {conversation} at message {offset}")
        self.conversation, self.offset, self.summary = conversation, offset, summary
        self.in_flight = in_flight  # messages of the batch whose transaction did not answer


app.command("export")(export_scope)


@app.command()
def reembed(
    batch_size: Annotated[
        int, typer.Option(min=1, max=10_000, help="memories per transaction")
    ] = 256,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="only say how many memories would be re-embedded")
    ] = False,
) -> None:
    """Re-embed the memories stored under another model than ENGRAM_EMBEDDING_MODEL.

    Resumable: run it again after an interruption. When the vector size changes, the vector
    index is rebuilt at the end; vector search is unavailable until it is online.
    """
    console.print(_reembed_summary(maintain(lambda s: _reembed(s, batch_size, dry_run))))


async def _reembed(settings: Settings, batch_size: int, dry_run: bool) -> ReembedReport:
    from service.embedding.embedder import Embedder
    from service.lifecycle.reembed import reembed as run_reembed

    embedder = Embedder(settings)
    return await with_progress(
        settings,
        f"re-embedding with {embedder.model_name}",
        dry_run,
        lambda db, show: run_reembed(db, embedder, batch_size, dry_run, show),
    )


def _reembed_summary(report: ReembedReport) -> str:
    index = report.index_dimensions or "no"
    if report.dry_run:
        text = f"{report.stale} memories would be re-embedded with {report.model}"
        if report.rebuilt_index:
            text += (
                f"; the vector index would be rebuilt from {index} to {report.dimensions} "
                "dimensions (vector search is unavailable until it is online)"
            )
        return text
    text = f"re-embedded {report.migrated} memories with {report.model} in {report.seconds:.1f}s"
    if report.rebuilt_index:
        text += f"; vector index rebuilt from {index} to {report.dimensions} dimensions"
    if report.remaining:
        text += (
            f"; {report.remaining} are still stale (written meanwhile by a process on "
            "another model?): run `engram reembed` again"
        )
    return text


@app.command()
def relink(
    batch_size: Annotated[
        int, typer.Option(min=1, max=10_000, help="memories per transaction")
    ] = 256,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="only say how many memories would be relinked")
    ] = False,
) -> None:
    """Rebuild the entities, mentions and relations of memories linked by an older Engram.

    Each stale memory's words are read again and linked against its scope's entities; entities
    no memory mentions afterwards go. Resumable and idempotent: run it again after an
    interruption; a second run relinks nothing.
    """
    report = maintain(lambda s: _relink(s, batch_size, dry_run))
    if report.dry_run:
        console.print(f"{report.stale} memories would be relinked")
        return
    console.print(
        f"relinked {report.relinked} memories in {report.seconds:.1f}s"
        + (
            f"; {report.remaining} still stale: run `engram relink` again"
            if report.remaining
            else ""
        )
    )


async def _relink(settings: Settings, batch_size: int, dry_run: bool) -> RelinkReport:
    from service.lifecycle.relink import relink as run_relink
    from service.nlp.pipeline import Extractor

    extractor = Extractor(settings) if not dry_run else None
    return await with_progress(
        settings,
        "relinking entities",
        dry_run,
        lambda db, show: run_relink(db, extractor, batch_size, dry_run, show),
    )


@neo4j_app.command("install")
def neo4j_install() -> None:
    """Fetch the Neo4j jars from Maven Central into ENGRAM_NEO4J_HOME."""
    server = LocalNeo4j(get_settings())
    guard(server.install)
    console.print(f"Neo4j jars in {server.home / 'lib'}")


@neo4j_app.command("start")
def neo4j_start() -> None:
    """Start the local Neo4j in the background and wait until Bolt answers."""
    start_local(LocalNeo4j(get_settings()))


@neo4j_app.command("stop")
def neo4j_stop() -> None:
    """Stop the local Neo4j cleanly (SIGTERM)."""
    before = guard(LocalNeo4j(get_settings()).stop)
    if before.pid is not None:
        console.print(f"Neo4j stopped (pid {before.pid})")
    elif before.stale:
        left = describe_stale(before.stale)
        console.print(f"Neo4j was not running; removed the stale pid file: {left}", soft_wrap=True)
    else:
        console.print("Neo4j was not running")


@neo4j_app.command("status")
def neo4j_status() -> None:
    """Say whether the local Neo4j runs, and where.

    Exit status as for an init script: 0 running, 1 crashed (a stale pid file is left),
    3 stopped or still starting.
    """
    status = LocalNeo4j(get_settings()).status()
    console.print(
        f"Neo4j {status.describe()}; Bolt {status.bolt_uri}; Browser {status.browser_url}",
        soft_wrap=True,
    )
    raise typer.Exit(0 if status.running else 1 if status.stale else 3)


def main() -> None:
    app()


if __name__ == "__main__":  # python -m service.cli, as the tests spawn `engram mcp`
    main()

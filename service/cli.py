"""The `engram` command: run the service, manage the local Neo4j, import conversations."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

import typer
from rich.console import Console

from service.config import get_settings
from service.errors import EngramError
from service.store.local_server import LocalNeo4j

app = typer.Typer(help="Engram: long-term memory for AI agents.", no_args_is_help=True)
neo4j_app = typer.Typer(help="The local Neo4j server (used when ENGRAM_NEO4J_URI is unset).")
app.add_typer(neo4j_app, name="neo4j")
console = Console(stderr=True)
T = TypeVar("T")


@app.command()
def serve() -> None:
    """Run the GraphQL API; start the local Neo4j first when no URI is configured."""
    import uvicorn

    from service.api.app import create_app

    settings = get_settings()
    if settings.uses_local_server:
        _start_local(LocalNeo4j(settings))
    console.print(f"GraphiQL: http://{settings.api_host}:{settings.api_port}/graphql")
    uvicorn.run(create_app(settings), host=settings.api_host, port=settings.api_port)


@neo4j_app.command("install")
def neo4j_install() -> None:
    """Fetch the Neo4j jars from Maven Central into ENGRAM_NEO4J_HOME."""
    server = LocalNeo4j(get_settings())
    _guard(server.install)
    console.print(f"Neo4j jars in {server.home / 'lib'}")


@neo4j_app.command("start")
def neo4j_start() -> None:
    """Start the local Neo4j in the background and wait until Bolt answers."""
    _start_local(LocalNeo4j(get_settings()))


@neo4j_app.command("stop")
def neo4j_stop() -> None:
    """Stop the local Neo4j cleanly (SIGTERM)."""
    _guard(LocalNeo4j(get_settings()).stop)
    console.print("Neo4j stopped")


@neo4j_app.command("status")
def neo4j_status() -> None:
    """Say whether the local Neo4j runs, and where."""
    status = LocalNeo4j(get_settings()).status()
    state = f"running (pid {status.pid})" if status.running else "stopped"
    console.print(f"Neo4j {state}; Bolt {status.bolt_uri}; Browser {status.browser_url}")
    raise typer.Exit(0 if status.running else 3)


def _start_local(server: LocalNeo4j) -> None:
    began = time.monotonic()
    status = _guard(server.start)
    console.print(
        f"Neo4j running (pid {status.pid}) after {time.monotonic() - began:.1f}s; "
        f"Bolt {status.bolt_uri}; Browser {status.browser_url}"
    )


def _guard(action: Callable[[], T]) -> T:
    try:
        return action()
    except EngramError as e:
        console.print(f"[red]error:[/red] {e}")
        raise typer.Exit(1) from e


def main() -> None:
    app()

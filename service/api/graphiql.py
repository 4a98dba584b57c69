"""GraphiQL without a CDN: our page at GET /graphql, its files served from the package.

strawberry's own page loads React and GraphiQL from unpkg, so offline it never gets past
"Loading…". `scripts/setup.sh` installs the same files from the npm registry, pinned by
`web/package-lock.json`, and copies those in ASSETS into `service/api/vendor/`
(docs/graphiql.md); the app serves that allowlist.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from starlette.applications import Starlette
from starlette.routing import Route
from strawberry.fastapi import GraphQLRouter

from service.api.offline_assets import (
    CSS,
    JS,
    VENDOR_DIR,
    Asset,
    missing_files,
    missing_page,
    serve_files,
)

GRAPHIQL_ASSETS_ROUTE = "/graphiql-assets"

# The names graphiql.html asks for under GRAPHIQL_ASSETS_ROUTE; nothing else is served.
ASSETS: dict[str, Asset] = {
    "react.production.min.js": Asset("react/umd/react.production.min.js", JS),
    "react-dom.production.min.js": Asset("react-dom/umd/react-dom.production.min.js", JS),
    "graphiql.min.js": Asset("graphiql/graphiql.min.js", JS),
    "graphiql.min.css": Asset("graphiql/graphiql.min.css", CSS),
    "plugin-explorer.umd.js": Asset("@graphiql/plugin-explorer/dist/index.umd.js", JS),
    "plugin-explorer.css": Asset("@graphiql/plugin-explorer/dist/style.css", CSS),
}


class OfflineGraphQLRouter(GraphQLRouter[Any, Any]):
    """strawberry's router, whose GraphiQL page loads its files from this app, not a CDN."""

    def __init__(self, *args: Any, vendor_dir: Path = VENDOR_DIR, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.vendor_dir = vendor_dir

    async def render_graphql_ide(self, request: Request) -> HTMLResponse:
        return graphiql_page(self.vendor_dir)


def graphiql_page(vendor_dir: Path) -> HTMLResponse:
    """Our GraphiQL page, or how to install its files when some are missing."""
    if missing := missing_files(ASSETS, vendor_dir):
        return missing_page("Engram GraphiQL", vendor_dir, missing)
    return HTMLResponse(files("service.api").joinpath("graphiql.html").read_text("utf-8"))


def graphiql_assets(vendor_dir: Path = VENDOR_DIR) -> Starlette:
    """The app mounted at GRAPHIQL_ASSETS_ROUTE: the files in ASSETS, by name."""
    return Starlette(routes=[Route("/{name}", serve_files(ASSETS, vendor_dir))])

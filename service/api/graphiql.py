"""GraphiQL without a CDN: our page at GET /graphql, its files served from `web/node_modules`.

strawberry's own page loads React and GraphiQL from unpkg, so offline it never gets past
"Loading…". `scripts/setup.sh` installs the same files from the npm registry, pinned by
`web/package-lock.json` (docs/graphiql.md); the app serves an allowlist of them.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

from fastapi import HTTPException, Request
from fastapi.responses import FileResponse, HTMLResponse
from starlette.applications import Starlette
from starlette.routing import Route
from strawberry.fastapi import GraphQLRouter

from service.core.config import REPO_ROOT

GRAPHIQL_ASSETS_ROUTE = "/graphiql-assets"
NODE_MODULES = REPO_ROOT / "web" / "node_modules"

_JS = "text/javascript; charset=utf-8"
_CSS = "text/css; charset=utf-8"


@dataclass(frozen=True)
class Asset:
    """One file the page loads: where npm put it, and how it is served."""

    path: str  # inside node_modules
    media_type: str


# The names graphiql.html asks for under GRAPHIQL_ASSETS_ROUTE; nothing else is served.
ASSETS: dict[str, Asset] = {
    "react.production.min.js": Asset("react/umd/react.production.min.js", _JS),
    "react-dom.production.min.js": Asset("react-dom/umd/react-dom.production.min.js", _JS),
    "graphiql.min.js": Asset("graphiql/graphiql.min.js", _JS),
    "graphiql.min.css": Asset("graphiql/graphiql.min.css", _CSS),
    "plugin-explorer.umd.js": Asset("@graphiql/plugin-explorer/dist/index.umd.js", _JS),
    "plugin-explorer.css": Asset("@graphiql/plugin-explorer/dist/style.css", _CSS),
}

_MISSING_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Engram GraphiQL</title></head>
<body style="font-family: sans-serif; margin: 2em; max-width: 50em">
<h1>GraphiQL's files are not installed</h1>
<p>Engram serves GraphiQL from <code>{folder}</code>, which lacks {missing}.
Install them with <code>make setup</code> (or <code>./scripts/setup.sh</code>; it needs Node.js
and npm), then reload this page. GraphQL queries to this URL work meanwhile.</p>
</body></html>
"""


class OfflineGraphQLRouter(GraphQLRouter[Any, Any]):
    """strawberry's router, whose GraphiQL page loads its files from this app, not a CDN."""

    def __init__(self, *args: Any, node_modules: Path = NODE_MODULES, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.node_modules = node_modules

    async def render_graphql_ide(self, request: Request) -> HTMLResponse:
        return graphiql_page(self.node_modules)


def graphiql_page(node_modules: Path) -> HTMLResponse:
    """Our GraphiQL page, or how to install its files when some are missing."""
    missing = [a.path for a in ASSETS.values() if not (node_modules / a.path).is_file()]
    if missing:
        body = _MISSING_PAGE.format(
            folder=html.escape(str(node_modules)), missing=html.escape(", ".join(missing))
        )
        return HTMLResponse(body, status_code=503)
    return HTMLResponse(files("service.api").joinpath("graphiql.html").read_text("utf-8"))


def graphiql_assets(node_modules: Path = NODE_MODULES) -> Starlette:
    """The app mounted at GRAPHIQL_ASSETS_ROUTE: the files in ASSETS, by name."""

    async def asset(request: Request) -> FileResponse:
        found = ASSETS.get(request.path_params["name"])
        if found is None or not (node_modules / found.path).is_file():
            raise HTTPException(status_code=404)
        # Names carry no version: a browser revalidates (ETag) so a new lockfile shows at once.
        return FileResponse(
            node_modules / found.path,
            media_type=found.media_type,
            headers={"Cache-Control": "no-cache"},
        )

    return Starlette(routes=[Route("/{name}", asset)])

"""Browser files the service serves itself, so its pages work without a CDN or internet.

Each page lists the files it loads in an allowlist of name -> Asset; nothing else is served.
Files from npm are installed into `web/node_modules` by `scripts/setup.sh` as
`web/package-lock.json` pins them, and the few the pages load are copied from there into
`service/api/vendor/` (git-ignored, same paths): package data, read like the pages themselves,
so that a wheel built after setup carries them (docs/development.md, docs/graphiql.md).
"""

from __future__ import annotations

import html
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from fastapi import HTTPException, Request
from fastapi.responses import FileResponse, HTMLResponse

# Asset paths of npm files are their paths under web/node_modules, kept as they are here.
VENDOR_DIR = Path(str(files("service.api").joinpath("vendor")))

JS = "text/javascript; charset=utf-8"
CSS = "text/css; charset=utf-8"
SVG = "image/svg+xml"

# The pages link it; a browser asks /favicon.ico of a page that links none (a JSON answer).
FAVICON_ROUTES = ("/favicon.svg", "/favicon.ico")
FAVICON = Path(str(files("service.api").joinpath("favicon.svg")))


@dataclass(frozen=True)
class Asset:
    """One file a page loads: where it lies under its folder, and how it is served."""

    path: str
    media_type: str


_MISSING_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title></head>
<body style="font-family: sans-serif; margin: 2em; max-width: 50em">
<h1>{title}: files not installed</h1>
<p>Engram serves these files from <code>{folder}</code>, which lacks {missing}.
In a checkout, install them with <code>make setup</code> (or <code>./scripts/setup.sh</code>; it
needs Node.js and npm), then reload this page; a wheel carries them when built after setup.
GraphQL queries to /graphql work meanwhile.</p>
</body></html>
"""


def missing_files(assets: Mapping[str, Asset], folder: Path) -> list[str]:
    return [a.path for a in assets.values() if not (folder / a.path).is_file()]


def missing_page(title: str, folder: Path, missing: list[str]) -> HTMLResponse:
    """A 503 page saying which files are missing and how to install them."""
    body = _MISSING_PAGE.format(
        title=html.escape(title),
        folder=html.escape(str(folder)),
        missing=html.escape(", ".join(missing)),
    )
    return HTMLResponse(body, status_code=503)


def serve_files(
    assets: Mapping[str, Asset], folder: Path
) -> Callable[[Request], Awaitable[FileResponse]]:
    """An endpoint answering GET …/{name} with the listed file of that name, else 404."""

    async def asset(request: Request) -> FileResponse:
        found = assets.get(request.path_params["name"])
        if found is None or not (folder / found.path).is_file():
            raise HTTPException(status_code=404)
        # Names carry no version: a browser revalidates (ETag) so a new lockfile shows at once.
        return FileResponse(
            folder / found.path, media_type=found.media_type, headers={"Cache-Control": "no-cache"}
        )

    return asset


async def favicon(request: Request) -> FileResponse:
    """GET /favicon.svg (and /favicon.ico): Engram's icon, package data like the pages."""
    return FileResponse(FAVICON, media_type=SVG, headers={"Cache-Control": "max-age=86400"})

"""The memory dashboard at GET /dashboard: plain HTML and ES modules that talk only to /graphql
(and, for its Download button, to the /export link that GraphQL's `export` answers).

The page's own files ship in `service/api/dashboard_ui/`; cytoscape (the graph) comes from the
npm registry at setup, pinned by `web/package-lock.json`, and is copied into the package's
`service/api/vendor/` (offline_assets.py).
No CDN and no build step: it works offline (docs/dashboard.md).
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from fastapi import Request
from fastapi.responses import HTMLResponse
from starlette.applications import Starlette
from starlette.routing import Route

from service.api import offline_assets as offline
from service.api.offline_assets import VENDOR_DIR, Asset

DASHBOARD_ROUTE = "/dashboard"
DASHBOARD_ASSETS_ROUTE = "/dashboard-assets"
PAGE_FOLDER = Path(str(files("service.api").joinpath("dashboard_ui")))

# What index.html loads under DASHBOARD_ASSETS_ROUTE (and /vendor/); nothing else is served.
PAGE_FILES: dict[str, Asset] = {
    name: Asset(name, offline.CSS if name.endswith(".css") else offline.JS)
    for name in (
        "dashboard.css",
        "main.js",
        "api.js",
        "queries.js",
        "dom.js",
        "search.js",
        "timeline.js",
        "entities.js",
        "profile.js",
        "forget.js",
        "download.js",
    )
}
VENDOR: dict[str, Asset] = {
    "cytoscape.esm.min.mjs": Asset("cytoscape/dist/cytoscape.esm.min.mjs", offline.JS),
}


def dashboard_page(vendor_dir: Path = VENDOR_DIR) -> HTMLResponse:
    """The dashboard, or how to install its files when some are missing."""
    if missing := offline.missing_files(VENDOR, vendor_dir):
        return offline.missing_page("Engram dashboard", vendor_dir, missing)
    return HTMLResponse((PAGE_FOLDER / "index.html").read_text("utf-8"))


async def dashboard(request: Request) -> HTMLResponse:
    """GET /dashboard."""
    return dashboard_page()


def dashboard_assets(vendor_dir: Path = VENDOR_DIR) -> Starlette:
    """The app mounted at DASHBOARD_ASSETS_ROUTE: the page's files, and /vendor/ from npm."""
    return Starlette(
        routes=[
            Route("/vendor/{name}", offline.serve_files(VENDOR, vendor_dir)),
            Route("/{name}", offline.serve_files(PAGE_FILES, PAGE_FOLDER)),
        ]
    )

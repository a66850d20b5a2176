#!/usr/bin/env bash
# Status poll over N tracked runs on the local Slurm test cluster (bench/run calls it):
#   bench/status_poll.sh TRAINBENCH CLUSTER_DIR RESULTS_DIR [N=1000]
# Starts the cluster (tests/integration/slurm_cluster.sh), sets its partition DOWN so every job
# stays PENDING, submits N runs of recipes/local-slurm/tinygpt-2n.yaml with `trainbench submit`,
# times `trainbench status` with hyperfine, and counts the scheduler commands one poll runs
# through logging wrappers of squeue/sacct/scontrol put first on PATH. Cancels and stops after.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
tb=${1:?trainbench}; dir=${2:?cluster dir}; res=${3:?results dir}; n=${4:-1000}
cluster=$root/tests/integration/slurm_cluster.sh
mkdir -p "$dir"
rc=0; bash "$cluster" start "$dir" >/dev/null 2>&1 || rc=$?
[ "$rc" = 0 ] || { echo "status_poll: cluster did not start (exit $rc)" >&2; exit "$rc"; }
cleanup() {
  scancel --user "$(id -un)" >/dev/null 2>&1 || true
  bash "$cluster" stop "$dir" >/dev/null 2>&1 || true
}
trap cleanup EXIT
# shellcheck disable=SC1091
source "$dir/env.sh"
scontrol update PartitionName=debug State=DOWN
runs=$dir/runs
rm -rf "$runs"; mkdir -p "$runs"
recipe=$root/recipes/local-slurm/tinygpt-2n.yaml
start=$(date +%s.%N)
for ((i = 0; i < n; i++)); do
  "$tb" --runs "$runs" -q submit "$recipe" >/dev/null
done
end=$(date +%s.%N)
echo "submit_total_s $n $(echo "$end - $start" | bc)" >> "$res/slurm.txt"
echo "squeue_pending $(squeue -h -t PD | wc -l)" >> "$res/slurm.txt"
# wrappers that record every scheduler command one poll runs
wrap=$dir/wrap; mkdir -p "$wrap"; : > "$dir/calls.log"
for cmd in squeue sacct scontrol sbatch; do
  real=$(command -v "$cmd")
  printf '#!/bin/sh\necho "%s $*" >> %s\nexec %s "$@"\n' "$cmd" "$dir/calls.log" "$real" > "$wrap/$cmd"
  chmod +x "$wrap/$cmd"
done
PATH=$wrap:$PATH "$tb" --runs "$runs" status >/dev/null
for cmd in squeue sacct scontrol sbatch; do
  echo "calls_$cmd $(grep -c "^$cmd " "$dir/calls.log" || true)" >> "$res/slurm.txt"
done
hyperfine --style none -N --warmup 1 --runs 5 --export-json "$res/status_poll_trainbench.json" \
  "$tb --runs $runs status" >/dev/null 2>&1
hyperfine --style none -N --warmup 1 --runs 5 --export-json "$res/status_poll_squeue.json" \
  "squeue -h -u $(id -un) -o %i|%T" >/dev/null 2>&1

#!/usr/bin/env bash
# The tinygpt workload finds its ranks and its master under Slurm on its own: an sbatch job
# on the local test cluster (2 nodes x 2 tasks, srun) rendezvouses through SLURM_PROCID /
# SLURM_NTASKS / SLURM_NODELIST (node 'gpu-1' is resolved through its NodeAddr, the port
# comes from the job id), trains with real gradient all-reduce (its losses equal a
# single-process run's on the same samples) and ends COMPLETED with the logs of rank 0.
# Written without trainbench's render/backends on purpose: it tests the workload's side of
# the contract. Skips (125) without the cluster fixture or without torch.
set -euo pipefail

PY=/usr/bin/python3
"$PY" -c 'import torch, torch.distributed' >/dev/null 2>&1 || { echo "skip: $PY cannot import torch" >&2; exit 125; }
if [ -z "${TRAINBENCH_SLURM_DIR:-}" ] || [ ! -f "$TRAINBENCH_SLURM_DIR/env.sh" ]; then
  echo "skip: no local Slurm cluster (TRAINBENCH_SLURM_DIR/env.sh)" >&2
  exit 125
fi
# shellcheck source=/dev/null
source "$TRAINBENCH_SLURM_DIR/env.sh"
command -v sbatch >/dev/null || { echo "skip: no sbatch" >&2; exit 125; }

src=${TRAINBENCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
train=$src/workloads/tinygpt/train.py
work=$(mktemp -d)
job=""
cleanup() {
  if [ -n "$job" ]; then scancel "$job" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; [ -f "$work/slurm.out" ] && tail -20 "$work/slurm.out" >&2; exit 1; }

args=(--layers 2 --hidden 64 --heads 4 --ffn 256 --seq-len 64 --vocab 1024 --seed 11 --lr 3e-3
      --calibrate-seconds 0.2 --micro-batch 2 --global-batch 16 --steps 12)
steps=12

# The job: 4 ranks, each with 2 accumulated micro-batches of 2 per step.
{
  echo '#!/bin/bash'
  echo '#SBATCH --job-name=tinygpt-test'
  echo '#SBATCH --nodes=2'
  echo '#SBATCH --ntasks-per-node=2'
  echo '#SBATCH --time=00:05:00'
  echo "#SBATCH --output=$work/slurm.out"
  printf 'srun %q %q' "$PY" "$train"
  printf ' %q' "${args[@]}" --dllogger-file "$work/dllogger.json"
  echo
} >"$work/job.sh"

job=$(cd "$work" && sbatch --parsable job.sh) || fail "sbatch refused the job"
job=${job%%;*}
deadline=$((SECONDS + 300))
while squeue -h -j "$job" 2>/dev/null | grep -q .; do
  [ $SECONDS -lt $deadline ] || fail "job $job still running after 300 s"
  sleep 1
done
state=$(scontrol show job "$job" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2 || true)
[ "$state" = COMPLETED ] || fail "job $job ended $state"
job=""

for r in 0 1 2 3; do
  grep -q "^tinygpt\[$r\]: joining 4 ranks at .*(gloo, slurm)" "$work/slurm.out" || fail "rank $r did not join"
  grep -q "^tinygpt\[$r\]: done: $steps steps" "$work/slurm.out" || fail "rank $r did not finish"
done
[ "$(grep -c ' iteration ' "$work/slurm.out")" = $steps ] || fail "want $steps iteration lines (rank 0 only)"

# The same samples in one process: the loss curve must match the 4-rank run.
"$PY" "$train" "${args[@]}" --micro-batch 8 --threads 1 --dllogger-file "$work/single.json" \
  >/dev/null 2>"$work/single.err" || fail "single-process run: $(cat "$work/single.err")"

"$PY" - "$work" "$steps" <<'EOF' || fail "log checks"
import json, sys
work, steps = sys.argv[1], int(sys.argv[2])
def load(path):
    return [json.loads(l[5:]) for l in open(path, encoding="utf-8")]
dp, single = load(f"{work}/dllogger.json"), load(f"{work}/single.json")
p = dp[0]["data"]
assert dp[0]["step"] == "PARAMETER"
assert p["world_size"] == 4 and p["data_parallel_size"] == 4 and p["gradient_accumulation_steps"] == 2, p
assert p["threads_per_rank"] >= 1 and p["peak_tflops_measured"] > 0
assert [r["step"] for r in dp[1:]] == list(range(steps))
a = [r["data"]["reduced_train_loss"] for r in dp[1:]]
b = [r["data"]["reduced_train_loss"] for r in single[1:]]
worst = max(abs(x - y) for x, y in zip(a, b))
assert worst < 2e-3, f"4 Slurm ranks and 1 process differ by {worst}: {a} vs {b}"
assert a[-1] < a[0] - 0.3, f"loss did not fall: {a[0]} -> {a[-1]}"
print(f"ok: 4 ranks on 2 Slurm nodes, loss {a[0]:.4f} -> {a[-1]:.4f}, max |dloss| vs 1 process {worst:.2e}")
EOF

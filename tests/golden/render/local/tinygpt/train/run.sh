#!/bin/bash
# trainbench local job: recipe tinygpt-local, stage train, run dryrun.
# Rendered from templates/local/run.sh; re-render instead of editing.
# Runs the job on this machine with the same environment and log layout as the
# cluster job scripts: logs in logs/train/, status files in status/. Standard
# output and error are the caller's (the local backend keeps them in
# logs/train/stdout.log and stderr.log).
set -euo pipefail

: "${TRAINBENCH_RUN_DIR:?TRAINBENCH_RUN_DIR is not set: run with trainbench or export it}"
export TRAINBENCH_RUN_DIR
TRAINBENCH_RUN_ID="${TRAINBENCH_RUN_ID:-dryrun}"
export TRAINBENCH_RUN_ID
: "${TRAINBENCH_WORKLOADS:?TRAINBENCH_WORKLOADS is not set: it names the directory of the shipped workloads}"
export TRAINBENCH_WORKLOADS
cd "${TRAINBENCH_RUN_DIR}"
mkdir -p logs/train/dllogger/rank-0 status

# shellcheck disable=SC2317 # run by the EXIT trap
trainbench_exit() {
  local rc=$?
  printf '%s %s\n' "${rc}" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" > status/train.exit.tmp
  mv -f status/train.exit.tmp status/train.exit
}
trap trainbench_exit EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
printf '%s %s %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(hostname)" "$$" > status/train.started.tmp
mv -f status/train.started.tmp status/train.started

# Rendezvous on this machine.
MASTER_ADDR=127.0.0.1
MASTER_PORT="${MASTER_PORT:-$((20000 + $$ % 20000))}"
export MASTER_ADDR MASTER_PORT

# One process per rank, torchrun-style: RANK, LOCAL_RANK, WORLD_SIZE,
# MASTER_ADDR and MASTER_PORT tell each its place.
WORLD_SIZE=1
export WORLD_SIZE
pids=()
for ((rank = 0; rank < WORLD_SIZE; rank++)); do
  (
    export RANK="${rank}" LOCAL_RANK="${rank}"
    exec /usr/bin/python3 -u "${TRAINBENCH_WORKLOADS}"/tinygpt/train.py --layers 2 --hidden 128 --heads 4 --ffn 512 --seq-len 128 --vocab 4096 --micro-batch 8 --global-batch 16 --steps 30 --lr 0.003 --seed 1234 --dllogger-file "${TRAINBENCH_RUN_DIR}"/logs/train/dllogger/rank-0/dllogger.json
  ) &
  pids+=("$!")
done
rc=0
for pid in "${pids[@]}"; do
  wait "${pid}" || rc=$?
done
exit "${rc}"

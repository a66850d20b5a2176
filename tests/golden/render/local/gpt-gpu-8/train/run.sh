#!/bin/bash
# trainbench local job: recipe gpt-gpu-8-local, stage train, run dryrun.
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

# tinygpt: the shipped CPU/GPU workload; each rank reads its rank and world size
# from the launcher (SLURM_PROCID/SLURM_NTASKS or RANK/WORLD_SIZE).
python3 -u -m torch.distributed.run --standalone --nnodes=1 --nproc-per-node=8 "${TRAINBENCH_WORKLOADS}"/tinygpt/train.py \
  --layers 24 \
  --hidden 1024 \
  --heads 16 \
  --ffn 4096 \
  --seq-len 1024 \
  --vocab 50257 \
  --micro-batch 16 \
  --global-batch 256 \
  --steps 60 \
  --lr 0.003 \
  --seed 1234 \
  --dllogger-file "${TRAINBENCH_RUN_DIR}"/logs/train/dllogger/rank-0/dllogger.json \
  --device cuda \
  --precision bf16 \
  --attention sdpa \
  --pad-vocab-to 128

#!/bin/bash
# trainbench Kubernetes launch script: recipe qwen3-30b-a3b-a4-torchtitan-mxfp8-smoke, stage train.
# Rendered from templates/kubernetes/launch.sh; runs in every pod of the Indexed
# Job (from the ConfigMap). The node rank is the pod's completion index; the
# rendezvous host is pod 0 behind the headless Service (MASTER_ADDR).
set -euo pipefail

# The exit trap comes first, before any command that can fail: it records the exit code,
# copies rank 0's results into the container log, and stops the sidecar, so a failure
# anywhere (even a missing variable below) never leaves the pod running.
# shellcheck disable=SC2317 # run by the EXIT trap
trainbench_exit() {
  local rc=$?
  if [ -d status ]; then
    printf '%s %s\n' "${rc}" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" > status/train.exit || true
  fi
  # The pod's files vanish with it (unless the run directory is on a PVC or bucket): rank 0
  # copies its DLLogger log into the container log between markers; `trainbench wait/logs`
  # writes it back to the same path under the run directory (docs/runs.md).
  if [ "${JOB_COMPLETION_INDEX:-}" = 0 ] && [ -f logs/train/dllogger.json ]; then
    echo '==> trainbench file: logs/train/dllogger.json <=='
    cat logs/train/dllogger.json
    echo '<== trainbench file end'
  fi
}
trap trainbench_exit EXIT

: "${JOB_COMPLETION_INDEX:?JOB_COMPLETION_INDEX is not set: run as an Indexed Job}"
: "${TRAINBENCH_RUN_DIR:?TRAINBENCH_RUN_DIR is not set}"
NODE_RANK="${JOB_COMPLETION_INDEX}"
export NODE_RANK TRAINBENCH_RUN_DIR
cd "${TRAINBENCH_RUN_DIR}"
mkdir -p logs/train status
# gIB (GPUDirect RDMA over RoCE): the NCCL plugin the init container installed (NCCL_PLUGIN_PATH
# of the target's environment), and the plugin's own NCCL environment script.
export LD_LIBRARY_PATH="${NCCL_PLUGIN_PATH:-/usr/local/gib/lib64}:${LD_LIBRARY_PATH:-}"
set +u
# shellcheck source=/dev/null
source /usr/local/gib/scripts/set_nccl_env.sh
set -u
# The target's network settings over what the stack's script set (kubernetes.network_env).
export NCCL_SOCKET_IFNAME=eth0,eth1
export NCCL_TUNER_CONFIG_PATH=/usr/local/gib/configs/tuner_config_a4.txtpb
printf '%s %s %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(hostname)" "${NODE_RANK}" > status/train.started

# The rendezvous host is pod 0's name behind the headless Service: wait until the
# cluster DNS has it (pods start in any order) instead of failing the rendezvous.
if [ "${NNODES:-1}" -gt 1 ]; then
  for _ in $(seq 1 300); do
    getent hosts "${MASTER_ADDR}" >/dev/null 2>&1 && break
    sleep 2
  done
  getent hosts "${MASTER_ADDR}" >/dev/null 2>&1 ||
    { echo "trainbench: ${MASTER_ADDR} did not resolve within 600 s (headless Service DNS)" >&2; exit 4; }
fi

# TorchTitan: torchrun starts torchtitan.train on every GPU of the node (as its run_train.sh does)
# on the job the recipe describes: a TOML job config delivered with the job (0.2.2), or a function
# of TorchTitan's config registry then --section.option flags (main); the dump folder is the run's
# own. Its step lines (loss, memory, tps, tflops, mfu) go to the job's standard output.
MASTER_ADDR="${MASTER_ADDR:-$(hostname)}"
export MASTER_ADDR
torchrun --nproc-per-node="${GPUS_PER_NODE}" --nnodes="${NNODES}" --node-rank="${NODE_RANK}" --rdzv-id="${JOB_IDENTIFIER}" --master-addr="${MASTER_ADDR}" --master-port="${MASTER_PORT}" -m \
  torchtitan.train \
  --job.config_file /etc/trainbench/torchtitan.toml \
  --job.dump_folder "${TRAINBENCH_RUN_DIR}"/logs/train/torchtitan

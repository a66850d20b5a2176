#!/bin/bash
# trainbench Kubernetes launch script: recipe gpt3-175b-fp8-a3mega-16n-smoke-validated, stage train.
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
  if [ "${JOB_COMPLETION_INDEX:-}" = 0 ] && [ -f logs/train/dllogger/rank-0/dllogger.json ]; then
    echo '==> trainbench file: logs/train/dllogger/rank-0/dllogger.json <=='
    cat logs/train/dllogger/rank-0/dllogger.json
    echo '<== trainbench file end'
  fi
  # Tell the network-rx-daemon sidecar to exit.
  mkdir -p /semaphore && touch /semaphore/workload_terminated
}
trap trainbench_exit EXIT

: "${JOB_COMPLETION_INDEX:?JOB_COMPLETION_INDEX is not set: run as an Indexed Job}"
: "${TRAINBENCH_RUN_DIR:?TRAINBENCH_RUN_DIR is not set}"
NODE_RANK="${JOB_COMPLETION_INDEX}"
export NODE_RANK TRAINBENCH_RUN_DIR
cd "${TRAINBENCH_RUN_DIR}"
mkdir -p logs/train/dllogger/rank-0 status
# GPUDirect-TCPXO: the NCCL plugin the init container installed, and the driver libraries.
export LD_LIBRARY_PATH="/usr/local/nccl-plugin/lib64:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}"
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

# NeMo: megatron_gpt_pretraining.py reads the configuration delivered with the job
# (nemo-config.yaml: the seed's configuration for this NeMo version with the recipe's
# values) through --config-path/--config-name, as the NeMo launcher does; paths known
# only here are Hydra overrides.
# What the configuration needs from the image, checked before the job starts.
python3 -c 'import dllogger' >/dev/null 2>&1 || { echo 'trainbench: the container image lacks the Python package '\''dllogger'\'', which exp_manager.create_dllogger_logger (metrics.source: dllogger) needs; use an image that has it (container.image) or another metrics.source' >&2; exit 3; }
torchrun --nproc-per-node="${GPUS_PER_NODE}" --nnodes="${NNODES}" --node-rank="${NODE_RANK}" --rdzv-id="${JOB_IDENTIFIER}" --master-addr="${MASTER_ADDR}" --master-port="${MASTER_PORT}" /opt/NeMo/examples/nlp/language_modeling/megatron_gpt_pretraining.py \
  --config-path=/etc/trainbench \
  --config-name=nemo-config \
  exp_manager.explicit_log_dir="${TRAINBENCH_RUN_DIR}"/logs/train/nemo \
  trainer.num_nodes="${NNODES}" \
  +exp_manager.dllogger_logger_kwargs.json_file="${TRAINBENCH_RUN_DIR}"/logs/train/dllogger/rank-0/dllogger.json

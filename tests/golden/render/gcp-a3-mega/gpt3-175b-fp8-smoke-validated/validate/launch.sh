#!/bin/bash
# trainbench Kubernetes launch script: recipe gpt3-175b-fp8-a3mega-16n-smoke-validated, stage validate.
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
    printf '%s %s\n' "${rc}" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" > status/validate.exit || true
  fi
  # The pod's files vanish with it (unless the run directory is on a PVC or bucket): rank 0
  # copies its DLLogger log into the container log between markers; `trainbench wait/logs`
  # writes it back to the same path under the run directory (docs/runs.md).
  if [ "${JOB_COMPLETION_INDEX:-}" = 0 ] && [ -f logs/validate/dllogger/rank-0/dllogger.json ]; then
    echo '==> trainbench file: logs/validate/dllogger/rank-0/dllogger.json <=='
    cat logs/validate/dllogger/rank-0/dllogger.json
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
mkdir -p logs/validate/dllogger/rank-0 status
# GPUDirect-TCPXO: the NCCL plugin the init container installed, and the driver libraries.
export LD_LIBRARY_PATH="/usr/local/nccl-plugin/lib64:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}"
printf '%s %s %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(hostname)" "${NODE_RANK}" > status/validate.started

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

# stage validate (validate): the stage's command.
# shellcheck disable=SC2016 # a literal '$' in a quoted argument is the command's own text
all_reduce_perf \
  -b \
  8 \
  -e \
  8G \
  -f \
  2 \
  -g \
  8

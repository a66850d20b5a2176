#!/bin/bash
# trainbench Kubernetes launch script: recipe {{recipe_name}}, stage {{stage}}.
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
    printf '%s %s\n' "${rc}" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" > {{status_exit}} || true
  fi
  # The pod's files vanish with it (unless the run directory is on a PVC or bucket): rank 0
  # copies its DLLogger log into the container log between markers; `trainbench wait/logs`
  # writes it back to the same path under the run directory (docs/runs.md).
  if [ "${JOB_COMPLETION_INDEX:-}" = 0 ] && [ -f {{dllogger_file}} ]; then
    echo '==> trainbench file: {{dllogger_file}} <=='
    cat {{dllogger_file}}
    echo '<== trainbench file end'
  fi
{{#framework_is.validate_k8s}}
  # Validation: pod 0's results (nodes, DCGM and nccl-tests outputs), written back the same way.
  if [ "${JOB_COMPLETION_INDEX:-}" = 0 ]; then
    for tb_f in {{log_dir}}/*.txt; do
      [ -f "${tb_f}" ] || continue
      echo "==> trainbench file: ${tb_f} <=="
      cat "${tb_f}"
      [ -z "$(tail -c 1 "${tb_f}")" ] || echo
      echo '<== trainbench file end'
    done
  fi
{{/framework_is.validate_k8s}}
{{#kubernetes.tcpxo}}
  # Tell the network-rx-daemon sidecar to exit.
  mkdir -p /semaphore && touch /semaphore/workload_terminated
{{/kubernetes.tcpxo}}
}
trap trainbench_exit EXIT

: "${JOB_COMPLETION_INDEX:?JOB_COMPLETION_INDEX is not set: run as an Indexed Job}"
: "${TRAINBENCH_RUN_DIR:?TRAINBENCH_RUN_DIR is not set}"
NODE_RANK="${JOB_COMPLETION_INDEX}"
export NODE_RANK TRAINBENCH_RUN_DIR
cd "${TRAINBENCH_RUN_DIR}"
mkdir -p {{metrics_dir}} status
{{#kubernetes.tcpxo}}
# GPUDirect-TCPXO: the NCCL plugin the init container installed, and the driver libraries.
export LD_LIBRARY_PATH="/usr/local/nccl-plugin/lib64:/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}"
{{/kubernetes.tcpxo}}
{{#kubernetes.gib}}
# gIB (GPUDirect RDMA over RoCE): the NCCL plugin the init container installed (NCCL_PLUGIN_PATH
# of the target's environment), and the plugin's own NCCL environment script.
export LD_LIBRARY_PATH="${NCCL_PLUGIN_PATH:-/usr/local/gib/lib64}:${LD_LIBRARY_PATH:-}"
set +u
# shellcheck source=/dev/null
source /usr/local/gib/scripts/set_nccl_env.sh
set -u
{{/kubernetes.gib}}
{{#kubernetes.has_network_env}}
# The target's network settings over what the stack's script set (kubernetes.network_env).
{{#kubernetes.network_env}}
{{{line_sh}}}
{{/kubernetes.network_env}}
{{/kubernetes.has_network_env}}
printf '%s %s %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(hostname)" "${NODE_RANK}" > {{status_started}}
{{#has_stdout_file}}
# Rank 0's standard output is the framework's metrics log (metrics.path): this line tells
# trainbench, which streams the training container's log, where to keep it (docs/runs.md).
if [ "${NODE_RANK}" = 0 ]; then printf '==> trainbench stdout: %s <==\n' {{stdout_file}}; fi
{{/has_stdout_file}}

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

{{#framework_is.nemo}}
{{> frameworks/nemo.sh}}
{{/framework_is.nemo}}
{{#framework_is.megatron_bridge}}
{{> frameworks/megatron-bridge.sh}}
{{/framework_is.megatron_bridge}}
{{#framework_is.megatron_lm}}
{{> frameworks/megatron-lm.sh}}
{{/framework_is.megatron_lm}}
{{#framework_is.metaseq}}
{{> frameworks/metaseq.sh}}
{{/framework_is.metaseq}}
{{#framework_is.tinygpt}}
{{> frameworks/tinygpt.sh}}
{{/framework_is.tinygpt}}
{{#framework_is.torchtitan}}
{{> frameworks/torchtitan.sh}}
{{/framework_is.torchtitan}}
{{#framework_is.custom}}
{{> frameworks/custom.sh}}
{{/framework_is.custom}}
{{#framework_is.command}}
{{> frameworks/command.sh}}
{{/framework_is.command}}
{{#framework_is.validate_k8s}}
{{> frameworks/validate-k8s.sh}}
{{/framework_is.validate_k8s}}

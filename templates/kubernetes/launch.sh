#!/bin/bash
# trainbench Kubernetes launch script: recipe {{recipe_name}}, stage {{stage}}.
# Rendered from templates/kubernetes/launch.sh; runs in every pod of the Indexed
# Job (from the ConfigMap). The node rank is the pod's completion index; the
# rendezvous host is pod 0 behind the headless Service (MASTER_ADDR).
set -euo pipefail

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

# shellcheck disable=SC2317 # run by the EXIT trap
trainbench_exit() {
  local rc=$?
  printf '%s %s\n' "${rc}" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" > {{status_exit}}
  # The pod's files vanish with it: rank 0 prints its DLLogger lines ("DLLL {...}")
  # to the container log, where `kubectl logs` finds them.
  if [ "${NODE_RANK}" = 0 ] && [ -f {{dllogger_file}} ]; then
    cat {{dllogger_file}}
  fi
{{#kubernetes.tcpxo}}
  # Tell the network-rx-daemon sidecar to exit.
  mkdir -p /semaphore && touch /semaphore/workload_terminated
{{/kubernetes.tcpxo}}
}
trap trainbench_exit EXIT
printf '%s %s %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(hostname)" "${NODE_RANK}" > {{status_started}}

{{#framework_is.nemo}}
{{> frameworks/nemo.sh}}
{{/framework_is.nemo}}
{{#framework_is.megatron_lm}}
{{> frameworks/megatron-lm.sh}}
{{/framework_is.megatron_lm}}
{{#framework_is.metaseq}}
{{> frameworks/metaseq.sh}}
{{/framework_is.metaseq}}
{{#framework_is.tinygpt}}
{{> frameworks/tinygpt.sh}}
{{/framework_is.tinygpt}}
{{#framework_is.custom}}
{{> frameworks/custom.sh}}
{{/framework_is.custom}}
{{#framework_is.command}}
{{> frameworks/command.sh}}
{{/framework_is.command}}

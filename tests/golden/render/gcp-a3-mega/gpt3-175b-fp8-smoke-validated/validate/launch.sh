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
  # Validation: pod 0's results (nodes, DCGM and nccl-tests outputs), written back the same way.
  if [ "${JOB_COMPLETION_INDEX:-}" = 0 ]; then
    for tb_f in logs/validate/*.txt; do
      [ -f "${tb_f}" ] || continue
      echo "==> trainbench file: ${tb_f} <=="
      cat "${tb_f}"
      [ -z "$(tail -c 1 "${tb_f}")" ] || echo
      echo '<== trainbench file end'
    done
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

# stage validate (validate, Kubernetes): DCGM diagnostics on each pod's node and nccl-tests
# as MPI ranks across the pods, over all nodes and node pairs. Every pod starts sshd (port
# 222); pod 0 launches everything over ssh (mpirun, 8 ranks per pod) and
# the others wait until it is done. Results go to logs/validate/, which pod 0 copies into its
# log at exit; `trainbench report` reads them (bad nodes by their Kubernetes node names).
# ssh is Open MPI's remote shell (OMPI_MCA_plm_rsh_agent changes both).
tb_rsh_agent=()
read -ra tb_rsh_agent <<< "${OMPI_MCA_plm_rsh_agent:-ssh}"
tb_rsh() { "${tb_rsh_agent[@]}" -p 222 -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR "$@"; }
# (an array, not a function: a redirection of a function call would also catch what the
# exit trap prints should the pod be stopped during a run)
# shellcheck disable=SC2054 # "tcp,self" is one word: Open MPI's own list
TB_MPIRUN=(mpirun --allow-run-as-root --bind-to none --mca plm_rsh_args '-p 222 -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR' --mca plm_rsh_no_tree_spawn true --mca orte_keep_fqdn_hostnames t --mca btl tcp,self --mca btl_tcp_if_include eth0 -x PATH -x LD_LIBRARY_PATH -x GLOO_SOCKET_IFNAME -x NVTE_FWD_LAYERNORM_SM_MARGIN -x NVTE_BWD_LAYERNORM_SM_MARGIN -x NCCL_BUFFSIZE -x NCCL_FASTRAK_CTRL_DEV -x NCCL_FASTRAK_IFNAME -x NCCL_FASTRAK_NUM_FLOWS -x NCCL_FASTRAK_NUM_FLOWS_PER_GROUP -x NCCL_FASTRAK_ENABLE_CONTROL_CHANNEL -x NCCL_FASTRAK_ENABLE_HOTPATH_LOGGING -x NCCL_FASTRAK_USE_SNAP -x NCCL_FASTRAK_USE_LLCM -x NCCL_TUNER_PLUGIN -x NCCL_TUNER_CONFIG_PATH -x NCCL_SHIMNET_GUEST_CONFIG_CHECKER_CONFIG_FILE -x NCCL_SOCKET_IFNAME -x NCCL_DYNAMIC_CHUNK_SIZE -x NCCL_P2P_NET_CHUNKSIZE -x NCCL_P2P_PCI_CHUNKSIZE -x NCCL_P2P_NVL_CHUNKSIZE -x NCCL_CROSS_NIC -x NCCL_PROTO -x NCCL_NET_GDR_LEVEL -x NCCL_P2P_PXN_LEVEL -x NCCL_NVLS_ENABLE -x NCCL_DEBUG -x NCCL_ALGO -x NCCL_MIN_NCHANNELS -x TORCH_DISTRIBUTED_TRACING -x OMP_NUM_THREADS)
# This pod's node (the downward API's spec.nodeName), where pod 0 reads it over ssh.
printf '%s\n' "${TRAINBENCH_NODE_NAME:-$(hostname)}" > ~/.trainbench-node
rm -f ~/.trainbench-validate-done
service ssh restart
if [ "${NODE_RANK}" != 0 ]; then
  # Pod 0 touches the file when every run is over. Should pod 0 fail first, the Job fails
  # (backoffLimit 0) and Kubernetes ends this pod.
  until [ -e ~/.trainbench-validate-done ]; do sleep 5; done
  exit 0
fi

mkdir -p logs/validate
TB_HOSTS=()
for ((tb_i = 0; tb_i < NNODES; tb_i++)); do TB_HOSTS+=("${JOB_IDENTIFIER}-${tb_i}.${JOB_IDENTIFIER}"); done
# Pods start in any order: wait until every pod's sshd answers.
for tb_h in "${TB_HOSTS[@]}"; do
  for _ in $(seq 1 300); do
    tb_rsh "${tb_h}" true </dev/null >/dev/null 2>&1 && break
    sleep 2
  done
  tb_rsh "${tb_h}" true </dev/null >/dev/null 2>&1 ||
    { echo "trainbench: ${tb_h}: no ssh on port 222 within 600 s" >&2; exit 4; }
done
TB_NODES=()
for tb_h in "${TB_HOSTS[@]}"; do
  # shellcheck disable=SC2016 # expanded by the pod's shell
  TB_NODES+=("$(tb_rsh "${tb_h}" 'cat "$HOME/.trainbench-node"' </dev/null)")
done
printf '%s\n' "${TB_NODES[@]}" > logs/validate/nodes.txt
TB_NODE_COUNT=${#TB_NODES[@]}
TB_HOSTFILES=$(mktemp -d)
tb_failed=0

# An Open MPI hostfile of the given pods: FILE POD...
tb_hostfile() {
  local file=$1
  shift
  : > "${file}"
  for tb_p in "$@"; do printf '%s slots=%s\n' "${tb_p}" 8 >> "${file}"; done
}

# A bus bandwidth check of one nccl-tests output: the out-of-place busbw of
# the largest message size (seed 000: the 8 GiB line) against the threshold.
tb_check_busbw() {
  grep -q 'Avg bus bandwidth' "$1"
}

# all_reduce_perf over all ${#TB_NODES[@]} nodes.
tb_hostfile "${TB_HOSTFILES}/all" "${TB_HOSTS[@]}"
if ! "${TB_MPIRUN[@]}" -np "$((TB_NODE_COUNT * 8))" --hostfile "${TB_HOSTFILES}/all" /third_party/nccl-tests-mpi/build/all_reduce_perf -b 8 -e 8G -f 2 -g 1 </dev/null > logs/validate/nccl-all.txt 2>&1; then
  echo "trainbench: all_reduce_perf over all nodes failed" >&2
  tb_failed=1
elif ! tb_check_busbw logs/validate/nccl-all.txt; then
  echo "trainbench: all_reduce_perf over all nodes is below the bus bandwidth threshold" >&2
  tb_failed=1
fi

# all_reduce_perf per node pair, two rounds of disjoint pairs ((0,1),(2,3),... then
# (1,2),(3,4),...,(n-1,0)), so every node is tested with two partners.
if [ "${TB_NODE_COUNT}" -ge 2 ]; then
  tb_n=${TB_NODE_COUNT}
  for tb_round in 0 1; do
    tb_pids=()
    tb_pairs=()
    for ((tb_i = tb_round; tb_i + 1 < tb_n + tb_round; tb_i += 2)); do
      tb_a=$((tb_i % tb_n))
      tb_b=$(((tb_i + 1) % tb_n))
      if [ "${tb_round}" -eq 1 ] && [ "${tb_n}" -eq 2 ]; then continue; fi
      tb_out=logs/validate/nccl-${TB_NODES[tb_a]}-${TB_NODES[tb_b]}.txt
      tb_hostfile "${TB_HOSTFILES}/pair-${tb_a}" "${TB_HOSTS[tb_a]}" "${TB_HOSTS[tb_b]}"
      "${TB_MPIRUN[@]}" -np 16 --hostfile "${TB_HOSTFILES}/pair-${tb_a}" /third_party/nccl-tests-mpi/build/all_reduce_perf -b 8 -e 8G -f 2 -g 1 </dev/null > "${tb_out}" 2>&1 &
      tb_pids+=($!)
      tb_pairs+=("${tb_out}")
    done
    for tb_k in "${!tb_pids[@]}"; do
      if ! wait "${tb_pids[tb_k]}"; then
        echo "trainbench: ${tb_pairs[tb_k]}: all_reduce_perf failed" >&2
        tb_failed=1
      elif ! tb_check_busbw "${tb_pairs[tb_k]}"; then
        echo "trainbench: ${tb_pairs[tb_k]}: below the bus bandwidth threshold" >&2
        tb_failed=1
      fi
    done
  done
fi

# Done: the other pods may exit.
for tb_h in "${TB_HOSTS[@]}"; do
  # shellcheck disable=SC2016 # expanded by the pod's shell
  tb_rsh "${tb_h}" 'touch "$HOME/.trainbench-validate-done"' </dev/null || true
done
rm -rf "${TB_HOSTFILES}"
exit "${tb_failed}"

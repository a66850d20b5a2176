# stage {{stage}} (validate, Kubernetes): DCGM diagnostics on each pod's node and nccl-tests
# as MPI ranks across the pods, over all nodes and node pairs. Every pod starts sshd (port
# {{{validate.k8s_ssh_port}}}); pod 0 launches everything over ssh (mpirun, {{{validate.ranks_per_node}}} ranks per pod) and
# the others wait until it is done. Results go to {{log_dir}}/, which pod 0 copies into its
# log at exit; `trainbench report` reads them (bad nodes by their Kubernetes node names).
# ssh is Open MPI's remote shell (OMPI_MCA_plm_rsh_agent changes both).
tb_rsh_agent=()
read -ra tb_rsh_agent <<< "${OMPI_MCA_plm_rsh_agent:-ssh}"
tb_rsh() { "${tb_rsh_agent[@]}" {{{validate.k8s_rsh_args_sh}}} "$@"; }
# (an array, not a function: a redirection of a function call would also catch what the
# exit trap prints should the pod be stopped during a run)
# shellcheck disable=SC2054 # "tcp,self" is one word: Open MPI's own list
TB_MPIRUN=({{{validate.k8s_mpirun_sh}}} -x PATH -x LD_LIBRARY_PATH{{#env}} -x {{name}}{{/env}}{{#kubernetes.stage_env}} -x {{name}}{{/kubernetes.stage_env}})
# This pod's node (the downward API's spec.nodeName), where pod 0 reads it over ssh.
printf '%s\n' "${TRAINBENCH_NODE_NAME:-$(hostname)}" > ~/.trainbench-node
rm -f ~/.trainbench-validate-done
{{{validate.k8s_sshd_sh}}}
if [ "${NODE_RANK}" != 0 ]; then
  # Pod 0 touches the file when every run is over. Should pod 0 fail first, the Job fails
  # (backoffLimit 0) and Kubernetes ends this pod.
  until [ -e ~/.trainbench-validate-done ]; do sleep 5; done
  exit 0
fi

mkdir -p {{log_dir}}
TB_HOSTS=()
for ((tb_i = 0; tb_i < NNODES; tb_i++)); do TB_HOSTS+=("${JOB_IDENTIFIER}-${tb_i}.${JOB_IDENTIFIER}"); done
# Pods start in any order: wait until every pod's sshd answers.
for tb_h in "${TB_HOSTS[@]}"; do
  for _ in $(seq 1 300); do
    tb_rsh "${tb_h}" true </dev/null >/dev/null 2>&1 && break
    sleep 2
  done
  tb_rsh "${tb_h}" true </dev/null >/dev/null 2>&1 ||
    { echo "trainbench: ${tb_h}: no ssh on port {{{validate.k8s_ssh_port}}} within 600 s" >&2; exit 4; }
done
TB_NODES=()
for tb_h in "${TB_HOSTS[@]}"; do
  # shellcheck disable=SC2016 # expanded by the pod's shell
  TB_NODES+=("$(tb_rsh "${tb_h}" 'cat "$HOME/.trainbench-node"' </dev/null)")
done
printf '%s\n' "${TB_NODES[@]}" > {{log_dir}}/nodes.txt
TB_NODE_COUNT=${#TB_NODES[@]}
TB_HOSTFILES=$(mktemp -d)
tb_failed=0

# An Open MPI hostfile of the given pods: FILE POD...
tb_hostfile() {
  local file=$1
  shift
  : > "${file}"
  for tb_p in "$@"; do printf '%s slots=%s\n' "${tb_p}" {{{validate.ranks_per_node}}} >> "${file}"; done
}

{{> frameworks/validate-busbw.sh}}
{{#validate.dcgm_enabled}}

# DCGM diagnostics, level {{{validate.dcgm_level}}}, on every pod's node at once: one file per node (dcgm-<node>.txt).
tb_pids=()
for tb_i in "${!TB_HOSTS[@]}"; do
  tb_rsh "${TB_HOSTS[tb_i]}" {{{validate.k8s_dcgm_remote_sh}}} </dev/null > {{log_dir}}/dcgm-"${TB_NODES[tb_i]}".txt 2>&1 &
  tb_pids+=($!)
done
for tb_k in "${!tb_pids[@]}"; do
  if ! wait "${tb_pids[tb_k]}"; then
    echo "trainbench: dcgmi diag failed on ${TB_NODES[tb_k]}" >&2
    tb_failed=1
  fi
done
if grep -il 'fail' {{log_dir}}/dcgm-*.txt >&2; then
  echo "trainbench: dcgmi diag reports a failure (files above)" >&2
  tb_failed=1
fi
{{/validate.dcgm_enabled}}
{{#validate.nccl_enabled}}
{{#validate.tests}}
{{#validate.all_nodes}}

# {{name}} over all ${#TB_NODES[@]} nodes.
tb_hostfile "${TB_HOSTFILES}/all" "${TB_HOSTS[@]}"
if ! "${TB_MPIRUN[@]}" -np "$((TB_NODE_COUNT * {{{validate.ranks_per_node}}}))" --hostfile "${TB_HOSTFILES}/all" {{{binary_sh}}} {{{validate.nccl_args_sh}}} </dev/null > {{log_dir}}/{{file_prefix}}-all.txt 2>&1; then
  echo "trainbench: {{name}} over all nodes failed" >&2
  tb_failed=1
{{#checked}}
elif ! tb_check_busbw {{log_dir}}/{{file_prefix}}-all.txt; then
  echo "trainbench: {{name}} over all nodes is below the bus bandwidth threshold" >&2
  tb_failed=1
{{/checked}}
fi
{{/validate.all_nodes}}
{{#validate.pairwise}}

# {{name}} per node pair, two rounds of disjoint pairs ((0,1),(2,3),... then
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
      tb_out={{log_dir}}/{{file_prefix}}-${TB_NODES[tb_a]}-${TB_NODES[tb_b]}.txt
      tb_hostfile "${TB_HOSTFILES}/pair-${tb_a}" "${TB_HOSTS[tb_a]}" "${TB_HOSTS[tb_b]}"
      "${TB_MPIRUN[@]}" -np {{{validate.pair_tasks}}} --hostfile "${TB_HOSTFILES}/pair-${tb_a}" {{{binary_sh}}} {{{validate.nccl_args_sh}}} </dev/null > "${tb_out}" 2>&1 &
      tb_pids+=($!)
      tb_pairs+=("${tb_out}")
    done
{{> frameworks/validate-pair-round.sh}}
  done
fi
{{/validate.pairwise}}
{{/validate.tests}}
{{/validate.nccl_enabled}}

# Done: the other pods may exit.
for tb_h in "${TB_HOSTS[@]}"; do
  # shellcheck disable=SC2016 # expanded by the pod's shell
  tb_rsh "${tb_h}" 'touch "$HOME/.trainbench-validate-done"' </dev/null || true
done
rm -rf "${TB_HOSTFILES}"
exit "${tb_failed}"

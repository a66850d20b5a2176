# stage {{stage}} (validate): DCGM diagnostics and nccl-tests over the nodes
# Slurm gives this job (seed 000 cluster_validation.sh, in one job). Results
# go to {{log_dir}}/; `trainbench report` reads them. nccl-tests run as MPI
# ranks (srun --mpi={{validate.mpi}}), all ranks of a run in one communicator.
mkdir -p {{log_dir}}
mapfile -t TB_NODES < <(scontrol show hostnames "${SLURM_JOB_NODELIST}")
printf '%s\n' "${TB_NODES[@]}" > {{log_dir}}/nodes.txt
TB_NODE_COUNT=${#TB_NODES[@]}
tb_failed=0
{{#validate.has_env}}
{{#validate.env}}
export {{name}}={{{value_sh}}}
{{/validate.env}}
{{/validate.has_env}}

{{> frameworks/validate-busbw.sh}}
{{#validate.dcgm_enabled}}

# DCGM diagnostics, level {{{validate.dcgm_level}}}, on every node at once: one file per node (dcgm-<node>.txt).
if ! {{{validate.dcgm_srun_sh}}}; then
  echo "trainbench: dcgmi diag failed on at least one node" >&2
  tb_failed=1
fi
for tb_i in "${!TB_NODES[@]}"; do
  if [ -f {{log_dir}}/dcgm-task-"${tb_i}".txt ]; then
    mv -f {{log_dir}}/dcgm-task-"${tb_i}".txt {{log_dir}}/dcgm-"${TB_NODES[tb_i]}".txt
  fi
done
if grep -il 'fail' {{log_dir}}/dcgm-*.txt >&2; then
  echo "trainbench: dcgmi diag reports a failure (files above)" >&2
  tb_failed=1
fi
{{/validate.dcgm_enabled}}
{{#validate.nccl_enabled}}
{{#validate.has_build}}

# nccl-tests, built once on one node (git clone, make MPI=1 with HPC-X) unless already there.
# shellcheck disable=SC2016 # the bash -c scripts expand their own arguments ("$1", "$@")
if [ ! -x {{{validate.build_check_sh}}} ]; then
  mkdir -p {{{validate.build_parent_sh}}}
  if ! {{{validate.build_srun_sh}}}; then
    echo "trainbench: building nccl-tests failed" >&2
    exit 1
  fi
fi
{{/validate.has_build}}
{{#validate.tests}}
{{#validate.all_nodes}}

# {{name}} over all ${#TB_NODES[@]} nodes.
# shellcheck disable=SC2016 # the bash -c scripts expand their own arguments ("$1", "$@")
if ! {{{validate.nccl_srun_sh}}} -N "${TB_NODE_COUNT}" -n "$((TB_NODE_COUNT * {{{validate.ranks_per_node}}}))" {{{binary_sh}}} {{{validate.nccl_args_sh}}} > {{log_dir}}/{{file_prefix}}-all.txt 2>&1; then
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
# shellcheck disable=SC2016 # the bash -c scripts expand their own arguments ("$1", "$@")
if [ "${#TB_NODES[@]}" -ge 2 ]; then
  tb_n=${#TB_NODES[@]}
  for tb_round in 0 1; do
    tb_pids=()
    tb_pairs=()
    for ((tb_i = tb_round; tb_i + 1 < tb_n + tb_round; tb_i += 2)); do
      tb_a=${TB_NODES[tb_i % tb_n]}
      tb_b=${TB_NODES[(tb_i + 1) % tb_n]}
      [ "${tb_a}" = "${tb_b}" ] && continue
      if [ "${tb_round}" -eq 1 ] && [ "${tb_n}" -eq 2 ]; then continue; fi
      tb_out={{log_dir}}/{{file_prefix}}-${tb_a}-${tb_b}.txt
      {{{validate.nccl_srun_sh}}} -N 2 -n {{{validate.pair_tasks}}} -w "${tb_a},${tb_b}" {{{binary_sh}}} {{{validate.nccl_args_sh}}} > "${tb_out}" 2>&1 &
      tb_pids+=($!)
      tb_pairs+=("${tb_out}")
    done
{{> frameworks/validate-pair-round.sh}}
  done
fi
{{/validate.pairwise}}
{{/validate.tests}}
{{/validate.nccl_enabled}}

exit "${tb_failed}"

#!/bin/bash
# trainbench local job: recipe {{recipe_name}}, stage {{stage}}, run {{run_id}}.
# Rendered from templates/local/run.sh; re-render instead of editing.
# Runs the job on this machine with the same environment and log layout as the
# cluster job scripts: logs in {{log_dir}}/, status files in status/. Standard
# output and error are the caller's (the local backend keeps them in
# {{log_dir}}/stdout.log and stderr.log).
set -euo pipefail

: "${TRAINBENCH_RUN_DIR:?TRAINBENCH_RUN_DIR is not set: run with trainbench or export it}"
export TRAINBENCH_RUN_DIR
TRAINBENCH_RUN_ID="${TRAINBENCH_RUN_ID:-{{run_id}}}"
export TRAINBENCH_RUN_ID
{{#needs_workloads}}
: "${TRAINBENCH_WORKLOADS:?TRAINBENCH_WORKLOADS is not set: it names the directory of the shipped workloads}"
export TRAINBENCH_WORKLOADS
{{/needs_workloads}}
cd "${TRAINBENCH_RUN_DIR}"
mkdir -p {{metrics_dir}} status

# shellcheck disable=SC2317 # run by the EXIT trap
trainbench_exit() {
  local rc=$?
  printf '%s %s\n' "${rc}" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" > {{status_exit}}.tmp
  mv -f {{status_exit}}.tmp {{status_exit}}
}
trap trainbench_exit EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
printf '%s %s %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(hostname)" "$$" > {{status_started}}.tmp
mv -f {{status_started}}.tmp {{status_started}}

{{#has_env}}
# Environment: the target's tuning, the framework's, then the recipe's.
{{#env}}
export {{name}}={{{value_sh}}}
{{/env}}

{{/has_env}}
# Rendezvous on this machine.
MASTER_ADDR={{local.master_addr}}
MASTER_PORT="${MASTER_PORT:-$((20000 + $$ % 20000))}"
export MASTER_ADDR MASTER_PORT

{{#local.spawn_ranks}}
# One process per rank, torchrun-style: RANK, LOCAL_RANK, WORLD_SIZE,
# MASTER_ADDR and MASTER_PORT tell each its place.
WORLD_SIZE={{local.world_size}}
export WORLD_SIZE
pids=()
for ((rank = 0; rank < WORLD_SIZE; rank++)); do
  (
    export RANK="${rank}" LOCAL_RANK="${rank}"
    exec {{{launch_command_sh}}}
  ) &
  pids+=("$!")
done
rc=0
for pid in "${pids[@]}"; do
  wait "${pid}" || rc=$?
done
exit "${rc}"
{{/local.spawn_ranks}}
{{^local.spawn_ranks}}
{{#has_stdout_file}}
# The framework's log lines go where the recipe's metrics.path says.
exec 1>>{{stdout_file}}
{{/has_stdout_file}}
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
{{/local.spawn_ranks}}

# shellcheck shell=bash
# Shared by the run/backend integration tests (sourced; not a test itself).
# Gives: $TB (the CLI), $WORK (a fresh directory, removed on exit), tb (trainbench with
# --runs $WORK/runs), write_recipe, run_json, wait_for_state, fail.
set -euo pipefail

TB=${TRAINBENCH_BINARY:-}
[[ -x $TB ]] || { echo "skip: TRAINBENCH_BINARY is not set (run through ctest)"; exit 125; }
command -v jq >/dev/null || { echo "skip: jq is not installed"; exit 125; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tb-it-XXXXXX")
trap 'rm -rf "$WORK"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
tb() { "$TB" --runs "$WORK/runs" "$@"; }

use_slurm() {
    [[ -n ${TRAINBENCH_SLURM_DIR:-} && -f $TRAINBENCH_SLURM_DIR/env.sh ]] ||
        { echo "skip: no local Slurm cluster (the slurm_cluster fixture did not start)"; exit 125; }
    # shellcheck disable=SC1091
    source "$TRAINBENCH_SLURM_DIR/env.sh"
    scontrol ping >/dev/null 2>&1 || { echo "skip: the local Slurm cluster does not answer"; exit 125; }
}

# write_recipe FILE NAME TARGET NODES COMMAND_JSON [EXTRA_YAML]: a `custom` recipe whose
# launch.command is COMMAND_JSON (a JSON/YAML flow list).
write_recipe() {
    local file=$1 name=$2 target=$3 nodes=$4 command=$5 extra=${6:-} gpus=2
    [[ $target == local ]] && gpus=1
    cat >"$file" <<YAML
version: 1
name: $name
target: $target
model: tinygpt-tiny
framework: custom
nodes: $nodes
gpus_per_node: $gpus
batch: {micro: 1, global: $((nodes * gpus))}
precision: fp32
steps: 30
data: mock
launch: {command: $command, log_format: megatron}
$extra
YAML
    if [[ $target == local-slurm ]] && ! grep -q '^slurm:' "$file"; then
        echo 'slurm: {partition: debug, time: "00:10:00", exclusive: false}' >>"$file"
    fi
}

# run_json RUN: the run's status as JSON (one object).
run_json() { tb --json status "$1" | jq '.[0]'; }

# wait_for_state RUN STATE SECONDS: polls `status` until the run's state is STATE.
wait_for_state() {
    local run=$1 want=$2 limit=$3 state=""
    for ((i = 0; i < limit * 2; i++)); do
        state=$(run_json "$run" | jq -r .state)
        [[ $state == "$want" ]] && return 0
        sleep 0.5
    done
    fail "run $run is '$state' after ${limit}s, expected '$want'"
}

# short_id_of SUBMIT_JSON
short_id_of() { jq -r .short_id <<<"$1"; }

# shellcheck shell=bash
# Shared by the sweep reliability tests (sourced after runs_lib.sh; not a test itself).

# write_sweep DIR NAME TARGET POINTS COMMAND_JSON: DIR/base.yaml (a `custom` recipe running
# COMMAND_JSON) and DIR/sweep.yaml with POINTS points (an axis over steps).
write_sweep() {
    local dir=$1 name=$2 target=$3 points=$4 command=$5
    write_recipe "$dir/base.yaml" "$name" "$target" 1 "$command"
    cat >"$dir/sweep.yaml" <<YAML
version: 1
sweep: $name
base: base.yaml
name: "$name-{steps}"
matrix:
  steps: [$(seq -s ', ' 30 $((29 + points)))]
YAML
}

# check_one_run_per_point DIR NAME POINTS: exactly POINTS run directories, one per point hash,
# each with one job id.
check_one_run_per_point() {
    local dir=$1 name=$2 points=$3 runs state
    runs=$(find "$dir/runs" -mindepth 2 -maxdepth 2 -type d -path "*/$name-*/*" | wc -l)
    [[ $runs -eq $points ]] || fail "$runs run directories for $points points"
    state=$dir/runs/_sweeps/$name/state.jsonl
    [[ $(jq -r 'select(.event == "submitted") | .hash' "$state" | sort | uniq -d | wc -l) -eq 0 ]] ||
        fail "a point hash was submitted twice: $(jq -r 'select(.event == "submitted") | .hash' "$state" | sort | uniq -d)"
    [[ $(jq -r 'select(.event == "submitted") | .hash' "$state" | sort -u | wc -l) -eq $points ]] ||
        fail "the state file does not record $points submitted points"
}

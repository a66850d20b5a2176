#!/usr/bin/env bash
# Two stages chained with afterok run in order; a failed first stage cancels the second.
source "$(dirname "$0")/runs_lib.sh"
use_slurm
stages='stages:
  - {name: first, kind: train}
  - {name: second, kind: train, dependency: afterok}'
write_recipe "$WORK/ok.yaml" it-chain local-slurm 1 \
    '["/bin/sh", "-c", "echo $TRAINBENCH_STAGE $(date +%s.%N) >> order.txt; sleep 3"]' "$stages"
id=$(short_id_of "$(tb --json submit "$WORK/ok.yaml")")
dir=$(run_json "$id" | jq -r .dir)
jq -s -e 'map(select(.argv[0] == "sbatch")) | length == 2 and (.[0].argv | any(startswith("--dependency")) | not)
           and (.[1].argv | any(. == "--dependency=afterok:" + ($f[0].stdout | rtrimstr("\n"))))' \
    --slurpfile f <(jq -s 'map(select(.argv[0] == "sbatch"))' "$dir"/commands/*.json | jq '.[0]') \
    "$dir"/commands/*.json >/dev/null || fail "the second sbatch does not depend on the first job (afterok)"
tb wait "$id" --interval 1 >/dev/null
# order.txt is written by the jobs (cwd = run dir); the first stage line comes first.
[[ $(awk '{print $1}' "$dir/order.txt" | tr '\n' ' ') == "first second " ]] || fail "order: $(cat "$dir/order.txt")"
first_end=$(jq -r '.stages[0].ended' <<<"$(run_json "$id")")
second_start=$(jq -r '.stages[1].started' <<<"$(run_json "$id")")
[[ $first_end < $second_start || $first_end == "$second_start" ]] || fail "second started $second_start before first ended $first_end"

write_recipe "$WORK/bad.yaml" it-chain-bad local-slurm 1 \
    '["/bin/sh", "-c", "test $TRAINBENCH_STAGE = second"]' "$stages"
id=$(short_id_of "$(tb --json submit "$WORK/bad.yaml")")
tb wait "$id" --interval 1 >/dev/null 2>&1 && fail "a chain with a failed first stage completed"
run_json "$id" | jq -e '.stages[0].state == "FAILED" and .stages[1].state == "CANCELLED"' >/dev/null ||
    fail "states: $(run_json "$id" | jq -c '.stages')"
echo ok

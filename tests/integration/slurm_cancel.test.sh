#!/usr/bin/env bash
# `trainbench cancel` of a running job on the real local Slurm gives CANCELLED.
source "$(dirname "$0")/runs_lib.sh"
use_slurm
write_recipe "$WORK/r.yaml" it-cancel local-slurm 1 '["sleep", "300"]'
id=$(short_id_of "$(tb --json submit "$WORK/r.yaml")")
wait_for_state "$id" RUNNING 60
job=$(run_json "$id" | jq -r '.stages[0].job_id')
tb cancel "$id" >"$WORK/out"
grep -q CANCELLED "$WORK/out" || fail "cancel printed: $(cat "$WORK/out")"
wait_for_state "$id" CANCELLED 30
[[ -z $(squeue -h -j "$job" -t R,PD 2>/dev/null) ]] || fail "job $job still queued or running"
tb wait "$id" --timeout 10 >/dev/null 2>&1 && fail "wait on a cancelled run exited 0"
echo ok

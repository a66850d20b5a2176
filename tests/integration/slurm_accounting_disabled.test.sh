#!/usr/bin/env bash
# With accounting off (no slurmdbd) a job the controller has forgotten still gets its final
# state and exit code, from the status files the job script wrote. The controller is
# restarted with a clean state to make it forget the job.
source "$(dirname "$0")/runs_lib.sh"
use_slurm
config=$(scontrol show config)
grep -q 'AccountingStorageType *= accounting_storage/none' <<<"$config" || { echo "skip: accounting is on"; exit 125; }
sacct -n >/dev/null 2>&1 && fail "sacct works: this test wants accounting disabled"
write_recipe "$WORK/r.yaml" it-noacct local-slurm 1 '["/bin/sh", "-c", "exit 5"]'
id=$(short_id_of "$(tb --json submit "$WORK/r.yaml")")
dir=$(run_json "$id" | jq -r .dir)  # this status query saw the job PENDING or RUNNING
for ((i = 0; i < 120; i++)); do [[ -s $dir/status/train.exit ]] && break; sleep 0.5; done
[[ -s $dir/status/train.exit ]] || fail "the job wrote no exit status"
job=$(jq -r 'select(.event == "submitted") | .job_id' "$dir/journal.jsonl")
cluster=$(dirname "$0")/slurm_cluster.sh
bash "$cluster" stop "$TRAINBENCH_SLURM_DIR" >/dev/null 2>&1
bash "$cluster" start "$TRAINBENCH_SLURM_DIR" >/dev/null 2>&1
out=$(squeue -h -j "$job" 2>&1 || true)
grep -q "Invalid job id" <<<"$out" || fail "the restarted controller still knows job $job"
run_json "$id" | jq -e '.state == "FAILED" and .stages[0].exit_code == 5' >/dev/null ||
    fail "status after the restart: $(run_json "$id" | jq -c .)"
grep -q '"source":"status-file"' "$dir/journal.jsonl" || fail "the final state did not come from the status file"
echo ok

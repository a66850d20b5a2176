#!/usr/bin/env bash
# A journaled Slurm job id that now names another job (a controller that lost its state and
# reuses ids, or an edited journal) is never taken for the run's job (issue #35, 8): `status`
# does not adopt that job's state, and `cancel` leaves it running. The job name squeue prints
# is compared with the run's job name before any state change or scancel. docs/reliability.md.
source "$(dirname "$0")/runs_lib.sh"
use_slurm
write_recipe "$WORK/r.yaml" it-reused-id local-slurm 1 '["sleep", "300"]'
id=$(short_id_of "$(tb --json submit "$WORK/r.yaml")")
wait_for_state "$id" RUNNING 60
ours=$(run_json "$id" | jq -r '.stages[0].job_id')
# Another user's job, held so it stays PENDING (reason JobHeldUser) for the whole test.
foreign=$(sbatch --parsable -H --job-name=someone-elses-job -p debug --wrap 'sleep 300' | cut -d';' -f1)
trap 'scancel "$ours" "$foreign" 2>/dev/null || true; rm -rf "$WORK"' EXIT
[[ -n $foreign ]] || fail "sbatch gave no job id"
# The run's job is lost (killed without a trace: its status files still say started), and
# the journal names the foreign job's id.
scancel --signal=KILL --full "$ours"
for ((i = 0; i < 100; i++)); do [[ -z $(squeue -h -j "$ours" -t R,PD,CG 2>/dev/null) ]] && break; sleep 0.1; done
dir=$(ls -d "$WORK"/runs/it-reused-id/*)
sed -i "s/\"job_id\":\"$ours\"/\"job_id\":\"$foreign\"/g" "$dir/journal.jsonl"
[[ $(tb --json status --no-refresh "$id" | jq -r '.[0].stages[0].job_id') == "$foreign" ]] || fail "the journal edit did not take"

tb --json status "$id" >"$WORK/status.json" 2>"$WORK/status.err" || true
state=$(jq -r '.[0].state' "$WORK/status.json")
[[ $state != PENDING ]] || fail "status adopted the foreign job's state: $(jq -c '.[0] | [.state, .detail]' "$WORK/status.json")"
grep -q 'JobHeldUser' "$dir/journal.jsonl" && fail "the foreign job's state was journaled: $(grep JobHeldUser "$dir/journal.jsonl")"
tb cancel "$id" >"$WORK/cancel.out" 2>&1 || true
[[ $(squeue -h -j "$foreign" -o %T 2>/dev/null) == PENDING ]] ||
    fail "cancel of run $id ended the foreign job $foreign: $(squeue -h -j "$foreign" -o %T 2>&1; cat "$WORK/cancel.out")"
jq -r 'select(.argv[0] == "scancel") | .argv[]' "$dir"/commands/*.json | grep -qx "$foreign" &&
    fail "scancel was run with the foreign job id: $(jq -c 'select(.argv[0] == "scancel") | .argv' "$dir"/commands/*.json)"
echo "ok: a journaled job id of another job: status '$state' (not its PENDING), cancel left job $foreign alone"

#!/usr/bin/env bash
# A validation pod that fails (exit 7) fails the validation Job; trainbench deletes the stages
# waiting for it (CANCELLED: their dependency can never be met), the run is FAILED with the
# pod's reason, and the training Job never creates a pod.
source "$(dirname "$0")/k8s_lib.sh"
use_k8s
ns=tb-it-stages-fail
k8s_namespace $ns
write_k8s_stages_recipe "$WORK/r.yaml" it-k8s-stages-fail '{TRAINBENCH_SIM_EXIT_CODE: "7", TRAINBENCH_SIM_RUN: "3s"}' '{}'
id=$(short_id_of "$(tb --json submit "$WORK/r.yaml" --context tb-test --namespace $ns)")
dir=$(ls -d "$WORK"/runs/it-k8s-stages-fail/*)
t=$(stage_jobs "$dir" | awk '$1 == "train" {print $2}')
p=$(stage_jobs "$dir" | awk '$1 == "prepare-data" {print $2}')
[[ -n $t && -n $p ]] || fail "submitted: $(stage_jobs "$dir")"
set +e
tb wait "$id" --timeout 120 --interval 1 >"$WORK/wait.out" 2>&1
rc=$?
set -e
[[ $rc == 4 ]] || fail "wait exit $rc, expected 4: $(cat "$WORK/wait.out")"
st=$(run_json "$id")
jq -e '.state == "FAILED"' <<<"$st" >/dev/null || fail "state: $st"
detail=$(tb status "$id")
grep -q "container training exited with code 7 (Error)" <<<"$detail" || fail "status lacks the pod's reason: $detail"
jq -e -s --arg t "$t" --arg p "$p" '[.[] | select(.event == "state" and (.job_id == $t or .job_id == $p))] | last | .state == "CANCELLED"' \
    "$dir/journal.jsonl" >/dev/null || fail "the waiting stages are not CANCELLED: $(cat "$dir/journal.jsonl")"
grep -q "dependency never satisfied" "$dir/journal.jsonl" || fail "no reason for the cancelled stages"
for j in "$p" "$t"; do
    kc -n $ns get job "$j" >/dev/null 2>&1 && fail "$j was not deleted"
    created=$(kc -n $ns get events --field-selector "involvedObject.name=$j,reason=SuccessfulCreate" -o name)
    [[ -z $created ]] || fail "$j created pods: $created"
done
[[ $(jq -s 'map(select(.event == "state" and .state == "RUNNING" and .stage == "train")) | length' "$dir/journal.jsonl") == 0 ]] ||
    fail "training ran"
echo ok

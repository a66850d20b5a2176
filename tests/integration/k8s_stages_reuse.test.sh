#!/usr/bin/env bash
# Prepared once, reused, on Kubernetes: a second variant of a recipe whose validate and
# prepare-data stages completed in an earlier run submits only its training Job, which waits
# for no stage of its own run and so starts at once (not left suspended); --revalidate
# submits validation again and chains training after it (not after the reused preparation).
source "$(dirname "$0")/k8s_lib.sh"
use_k8s
ns=tb-it-stages-reuse
k8s_namespace $ns
write_k8s_stages_recipe "$WORK/r.yaml" it-k8s-reuse '{TRAINBENCH_SIM_RUN: "2s"}' '{TRAINBENCH_SIM_RUN: "2s"}'
a=$(short_id_of "$(tb --json submit "$WORK/r.yaml" --context tb-test --namespace $ns)")
tb wait "$a" --timeout 180 --interval 1 >"$WORK/wait-a.out" 2>&1 || fail "first run: $(cat "$WORK/wait-a.out")"

b=$(short_id_of "$(tb --json submit "$WORK/r.yaml" -s steps=40 --context tb-test --namespace $ns 2>"$WORK/b.err")")
grep -q "stage validate: reused from run" "$WORK/b.err" || fail "submit did not say it reused: $(cat "$WORK/b.err")"
b_dir=$(run_json "$b" | jq -r .dir)
jq -e 'map(.stage) == ["validate", "prepare-data"]' "$b_dir/reused.json" >/dev/null ||
    fail "reused.json: $(cat "$b_dir/reused.json")"
[[ $(stage_jobs "$b_dir" | cut -d' ' -f1) == train ]] || fail "the second run submitted: $(stage_jobs "$b_dir")"
t=$(stage_jobs "$b_dir" | cut -d' ' -f2)
[[ $(job_field $ns "$t" .spec.suspend) == false ]] || fail "$t waits for a stage that was reused"
tb wait "$b" --timeout 120 --interval 1 >"$WORK/wait-b.out" 2>&1 || fail "second run: $(cat "$WORK/wait-b.out")"

c=$(short_id_of "$(tb --json submit "$WORK/r.yaml" -s steps=50 --revalidate --context tb-test --namespace $ns 2>/dev/null)")
c_dir=$(run_json "$c" | jq -r .dir)
[[ $(stage_jobs "$c_dir" | cut -d' ' -f1 | tr '\n' ' ') == "validate train " ]] ||
    fail "--revalidate submitted: $(stage_jobs "$c_dir")"
# Rendered to wait for prepare-data (reused, so never created): it waits for the validation.
cv=$(stage_jobs "$c_dir" | awk '$1 == "validate" {print $2}')
ct=$(stage_jobs "$c_dir" | awk '$1 == "train" {print $2}')
[[ $(job_field $ns "$ct" '.metadata.annotations.trainbench\.io/after') == "$cv" ]] || fail "$ct does not wait for $cv"
tb wait "$c" --timeout 120 --interval 1 >"$WORK/wait-c.out" 2>&1 || fail "third run: $(cat "$WORK/wait-c.out")"
done_at=$(job_field $ns "$cv" .status.completionTime)
start=$(job_field $ns "$ct" .status.startTime)
[[ ! $start < $done_at ]] || fail "$ct started at $start, before $cv completed ($done_at)"
echo ok

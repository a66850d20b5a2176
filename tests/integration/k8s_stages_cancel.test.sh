#!/usr/bin/env bash
# cancel of a run with stages, during validation: every stage's Job, Service and ConfigMap is
# deleted (the waiting ones too), no pod is left, and the run ends CANCELLED.
source "$(dirname "$0")/k8s_lib.sh"
use_k8s
ns=tb-it-stages-cancel
k8s_namespace $ns
write_k8s_stages_recipe "$WORK/r.yaml" it-k8s-stages-cancel '{TRAINBENCH_SIM_RUN: "600s"}' '{}'
id=$(short_id_of "$(tb --json submit "$WORK/r.yaml" --context tb-test --namespace $ns)")
wait_for_state "$id" RUNNING 90
run_id=$(basename "$(ls -d "$WORK"/runs/it-k8s-stages-cancel/*)")
[[ $(kc -n $ns get job,service,configmap -l "trainbench.io/run-id=$run_id" -o name | wc -l) == 9 ]] ||
    fail "not every stage's objects exist: $(kc -n $ns get job,service,configmap -l "trainbench.io/run-id=$run_id" -o name)"
tb cancel "$id" >"$WORK/cancel.out" 2>&1 || fail "cancel: $(cat "$WORK/cancel.out")"
for ((i = 0; i < 120; i++)); do
    left=$(kc -n $ns get job,service,configmap,pods -l "trainbench.io/run-id=$run_id" -o name)
    [[ -z $left ]] && break
    sleep 0.5
done
[[ -z $left ]] || fail "objects left after cancel: $left"
wait_for_state "$id" CANCELLED 30
echo ok

#!/usr/bin/env bash
# submit against the real API server: kubectl apply creates the ConfigMap, the headless Service
# and the Indexed Job in the namespace given with --namespace (the recipe's target names
# "default"); the real scheduler places the pods on two fake A3 Mega nodes (8 GPUs each) once
# the scheduling gate is lifted; status/wait follow the Job through RUNNING to COMPLETED; logs
# comes from the pods (kwok) into the run directory.
source "$(dirname "$0")/k8s_lib.sh"
use_k8s
ns=tb-it-complete
k8s_namespace $ns
write_k8s_recipe "$WORK/r.yaml" it-k8s-complete 2 '{TRAINBENCH_SIM_RUN: "8s"}'
pod_log_lines "step 1 loss 10.5" "training done"

out=$(tb --json submit "$WORK/r.yaml" --context tb-test --namespace $ns) || fail "submit: $out"
id=$(short_id_of "$out")
dir=$(ls -d "$WORK"/runs/it-k8s-complete/*)
job=$(jq -r 'select(.event == "submitted") | .job_id' "$dir/journal.jsonl")
[[ $job == it-k8s-complete-$id ]] || fail "the Job name keeps the recipe name's start and the short id: '$job'"
kc -n $ns get configmap "$job" >/dev/null || fail "no ConfigMap"
[[ $(kc -n $ns get service "$job" -o jsonpath='{.spec.clusterIP}') == None ]] || fail "the Service is not headless"
kc -n $ns get job "$job" -o json | jq -e '.spec.completionMode == "Indexed" and .spec.completions == 2 and
    (.spec.template.spec.schedulingGates | map(.name) == ["gke.io/topology-aware-auto-scheduling"])' >/dev/null ||
    fail "the Job: $(kc -n $ns get job "$job" -o json | jq -c .spec)"
[[ -z $(kc -n default get jobs -o name) ]] || fail "something went to the recipe's namespace 'default'"
jq -e '.kube_namespace == "tb-it-complete" and .kube_context == "tb-test"' "$dir/run.json" >/dev/null ||
    fail "run.json: $(cat "$dir/run.json")"

wait_for_state "$id" RUNNING 90
nodes=$(run_json "$id" | jq -r '.stages[0].nodes // .nodes // ""')
tb wait "$id" --timeout 120 --interval 1 >"$WORK/wait.out" 2>&1 || fail "wait: $(cat "$WORK/wait.out")"
grep -q "$id COMPLETED" "$WORK/wait.out" || fail "wait printed: $(cat "$WORK/wait.out")"
kc -n $ns get pods -l job-name="$job" -o json | jq -e '[.items[].spec.nodeName | select(startswith("a3mega-"))] | length == 2' >/dev/null ||
    fail "pods not on the fake A3 Mega nodes (status nodes: $nodes)"
# wait collected the logs: every pod's containers (prefixed) and rank 0's training container.
grep -q "^\[pod/$job-0-[a-z0-9]*/training\] step 1 loss 10.5" "$dir/logs/train/kubectl-$job.log" ||
    fail "prefixed log: $(head -5 "$dir/logs/train/kubectl-$job.log")"
[[ $(cat "$dir/logs/train/training-0.log") == $'step 1 loss 10.5\ntraining done' ]] ||
    fail "rank 0 log: $(cat "$dir/logs/train/training-0.log")"
tb logs "$id" | grep -q "training done" || fail "trainbench logs"
echo ok

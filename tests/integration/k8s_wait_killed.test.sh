#!/usr/bin/env bash
# trainbench killed (SIGKILL) in the middle of `wait` on a Kubernetes run: the Job keeps
# running in the cluster, and a new `wait` (another process) picks the run up from its run
# directory and follows it to COMPLETED. Also: --context alone puts the objects in the
# context's namespace (tb-other), which run.json records.
source "$(dirname "$0")/k8s_lib.sh"
use_k8s
ns=tb-other                      # the namespace of the kubeconfig's context "tb-other"
k8s_namespace $ns
write_k8s_recipe "$WORK/r.yaml" it-k8s-killed 1 '{TRAINBENCH_SIM_RUN: "12s"}'
id=$(short_id_of "$(tb --json submit "$WORK/r.yaml" --context tb-other)")
dir=$(ls -d "$WORK"/runs/it-k8s-killed/*)
job=$(jq -r 'select(.event == "submitted") | .job_id' "$dir/journal.jsonl")
kc -n $ns get job "$job" >/dev/null || fail "the Job is not in the context's namespace"

tb wait "$id" --interval 1 >"$WORK/wait1.out" 2>&1 &
pid=$!
wait_for_state "$id" RUNNING 90
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
[[ $(kc -n $ns get job "$job" -o jsonpath='{.status.active}') == 1 ]] || fail "the Job did not keep running"

tb wait "$id" --timeout 120 --interval 1 >"$WORK/wait2.out" 2>&1 || fail "second wait: $(cat "$WORK/wait2.out")"
grep -q "$id COMPLETED" "$WORK/wait2.out" || fail "second wait printed: $(cat "$WORK/wait2.out")"
[[ $(jq -s 'map(select(.event == "finished")) | length' "$dir/journal.jsonl") == 1 ]] || fail "finished twice"
echo ok

#!/usr/bin/env bash
# trainbench killed (SIGKILL) in the middle of `wait` on a Kubernetes run: the Job keeps
# running in the cluster, and a new `wait` (another process) picks the run up from its run
# directory and follows it to COMPLETED, with the --context and --namespace of the submission
# (kept in run.json) on every kubectl call.
source "$(dirname "$0")/k8s_lib.sh"
use_k8s
ns=tb-it-killed
k8s_namespace $ns
write_k8s_recipe "$WORK/r.yaml" it-k8s-killed 1 '{TRAINBENCH_SIM_RUN: "12s"}'
id=$(short_id_of "$(tb --json submit "$WORK/r.yaml" --context tb-other --namespace $ns)")
dir=$(ls -d "$WORK"/runs/it-k8s-killed/*)
job=$(jq -r 'select(.event == "submitted") | .job_id' "$dir/journal.jsonl")
kc -n $ns get job "$job" >/dev/null || fail "the Job is not in namespace $ns"

# The binary itself in the background (not the tb function: killing its subshell would leave
# trainbench running, writing into the run directory while the test goes on and cleans up).
"$TB" --runs "$WORK/runs" wait "$id" --interval 1 >"$WORK/wait1.out" 2>&1 &
pid=$!
wait_for_state "$id" RUNNING 90
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
[[ $(kc -n $ns get job "$job" -o jsonpath='{.status.active}') == 1 ]] || fail "the Job did not keep running"

tb wait "$id" --timeout 120 --interval 1 >"$WORK/wait2.out" 2>&1 || fail "second wait: $(cat "$WORK/wait2.out")"
grep -q "$id COMPLETED" "$WORK/wait2.out" || fail "second wait printed: $(cat "$WORK/wait2.out")"
[[ $(jq -s 'map(select(.event == "finished")) | length' "$dir/journal.jsonl") == 1 ]] || fail "finished twice"
# every kubectl call of both waits used the run's context and namespace
jq -e -s 'map(select(.argv[0] == "kubectl")) | length > 0 and
    all(.[]; .argv[1:5] == ["--context", "tb-other", "--namespace", "tb-it-killed"])' "$dir"/commands/*.json >/dev/null ||
    fail "kubectl calls without the run's context/namespace"
echo ok

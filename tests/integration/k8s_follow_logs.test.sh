#!/usr/bin/env bash
# Results that survive the pod: while `wait` runs, rank 0's training container log streams into
# the run directory (logs/train/training-0.log, each line once, while the run is still RUNNING);
# the launch script's own marker puts rank 0's standard output where metrics.path names it
# (logs/train/train.log); after the Job and its pods are deleted (as ttlSecondsAfterFinished
# does), `logs` and `report` still work from what was streamed; and the combined
# `kubectl logs --all-containers --prefix` file ("[pod/NAME/CONTAINER] " lines) reports the same.
source "$(dirname "$0")/k8s_lib.sh"
use_k8s
ns=tb-it-follow
k8s_namespace $ns
write_k8s_recipe "$WORK/r.yaml" it-k8s-follow 1 '{TRAINBENCH_SIM_RUN: "25s"}'
echo 'metrics: {path: train.log, source: megatron, window: [2, 5]}' >>"$WORK/r.yaml"

# The marker line as the rendered launch script prints it (run here: no container runs).
"$TB" render "$WORK/r.yaml" -o "$WORK/out" >/dev/null
launch=$(find "$WORK/out" -path '*/train/launch.sh' -not -path '*/chart/*' | head -1)
marker_cmd=$(grep -F 'trainbench stdout:' "$launch" | grep -v '^#')
[[ -n $marker_cmd ]] || fail "the launch script prints no stdout marker for metrics.path"
marker=$(NODE_RANK=0 bash -c "$marker_cmd")
[[ $marker == "==> trainbench stdout: logs/train/train.log <==" ]] || fail "marker: $marker"

iteration() {  # iteration N: a Megatron-LM iteration line, 1.5 s + N ms per step
    printf ' iteration %8d/      30 | consumed samples: %12d | elapsed time per iteration (ms): %.1f | learning rate: 1.000000E-04 | global batch size:     8 | lm loss: 5.000000E+00 | loss scale: 1.0 | number of skipped iterations:   0 | number of nan iterations:   0 |' \
        "$1" $(($1 * 8)) "$((1500 + $1)).0"
}
pod_log_lines "$marker" "$(iteration 1)" "$(iteration 2)" "$(iteration 3)"

id=$(short_id_of "$(tb --json submit "$WORK/r.yaml" --context tb-test --namespace $ns)")
dir=$(ls -d "$WORK"/runs/it-k8s-follow/*)
job=$(jq -r 'select(.event == "submitted") | .job_id' "$dir/journal.jsonl")
tb wait "$id" --timeout 180 --interval 1 >"$WORK/wait.out" 2>&1 &
waiter=$!

# Streamed while the run is RUNNING (the final collection after the wait has not happened).
for ((i = 0; i < 120; i++)); do
    grep -q 'iteration        3/' "$dir/logs/train/training-0.log" 2>/dev/null && break
    sleep 0.5
done
grep -q 'iteration        3/' "$dir/logs/train/training-0.log" 2>/dev/null ||
    fail "nothing streamed: $(cat "$WORK/wait.out"; ls -R "$dir/logs" 2>&1)"
[[ $(run_json "$id" | jq -r .state) == RUNNING ]] || fail "the log came only after the run ended"
[[ ! -e $dir/logs/train/kubectl-$job.log ]] || fail "the final collection ran already"
# The pod prints more (a later second): only the new lines are added.
{
    cat "$TRAINBENCH_K8S_DIR/pod-logs/training.log"
    for n in 4 5; do printf '2025-01-01T00:00:05.000000000Z stdout F %s\n' "$(iteration $n)"; done
} >"$WORK/more.log"
mv "$WORK/more.log" "$TRAINBENCH_K8S_DIR/pod-logs/training.log"
wait "$waiter" || fail "wait: $(cat "$WORK/wait.out")"
grep -q "$id COMPLETED" "$WORK/wait.out" || fail "wait printed: $(cat "$WORK/wait.out")"
for n in 1 2 3 4 5; do
    c=$(grep -c "iteration        $n/" "$dir/logs/train/training-0.log")
    [[ $c == 1 ]] || fail "iteration $n is in training-0.log $c times: $(cat "$dir/logs/train/training-0.log")"
done
cmp -s "$dir/logs/train/training-0.log" "$dir/logs/train/train.log" || fail "train.log (metrics.path) differs"

# The cluster deletes the Job and its pods later: what was collected stays usable.
kc -n $ns delete job "$job" --cascade=foreground --wait=true >/dev/null
[[ -z $(kc -n $ns get pods -l job-name="$job" -o name) ]] || fail "pods left"
tb logs "$id" >"$WORK/logs.out" 2>&1 || fail "logs after the pods are gone: $(cat "$WORK/logs.out")"
grep -q 'iteration        5/' "$WORK/logs.out" || fail "logs: $(cat "$WORK/logs.out")"
report=$(tb report "$dir") || fail "report: $report"
want=$("$TB" report "$dir/logs/train/train.log" --format megatron --window 2:5 --gpus 8 --gpu h100 --model tinygpt-tiny \
    --precision bf16 --global-batch 8)
# The step time is read from its report field ("  step time (window mean)  1.50350000 s"), must
# be a number, and each report must have the same field.
step_of() { sed -n 's/^  step time (window mean)  *\([0-9][0-9]*\.[0-9][0-9]*\) s$/\1/p'; }
step=$(step_of <<<"$want")
[[ $step =~ ^[0-9]+\.[0-9]+$ ]] || fail "no step time in the reference report: $want"
[[ $(step_of <<<"$report") == "$step" ]] || fail "report's step time is not $step s: $report"
# The prefixed kubectl file reads the same (every parser strips "[pod/NAME/CONTAINER] ").
grep -q "^\[pod/$job-0-[a-z0-9]*/training\] ==> trainbench stdout" "$dir/logs/train/kubectl-$job.log" ||
    fail "kubectl-$job.log is not prefixed: $(head -3 "$dir/logs/train/kubectl-$job.log")"
prefixed=$("$TB" report "$dir/logs/train/kubectl-$job.log" --window 2:5 --gpus 8 --gpu h100 --model tinygpt-tiny \
    --precision bf16 --global-batch 8) || fail "report on the prefixed log: $prefixed"
[[ $(step_of <<<"$prefixed") == "$step" ]] || fail "the prefixed log reports another step time than $step s: $prefixed"
echo "ok: step time $step s from the streamed log, after the pods are gone, and from the prefixed kubectl log"

#!/usr/bin/env bash
# validate -> prepare-data -> train on the Kubernetes test cluster: the later stages' Jobs are
# created suspended and get no pod until the Job before them succeeded; trainbench (status,
# wait) releases them, so without it the chain waits; a `wait` killed mid-way is taken over by
# the next one; each stage starts only after the one before it completed.
source "$(dirname "$0")/k8s_lib.sh"
use_k8s
ns=tb-it-stages
k8s_namespace $ns
write_k8s_stages_recipe "$WORK/r.yaml" it-k8s-stages '{TRAINBENCH_SIM_RUN: "6s"}' '{TRAINBENCH_SIM_RUN: "6s"}'
tb validate "$WORK/r.yaml" >/dev/null || fail "the recipe does not validate: $(tb validate "$WORK/r.yaml" 2>&1)"
id=$(short_id_of "$(tb --json submit "$WORK/r.yaml" --context tb-test --namespace $ns)")
dir=$(ls -d "$WORK"/runs/it-k8s-stages/*)
mapfile -t jobs < <(stage_jobs "$dir" | cut -d' ' -f2)
[[ ${#jobs[@]} == 3 ]] || fail "submitted: $(stage_jobs "$dir")"
v=${jobs[0]} p=${jobs[1]} t=${jobs[2]}

# Right after submit: the later stages wait, suspended, without pods.
for j in "$p" "$t"; do
    [[ $(job_field $ns "$j" .spec.suspend) == true ]] || fail "$j is not suspended"
done
[[ $(job_field $ns "$p" '.metadata.annotations.trainbench\.io/after') == "$v" ]] || fail "$p does not wait for $v"
[[ $(job_field $ns "$t" '.metadata.annotations.trainbench\.io/after') == "$p" ]] || fail "$t does not wait for $p"

# Nobody asks: validation completes in the cluster, and the chain waits for trainbench.
kc -n $ns wait --for=condition=complete "job/$v" --timeout=90s >/dev/null || fail "validation did not complete"
sleep 3
[[ $(job_field $ns "$p" .spec.suspend) == true ]] || fail "$p started without trainbench"
[[ -z $(kc -n $ns get pods -l "job-name in ($p,$t)" -o name) ]] || fail "pods of a waiting stage exist"

# A wait, killed once it started data preparation; the next wait drives the rest.
# The binary itself in the background (not the tb function: killing its subshell would leave
# trainbench running, writing into the run directory while the test goes on and cleans up).
"$TB" --runs "$WORK/runs" wait "$id" --interval 1 >"$WORK/wait1.out" 2>&1 &
pid=$!
for ((i = 0; i < 60; i++)); do
    [[ $(job_field $ns "$p" .spec.suspend) == false ]] && break
    sleep 0.5
done
kill -KILL "$pid"
wait "$pid" 2>/dev/null || true
[[ $(job_field $ns "$p" .spec.suspend) == false ]] || fail "wait did not start $p: $(cat "$WORK/wait1.out")"
[[ $(job_field $ns "$t" .spec.suspend) == true ]] || fail "$t started while $p runs"
tb wait "$id" --timeout 180 --interval 1 >"$WORK/wait2.out" 2>&1 || fail "second wait: $(cat "$WORK/wait2.out")"
grep -q "$id COMPLETED" "$WORK/wait2.out" || fail "second wait printed: $(cat "$WORK/wait2.out")"

# Each stage's Job and pods started at or after the completion of the stage before it.
for pair in "$v $p" "$p $t"; do
    read -r a b <<<"$pair"
    done_at=$(job_field $ns "$a" .status.completionTime)
    start=$(job_field $ns "$b" .status.startTime)
    [[ -n $done_at && -n $start && ! $start < $done_at ]] || fail "$b started at $start, before $a completed ($done_at)"
    while read -r created; do
        [[ ! $created < $done_at ]] || fail "a pod of $b was created at $created, before $a completed ($done_at)"
    done < <(kc -n $ns get pods -l "job-name=$b" -o jsonpath='{range .items[*]}{.metadata.creationTimestamp}{"\n"}{end}')
done
[[ $(kc -n $ns get pods -l "job-name=$t" -o name | wc -l) == 2 ]] || fail "training did not run on 2 pods"
jq -e '.state == "COMPLETED"' <<<"$(run_json "$id")" >/dev/null || fail "state: $(run_json "$id")"
echo ok

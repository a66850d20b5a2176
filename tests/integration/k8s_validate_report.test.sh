#!/usr/bin/env bash
# A Kubernetes validation with a slow node, from the pods to the report: the rendered launch
# script runs for real in three local "pods" with Open MPI (mpi_pods_lib.sh), node-2 slow;
# what pod 0 printed becomes the log of the test cluster's validation pods (kwok runs no
# containers), the validation Job fails, and trainbench takes the results out of pod 0's
# log: the run is FAILED, training never starts, and every report format names node-2 as
# the bad node (node-1 passed with node-0, so it is not).
source "$(dirname "$0")/k8s_lib.sh"
source "$(dirname "$0")/mpi_pods_lib.sh"
use_k8s
ns=tb-it-validate-report
k8s_namespace $ns
mpi_pods_setup
run_pods node-2
[[ $(cat "$WORK/rc-0") == 1 ]] || fail "pod 0 exited $(cat "$WORK/rc-0") with a slow node: $(tail -20 "$WORK/pod-0.log")"
mapfile -t lines <"$WORK/pod-0.log"
pod_log_lines "${lines[@]}"

# The same recipe on the test cluster, its validation pods failing as pod 0 did.
cat >"$WORK/cluster.yaml" <<YAML
version: 1
name: it-k8s-validate-report
extends: [r.yaml]
stages:
  - name: validate
    kind: validate
    options:
      nodes: 3
      dcgm: {enabled: true, level: 1}
      nccl:
        gpus_per_rank: 4
        busbw_threshold_gbs: 50
        env: {TRAINBENCH_SIM_EXIT_CODE: "1", TRAINBENCH_SIM_RUN: "2s"}
  - {name: train, kind: train}
YAML
id=$(short_id_of "$(tb --json submit "$WORK/cluster.yaml" --context tb-test --namespace $ns)")
rc=0
tb wait "$id" --timeout 120 --interval 1 >"$WORK/wait.out" 2>&1 || rc=$?
[[ $rc == 4 ]] || fail "wait exit $rc, expected 4 (FAILED): $(cat "$WORK/wait.out")"
dir=$(run_json "$id" | jq -r .dir)
[[ $(cat "$dir/logs/validate/nodes.txt") == $'node-0\nnode-1\nnode-2' ]] ||
    fail "the results were not taken from pod 0's log: $(ls -R "$dir/logs")"
[[ $(jq -s 'map(select(.event == "state" and .state == "RUNNING" and .stage == "train")) | length' "$dir/journal.jsonl") == 0 ]] ||
    fail "training ran after a failed validation"

rc=0
tb report "$id" --peak 100 >"$WORK/bad.txt" 2>&1 || rc=$?
[[ $rc == 5 ]] || fail "report of a failed validation exit $rc: $(cat "$WORK/bad.txt")"
grep -q "Cluster validation: FAIL" "$WORK/bad.txt" || fail "text: $(cat "$WORK/bad.txt")"
tb report "$id" --peak 100 --markdown >"$WORK/bad.md" 2>/dev/null || true
grep -q 'Bad nodes:\*\* node-2$' "$WORK/bad.md" || fail "markdown does not name node-2 alone: $(cat "$WORK/bad.md")"
tb report "$id" --peak 100 --html "$WORK/bad.html" --junit "$WORK/bad.xml" >/dev/null 2>&1 || true
grep -q "bad-nodes.*node-2" "$WORK/bad.html" || fail "HTML does not name the bad node"
grep -q 'failure message="bad nodes: node-2' "$WORK/bad.xml" || fail "JUnit: $(cat "$WORK/bad.xml")"
tb --json report "$id" --peak 100 2>/dev/null >"$WORK/bad.json" || true
jq -e '.validation.bad_nodes == ["node-2"]' "$WORK/bad.json" >/dev/null ||
    fail "JSON bad_nodes: $(jq -c .validation "$WORK/bad.json" | head -c 800)"
echo ok

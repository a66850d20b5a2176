#!/usr/bin/env bash
# A pod that fails (its training container exits 3) makes the real Job controller fail the Job
# (backoffLimit 0); the run is FAILED with the pod's own reason in `status`.
source "$(dirname "$0")/k8s_lib.sh"
use_k8s
ns=tb-it-failed
k8s_namespace $ns
write_k8s_recipe "$WORK/r.yaml" it-k8s-failed 1 '{TRAINBENCH_SIM_EXIT_CODE: "3", TRAINBENCH_SIM_RUN: "2s"}'
id=$(short_id_of "$(tb --json submit "$WORK/r.yaml" --context tb-test --namespace $ns)")
set +e
tb wait "$id" --timeout 120 --interval 1 >"$WORK/wait.out" 2>&1
rc=$?
set -e
[[ $rc == 4 ]] || fail "wait exit $rc, expected 4: $(cat "$WORK/wait.out")"
st=$(run_json "$id")
jq -e '.state == "FAILED"' <<<"$st" >/dev/null || fail "state: $st"
detail=$(tb status "$id")
grep -q "container training exited with code 3 (Error)" <<<"$detail" || fail "status lacks the pod's reason: $detail"
grep -q "BackoffLimitExceeded" <<<"$detail" || fail "status lacks the Job's reason: $detail"
echo ok

#!/usr/bin/env bash
# cancel of a running Kubernetes run deletes its Job, Service and ConfigMap; the garbage
# collector deletes the pods; the run ends CANCELLED.
source "$(dirname "$0")/k8s_lib.sh"
use_k8s
ns=tb-it-cancel
k8s_namespace $ns
write_k8s_recipe "$WORK/r.yaml" it-k8s-cancel 2 '{TRAINBENCH_SIM_RUN: "600s"}'
id=$(short_id_of "$(tb --json submit "$WORK/r.yaml" --context tb-test --namespace $ns)")
wait_for_state "$id" RUNNING 90
run_id=$(basename "$(ls -d "$WORK"/runs/it-k8s-cancel/*)")
selector="trainbench.io/run-id=$run_id"
# The selector that must find nothing after the cancel finds the run's objects before it: one Job,
# its headless Service and ConfigMap, and a pod per node (2), else "nothing left" proves nothing.
objects=$(kc -n $ns get job,service,configmap,pods -l "$selector" -o name)
for kind in job service configmap; do
    [[ $(grep -c "^${kind}[./]" <<<"$objects") == 1 ]] || fail "before cancel, $selector selects no single $kind: $objects"
done
[[ $(grep -c '^pod/' <<<"$objects") == 2 ]] || fail "before cancel, $selector selects not 2 pods: $objects"
tb cancel "$id" >"$WORK/cancel.out" 2>&1 || fail "cancel: $(cat "$WORK/cancel.out")"
for ((i = 0; i < 120; i++)); do
    left=$(kc -n $ns get job,service,configmap,pods -l "$selector" -o name)
    [[ -z $left ]] && break
    sleep 0.5
done
[[ -z $left ]] || fail "objects left after cancel: $left"
wait_for_state "$id" CANCELLED 30
echo "ok: cancel deleted $(wc -l <<<"$objects") objects selected by $selector: $(tr '\n' ' ' <<<"$objects")"

#!/usr/bin/env bash
# `kubernetes.install: helm`: trainbench submits the chart it rendered with `helm install`
# (release = the Job's name, in the --namespace given, through the --context given), follows
# the Job to COMPLETED like an applied one, and `cancel` uninstalls the release (no release,
# Job, Service or ConfigMap left).
source "$(dirname "$0")/k8s_lib.sh"
use_k8s
[[ -n ${TRAINBENCH_K8S_HELM:-} ]] || { echo "skip: helm is not installed (scripts/setup.sh --test)"; exit 125; }
ns=tb-it-helm-submit
k8s_namespace $ns
helm_ls() { helm --kube-context tb-test list -n $ns -q; }
write_k8s_recipe "$WORK/done.yaml" it-helm-done 2 '{TRAINBENCH_SIM_RUN: "3s"}'
write_k8s_recipe "$WORK/cancel.yaml" it-helm-cancel 1 '{TRAINBENCH_SIM_RUN: "600s"}'
for f in done cancel; do echo 'kubernetes: {install: helm}' >>"$WORK/$f.yaml"; done

out=$(tb --json submit "$WORK/done.yaml" --context tb-other --namespace $ns) || fail "submit: $out"
done_id=$(short_id_of "$out")
done_dir=$(ls -d "$WORK"/runs/it-helm-done/*)
job=$(jq -r 'select(.event == "submitted") | .job_id' "$done_dir/journal.jsonl")
[[ $job == it-helm-done-$done_id ]] || fail "job id '$job'"
[[ $(helm_ls) == "$job" ]] || fail "helm releases: $(helm_ls)"
kc -n $ns get job "$job" -o json | jq -e '.metadata.labels["app.kubernetes.io/managed-by"] == "Helm" and
    .spec.completions == 2' >/dev/null || fail "the Job is not the release's: $(kc -n $ns get job "$job" -o json | jq -c .metadata)"
tb wait "$done_id" --timeout 120 --interval 1 >"$WORK/wait.out" 2>&1 || fail "wait: $(cat "$WORK/wait.out")"
grep -q "$done_id COMPLETED" "$WORK/wait.out" || fail "wait printed: $(cat "$WORK/wait.out")"
jq -e -s 'map(select(.argv[0] == "helm")) | length == 1 and
    (.[0].argv[0:5] == ["helm", "--kube-context", "tb-other", "--namespace", "tb-it-helm-submit"])' \
    "$done_dir"/commands/*.json >/dev/null || fail "helm calls: $(jq -c .argv "$done_dir"/commands/*.json)"

id=$(short_id_of "$(tb --json submit "$WORK/cancel.yaml" --context tb-test --namespace $ns)")
cancel_dir=$(ls -d "$WORK"/runs/it-helm-cancel/*)
rel=$(jq -r 'select(.event == "submitted") | .job_id' "$cancel_dir/journal.jsonl")
wait_for_state "$id" RUNNING 90
tb cancel "$id" >"$WORK/cancel.out" 2>&1 || fail "cancel: $(cat "$WORK/cancel.out")"
helm_ls | grep -qx "$rel" && fail "release $rel still installed after cancel"
for ((i = 0; i < 120; i++)); do
    left=$(kc -n $ns get job,service,configmap,pods -l "trainbench.io/run-id=$(basename "$cancel_dir")" -o name)
    [[ -z $left ]] && break
    sleep 0.5
done
[[ -z $left ]] || fail "objects left after cancel: $left"
wait_for_state "$id" CANCELLED 30
echo ok

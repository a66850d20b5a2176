#!/usr/bin/env bash
# The Helm path against the real API server: `helm install` of the chart trainbench renders for
# the GKE smoke recipe (16 pods, 8 GPUs each, on the 16 fake A3 Mega nodes) creates the ConfigMap,
# the headless Service and the Indexed Job named after the release; the Job completes; `helm
# uninstall` removes every object again.
source "$(dirname "$0")/k8s_lib.sh"
use_k8s
[[ -n ${TRAINBENCH_K8S_HELM:-} ]] || { echo "skip: helm is not installed (scripts/setup.sh --test)"; exit 125; }
ns=tb-it-helm
k8s_namespace $ns
recipe=$(dirname "$0")/../../recipes/gcp-a3-mega/gpt3-175b-fp8-smoke.yaml
"$TB" render "$recipe" -o "$WORK/out" >/dev/null
chart=$(dirname "$(find "$WORK/out" -name Chart.yaml | head -1)")
rel=gpt3-smoke-helm
helm --kube-context tb-test install $rel "$chart" -n $ns --wait --wait-for-jobs --timeout 180s >"$WORK/helm.out" 2>&1 ||
    fail "helm install: $(cat "$WORK/helm.out")"
kc -n $ns get configmap,service $rel >/dev/null || fail "no ConfigMap/Service"
kc -n $ns get job $rel -o json | jq -e '.status.succeeded == 16 and
    any(.status.conditions[]; .type == "Complete" and .status == "True")' >/dev/null ||
    fail "the Job: $(kc -n $ns get job $rel -o json | jq -c .status)"
helm --kube-context tb-test uninstall $rel -n $ns --wait --timeout 120s >/dev/null || fail "helm uninstall"
left=$(kc -n $ns get job,service,configmap -l app.kubernetes.io/instance=$rel -o name)
[[ -z $left ]] || fail "left after uninstall: $left"
[[ -z $(helm --kube-context tb-test list -n $ns -q) ]] || fail "the release is still listed"
echo ok

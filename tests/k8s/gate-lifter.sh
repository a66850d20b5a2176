#!/usr/bin/env bash
# The test cluster's stand-in for GKE's topology-aware placement: every second, removes the
# scheduling gates of pending pods so the real kube-scheduler can place them.
#   gate-lifter.sh KUBECTL KUBECONFIG      (started and stopped by tests/k8s/cluster.sh)
set -uo pipefail
kubectl=$1 kc=$2
while true; do
    "$kubectl" --kubeconfig="$kc" get pods -A --field-selector=status.phase=Pending -o json 2>/dev/null |
        jq -r '.items[] | select((.spec.schedulingGates // []) | length > 0) |
               "\(.metadata.namespace) \(.metadata.name)"' |
        while read -r ns name; do
            "$kubectl" --kubeconfig="$kc" patch pod -n "$ns" "$name" --type=json \
                -p '[{"op": "remove", "path": "/spec/schedulingGates"}]' >/dev/null 2>&1 || true
        done
    sleep 1
done

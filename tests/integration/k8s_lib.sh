# shellcheck shell=bash
# Shared by the k8s_*.test.sh integration tests (sourced; not a test itself): runs_lib.sh plus
# the test cluster of tests/k8s/cluster.sh (a real kube-apiserver, KCM and scheduler; kwok nodes).
# Gives: use_k8s, k8s_namespace NAME, write_k8s_recipe, kc (kubectl on the test cluster),
# pod_log_lines (what the fake training containers print).
source "$(dirname "${BASH_SOURCE[0]}")/runs_lib.sh"

use_k8s() {
    [[ -n ${TRAINBENCH_K8S_DIR:-} && -f $TRAINBENCH_K8S_DIR/env.sh ]] ||
        { echo "skip: no Kubernetes test cluster (the k8s_cluster fixture did not start)"; exit 125; }
    # shellcheck disable=SC1091
    source "$TRAINBENCH_K8S_DIR/env.sh"
    kubectl get --raw /readyz >/dev/null 2>&1 || fail "the Kubernetes test cluster does not answer"
}

kc() { kubectl --context tb-test "$@"; }

# k8s_namespace NAME: a fresh namespace with its default service account (removed on exit).
k8s_namespace() {
    kc delete namespace "$1" --ignore-not-found --wait=true >/dev/null
    kc create namespace "$1" >/dev/null
    for ((i = 0; i < 100; i++)); do
        kc -n "$1" get serviceaccount default >/dev/null 2>&1 && break
        sleep 0.2
    done
    K8S_NAMESPACES+=("$1")
    trap k8s_cleanup EXIT
}
K8S_NAMESPACES=()
k8s_cleanup() {
    local n
    for n in "${K8S_NAMESPACES[@]}"; do kc delete namespace "$n" --wait=false >/dev/null 2>&1; done
    rm -rf "$WORK"
}

# write_k8s_recipe FILE NAME NODES [ENV_YAML]: a `custom` recipe on the A3 Mega target (TCPXO
# sidecar and init container, hostNetwork, the GKE scheduling gate). ENV_YAML steers the fake
# pods: TRAINBENCH_SIM_RUN (how long they run), TRAINBENCH_SIM_EXIT_CODE (fail with it).
write_k8s_recipe() {
    local file=$1 name=$2 nodes=$3 env=${4:-"{}"}
    cat >"$file" <<YAML
version: 1
name: $name
target: gcp-a3-megagpu-8g
model: tinygpt-tiny
framework: custom
nodes: $nodes
gpus_per_node: 8
batch: {micro: 1, global: $((nodes * 8))}
precision: bf16
steps: 30
data: mock
container: {image: "registry.example/trainbench-test:1"}
launch: {command: ["/bin/sh", "-c", "echo training"], log_format: megatron}
env: $env
YAML
}

# pod_log_lines LINE...: what every fake training container prints from now on (CRI format).
pod_log_lines() {
    local l
    for l in "$@"; do printf '2025-01-01T00:00:00.000000000Z stdout F %s\n' "$l"; done >"$TRAINBENCH_K8S_DIR/pod-logs/training.log.tmp"
    mv "$TRAINBENCH_K8S_DIR/pod-logs/training.log.tmp" "$TRAINBENCH_K8S_DIR/pod-logs/training.log"
}

# write_k8s_stages_recipe FILE NAME VALIDATE_ENV PREPARE_ENV [ENV_YAML]: write_k8s_recipe (2
# nodes) with three stages: validate (nccl-tests over 2 nodes; VALIDATE_ENV is its nccl.env),
# prepare-data (a custom command; PREPARE_ENV is its env) and train. The env maps steer each
# stage's fake pods as ENV_YAML steers every stage's.
write_k8s_stages_recipe() {
    local file=$1 name=$2 venv=$3 penv=$4 env=${5:-"{}"}
    write_k8s_recipe "$file" "$name" 2 "$env"
    cat >>"$file" <<YAML
stages:
  - name: validate
    kind: validate
    options:
      nodes: 2
      dcgm: {enabled: false}
      nccl: {env: $venv}
  - name: prepare-data
    kind: prepare-data
    options:
      dataset: custom
      command: ["/bin/sh", "-c", "echo prepared"]
      prefixes: [{prefix: /data/corpus_text_document}]
      env: $penv
  - {name: train, kind: train}
YAML
}

# stage_jobs DIR: "stage job" lines of a run's submitted stages, in order.
stage_jobs() { jq -r 'select(.event == "submitted") | "\(.stage) \(.job_id)"' "$1/journal.jsonl"; }

# job_field NS JOB JSONPATH
job_field() { kc -n "$1" get job "$2" -o jsonpath="{$3}"; }

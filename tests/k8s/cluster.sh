#!/usr/bin/env bash
# A real Kubernetes control plane on 127.0.0.1 for the k8s_*.test.sh integration tests:
# etcd, kube-apiserver (generated CA, serving cert, static admin token, RBAC), the real
# kube-controller-manager (Job, EndpointSlice, GC, namespace and service-account
# controllers), kube-scheduler, and kwok, which plays the kubelet of 16 fake A3 Mega nodes
# (a3-megagpu-8g, nvidia.com/gpu: 8): pods go Pending -> Running -> Succeeded or Failed by
# the project's stages (tests/k8s/kwok/stages.yaml) and `kubectl logs` answers from files.
#
#   cluster.sh start DIR   build the binaries if needed (tests/k8s/build-tools.sh, cached
#                          outside the repository), start everything under DIR, wait for the
#                          nodes to be Ready; write DIR/env.sh (KUBECONFIG, PATH with kubectl
#                          and helm) and DIR/kubeconfig (contexts "tb-test" and "tb-other")
#   cluster.sh stop DIR    stop what `start` started, by PID, one process at a time
#   cluster.sh status DIR  exit 0 when the API server answers
#
# Fails (exit 1) when no Go >= 1.24 can be found or installed (tests/k8s/go-toolchain.sh), exits
# 125 (CTest's "skipped") without openssl or python3. No container runs and no packet goes
# to a pod: pod IPs are data. Timings: docs/development.md.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
NODES=16

die() { echo "k8s_cluster: $*" >&2; exit 1; }
log() { echo "k8s_cluster: $*" >&2; }

[[ $# -eq 2 ]] || { echo "usage: cluster.sh {start|stop|status} DIR" >&2; exit 2; }
action=$1
mkdir -p "$2"
DIR=$(cd "$2" && pwd)
K=$DIR/kubeconfig
PROCS=(gate-lifter kwok kube-scheduler kube-controller-manager kube-apiserver etcd)  # stop order
export NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost

proc_alive() { local s; s=$(ps -o stat= -p "$1" 2>/dev/null) || return 1; [[ -n $s && $s != Z* ]]; }
pid_of() { [[ -s $DIR/run/$1.pid ]] && cat "$DIR/run/$1.pid"; }

stop_all() {
    local p pid i
    for p in "${PROCS[@]}"; do
        pid=$(pid_of "$p") || continue
        if proc_alive "$pid"; then
            kill "$pid" 2>/dev/null || true
            for ((i = 0; i < 100; i++)); do proc_alive "$pid" || break; sleep 0.1; done
            if proc_alive "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi
        fi
        rm -f "$DIR/run/$p.pid"
    done
}

nodes_ready() {  # all NODES nodes exist and report Ready=True (one list call, no per-node timeout)
    local n
    n=$("$BIN/kubectl" --kubeconfig="$K" get nodes \
        -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' | grep -c '^True$')
    [[ $n -eq $NODES ]]
}

answers() { [[ -f $K ]] && "$BIN/kubectl" --kubeconfig="$K" get --raw /readyz >/dev/null 2>&1; }

free_ports() {  # free_ports N: N distinct free TCP ports on 127.0.0.1
    python3 - "$1" <<'EOF'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
EOF
}

start_proc() {  # start_proc NAME ARGS...: in the background, output in DIR/log/NAME.log
    local name=$1; shift
    "$@" >"$DIR/log/$name.log" 2>&1 &
    echo $! >"$DIR/run/$name.pid"
}

wait_for() {  # wait_for WHAT SECONDS COMMAND...: poll until COMMAND succeeds (SECONDS of wall time)
    local what=$1 limit=$2 deadline; shift 2
    deadline=$((SECONDS + limit))
    while ((SECONDS < deadline)); do
        "$@" >/dev/null 2>&1 && return 0
        local p pid
        for p in "${PROCS[@]}"; do
            pid=$(pid_of "$p") || continue
            proc_alive "$pid" || { tail -n 30 "$DIR/log/$p.log" >&2; die "$p exited while waiting for $what"; }
        done
        sleep 0.2
    done
    for p in "${PROCS[@]}"; do [[ -f $DIR/log/$p.log ]] && { echo "--- $p" >&2; tail -n 10 "$DIR/log/$p.log" >&2; }; done
    die "timed out after ${limit}s waiting for $what"
}

write_pki() {
    local P=$DIR/pki
    mkdir -p "$P"
    (
        cd "$P"
        openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 3650 -subj /CN=tb-test-ca
        openssl req -newkey rsa:2048 -nodes -keyout apiserver.key -out apiserver.csr -subj /CN=kube-apiserver
        printf 'subjectAltName=IP:127.0.0.1,DNS:localhost,IP:10.96.0.1,DNS:kubernetes.default.svc\nextendedKeyUsage=serverAuth\n' >san.ext
        openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out apiserver.crt -days 3650 -extfile san.ext
        openssl genrsa -out sa.key 2048
        openssl rsa -in sa.key -pubout -out sa.pub
        echo "$(openssl rand -hex 16),admin,admin,system:masters" >tokens.csv
    ) >"$DIR/log/pki.log" 2>&1 || { cat "$DIR/log/pki.log" >&2; die "openssl failed"; }
}

write_kubeconfig() {  # two contexts on the one cluster: tests of --context use the second
    local kc=("$BIN/kubectl" config --kubeconfig="$K") token
    token=$(cut -d, -f1 "$DIR/pki/tokens.csv")
    rm -f "$K"
    "${kc[@]}" set-cluster tb-test --server="https://127.0.0.1:$AP" --certificate-authority="$DIR/pki/ca.crt" --embed-certs >/dev/null
    "${kc[@]}" set-credentials admin --token="$token" >/dev/null
    "${kc[@]}" set-context tb-test --cluster=tb-test --user=admin >/dev/null
    "${kc[@]}" set-context tb-other --cluster=tb-test --user=admin --namespace=tb-other >/dev/null
    "${kc[@]}" use-context tb-test >/dev/null
    chmod 600 "$K"
}

write_kwok_config() {
    local S=$BIN/../kwok-stages
    mkdir -p "$DIR/pod-logs"
    # What `kubectl logs` returns (CRI log format, read at request time): the training
    # container's file is rewritten by the tests that check logs; every other container has one line.
    [[ -f $DIR/pod-logs/training.log ]] ||
        echo "2025-01-01T00:00:00.000000000Z stdout F (kwok) training container log" >"$DIR/pod-logs/training.log"
    echo "2025-01-01T00:00:00.000000000Z stdout F (kwok) sidecar log" >"$DIR/pod-logs/other.log"
    cat >"$DIR/kwok-logs.yaml" <<EOF
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterLogs
metadata: {name: tb-pod-logs}
spec:
  selector: {}
  logs:
  - containers: [training]
    logsFile: $DIR/pod-logs/training.log
    follow: false
  - logsFile: $DIR/pod-logs/other.log
    follow: false
EOF
    KWOK_CONFIG="$S/node/fast/node-initialize.yaml,$S/node/heartbeat/node-heartbeat.yaml,$here/kwok/stages.yaml,$DIR/kwok-logs.yaml"
}

write_nodes() {  # A3 Mega nodes as GKE labels them (the pods' tolerations match the GPU taint)
    local i
    for ((i = 0; i < NODES; i++)); do
        cat <<EOF
---
apiVersion: v1
kind: Node
metadata:
  name: a3mega-$i
  annotations: {kwok.x-k8s.io/node: fake, node.alpha.kubernetes.io/ttl: "0"}
  labels:
    kubernetes.io/hostname: a3mega-$i
    kubernetes.io/os: linux
    kubernetes.io/arch: amd64
    node.kubernetes.io/instance-type: a3-megagpu-8g
    cloud.google.com/gke-accelerator: nvidia-h100-mega-80gb
    cloud.google.com/gke-nodepool: a3mega-pool
    cloud.google.com/gke-gpu: "true"
    topology.kubernetes.io/zone: us-central1-test
    type: kwok
spec:
  taints:
  - {key: nvidia.com/gpu, value: present, effect: NoSchedule}
status:
  allocatable: {cpu: "208", memory: 1872Gi, pods: "110", nvidia.com/gpu: "8", ephemeral-storage: 6Ti}
  capacity: {cpu: "208", memory: 1872Gi, pods: "110", nvidia.com/gpu: "8", ephemeral-storage: 6Ti}
EOF
    done
}

write_env() {
    local helm=${TRAINBENCH_HELM:-}
    [[ -z $helm && -x $repo/.tools/helm/helm ]] && helm=$repo/.tools/helm/helm
    [[ -z $helm ]] && helm=$(command -v helm || true)
    cat >"$DIR/env.sh.tmp" <<EOF
# Generated by tests/k8s/cluster.sh: source it to use the test cluster.
export KUBECONFIG=$K
export PATH=$BIN:${helm:+$(dirname "$helm"):}\$PATH
export HELM_CACHE_HOME=$DIR/helm/cache HELM_CONFIG_HOME=$DIR/helm/config HELM_DATA_HOME=$DIR/helm/data
export NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost
export TRAINBENCH_K8S_DIR=$DIR
TRAINBENCH_K8S_HELM=${helm}
EOF
    mv "$DIR/env.sh.tmp" "$DIR/env.sh"
}

case $action in
start)
    BIN=$("$here/build-tools.sh") || exit $?
    for t in openssl python3; do command -v $t >/dev/null || { echo "k8s_cluster: skipped: $t is missing (scripts/setup.sh --test installs it)" >&2; exit 125; }; done
    if answers; then log "already running ($DIR)"; exit 0; fi
    stop_all
    t0=$(date +%s.%N)
    rm -rf "$DIR/etcd" "$DIR/pki" "$DIR/log" "$DIR/run" "$DIR/apiserver"
    mkdir -p "$DIR/log" "$DIR/run"
    read -r EP PP AP CP SP KP <<<"$(free_ports 6)"
    write_pki
    start_proc etcd "$BIN/etcd" --name=t --data-dir="$DIR/etcd" \
        --listen-client-urls="http://127.0.0.1:$EP" --advertise-client-urls="http://127.0.0.1:$EP" \
        --listen-peer-urls="http://127.0.0.1:$PP" --initial-advertise-peer-urls="http://127.0.0.1:$PP" \
        --initial-cluster="t=http://127.0.0.1:$PP" --unsafe-no-fsync=true --log-level=warn
    wait_for etcd 30 curl -fs "http://127.0.0.1:$EP/health"
    P=$DIR/pki
    # --endpoint-reconciler-type=none: the API server cannot publish 127.0.0.1 as the
    # endpoint of Service "kubernetes" (loopback is invalid there); nothing in the tests
    # dials that service, so it keeps no endpoints instead of logging the error every 10 s.
    start_proc kube-apiserver "$BIN/kube-apiserver" --etcd-servers="http://127.0.0.1:$EP" \
        --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$AP" \
        --cert-dir="$DIR/apiserver" --tls-cert-file="$P/apiserver.crt" --tls-private-key-file="$P/apiserver.key" \
        --client-ca-file="$P/ca.crt" --token-auth-file="$P/tokens.csv" --authorization-mode=RBAC \
        --service-account-issuer=https://kubernetes.default.svc.cluster.local \
        --service-account-key-file="$P/sa.pub" --service-account-signing-key-file="$P/sa.key" \
        --service-cluster-ip-range=10.96.0.0/16 --allow-privileged=true --enable-priority-and-fairness=false \
        --kubelet-preferred-address-types=Hostname,InternalIP --profiling=false \
        --endpoint-reconciler-type=none
    write_kubeconfig
    wait_for kube-apiserver 90 "$BIN/kubectl" --kubeconfig="$K" get --raw /readyz
    start_proc kube-controller-manager "$BIN/kube-controller-manager" --kubeconfig="$K" \
        --authentication-kubeconfig="$K" --authorization-kubeconfig="$K" --leader-elect=false \
        --bind-address=127.0.0.1 --secure-port="$CP" --controllers='*' \
        --service-account-private-key-file="$P/sa.key" --root-ca-file="$P/ca.crt" --use-service-account-credentials=false
    start_proc kube-scheduler "$BIN/kube-scheduler" --kubeconfig="$K" --authentication-kubeconfig="$K" \
        --authorization-kubeconfig="$K" --leader-elect=false --bind-address=127.0.0.1 --secure-port="$SP"
    write_kwok_config
    mkdir -p "$DIR/kwok-home"
    HOME=$DIR/kwok-home start_proc kwok "$BIN/kwok" --kubeconfig="$K" --manage-all-nodes=true \
        --node-name=localhost --node-port="$KP" --server-address="127.0.0.1:$KP" --cidr=10.0.0.1/24 \
        --node-lease-duration-seconds=40 --config="$KWOK_CONFIG"
    # GKE's part: its topology-aware placement lifts the pods' scheduling gate
    # (gke.io/topology-aware-auto-scheduling); here a loop removes every gate it sees.
    start_proc gate-lifter bash "$here/gate-lifter.sh" "$BIN/kubectl" "$K"
    write_nodes | "$BIN/kubectl" --kubeconfig="$K" apply -f - >"$DIR/log/nodes.log"
    wait_for "$NODES Ready nodes" 60 nodes_ready
    wait_for "serviceaccount/default" 60 "$BIN/kubectl" --kubeconfig="$K" get serviceaccount default -n default
    write_env
    t1=$(date +%s.%N)
    printf '%s\n' "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')" >"$DIR/start-seconds"
    log "up in $(cat "$DIR/start-seconds") s: https://127.0.0.1:$AP, $NODES nodes; source $DIR/env.sh"
    ;;
stop)
    stop_all
    rm -rf "$DIR/etcd"
    log "stopped"
    ;;
status)
    BIN=$("$here/build-tools.sh" --print) || exit 1
    answers
    ;;
*)
    echo "usage: cluster.sh {start|stop|status} DIR" >&2
    exit 2
    ;;
esac

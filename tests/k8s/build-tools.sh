#!/usr/bin/env bash
# Builds the Kubernetes test binaries (etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler, kubectl, kwok) from the Go modules in tests/k8s/tools into a cache
# outside the repository, keyed on the modules' go.mod/go.sum and the Go version:
#   ${TRAINBENCH_K8S_CACHE:-~/.cache/trainbench}/k8s-<hash>/bin
# Prints that bin directory. Builds only when it is missing (the cold build takes ~15-30 min
# on 2 cores; a cached call returns at once). Exit 1 when no Go >= 1.24 can be found or installed.
#   build-tools.sh            build if needed, print the bin directory
#   build-tools.sh --print    print the bin directory without building (exit 1 if not built)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tools=$here/tools

# Go >= 1.24: $GO, the `go` on PATH, /usr/local/go, or Go's toolchain module installed from the
# Go module proxy into the cache (tests/k8s/go-toolchain.sh). Without one the build fails: the
# k8s tests must not skip quietly (docs/development.md).
if [[ ${1:-} == --print ]]; then
    go=$("$here/go-toolchain.sh" --print) || exit 1
else
    go=$("$here/go-toolchain.sh") || { echo "k8s tools: no Go >= 1.24 (above); run scripts/setup.sh --test" >&2; exit 1; }
fi
goversion=$(GOTOOLCHAIN=local "$go" env GOVERSION)

key=$(cat "$tools/go.mod" "$tools/go.sum" "$tools/kwok/go.mod" "$tools/kwok/go.sum" |
    { cat; echo "$goversion"; } | sha256sum | cut -c1-16)
cache=${TRAINBENCH_K8S_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/trainbench}
out=$cache/k8s-$key
bins=(etcd kube-apiserver kube-controller-manager kube-scheduler kubectl kwok)

built() { local b; for b in "${bins[@]}"; do [[ -x $out/bin/$b ]] || return 1; done; }
stages_copied() { [[ -f $out/kwok-stages/node/fast/node-initialize.yaml ]]; }

if built && stages_copied; then echo "$out/bin"; exit 0; fi
[[ ${1:-} == --print ]] && exit 1

mkdir -p "$cache"
exec 9>"$cache/k8s-$key.lock"
flock 9    # one build at a time (e.g. two build directories testing at once)
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=readonly
if built; then
    if ! stages_copied; then   # a cache from before the node stages were kept: copy them only
        kwok_dir=$(cd "$tools/kwok" && "$go" list -m -f '{{.Dir}}' sigs.k8s.io/kwok)
        rm -rf "$out/kwok-stages"; mkdir -p "$out/kwok-stages"
        cp -r "$kwok_dir/kustomize/stage/." "$out/kwok-stages/"; chmod -R u+w "$out/kwok-stages"
    fi
    echo "$out/bin"; exit 0
fi

tmp=$out.tmp.$$
rm -rf "$tmp"; mkdir -p "$tmp/bin"
trap 'rm -rf "$tmp"' EXIT
# Go's build cache for these packages is about 7 GB and of no use once the binaries are cached:
# it lives in the temporary folder and goes with it (a CI machine's disk once filled up).
export GOCACHE=$tmp/gocache
start=$(date +%s)
echo "k8s tools: building into $out (first time only; ~15-30 min on 2 cores)" >&2
# Version ldflags: without them /version says v0.0.0-master and helm's kubeVersion checks break.
v=v1.34.4
ldf="-s -w"
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldf="$ldf -X $p.gitVersion=$v -X $p.gitMajor=1 -X $p.gitMinor=34 -X $p.gitTreeState=clean"
    ldf="$ldf -X $p.buildDate=2025-01-01T00:00:00Z"
done
nice=(nice -n 19)
(cd "$tools" && "${nice[@]}" "$go" build -trimpath -ldflags "-s -w" -o "$tmp/bin/etcd" go.etcd.io/etcd/server/v3)
(cd "$tools" && "${nice[@]}" "$go" build -trimpath -ldflags "$ldf" -o "$tmp/bin/" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
    k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl)
(cd "$tools/kwok" && "${nice[@]}" "$go" build -trimpath -ldflags "-s -w" -o "$tmp/bin/kwok" sigs.k8s.io/kwok/cmd/kwok)
# kwok's own stage files live in its module; the fixture reads them from here.
kwok_dir=$(cd "$tools/kwok" && "$go" list -m -f '{{.Dir}}' sigs.k8s.io/kwok)
mkdir -p "$tmp/kwok-stages"
cp -r "$kwok_dir/kustomize/stage/." "$tmp/kwok-stages/"
chmod -R u+w "$tmp/kwok-stages"
echo "$(($(date +%s) - start))" >"$tmp/build-seconds"
chmod -R u+w "$GOCACHE" 2>/dev/null || true; rm -rf "$GOCACHE"
rm -rf "$out"; mv "$tmp" "$out"
trap - EXIT
echo "k8s tools: built in $(cat "$out/build-seconds")s" >&2
echo "$out/bin"

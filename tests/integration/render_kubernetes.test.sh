#!/usr/bin/env bash
# Rendered Kubernetes manifests and Helm charts: every manifest validates against the
# official Kubernetes schemas (kubernetes-models, tests/tools), every chart passes
# `helm lint`, and `helm template` of it gives objects that validate too; a broken
# manifest is rejected (the validator is not a no-op).
set -euo pipefail

bin=${TRAINBENCH_BINARY:-}
src=${TRAINBENCH_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
if [[ -z $bin || ! -x $bin ]]; then
    echo "skip: TRAINBENCH_BINARY is not set to the built CLI"
    exit 125
fi
helm=${HELM:-}
[[ -z $helm && -x $src/.tools/helm/helm ]] && helm=$src/.tools/helm/helm
[[ -z $helm ]] && helm=$(command -v helm || true)
validator=$src/tests/tools/validate-k8s.mjs
if [[ -z $helm || ! -d $src/tests/tools/node_modules/kubernetes-models ]] || ! command -v node >/dev/null; then
    echo "skip: helm or tests/tools/node_modules missing (run scripts/install-tools.sh)"
    exit 125
fi
cd "$src"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

"$bin" render --all recipes -o "$tmp/out" >/dev/null
mapfile -t manifests < <(find "$tmp/out" -name manifests.yaml | LC_ALL=C sort)
if (( ${#manifests[@]} == 0 )); then echo "FAIL: no Kubernetes recipe rendered"; exit 1; fi
for m in "${manifests[@]}"; do
    if ! node "$validator" "$m" >/dev/null; then echo "FAIL: $m"; node "$validator" "$m" || true; fail=1; fi
    chart=$(dirname "$m")/chart
    if ! "$helm" lint --strict "$chart" >"$tmp/lint.txt" 2>&1; then echo "FAIL: helm lint $chart"; cat "$tmp/lint.txt"; fail=1; fi
    if ! "$helm" template my-release "$chart" --set nodes=3 >"$tmp/helm.yaml" 2>"$tmp/helm.err"; then
        echo "FAIL: helm template $chart"; cat "$tmp/helm.err"; fail=1; continue
    fi
    if ! node "$validator" "$tmp/helm.yaml" >/dev/null; then echo "FAIL: helm template output of $chart"; node "$validator" "$tmp/helm.yaml" || true; fail=1; fi
    grep -q 'completions: 3' "$tmp/helm.yaml" || { echo "FAIL: --set nodes=3 did not reach the Job"; fail=1; }
    grep -q 'name: my-release$' "$tmp/helm.yaml" || { echo "FAIL: objects are not named after the release"; fail=1; }
done

# The validator rejects a wrong manifest.
sed 's/^  completions: .*/  completions: "many"/' "${manifests[0]}" >"$tmp/bad.yaml"
if node "$validator" "$tmp/bad.yaml" >/dev/null 2>&1; then echo "FAIL: the validator accepted a string completions"; fail=1; fi

echo "validated ${#manifests[@]} manifest files and charts"
exit $fail

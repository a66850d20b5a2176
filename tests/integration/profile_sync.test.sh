#!/usr/bin/env bash
# The framework profiles that `trainbench validate` checks launch lines and framework_config
# against (recipes/catalog/frameworks/<program>-<version>.yaml) are exactly what
# tests/conformance/oracles.py generates from the unmodified upstream sources in shared/reference:
# every profile is regenerated and compared byte for byte, so a hand edit, a stale profile after
# an extractor change, or a profile with no generator fails here. Skips (125) only when the
# reference folder is absent; anything else that goes wrong is a failure.
set -euo pipefail

src=${TRAINBENCH_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
shared=${TRAINBENCH_SHARED_DIR:-$src/../shared}
if [[ ! -d $shared/reference ]]; then
    echo "skip: no upstream reference files at $shared/reference (the profiles' sources)" >&2
    exit 125
fi
export TRAINBENCH_SHARED_DIR=$shared
python=$("$src/tests/conformance/venv.sh")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$src"

fail=0
count=0
for profile in recipes/catalog/frameworks/*.yaml; do
    name=$(basename "$profile" .yaml)
    program=${name%-*} version=${name##*-}
    count=$((count + 1))
    if ! "$python" tests/conformance/oracles.py profile "$program" "$version" >"$tmp/$name.yaml" 2>"$tmp/$name.err"; then
        echo "FAIL: $profile: \`oracles.py profile $program $version\` does not generate it:"
        sed 's/^/    /' "$tmp/$name.err"
        fail=1
    elif ! diff -u --label "$profile (in the repository)" --label "oracles.py profile $program $version" \
        "$profile" "$tmp/$name.yaml" >"$tmp/$name.diff"; then
        echo "FAIL: $profile differs from what \`tests/conformance/oracles.py profile $program $version\` generates from $shared/reference:"
        head -n 40 "$tmp/$name.diff" | sed 's/^/    /'
        echo "    (regenerate: $python tests/conformance/oracles.py profile $program $version > $profile)"
        fail=1
    fi
done
if (( count == 0 )); then
    echo "FAIL: no profiles under recipes/catalog/frameworks"
    exit 1
fi
if (( fail )); then
    exit 1
fi
echo "ok: all $count framework profiles equal what oracles.py generates from $shared/reference"

# Sourced by tests/integration/conformance_*.test.sh: skips (exit 125) without the upstream
# reference files or the built CLI, else sets bin, src, shared, python (the suite's venv), tmp
# (removed at exit) and fail=0, and changes to the source tree.
bin=${TRAINBENCH_BINARY:-}
src=${TRAINBENCH_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
shared=${TRAINBENCH_SHARED_DIR:-$src/../shared}
if [[ ! -d $shared/reference ]]; then
    echo "skip: no upstream reference files at $shared/reference (the conformance oracles)" >&2
    exit 125
fi
if [[ -z $bin || ! -x $bin ]]; then
    echo "skip: TRAINBENCH_BINARY is not set to the built CLI" >&2
    exit 125
fi
export TRAINBENCH_SHARED_DIR=$shared TRAINBENCH_BINARY=$bin
python=$("$src/tests/conformance/venv.sh")
cd "$src"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

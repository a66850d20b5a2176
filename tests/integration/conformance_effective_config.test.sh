#!/usr/bin/env bash
# The effective NeMo config of every NeMo seed recipe equals the seed's own, key by key, except
# the differences listed with a reason in tests/conformance/intended_differences.yaml
# (tests/conformance/effective_config.py: the seed's side is composed from the launcher /
# gpu-recipes configs in shared/reference with the seed's command, trainbench's from the rendered
# job with real Hydra 1.3.2). First it shows that the comparison has teeth: an empty list of
# intended differences must fail, and so must a listed difference that does not occur.
set -euo pipefail

bin=${TRAINBENCH_BINARY:-}
src=${TRAINBENCH_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
shared=${TRAINBENCH_SHARED_DIR:-$src/../shared}
if [[ ! -d $shared/reference ]]; then
    echo "skip: no upstream reference files at $shared/reference (the seeds' configs)" >&2
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
recipe=recipes/aws-p4d/gpt3-126m.yaml

# 1. Teeth. With nothing listed, the run directory alone differs from the seed's results_dir.
: >"$tmp/empty.yaml"
if out=$("$python" tests/conformance/effective_config.py "$recipe" --intended "$tmp/empty.yaml" 2>&1); then
    echo "FAIL: effective_config.py passed $recipe with no intended differences listed"
    fail=1
elif ! grep -q "^DIFFERENT $recipe exp_manager.explicit_log_dir: " <<<"$out"; then
    echo "FAIL: effective_config.py did not report exp_manager.explicit_log_dir for $recipe:"
    printf '    %s\n' "${out//$'\n'/$'\n'    }"
    fail=1
fi
# A listed difference that does not occur (trainer.devices is 8 on both sides) is reported.
printf '%s:\n  trainer.devices: "deliberately wrong entry"\n' "$recipe" >"$tmp/stale.yaml"
if out=$("$python" tests/conformance/effective_config.py "$recipe" --intended "$tmp/stale.yaml" 2>&1) ||
    ! grep -q "^NOT-DIFFERENT $recipe trainer.devices: " <<<"$out"; then
    echo "FAIL: effective_config.py did not report the stale entry trainer.devices for $recipe:"
    printf '    %s\n' "${out//$'\n'/$'\n'    }"
    fail=1
fi

# 2. Every NeMo recipe against its seed.
if ! "$python" tests/conformance/effective_config.py >"$tmp/all.txt" 2>&1; then
    echo "FAIL: effective configs differ from the seeds' beyond tests/conformance/intended_differences.yaml:"
    grep -E '^(DIFFERENT|NOT-DIFFERENT|ERROR|==|   (seed|trainbench|note))|^effective config:' "$tmp/all.txt" | sed 's/^/    /'
    fail=1
else
    tail -n 1 "$tmp/all.txt"
fi

if (( fail )); then
    exit 1
fi
echo "ok: every NeMo recipe's effective config is the seed's but for the listed, intended differences"

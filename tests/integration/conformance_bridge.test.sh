#!/usr/bin/env bash
# Megatron-Bridge recipes against Megatron-Bridge itself (shared/reference, 06f25c22):
# 1. every rendered run_script.py command passes the conformance suite (the real argument
#    parser, the config keys the scripts set, the per-GPU configuration it names), and a
#    planted bad flag, override key and value in a Bridge recipe are each rejected;
# 2. the effective configuration of every Bridge recipe equals the release's own per-GPU
#    configuration run by run_script.py, but for tests/conformance/bridge_intended_differences.yaml;
#    with nothing listed a smoke recipe fails, and so does a recipe with another tensor parallel size.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../conformance/test_env.sh"
recipe=recipes/gcp-a3-ultra/llama3.1-70b-bridge-fp8.yaml
smoke=recipes/gcp-a3-ultra/llama3.1-70b-bridge-fp8-smoke.yaml

# 1. The command lines.
recipes=$(ls recipes/*/*bridge*.yaml | grep -v /common/)
# shellcheck disable=SC2086
if ! out=$("$python" tests/conformance/check.py --binary "$bin" $recipes 2>&1); then
    echo "FAIL: the Megatron-Bridge recipes do not pass the conformance suite:"
    grep -E '^(REJECTED|ERROR)|^conformance:' <<<"$out" | sed 's/^/    /'
    fail=1
else
    tail -n 1 <<<"$out"
fi
for planted in '--tensor_model_paralel_size|2|is not an argument' 'model.seq_lenght=8192||did you mean '"'"'model.seq_length'"'"'' \
    'train.train_iters=fifty||is not int' '--compute_dtype|fp8_mx|no per-GPU configuration'; do
    IFS='|' read -r word value needle <<<"$planted"
    list="[$word${value:+, $value}]"
    if out=$("$python" tests/conformance/check.py --binary "$bin" --no-validate "$recipe" \
        -s "launch.extra_args=[--gpu, h100, ${list:1}" 2>&1) || ! grep -q -- "$needle" <<<"$out"; then
        echo "FAIL: check.py did not reject $list in $recipe ($needle):"
        sed 's/^/    /' <<<"$out" | grep -v '^    note:'
        fail=1
    fi
done

# 2. The effective configuration, first with teeth.
: >"$tmp/empty.yaml"
if out=$("$python" tests/conformance/bridge_effective.py "$smoke" --intended "$tmp/empty.yaml" 2>&1) ||
    ! grep -q "^DIFFERENT $smoke train.train_iters: release 50, trainbench 20" <<<"$out"; then
    echo "FAIL: bridge_effective.py did not report the smoke test's 20 steps with nothing listed:"
    sed 's/^/    /' <<<"$out"
    fail=1
fi
printf 'version: 1\nname: tp8\nextends: [%s]\nparallelism: {tensor: 8}\n' "$src/$recipe" >"$tmp/tp8.yaml"
if out=$("$python" tests/conformance/bridge_effective.py "$tmp/tp8.yaml" --intended "$tmp/empty.yaml" 2>&1) ||
    ! grep -q "model.tensor_model_parallel_size: release 4, trainbench 8" <<<"$out"; then
    echo "FAIL: bridge_effective.py did not report a tensor parallel size other than the release's:"
    sed 's/^/    /' <<<"$out"
    fail=1
fi
if ! out=$("$python" tests/conformance/bridge_effective.py 2>&1); then
    echo "FAIL: Megatron-Bridge effective configurations differ from the release's beyond bridge_intended_differences.yaml:"
    grep -E '^(DIFFERENT|NOT-DIFFERENT|ERROR|==)|^effective config:' <<<"$out" | sed 's/^/    /'
    fail=1
else
    tail -n 1 <<<"$out"
fi

if (( fail )); then
    exit 1
fi
echo "ok: Megatron-Bridge commands and effective configurations match the release's"

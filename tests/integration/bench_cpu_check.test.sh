#!/usr/bin/env bash
# bench/gpu-check.sh (issue 38) without a GPU: its --cpu mode runs every step but CUDA to the
# end (validate and render of the GPU recipe, its run refused with exit 4 and no run left,
# the CPU recipe through the real pipeline with a report, the FLOPs check) and passes; and the
# arguments it runs the workload with when trainbench cannot start are exactly those that
# `trainbench render recipes/local/gpt-gpu.yaml --argv` gives. Skips (125) without torch.
source "$(dirname "$0")/runs_lib.sh"
src=${TRAINBENCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
/usr/bin/python3 -c 'import torch' >/dev/null 2>&1 || { echo "skip: /usr/bin/python3 cannot import torch"; exit 125; }

# 1. The fallback's arguments are the rendered job's.
direct=$(bash -c "$(sed -n '/^direct_args=(/,/)$/p' "$src/bench/gpu-check.sh"); printf '%s\n' \"\${direct_args[@]}\"")
rendered=$("$TB" --json render "$src/recipes/local/gpt-gpu.yaml" --argv |
    jq -r '.[0].commands[0].argv[1:] | . as $a | [range(length)] | map(select($a[.] != "--dllogger-file" and
        (. == 0 or $a[. - 1] != "--dllogger-file"))) | map($a[.]) | .[]')
[[ -n $direct && $direct == "$rendered" ]] || fail "gpu-check.sh's direct_args differ from render --argv:
$(diff <(echo "$direct") <(echo "$rendered"))"

# 2. The --cpu mode, end to end, with this build's binary.
TRAINBENCH_BIN=$TB bash "$src/bench/gpu-check.sh" "$WORK/check" --cpu >"$WORK/out" 2>&1 || fail "$(cat "$WORK/out")"
grep -q "gpu-check: every step passed" "$WORK/out" || fail "$(cat "$WORK/out")"
grep -q "as expected without a GPU: exit 4, no run left" "$WORK/out" || fail "$(cat "$WORK/out")"
grep -q "flops_check: every convention matches the count" "$WORK/out" || fail "$(cat "$WORK/out")"
for f in gpu-check.log identity.txt report.txt report.json flops-check.txt flops-check.json; do
    [[ -s $WORK/check/$f ]] || fail "gpu-check left no $f"
done
jq -e '.gpu == "cpu" and .tflops_per_gpu > 0 and .mfu > 0' "$WORK/check/report.json" >/dev/null ||
    fail "$(cat "$WORK/check/report.json")"
echo ok

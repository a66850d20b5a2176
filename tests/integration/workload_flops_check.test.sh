#!/usr/bin/env bash
# trainbench's FLOPs per step (from the binary: `trainbench plan --json`) against PyTorch's own
# count of one training step of the tinygpt model (workloads/tinygpt/flops_check.py; issue 38):
# megatron-2024 and nemo-2024 = the model FLOPs with full attention, megatron-2025-03 and
# nemo-2025-08 = with the causal half,
# narayanan2021 = with full recompute, each to 1e-9. FlopCounterMode where PyTorch has it
# (2.1+), else (Debian 12's python3-torch 1.13) the autograd profiler's matmul FLOPs; with
# written-out attention, and with scaled_dot_product_attention where PyTorch has it. A plan
# one convention of which is off by 1e-6 must fail the check. Skips (125) without torch.
source "$(dirname "$0")/runs_lib.sh"
PY=/usr/bin/python3
"$PY" -c 'import torch' >/dev/null 2>&1 || { echo "skip: $PY cannot import torch (python3-torch)"; exit 125; }
src=${TRAINBENCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
check=$src/workloads/tinygpt/flops_check.py

# vocab 2048: a multiple of 1024, so every convention's vocabulary (padded to 128 or 1024, or not) is 2048.
shape=(--layers 2 --hidden 64 --heads 4 --ffn 256 --seq-len 64 --vocab 2048 --batch 3)
tb --json plan "$src/recipes/local/tinygpt.yaml" -s model.layers=2 -s model.hidden=64 -s model.heads=4 \
    -s model.ffn=256 -s model.seq_length=64 -s model.vocab=2048 -s batch.micro=3 -s batch.global=3 \
    >"$WORK/plan.json" 2>"$WORK/err" || fail "plan: $(cat "$WORK/err")"

"$PY" "$check" --plan-json "$WORK/plan.json" "${shape[@]}" --json "$WORK/check.json" >"$WORK/out" 2>&1 ||
    fail "the check failed: $(cat "$WORK/out")"
cat "$WORK/out"
for c in megatron-2024 megatron-2025-03 nemo-2024 nemo-2025-08 narayanan2021; do
    grep -Eq "^  $c +[0-9.e+]+ +[0-9.e+]+ +1\.000000000 .* ok$" "$WORK/out" || fail "$c is not ok: $(cat "$WORK/out")"
done
jq -e '.ok and (.attention.math.parts.A > 0) and (.head > 0)' "$WORK/check.json" >/dev/null || fail "$(cat "$WORK/check.json")"
if "$PY" -c 'import torch.utils.flop_counter' 2>/dev/null; then
    grep -q "counted by FlopCounterMode" "$WORK/out" || fail "FlopCounterMode exists but was not used"
    jq -e '.attention.sdpa.parts.A_backward == 2.5 * .attention.sdpa.parts.A' "$WORK/check.json" >/dev/null ||
        fail "FlopCounterMode's fused attention backward is not 2.5 x its forward"
else
    grep -q "counted by the autograd profiler's FLOP estimates" "$WORK/out" || fail "$(cat "$WORK/out")"
fi

# The check can fail: one convention's FLOPs 1e-6 too high, one missing.
jq '(.flops[] | select(.convention == "megatron-2025-03") | .per_step) |= . * (1 + 1e-6)' "$WORK/plan.json" >"$WORK/off.json"
rc=0
"$PY" "$check" --plan-json "$WORK/off.json" "${shape[@]}" --attention math >"$WORK/off.out" 2>&1 || rc=$?
[[ $rc -eq 1 ]] || fail "a plan off by 1e-6 passed (exit $rc): $(cat "$WORK/off.out")"
grep -Eq "^  megatron-2025-03 .* 1\.000001000 .* DIFF$" "$WORK/off.out" || fail "$(cat "$WORK/off.out")"
grep -Eq "^  nemo-2025-08 .* ok$" "$WORK/off.out" || fail "$(cat "$WORK/off.out")"
jq 'del(.flops[] | select(.convention == "nemo-2025-08"))' "$WORK/plan.json" >"$WORK/missing.json"
rc=0
"$PY" "$check" --plan-json "$WORK/missing.json" "${shape[@]}" --attention math >"$WORK/missing.out" 2>&1 || rc=$?
[[ $rc -eq 1 ]] && grep -q "has no FLOPs for 'nemo-2025-08'" "$WORK/missing.out" || fail "$(cat "$WORK/missing.out")"
# A plan for another shape is refused.
rc=0
"$PY" "$check" --plan-json "$WORK/plan.json" --layers 3 --hidden 64 --heads 4 --ffn 256 --seq-len 64 --vocab 2048 \
    --batch 3 --attention math >"$WORK/shape.out" 2>&1 || rc=$?
[[ $rc -ne 0 ]] && grep -q "the plan is not for this shape" "$WORK/shape.out" || fail "$(cat "$WORK/shape.out")"
echo ok

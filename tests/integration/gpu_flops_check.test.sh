#!/usr/bin/env bash
# On a machine with an NVIDIA GPU (skips elsewhere, gpu_lib.sh): FlopCounterMode's count of
# one bf16 training step of gpt2-small on CUDA, with written-out and fused attention, against
# trainbench's FLOPs per step for that shape (workloads/tinygpt/flops_check.py).
source "$(dirname "$0")/gpu_lib.sh"
"$PYTHON" -c 'import torch.utils.flop_counter' 2>/dev/null ||
    { echo "skip: $PYTHON's PyTorch has no torch.utils.flop_counter (PyTorch 2.1+)"; exit 125; }
# (vocab 50176: a multiple of 1024, so that every convention's padding gives the model's rows)
tb --json plan "$SRC/recipes/local/gpt-gpu.yaml" -s model=gpt2-small -s model.vocab=50176 -s batch.micro=2 \
    -s batch.global=2 >"$WORK/plan.json" || fail "plan"
"$PYTHON" "$SRC/workloads/tinygpt/flops_check.py" --plan-json "$WORK/plan.json" --layers 12 --hidden 768 \
    --heads 12 --ffn 3072 --seq-len 1024 --vocab 50176 --pad-vocab-to 128 --batch 2 --device cuda --precision bf16 \
    --counter flopcounter --json "$WORK/check.json" >"$WORK/out" 2>&1 || fail "$(cat "$WORK/out")"
cat "$WORK/out"
jq -e '.ok and (.attention.sdpa.parts.A > 0) and (.attention.sdpa.parts.A_backward == 2.5 * .attention.sdpa.parts.A)' \
    "$WORK/check.json" >/dev/null ||
    fail "$(cat "$WORK/check.json")"
echo ok

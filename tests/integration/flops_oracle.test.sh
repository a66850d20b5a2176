#!/bin/bash
# Every dated FLOPs convention equals the upstream function it comes from (Megatron-LM before
# and after 2025-03-06, NeMo before and after 2025-08-09, Megatron-Bridge, TorchTitan,
# gpu-recipes), run from ../shared/reference on the shipped catalog models (GPT-3 175B, Llama 3.1
# 8B/70B/405B, Mixtral 8x7B/8x22B, Qwen3-30B-A3B/235B-A22B, DeepSeek-V3: the upstream calls read
# recipes/catalog/models/*.yaml, trainbench its own catalog) and two synthetic MoE models, against
# `trainbench flops --json`: tests/conformance/flops_oracle.py. Skipped (125) without the reference.
set -euo pipefail
bin=${TRAINBENCH_BINARY:?}
here=$(cd "$(dirname "$0")" && pwd)
ref=${TRAINBENCH_SHARED_DIR:-$here/../../../shared}/reference
[ -d "$ref/Megatron-LM@d98e8a64" ] || { echo "skipped: no upstream reference at $ref"; exit 125; }
exec python3 "$here/../conformance/flops_oracle.py" --reference "$ref" --binary "$bin"

#!/bin/bash
# trainbench report on a DLLogger file built here prints the same step time,
# TFLOPS/GPU and MFU as gpu-recipes' process_training_results.py does for the
# same inputs (its numbers, taken by running the tool on this file, below).
set -euo pipefail
bin=${TRAINBENCH_BINARY:?}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bash "$here/../golden/report/make_dllogger.sh" > "$tmp/dllogger.json"
flags=(--model gpt3-175b --gpus 256 --gpu h100 --precision fp8 --global-batch 2048 --flops gpu-recipes)
out=$("$bin" report "$tmp/dllogger.json" "${flags[@]}")
grep -q "25.10377273 s" <<<"$out" || { echo "step time differs:"; echo "$out"; exit 1; }
grep -q "701.08983981 TFLOPS" <<<"$out" || { echo "TFLOPS differs"; echo "$out"; exit 1; }
grep -q "0.35444380" <<<"$out" || { echo "MFU differs"; echo "$out"; exit 1; }
out=$("$bin" report "$tmp/dllogger.json" "${flags[@]}" --window 47:47)
grep -q "25.11555099 s" <<<"$out" && grep -q "700.76105452 TFLOPS" <<<"$out" && grep -q "0.35427758" <<<"$out" \
  || { echo "seed step figures differ"; echo "$out"; exit 1; }
json=$("$bin" report "$tmp/dllogger.json" "${flags[@]}" --json)
grep -q '"flops_convention": "gpu-recipes-2025-05"' <<<"$json" && grep -q '"flops_convention_given": "gpu-recipes"' <<<"$json" \
  && grep -q '"peak_tflops": 1978' <<<"$json" || { echo "json lacks convention/peak"; exit 1; }
# A window outside the log is an input error (exit 3), not a crash.
set +e; "$bin" report "$tmp/dllogger.json" "${flags[@]}" --window 100:200 >/dev/null 2>&1; rc=$?; set -e
[ "$rc" = 3 ] || { echo "expected exit 3, got $rc"; exit 1; }
echo "report reproduces gpu-recipes"

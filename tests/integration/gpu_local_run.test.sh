#!/usr/bin/env bash
# On a machine with an NVIDIA GPU (skips elsewhere, gpu_lib.sh): `trainbench run
# recipes/local/gpt-gpu.yaml` (20 steps) completes through render, the local backend and the
# workload on CUDA; the log names the GPU (name, count, CUDA, compute capability) and its
# measured bf16 peak; the report maps the name to the catalog GPU, divides by its datasheet
# peak and shows MFU against the measured peak too, with sane figures.
source "$(dirname "$0")/gpu_lib.sh"
PATH=$(dirname "$(command -v "$PYTHON")"):$PATH
tb run "$SRC/recipes/local/gpt-gpu.yaml" -s steps=20 -s metrics.window=[5,18] >"$WORK/out" 2>"$WORK/err" ||
    fail "run: $(cat "$WORK/out" "$WORK/err")"
cat "$WORK/out"
dir=$(ls -d "$WORK"/runs/gpt-gpu-local/*)
tb --json report "$dir" >"$WORK/report.json" || fail "report"
log=$dir/logs/train/dllogger/rank-0/dllogger.json
head -1 "$log" | sed 's/^DLLL //' | jq -e '.data | (.device == "cuda") and (.gpu_device_name | length > 0) and
    (.gpu_count >= 1) and (.gpu_cuda_version | length > 0) and (.gpu_compute_capability | length > 0) and
    (.peak_tflops_measured > 1) and (.peak_precision == "bf16") and (.attention == "sdpa")' >/dev/null ||
    fail "PARAMETER record: $(head -1 "$log")"
jq -e '(.gpu | length > 0) and (.gpu != "cpu") and (.origins.gpu | startswith("GPU from the log")) and
    (.peak.source | contains("NVIDIA")) and (.peak_measured_tflops > 1) and
    (.mfu > 0.01) and (.mfu < 1) and (.mfu_measured > 0.01) and (.mfu_measured < 1.2) and
    (.tokens_per_s > 1000) and (.expectations_passed) and ([.cross_checks[] | select(.match | not)] | length == 0)' \
    "$WORK/report.json" >/dev/null || fail "report: $(cat "$WORK/report.json")"
grep -q "MFU (measured peak)" "$WORK/out" || fail "the report does not show the MFU against the measured peak"
echo ok

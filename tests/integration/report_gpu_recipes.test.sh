#!/bin/bash
# trainbench report on a DLLogger file built here prints the same step time, TFLOPS/GPU and
# MFU as gpu-recipes' process_training_results.py (../shared/reference/gpu-recipes@24ba6df,
# run here with python3 on the same file and inputs) to the 8 decimals both print, over its
# default window (steps 10..30) and over one step (47..47). Skips (125) only where
# shared/reference is absent, after the checks that need no oracle.
set -euo pipefail
bin=${TRAINBENCH_BINARY:?}
here=$(cd "$(dirname "$0")" && pwd)
shared=${TRAINBENCH_SHARED_DIR:-$here/../../../shared}
tool=$shared/reference/gpu-recipes@24ba6df/src/utils/training_metrics/process_training_results.py
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
bash "$here/../golden/report/make_dllogger.sh" > "$tmp/dllogger.json"
flags=(--model gpt3-175b --gpus 256 --gpu h100 --precision fp8 --global-batch 2048 --flops gpu-recipes)

json=$("$bin" report "$tmp/dllogger.json" "${flags[@]}" --json)
grep -q '"flops_convention": "gpu-recipes-2025-05"' <<<"$json" || fail "json lacks the dated convention: $json"
grep -q '"flops_convention_given": "gpu-recipes"' <<<"$json" || fail "json lacks the convention given: $json"
grep -q '"peak_tflops": 1978' <<<"$json" || fail "json lacks the peak: $json"
# A window outside the log is an input error (exit 3), not a crash.
set +e; "$bin" report "$tmp/dllogger.json" "${flags[@]}" --window 100:200 >/dev/null 2>&1; rc=$?; set -e
[ "$rc" = 3 ] || fail "a window outside the log: exit $rc, expected 3"

[ -f "$tool" ] || { echo "skip: no gpu-recipes oracle at $tool (shared/reference is absent)"; exit 125; }
command -v python3 >/dev/null || fail "python3 is missing (scripts/setup.sh installs it)"

# field NAME: the number on trainbench's report line "  NAME  <number> ...".
field() { sed -n "s|^  $1  *\([0-9][0-9]*\.[0-9]*\)\( .*\)\{0,1\}$|\1|p"; }
# compare START END [--window S:E]: the tool's three figures, then trainbench's, as the tool prints them.
compare() {
    local start=$1 end=$2 oracle ours step tflops mfu
    shift 2
    # -B: no __pycache__ written into the reference tree.
    oracle=$(python3 -B "$tool" --file "$tmp/dllogger.json" --batch_size 2048 --model_type gpt3-175b \
        --num_accelerators 256 --accelerator_type h100 --precision fp8 --start_step "$start" --end_step "$end") ||
        fail "process_training_results.py failed: $oracle"
    step=$(sed -n 's/^Average step time: \([0-9.]*\)$/\1/p' <<<"$oracle")
    tflops=$(sed -n 's/^TFLOPS\/Accelerator \([0-9.]*\)$/\1/p' <<<"$oracle")
    mfu=$(sed -n 's/^MFU:\([0-9.]*\)$/\1/p' <<<"$oracle")
    [[ $step =~ ^[0-9]+\.[0-9]{8}$ && $tflops =~ ^[0-9]+\.[0-9]{8}$ && $mfu =~ ^0\.[0-9]{8}$ ]] ||
        fail "unexpected output of process_training_results.py: $oracle"
    ours=$("$bin" report "$tmp/dllogger.json" "${flags[@]}" "$@") || fail "report $*: $ours"
    [[ $(field 'step time (window mean)' <<<"$ours") == "$step" ]] || fail "steps $start..$end: step time is not $step:
$ours"
    [[ $(field 'TFLOPS/GPU' <<<"$ours") == "$tflops" ]] || fail "steps $start..$end: TFLOPS/GPU is not $tflops:
$ours"
    [[ $(field MFU <<<"$ours") == "$mfu" ]] || fail "steps $start..$end: MFU is not $mfu:
$ours"
    echo "steps $start..$end: step time $step s, TFLOPS/GPU $tflops, MFU $mfu (process_training_results.py and trainbench)"
}
compare 10 30                    # the tool's default window; trainbench's default for a DLLogger log
compare 47 47 --window 47:47     # the seed's single step
echo "report reproduces gpu-recipes"

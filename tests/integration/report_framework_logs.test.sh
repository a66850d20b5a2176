#!/bin/bash
# trainbench report on the 2026 framework logs:
# - `--window dgxc` (and `metrics.window: dgxc` in a recipe) is steps 35..44, and the mean step
#   time and the Bridge's own TFLOPS/GPU over it equal what dgxc-benchmarking's own
#   pretrain_log_parser.py (../shared/reference/dgxc-benchmarking@841f5466, run here with python3
#   on the same log) computes;
# - the cross-check rows compare the framework's printed TFLOPS/GPU (Megatron-Bridge) and
#   TFLOPS/GPU and MFU (TorchTitan) with trainbench's under the framework's convention and peak:
#   `ok` where they agree, `DIFF` and a finding with both numbers where they do not.
# The Bridge log is built from NVIDIA's published pair for Llama 3.1 405B on 1024 H100 (FP8,
# GBS 1536, seq 8192: 326 tokens/s/GPU, 822 TFLOP/s/GPU; Megatron-Bridge@067f987d
# docs/performance-summary-archive.md, 26.06 container), in the Bridge's line format
# (train_utils.training_log). Skips (125) only where shared/reference is absent, after the
# checks that need no oracle.
set -euo pipefail
bin=${TRAINBENCH_BINARY:?}
here=$(cd "$(dirname "$0")" && pwd)
shared=${TRAINBENCH_SHARED_DIR:-$here/../../../shared}
dgxc=$shared/reference/dgxc-benchmarking@841f5466/cli/llmb-run/src
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v python3 >/dev/null || fail "python3 is missing (scripts/setup.sh installs it)"

# bridge_log TFLOPS_AT_STEADY_STATE > FILE: 50 iterations of 37.69 s (= 1536 x 8192 / 1024 / 326),
# each step's time and TFLOPS varying, the first five slower (warm-up).
bridge_log() {
    python3 - "$1" <<'PY'
import sys
tflops = float(sys.argv[1])
base = 1536 * 8192 / 1024 / 326
for it in range(1, 51):
    t = base * (1.6 if it <= 5 else 1.0) + ((it * 37) % 11 - 5) * 0.01
    tf = tflops * base / t
    print(f"Step Time : {t:.2f}s GPU utilization: {tf:.1f}MODEL_TFLOP/s/GPU")
    print(f" [2026-08-22 10:00:05] iteration {it:8d}/{50:8d} | consumed samples: {it * 1536:12d} |"
          f" elapsed time per iteration (ms): {t * 1000:.1f} | throughput per GPU (TFLOP/s/GPU): {tf:.1f} |"
          f" learning rate: 8.000000E-05 | global batch size:  1536 | lm loss: {9 - it * 0.01:.6E} |"
          f" loss scale: 1.0 | grad norm: 1.234 | number of skipped iterations:   0 | number of nan iterations:   0 |")
PY
}
bridge_log 822 > "$tmp/bridge.log"
bridge_log 855.9 > "$tmp/bridge_full_attention.log"   # what a count without the causal halving prints
flags=(--format megatron-bridge --model llama3.1-405b --gpus 1024 --gpu h100 --precision fp8 --global-batch 1536
    --seq 8192)
# json_get FILE EXPR: a value of the report's JSON.
json_get() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"; }

"$bin" report "$tmp/bridge.log" "${flags[@]}" --window dgxc --json > "$tmp/ok.json" || fail "report --window dgxc"
[ "$(json_get "$tmp/ok.json" 'j["window"]')" = "{'start': 35, 'end': 44, 'name': 'dgxc'}" ] ||
    fail "the window is not dgxc 35..44: $(json_get "$tmp/ok.json" 'j["window"]')"
check=$(json_get "$tmp/ok.json" '[c for c in j["cross_checks"] if c["key"]=="framework_tflops_per_gpu"][0]')
grep -q "'match': True" <<<"$check" || fail "the Bridge's 822 TFLOPS/GPU is not ok: $check"
grep -q "megatron-bridge-2026" <<<"$check" || fail "the row does not name the convention: $check"
text=$("$bin" report "$tmp/bridge.log" "${flags[@]}" --window dgxc) || fail "report (text)"
grep -q "step window .*dgxc (35..44 inclusive: 10 records)" <<<"$text" || fail "the text report does not name the window:
$text"
grep -Eq "ok +framework_tflops_per_gpu" <<<"$text" || fail "no ok row in the text report:
$text"

set +e; "$bin" report "$tmp/bridge_full_attention.log" "${flags[@]}" --window dgxc --json > "$tmp/diff.json"; rc=$?; set -e
[ "$rc" = 0 ] || fail "report of a disagreeing log: exit $rc"
check=$(json_get "$tmp/diff.json" '[c for c in j["cross_checks"] if c["key"]=="framework_tflops_per_gpu"][0]')
grep -q "'match': False" <<<"$check" || fail "855.9 against trainbench's 822.8 is not a mismatch: $check"
finding=$(json_get "$tmp/diff.json" '[f["message"] for f in j["findings"] if "Megatron-Bridge" in f["message"]][0]')
grep -Eq "855\.[0-9]" <<<"$finding" && grep -Eq "822\.[0-9]" <<<"$finding" || fail "the finding lacks both numbers: $finding"
"$bin" report "$tmp/bridge_full_attention.log" "${flags[@]}" --window dgxc | grep -Eq "DIFF +framework_tflops_per_gpu" ||
    fail "no DIFF row in the text report"

# A misspelt window name: usage error with did-you-mean.
set +e; err=$("$bin" report "$tmp/bridge.log" "${flags[@]}" --window dgcx 2>&1); rc=$?; set -e
[ "$rc" = 2 ] && grep -q "dgxc" <<<"$err" || fail "--window dgcx: exit $rc: $err"

# TorchTitan: tps 6,667/GPU (TorchTitan's Llama 3 8B H100 benchmark, FSDP + compile, seq 8192),
# tflops and mfu as its metrics.py computes them from torchtitan-2026-08's FLOPs per token
# (trainbench flops) and its H100 peak 989e12; a second log prints 10% more TFLOPS/GPU.
per_token=$("$bin" flops --model llama3.1-8b --seq 8192 --json |
    python3 -c "import json,sys; print([c for c in json.load(sys.stdin)['conventions'] if c['name']=='torchtitan-2026-08'][0]['flops_per_token'])")
titan_log() {
    python3 - "$per_token" "$1" <<'PY'
import sys
per_token, scale = float(sys.argv[1]), float(sys.argv[2])
tps = 6667
step_s = 8192 * 2 / tps   # local batch 2 x 8192 tokens per GPU
for step in range(1, 41):
    ms = round(step * step_s * 1000)
    tflops = per_token * tps / 1e12 * scale
    print(f"[rank0]:[titan] 2026-08-22 10:{ms // 60000 % 60:02d}:{ms // 1000 % 60:02d},{ms % 1000:03d} - root - INFO - "
          f"\x1b[31mstep: {step:2}  \x1b[32mloss: {9 - step * 0.01:8.5f}  \x1b[38;2;180;60;0mgrad_norm: {1.0:7.4f}  "
          f"\x1b[38;2;54;234;195mmemory: {77.0:5.2f}GiB({97.3:.2f}%)  \x1b[34mtps: {tps:,}  "
          f"\x1b[36mtflops: {tflops:,.2f}  \x1b[35mmfu: {100 * tflops * 1e12 / 989e12:.2f}%\x1b[39m")
PY
}
titan_log 1.0 > "$tmp/titan.log"
titan_log 1.1 > "$tmp/titan_high.log"
tflags=(--format torchtitan --model llama3.1-8b --gpus 8 --gpu h100 --precision bf16 --global-batch 16 --seq 8192
    --flops torchtitan-2026-08)
"$bin" report "$tmp/titan.log" "${tflags[@]}" --json > "$tmp/titan.json" || fail "report torchtitan"
rows=$(json_get "$tmp/titan.json" '{c["key"]: c["match"] for c in j["cross_checks"]}')
[ "$rows" = "{'framework_tflops_per_gpu': True, 'framework_mfu': True}" ] || fail "torchtitan rows: $rows"
"$bin" report "$tmp/titan_high.log" "${tflags[@]}" --json > "$tmp/titan_high.json" || fail "report torchtitan (high)"
rows=$(json_get "$tmp/titan_high.json" '{c["key"]: c["match"] for c in j["cross_checks"]}')
[ "$rows" = "{'framework_tflops_per_gpu': False, 'framework_mfu': False}" ] || fail "torchtitan rows (10% high): $rows"
# Quantized: "mfu: N/A" is said, not compared.
sed 's/mfu: [0-9.]*%/mfu: N\/A/' "$tmp/titan.log" > "$tmp/titan_fp8.log"
"$bin" report "$tmp/titan_fp8.log" "${tflags[@]}" --json > "$tmp/titan_fp8.json" || fail "report torchtitan (fp8)"
json_get "$tmp/titan_fp8.json" '[f["message"] for f in j["findings"]]' | grep -q "mfu: N/A" ||
    fail "no finding for mfu N/A"
echo "cross-check rows: ok and DIFF for Megatron-Bridge and TorchTitan"

# A log still being written ends in half a line: the report says it was not read (a note), and
# says nothing of the kind for the whole log.
json_get "$tmp/titan.json" '[f["message"] for f in j["findings"]]' | grep -q "incomplete" &&
    fail "a note of an incomplete last line for a complete log"
{ cat "$tmp/titan.log"; printf '[rank0]:[titan] 2026-08-22 10:59:00,000 - root - INFO - step: 51  loss:  2.5'; } \
    > "$tmp/titan_cut.log"
"$bin" report "$tmp/titan_cut.log" "${tflags[@]}" > "$tmp/titan_cut.txt" || fail "report torchtitan (cut)"
grep -q "^note: the last line of titan_cut.log is incomplete (still being written?): it was not read" \
    "$tmp/titan_cut.txt" || fail "no note of the incomplete last line: $(grep -i note "$tmp/titan_cut.txt")"
echo "an incomplete last line: a note"

# MLPerf (the real llama31_8b result excerpt): the step time is each block's time over its
# samples / global_batch_size, here computed independently with Python's json module from the
# same lines; MLPerf's own throughput (samples/s) is the cross-check row; the model comes from
# submission_benchmark; time to train is said as MLPerf scores it.
mlperf=$here/../data/logs/real/mlperf_v5.1_amd_mi355x_llama31_8b_result_0_excerpt.txt
want=$(python3 - "$mlperf" <<'PY'
import json, sys
start, times, gbs = {}, [], None
for line in open(sys.argv[1]):
    e = json.loads(line[line.index("{"):])
    if e["key"] == "global_batch_size": gbs = e["value"]
    if e["key"] == "block_start": start = e
    if e["key"] == "block_stop":
        n = e["metadata"]["samples_count"] - start["metadata"]["samples_count"]
        times.append((e["time_ms"] - start["time_ms"]) / 1000 / (n / gbs))
print(f"{sum(times) / len(times):.9f}")
PY
)
mflags=(--gpus 8 --gpu b200)
"$bin" report "$mlperf" "${mflags[@]}" --json > "$tmp/mlperf.json" || fail "report mlperf"
got=$(json_get "$tmp/mlperf.json" '"%.9f" % j["step_time_s"]')
[ "$got" = "$want" ] || fail "MLPerf step time $got, the blocks give $want"
[ "$(json_get "$tmp/mlperf.json" 'j["model"]')" = "llama3.1-8b" ] || fail "the model is not the log's benchmark"
rows=$(json_get "$tmp/mlperf.json" '{c["key"]: c["match"] for c in j["cross_checks"]}')
grep -q "'framework_samples_per_s': True" <<<"$rows" || fail "MLPerf throughput row: $rows"
json_get "$tmp/mlperf.json" '[f["message"] for f in j["findings"]]' | grep -q "time to train 95.969 min" ||
    fail "no MLPerf time to train"
# Told a global batch twice the log's: the step time doubles (samples/s stays what the blocks
# say) and the global_batch row disagrees with the log.
"$bin" report "$mlperf" "${mflags[@]}" --global-batch 64 --json > "$tmp/mlperf64.json" || fail "report mlperf 64"
rows=$(json_get "$tmp/mlperf64.json" '{c["key"]: c["match"] for c in j["cross_checks"]}')
grep -q "'global_batch': False" <<<"$rows" || fail "a wrong global batch is not a DIFF: $rows"
[ "$(json_get "$tmp/mlperf64.json" '"%.9f" % (j["step_time_s"] / 2)')" = "$want" ] || fail "the step time did not double"
# A log whose printed throughput is 10% above what its blocks took: a DIFF row and a finding.
sed -E 's/"throughput": ([0-9.]+)/"throughput": 33.5/' "$mlperf" > "$tmp/mlperf_high.txt"
"$bin" report "$tmp/mlperf_high.txt" "${mflags[@]}" --json > "$tmp/mlperf_high.json" || fail "report mlperf high"
rows=$(json_get "$tmp/mlperf_high.json" '{c["key"]: c["match"] for c in j["cross_checks"]}')
grep -q "'framework_samples_per_s': False" <<<"$rows" || fail "a 10% high throughput is not a DIFF: $rows"
json_get "$tmp/mlperf_high.json" '[f["message"] for f in j["findings"]]' | grep -q "MLPerf's own throughput" ||
    fail "no finding for the throughput"
# Without global_batch_size a block cannot be turned into steps: exit 3 and the flag to give.
grep -v '"global_batch_size"' "$mlperf" > "$tmp/nogbs.txt"
set +e; err=$("$bin" report "$tmp/nogbs.txt" "${mflags[@]}" 2>&1); rc=$?; set -e
[ "$rc" = 3 ] && grep -q -- "--global-batch" <<<"$err" || fail "MLPerf log without a global batch: exit $rc: $err"
echo "MLPerf: step time from blocks, throughput row ok and DIFF, time to train"

[ -d "$dgxc/llmb_run" ] || { echo "skip: no dgxc-benchmarking oracle at $dgxc (shared/reference is absent)"; exit 125; }
# dgxc's own parser on the same log: its status, mean step time and mean TFLOPS over 35..44.
oracle=$(python3 -B - "$dgxc" "$tmp/bridge.log" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from llmb_run.pretrain_log_parser import parse_pretrain_log
r = parse_pretrain_log(sys.argv[2], "megatron_bridge")
print(r.status.value, repr(r.metrics.time_mean_seconds), repr(r.metrics.tflops_per_gpu_mean), r.metrics.time_sample_count)
PY
) || fail "pretrain_log_parser.py failed: $oracle"
read -r status step tflops count <<<"$oracle"
[ "$status" = success ] && [ "$count" = 10 ] || fail "pretrain_log_parser.py: $oracle"
ours_step=$(json_get "$tmp/ok.json" 'repr(j["step_time_s"])')
ours_tflops=$(json_get "$tmp/ok.json" '[c for c in j["cross_checks"] if c["key"]=="framework_tflops_per_gpu"][0]["logged"]')
python3 - "$step" "$ours_step" "$tflops" "$ours_tflops" <<'PY' || fail "dgxc $step s, $tflops TFLOPS/GPU; trainbench $ours_step s, $ours_tflops"
import sys
step, ours_step, tflops, ours_tflops = map(float, sys.argv[1:])
assert abs(step - ours_step) <= 1e-12 * step, (step, ours_step)
assert abs(tflops - ours_tflops) <= 1e-5 * tflops, (tflops, ours_tflops)   # ours printed to 6 digits
PY
echo "dgxc window 35..44: step time $step s, TFLOPS/GPU $tflops (pretrain_log_parser.py and trainbench)"

# MLPerf: the time to train trainbench reads from a real result log equals what MLCommons'
# own parser (mlperf_logging/compliance_checker/mlp_parser/ruleset_600.py at 7bbf7926) gives:
# the last run_stop minus the first run_start, in minutes.
mlp=$shared/reference/logging@7bbf7926/mlperf_logging/compliance_checker/mlp_parser
real=$here/../data/logs/real/mlperf_v5.1_amd_mi355x_llama31_8b_result_0_excerpt.txt
[ -d "$mlp" ] || { echo "skip: no mlperf_logging oracle at $mlp"; exit 125; }
"$bin" parse "$real" --json -q > "$tmp/mlperf.json" || fail "parse of the MLPerf log"
ours=$(json_get "$tmp/mlperf.json" 'repr(j["summary"]["time_to_train_min"])')
status=$(json_get "$tmp/mlperf.json" 'j["parameters"]["status"]')
theirs=$(python3 -B - "$mlp" "$real" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import ruleset_600
lines, errors = ruleset_600.parse_file(sys.argv[2])
assert not errors, errors
start = min(l.timestamp for l in lines if l.key == "run_start")
stop = max(l.timestamp for l in lines if l.key == "run_stop")
status = [l.value["metadata"]["status"] for l in lines if l.key == "run_stop"][-1]
print(repr((stop - start) / 60000), status)
PY
) || fail "ruleset_600.py: $theirs"
[ "$theirs" = "$ours $status" ] || fail "time to train: ruleset_600.py says $theirs, trainbench $ours $status"
echo "MLPerf time to train: $ours min, $status (ruleset_600.py and trainbench)"

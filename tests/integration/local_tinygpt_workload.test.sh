#!/usr/bin/env bash
# The tinygpt workload (workloads/tinygpt/train.py) trains for real and logs honestly:
# one process and two gloo ranks (torchrun-style variables) give the same losses (the
# gradients are really all-reduced), the untrained loss is ln(vocab), the loss falls,
# the DLLogger file has the NeMo layout (PARAMETER first, one LOG record per step), the
# Megatron lines count the steps and their TFLOP/s follow Megatron's formula, errors and
# SIGTERM end the process with a clear message. Skips (125) when /usr/bin/python3 has no torch.
set -euo pipefail

PY=/usr/bin/python3
if ! "$PY" -c 'import torch, torch.distributed' >/dev/null 2>&1; then
  echo "skip: $PY cannot import torch (python3-torch)" >&2
  exit 125
fi
src=${TRAINBENCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
train=$src/workloads/tinygpt/train.py
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Small dims keep the test quick; the model is the same code as the catalog's tinygpt-tiny.
dims=(--layers 2 --hidden 64 --heads 4 --ffn 256 --seq-len 64 --vocab 1024 --seed 7 --lr 3e-3
      --calibrate-seconds 0.2 --threads 1)
steps=30

# 1. One process: 4 micro-batches of 4 accumulated into a global batch of 16.
"$PY" "$train" "${dims[@]}" --micro-batch 4 --global-batch 16 --steps $steps \
  --dllogger-file "$work/single/dllogger.json" >"$work/single.out" 2>"$work/single.err" \
  || { cat "$work/single.err" >&2; fail "single-process run exited non-zero"; }

# 2. Two gloo ranks on localhost, torchrun-style: 2 micro-batches of 4 per rank.
port=$((20000 + RANDOM % 20000))
for r in 0 1; do
  RANK=$r WORLD_SIZE=2 LOCAL_RANK=$r MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
    "$PY" "$train" "${dims[@]}" --micro-batch 4 --global-batch 16 --steps $steps \
    --dllogger-file "$work/dp/dllogger.json" >"$work/dp$r.out" 2>"$work/dp$r.err" &
  pids+=($!)
done
for i in 0 1; do
  wait "${pids[$i]}" || { cat "$work"/dp*.err >&2; fail "rank $i exited non-zero"; }
done
pids=()

for r in 0 1; do
  grep -q "^tinygpt\[$r\]: done: $steps steps" "$work/dp$r.err" || fail "rank $r did not finish: $(cat "$work/dp$r.err")"
done
[ "$(grep -c ' iteration ' "$work/dp1.out" || true)" = 0 ] || fail "rank 1 printed iteration lines (rank 0 logs)"

"$PY" - "$work" "$steps" <<'EOF' || fail "log checks failed"
import json, math, re, sys
work, steps = sys.argv[1], int(sys.argv[2])

def dll(path):
    lines = open(path, encoding="utf-8").read().splitlines()
    recs = []
    for line in lines:
        assert line.startswith("DLLL {"), f"{path}: not a DLLL line: {line[:60]!r}"
        rec = json.loads(line[5:])
        assert list(rec) == ["timestamp", "datetime", "elapsedtime", "type", "step", "data"], list(rec)
        assert rec["type"] == "LOG"
        float(rec["timestamp"]); float(rec["elapsedtime"])
        recs.append(rec)
    return recs

def half_ulp(text):
    """Half a unit of the last printed digit of a decimal number ('12.3' -> 0.05, '1.5E+00' -> 0.05)."""
    mantissa, _, exponent = text.upper().partition("E")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return 0.5 * 10.0 ** (int(exponent or 0) - decimals)

def megatron(path):
    rx = re.compile(r"^ \[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?\] iteration +(\d+)/ +(\d+) \| "
                    r"consumed samples: +(\d+) \| elapsed time per iteration \(ms\): ([\d.]+) \| "
                    r"throughput per GPU \(TFLOP/s/GPU\): ([\d.]+) \| learning rate: ([\d.E+-]+) \| "
                    r"global batch size: +(\d+) \| lm loss: ([\d.E+-]+) \| loss scale: 1\.0 \| "
                    r"grad norm: ([\d.]+) \| number of skipped iterations: +0 \| "
                    r"number of nan iterations: +0 \|$")
    out = []
    for line in open(path, encoding="utf-8"):
        if " iteration " in line:
            m = rx.match(line.rstrip("\n"))
            assert m, f"{path}: malformed iteration line {line!r}"
            out.append(m)
    return out

runs = {}
for name, world in (("single", 1), ("dp", 2)):
    recs = dll(f"{work}/{name}/dllogger.json")
    p = recs[0]
    assert p["step"] == "PARAMETER", p
    d = p["data"]
    want = {"global_batch_size": 16, "micro_batch_size": 4, "world_size": world, "data_parallel_size": world,
            "tensor_model_parallel_size": 1, "pipeline_model_parallel_size": 1, "num_layers": 2,
            "hidden_size": 64, "num_attention_heads": 4, "ffn_hidden_size": 256, "seq_length": 64,
            "vocab_size": 1024, "precision": "fp32", "peak_precision": "fp32"}
    for k, v in want.items():
        assert d.get(k) == v, f"{name}: PARAMETER {k} = {d.get(k)!r}, want {v!r}"
    assert d["peak_tflops_measured"] > 0, d["peak_tflops_measured"]
    logs = recs[1:]
    assert [r["step"] for r in logs] == list(range(steps)), [r["step"] for r in logs]
    for r in logs:
        x = r["data"]
        for key in ("train_step_timing in s", "reduced_train_loss", "consumed_samples", "lr", "grad_norm",
                    "global_step"):
            assert key in x and math.isfinite(x[key]), f"{name} step {r['step']}: {key} missing or not finite"
        assert x["consumed_samples"] == 16 * (r["step"] + 1)
        assert x["global_step"] == r["step"]
        assert x["train_step_timing in s"] > 0
    lines = megatron(f"{work}/{name}.out" if name == "single" else f"{work}/dp0.out")
    assert len(lines) == steps, f"{name}: {len(lines)} iteration lines, want {steps}"
    for i, (m, r) in enumerate(zip(lines, logs)):
        assert int(m.group(2)) == i + 1 and int(m.group(3)) == steps
        assert int(m.group(4)) == 16 * (i + 1)
        assert abs(float(m.group(9)) - r["data"]["reduced_train_loss"]) <= half_ulp(m.group(9)) * (1 + 1e-9), \
            "stdout loss differs from the DLLogger loss"
        # Megatron's formula (facts/metrics.md 3.1) for B=16 s=64 L=2 h=64 f=256 V=1024, GELU, MHA, causal.
        B, s, L, h, f, V = 16, 64, 2, 64, 256, 1024
        flops = B * s * (L * (12 * h * f + 24 * h * h) + 6 * h * V) + 6 * B * s * s * h * L
        # Each figure is recomputed from the unrounded step time of the DLLogger record (the
        # log interval is 1, so the line's per-iteration time is that step's time) and compared
        # within half a unit of the last digit the line prints, plus float noise: a wrong FLOPs
        # formula or world size is off by far more than that.
        step_s = r["data"]["train_step_timing in s"]
        ms, tflops = m.group(5), m.group(6)
        expect = flops / (step_s * 1e12 * world)
        assert abs(float(tflops) - expect) <= half_ulp(tflops) + 1e-12 * expect, (tflops, expect)
        assert abs(float(ms) - 1000 * step_s) <= half_ulp(ms) + 1e-9, (ms, step_s, "ms per iteration differs from the step time")
    runs[name] = [r["data"]["reduced_train_loss"] for r in logs]

single, dp = runs["single"], runs["dp"]
first = single[0]
assert abs(first - math.log(1024)) < 0.1, f"untrained loss {first}, want ln(1024) = {math.log(1024):.4f}"
tail = sum(single[-5:]) / 5
assert tail < first - 0.5, f"loss did not fall: {first:.4f} -> {tail:.4f} (mean of the last 5 steps)"
# Same samples, same initial weights: data parallel with all-reduced gradients follows the
# single-process trajectory (up to float summation order). Without the all-reduce it would not.
worst = max(abs(a - b) for a, b in zip(single, dp))
assert worst < 2e-3, f"2-rank losses differ from 1-process losses by up to {worst}"
print(f"ok: loss {first:.4f} -> {tail:.4f}; 1 vs 2 ranks max |dloss| {worst:.2e}")
EOF

# 3. Errors are clear and non-zero.
if "$PY" "$train" "${dims[@]}" --micro-batch 4 --global-batch 10 --steps 1 >"$work/e.out" 2>"$work/e.err"; then
  fail "a global batch not divisible by micro x world was accepted"
fi
grep -q "global batch 10 is not divisible by micro batch 4" "$work/e.err" || fail "unclear message: $(cat "$work/e.err")"
set +e
"$PY" "$train" --steps 0 >/dev/null 2>"$work/e.err"; rc=$?
set -e
if [ "$rc" != 2 ] || ! grep -q -- "--steps" "$work/e.err"; then fail "bad --steps: exit $rc, $(cat "$work/e.err")"; fi

# 4. SIGTERM ends a run promptly, leaving a parseable DLLogger file.
"$PY" "$train" "${dims[@]}" --micro-batch 4 --global-batch 16 --steps 100000 \
  --dllogger-file "$work/term/dllogger.json" >"$work/term.out" 2>"$work/term.err" &
pids+=($!)
for _ in $(seq 1 600); do
  grep -q '"step": 0' "$work/term/dllogger.json" 2>/dev/null && break
  sleep 0.1
done
grep -q '"step": 0' "$work/term/dllogger.json" || fail "the run to be terminated never logged a step"
kill -TERM "${pids[0]}"
start=$(date +%s%N)
set +e
wait "${pids[0]}"; rc=$?
set -e
pids=()
took_ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$rc" = 143 ] || fail "SIGTERM: exit $rc, want 143"
[ "$took_ms" -lt 5000 ] || fail "SIGTERM: took $took_ms ms to exit"
grep -q "terminated by signal 15" "$work/term.err" || fail "SIGTERM: no message"
"$PY" -c 'import json,sys; [json.loads(l[5:]) for l in open(sys.argv[1])]' "$work/term/dllogger.json" \
  || fail "SIGTERM left a DLLogger file that does not parse"

# 5. Slurm host lists expand without scontrol, Slurm's tasks-per-node forms are read, and the
#    FLOPs formula gives the published values.
SLURM_TASKS_PER_NODE='2(x2),1' SLURM_NODEID=2 "$PY" - "$src/workloads/tinygpt" <<'EOF' || fail "slurm helpers"
import sys
sys.path.insert(0, sys.argv[1])
import train
assert train.parse_nodelist("gpu-[1-2]") == ["gpu-1", "gpu-2"]
assert train.parse_nodelist("a,n[08-10,12]x,b") == ["a", "n08x", "n09x", "n10x", "n12x", "b"]
assert train.tasks_on_this_node() == 1
# The FLOPs formula against published vectors (facts/metrics.md 2 and 3.5): NeMo's gpt3 test
# config (gbs 1, s 128, h 768, L 12, f 3072, V 51200) after the causal change, and GPT-3 175B.
from model import megatron_flops_per_iteration as flops
assert flops(1, 128, 12, 768, 12, 3072, 51200) == 96_334_774_272
assert abs(flops(1, 2048, 96, 12288, 96, 49152, 51200) / 2.174868e15 - 1) < 1e-6
assert flops(16, 128, 2, 128, 4, 512, 4096) == 11_676_942_336  # tinygpt-tiny, global batch 16
EOF

# 6. trainbench parse reads both outputs (once the parse command exists) and finds what the
#    workload logged: 30 steps of loss and step time, the same last loss in both.
if [ -n "${TRAINBENCH_BINARY:-}" ] && [ -x "$TRAINBENCH_BINARY" ] \
   && "$TRAINBENCH_BINARY" parse --help >/dev/null 2>&1; then
  "$TRAINBENCH_BINARY" --json parse --format dllogger "$work/dp/dllogger.json" >"$work/parse-dll.json" \
    || fail "trainbench parse --format dllogger failed"
  "$TRAINBENCH_BINARY" --json parse "$work/dp0.out" >"$work/parse-meg.json" \
    || fail "trainbench parse (auto-detected megatron) failed"
  "$PY" - "$work" "$steps" <<'EOF' || fail "trainbench parse results differ from the logs"
import json, sys
work, steps = sys.argv[1], int(sys.argv[2])
dll = json.load(open(f"{work}/parse-dll.json"))
meg = json.load(open(f"{work}/parse-meg.json"))
assert dll["format"] == "dllogger" and meg["format"] == "megatron", (dll["format"], meg["format"])
assert dll["parameters"]["world_size"] == 2 and dll["parameters"]["global_batch_size"] == 16
logged = [json.loads(l[5:]) for l in open(f"{work}/dp/dllogger.json")][1:]
last = [l for l in open(f"{work}/dp0.out") if " iteration " in l][-1]
printed_loss = last.split("lm loss: ")[1].split(" ")[0]
printed_ms = last.split("elapsed time per iteration (ms): ")[1].split(" ")[0]
def half_ulp(text):
    mantissa, _, exponent = text.upper().partition("E")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return 0.5 * 10.0 ** (int(exponent or 0) - decimals)
# DLLogger keeps full doubles; the Megatron line rounds: allow half a unit of its last digit.
tolerance = {"dllogger": (1e-12, 1e-12), "megatron": (half_ulp(printed_loss) * 1.000001, half_ulp(printed_ms) / 1000 * 1.000001)}
for name, parsed, first_step in (("dllogger", dll, 0), ("megatron", meg, 1)):
    for series in ("loss", "step_time_s", "consumed_samples", "lr", "grad_norm"):
        pts = parsed["series"][series]["points"]
        assert [p["step"] for p in pts] == list(range(first_step, first_step + steps)), (name, series)
    loss = parsed["series"]["loss"]["points"]
    loss_tol, time_tol = tolerance[name]
    assert abs(loss[-1]["value"] - logged[-1]["data"]["reduced_train_loss"]) <= loss_tol, (name, loss[-1])
    t = parsed["series"]["step_time_s"]["points"]
    assert abs(t[-1]["value"] - logged[-1]["data"]["train_step_timing in s"]) <= time_tol, (name, t[-1])
EOF
else
  echo "note: trainbench parse not available; parse checks not run" >&2
fi
echo "ok: tinygpt workload"

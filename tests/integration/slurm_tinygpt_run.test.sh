#!/usr/bin/env bash
# The embedded default on the real local Slurm cluster, through trainbench alone: one
# `trainbench run recipes/local-slurm/tinygpt-2n.yaml` renders the sbatch job, submits it
# (2 nodes x 2 ranks, srun, gloo), tracks it to COMPLETED, collects the rank-0 DLLogger file
# and prints the report. The report's figures are then recomputed here from that log with
# the formulas of docs/metrics.md (window mean of `train_step_timing in s` over steps 5..15,
# tokens/s, Megatron-LM FLOPs per sample from the model shape the log declares, TFLOPS/GPU,
# MFU against the peak the workload measured) and must agree.
source "$(dirname "$0")/runs_lib.sh"
use_slurm
src=${TRAINBENCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
/usr/bin/python3 -c 'import torch, torch.distributed' >/dev/null 2>&1 || { echo "skip: /usr/bin/python3 cannot import torch"; exit 125; }

recipe=$src/recipes/local-slurm/tinygpt-2n.yaml
timeout 600 "$TB" --runs "$WORK/runs" run "$recipe" >"$WORK/report.txt" 2>"$WORK/run.err" ||
    fail "trainbench run failed ($?): $(tail -20 "$WORK/run.err")"

status=$(tb --json status)
[[ $(jq length <<<"$status") == 1 ]] || fail "want one run, got: $status"
run=$(jq '.[0]' <<<"$status")
id=$(jq -r .short_id <<<"$run")
dir=$(jq -r .dir <<<"$run")
jq -e '.state == "COMPLETED" and (.stages | length == 1) and .stages[0].state == "COMPLETED"
       and .stages[0].exit_code == 0 and .stages[0].nodes == "gpu-[1-2]"' <<<"$run" >/dev/null ||
    fail "the run did not complete on both nodes: $(jq -c . <<<"$run")"

# Submitted through sbatch --parsable, one job; the ranks all joined under Slurm.
jq -s -e 'map(select(.argv[0] == "sbatch")) | length == 1 and (.[0].argv | any(. == "--parsable"))' \
    "$dir"/commands/*.json >/dev/null || fail "not one sbatch --parsable submission"
err=$(ls "$dir"/logs/train/slurm-*.err)
for r in 0 1 2 3; do
    grep -q "^tinygpt\[$r\]: joining 4 ranks at .*(gloo, slurm)" "$err" || fail "rank $r did not join: $(head "$err")"
done
log=$dir/logs/train/dllogger/rank-0/dllogger.json
[[ -s $log ]] || fail "no DLLogger file collected at $log"

# The printed report and the stored one.
grep -q "MFU" "$WORK/report.txt" || fail "no MFU in the printed report: $(cat "$WORK/report.txt")"
grep -q "FLOPs convention  megatron" "$WORK/report.txt" || fail "the report does not name its convention"
grep -q "measured on this machine" "$WORK/report.txt" || fail "the report does not name its peak"
tb --json report "$id" >"$WORK/report.json" || fail "report --json failed"

/usr/bin/python3 - "$log" "$WORK/report.json" <<'EOF' || fail "the report disagrees with the log"
import json, math, sys
log, report = sys.argv[1], json.load(open(sys.argv[2]))
records = [json.loads(line[5:]) for line in open(log, encoding="utf-8") if line.startswith("DLLL ")]
p = records[0]["data"]
assert records[0]["step"] == "PARAMETER", records[0]
steps = {r["step"]: r["data"] for r in records[1:]}
assert sorted(steps) == list(range(20)), sorted(steps)

window = [steps[s]["train_step_timing in s"] for s in range(5, 16)]
step = sum(window) / len(window)
gb, s, gpus = p["global_batch_size"], p["seq_length"], p["world_size"]
L, h, n, f, V = p["num_layers"], p["hidden_size"], p["num_attention_heads"], p["ffn_hidden_size"], p["vocab_size"]
g = p["cfg/num_query_groups"]
d = h // n
q = d * n
Vp = math.ceil(V / 128) * 128
# Megatron-LM HEAD, GELU MLP (phi = 2), causal attention core (docs/metrics.md).
per_sample = s * (6 * h * f * 2 * L + 6 * L * (h * (q + 2 * d * g) + q * h) + 6 * h * Vp) + s * s * 6 * q * L
tflops = per_sample * gb / step / gpus / 1e12
peak = p["peak_tflops_measured"]

def close(name, want, rel=1e-9):
    got = report[name]
    assert abs(got - want) <= rel * abs(want), f"{name}: report {got}, log gives {want}"

assert report["steps_used"] == list(range(5, 16)), report["steps_used"]
assert report["gpus"] == 4 and report["global_batch"] == gb and report["seq_len"] == s
close("step_time_s", step)
close("tokens_per_s", gb * s / step)
close("tokens_per_s_per_gpu", gb * s / step / gpus)
close("flops_per_sample", per_sample)
close("tflops_per_gpu", tflops)
close("peak_tflops", peak)
close("mfu", tflops / peak)
close("final_loss", steps[19]["reduced_train_loss"])
assert steps[19]["reduced_train_loss"] < steps[0]["reduced_train_loss"], "the loss did not fall"
print(f"ok: step {step:.4f} s, {tflops:.5f} TFLOPS/GPU, MFU {tflops / peak:.2%} of {peak:.4f} measured")
EOF
echo ok

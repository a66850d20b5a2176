#!/bin/bash
# report --reference: a synthetic Megatron-Core log of Llama 3.1 70B (64 x H100, FP8, GBS 128,
# sequence 8192) whose step time gives exactly NVIDIA's published NeMo 24.07 Llama 3 70B
# throughput (1533 tokens/s/GPU) prints 100.0 +- 0.5 % of that row under the row's own
# convention (nemo-2024: 738 TFLOPS/GPU), names the configuration it does not match, and a run
# 10 % slower prints 90 %. `list references` reproduces every published row within 0.5 % (or
# says the difference is explained), and `flops` names the conventions of a published pair.
set -euo pipefail
bin=${TRAINBENCH_BINARY:?}
here=$(cd "$(dirname "$0")" && pwd)
src=${TRAINBENCH_SOURCE_DIR:-$here/../..}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
row=nemo-24.07-llama3-70b-h100x64-fp8

# Megatron-Core's training_log line, one per iteration (megatron/training/training.py).
megatron_log() {  # $1: milliseconds per iteration
  for i in $(seq 1 40); do
    printf '[2026-08-22 10:%02d:%02d] iteration %8d/     100 | consumed samples: %12d | elapsed time per iteration (ms): %s | learning rate: 1.500000E-04 | global batch size:   128 | lm loss: 8.123456E+00 | loss scale: 1.0 | grad norm: 1.234 | number of skipped iterations:   0 | number of nan iterations:   0 |\n' \
      $((i / 60)) $((i % 60)) "$i" $((i * 128)) "$1"
  done
}
# 128 * 8192 tokens / (1533 tokens/s/GPU * 64 GPUs) = 10.68754... s per step
ms=$(python3 -c 'print(f"{128 * 8192 / (1533 * 64) * 1000:.3f}")')
megatron_log "$ms" > "$tmp/train.log"
flags=(--model llama3.1-70b --gpus 64 --gpu h100 --precision fp8 --global-batch 128 --seq 8192 --tp 4
       --reference "$row")
json=$("$bin" report "$tmp/train.log" "${flags[@]}" --json)
python3 - "$json" <<'PY'
import json, sys
r = json.loads(sys.argv[1])["reference"]
assert r["id"] == "nemo-24.07-llama3-70b-h100x64-fp8", r["id"]
assert r["convention"] == "nemo-2024", r["convention"]
for key in ("step_time_pct", "tokens_per_s_per_gpu_pct", "tflops_pct"):
    assert abs(r[key] - 100.0) <= 0.5, (key, r[key])
assert abs(r["row_reproduced_difference"]) <= 0.005, r["row_reproduced_difference"]
keys = {d["key"]: d for d in r["differences"]}
assert keys["pipeline_parallel"]["run"] == "1" and keys["pipeline_parallel"]["row"] == "4", keys
assert "tensor_parallel" not in keys and "gpus" not in keys and "precision" not in keys, keys
print("reference: step time {step_time_pct:.2f} %, tokens/s/GPU {tokens_per_s_per_gpu_pct:.2f} %, "
      "TFLOPS {tflops_pct:.2f} % of the row ({convention})".format(**r))
PY
text=$("$bin" report "$tmp/train.log" "${flags[@]}")
grep -q "against $row" <<<"$text" || { echo "no reference section:"; echo "$text"; exit 1; }
grep -Eq 'TFLOPS/GPU \(nemo-2024\) +[0-9.]+ +738 +100\.0%' <<<"$text" || { echo "TFLOPS not 100.0%:"; echo "$text"; exit 1; }
grep -q "pipeline_parallel 1/4" <<<"$text" || { echo "differences not named:"; echo "$text"; exit 1; }

# 10 % slower steps: 90.9 % of the row's throughput.
megatron_log "$(python3 -c "print(f'{$ms * 1.1:.3f}')")" > "$tmp/slow.log"
"$bin" report "$tmp/slow.log" "${flags[@]}" --json | python3 -c '
import json, sys
r = json.load(sys.stdin)["reference"]
assert abs(r["tokens_per_s_per_gpu_pct"] - 100 / 1.1) < 0.05 and abs(r["step_time_pct"] - 110) < 0.05, r'

# An unknown id is a usage error with a suggestion.
set +e; err=$("$bin" report "$tmp/train.log" "${flags[@]/$row/nemo-24.07-llama3-70b-h100x64-fp9}" 2>&1); rc=$?; set -e
[ "$rc" = 2 ] && grep -q "did you mean '$row'" <<<"$err" || { echo "unknown reference: rc $rc: $err"; exit 1; }

# Every published row is reproduced under its convention within 0.5 %, or explained.
"$bin" list references --json | python3 -c '
import json, sys
rows = json.load(sys.stdin)
ids = {r["id"] for r in rows}
for want in ("nemo-24.07-gpt3-175b-h100x512-fp8", "nemo-24.07-llama3-70b-h100x64-fp8",
             "bridge-26.08-deepseek-v3-gb200x256-mxfp8", "bridge-26.08-qwen3-30b-a3b-gb200x8-mxfp8"):
    assert want in ids, want
for r in rows:
    assert r["reproduced"] or r["explained"], r["id"]
    if r["reproduced"]:
        assert abs(r["reproduced_difference"]) <= 0.005, r
    if r["framework"] == "nemo":
        assert r["convention"] == "nemo-2024", r  # the convention NeMo 24.07 prints
print(sum(r["reproduced"] for r in rows), "of", len(rows), "published rows reproduced within 0.5 %")'

# docs/metrics.md's table of the shipped rows is what `list references` prints.
update=(); [ "${TRAINBENCH_UPDATE_GOLDEN:-}" = 1 ] && update=(--update)
python3 "$here/references_table.py" "$bin" "$src/docs/metrics.md" "${update[@]}" \
  || { echo "docs/metrics.md's references table differs (TRAINBENCH_UPDATE_GOLDEN=1 rewrites it)"; exit 1; }

# A pair without a stated convention: NeMo 24.07 GPT-3 175B (782 tokens/s/GPU, 842 TFLOPS/GPU).
out=$("$bin" flops --model gpt3-175b --tp 4 --tokens-per-gpu 782 --tflops-per-gpu 842)
grep -q "reproduces 842 TFLOPS/GPU at 782 tokens/s/GPU within 0.5 %: .*'nemo-2024'" <<<"$out" || { echo "$out"; exit 1; }
grep -Eq '^nemo-2025-08 .*-1\.37%$' <<<"$out" || { echo "$out"; exit 1; }
echo "report --reference prints the run as a percentage of the published row"

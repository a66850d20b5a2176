#!/usr/bin/env bash
# The shipped seed recipes: every recipe under recipes/<folder>/ validates, and each seed's main
# recipe still resolves to what its seed document runs (docs/seeds.md), so an edit to a base,
# the catalog or the loader that changes a seed's benchmark fails here.
set -euo pipefail

bin=${TRAINBENCH_BINARY:-}
src=${TRAINBENCH_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
if [[ -z $bin || ! -x $bin ]]; then
    echo "skip: TRAINBENCH_BINARY is not set to the built CLI"
    exit 125
fi
if ! command -v python3 >/dev/null; then
    echo "skip: python3 is needed to read the JSON"
    exit 125
fi

cd "$src"
fail=0

# 1. Every shipped recipe validates (bases under common/ and the catalog are not recipes).
mapfile -t recipes < <(find recipes -mindepth 2 -maxdepth 2 -name '*.yaml' \
    -not -path 'recipes/catalog/*' -not -path 'recipes/common/*' | LC_ALL=C sort)
if (( ${#recipes[@]} < 25 )); then
    echo "FAIL: expected the seed recipes under recipes/, found ${#recipes[@]}"
    exit 1
fi
for r in "${recipes[@]}"; do
    if ! out=$("$bin" validate "$r" 2>&1); then
        echo "FAIL: $r does not validate:"
        printf '    %s\n' "${out//$'\n'/$'\n'    }"
        fail=1
    fi
done

# 2. Each seed's main recipe resolves to the seed document's settings.
# check RECIPE 'python expression over r (the resolved recipe as JSON)'...
read -r -d '' checker <<'EOF' || true
import json, sys
recipe, exprs = sys.argv[1], sys.argv[2:]
r = json.load(sys.stdin)
r = r.get("recipe", r)  # accept the recipe object itself or {"recipe": {...}}
bad = [e for e in exprs if not eval(e, {}, {"r": r})]
for e in bad:
    print(f"FAIL: {recipe}: expected {e}")
sys.exit(1 if bad else 0)
EOF
check() {
    local recipe=$1
    shift
    local json
    if ! json=$("$bin" --json show "$recipe" 2>/dev/null); then
        echo "FAIL: trainbench --json show $recipe failed"
        fail=1
        return
    fi
    if ! python3 -c "$checker" "$recipe" "$@" <<<"$json"; then
        fail=1
    fi
}

# seed 000: the document's 126M command, the Pile shards 0-1, validation before training
check recipes/azure-ndm-a100-v4/gpt3-126m.yaml \
    'r["target"]["name"] == "azure-ndm-a100-v4"' 'r["model"]["name"] == "gpt3-126m"' \
    'r["nodes"] == 1' 'r["steps"] == 200' 'r["batch"]["micro"] == 4' 'r["batch"]["global"] == 256' \
    'r["parallelism"]["tensor"] == 1 and r["parallelism"]["pipeline"] == 1' 'r["precision"] == "bf16"' \
    'r["data"]["kind"] == "prefixes" and len(r["data"]["prefixes"]) == 2' \
    '[p["weight"] for p in r["data"]["prefixes"]] == [0.5, 0.5]' \
    'r["slurm"]["partition"] == "ndmv4" and r["slurm"]["time"] == "10:00:00"' \
    '[s["kind"] for s in r["stages"]] == ["validate", "prepare-data", "train"]' \
    'r["stages"][1]["options"]["shards"] == "0-1"' \
    'r["stages"][0]["options"]["nccl"]["busbw_threshold_gbs"] == 180' \
    'r["container"]["image"] == "nvcr.io/ea-bignlp/bignlp-training:22.06-hotfix.01-py3"' \
    'r["metrics"]["source"] == "tensorboard" and r["metrics"]["window"] == [149, 189]' \
    'r["expect"]["step_time_s"]["value"] == 0.9'
check recipes/azure-ndm-a100-v4/gpt3-175b.yaml \
    'r["nodes"] == 128' 'r["parallelism"]["tensor"] == 8 and r["parallelism"]["pipeline"] == 8' \
    'r["batch"]["micro"] == 2 and r["batch"]["global"] == 1536' 'r["expect"]["step_time_s"]["value"] == 22.8'

# seed 001: bmk-pretrain-gpt3-126m2.sh
check recipes/aws-p4d/gpt3-126m.yaml \
    'r["target"]["name"] == "aws-p4d-24xlarge"' 'r["nodes"] == 2' 'r["steps"] == 40' \
    'r["data"]["kind"] == "mock"' 'r["slurm"]["use_gres"] is True' \
    'r["container"]["image"] == "/apps/aws-nemo-megatron_23.07-py3.sqsh"' \
    'r["env"]["TRANSFORMER_OFFLINE"] == "1"' 'r["distributed_optimizer"] is True'
check recipes/aws-p4d/gpt3-5b.yaml \
    'r["model"]["name"] == "gpt3-5b"' 'r["steps"] == 20' \
    'r["recompute"] == {"granularity": "full", "method": "block", "num_layers": 1}'

# seed 002: 04-gpt175B.sh defaults
check recipes/azure-nd-h100-v5/gpt3-175b.yaml \
    'r["target"]["name"] == "azure-nd-h100-v5"' 'r["model"]["name"] == "gpt3-175b"' \
    'r["framework"] == "megatron-lm"' \
    'r["parallelism"]["tensor"] == 8 and r["parallelism"]["pipeline"] == 16' \
    'r["parallelism"]["sequence_parallel"] is True' \
    'r["batch"]["micro"] == 1 and r["batch"]["global"] == 512' 'r["precision"] == "fp16"' \
    'r["steps"] == 1500' 'len(r["data"]["prefixes"]) == 42' 'r["slurm"]["partition"] == "gpu"' \
    '"--lr-decay-style" in r["launch"]["extra_args"]' \
    'r["stages"][0]["options"]["dataset"] == "slimpajama" and r["stages"][0]["options"]["chunks"] == 72' \
    'r["framework_version"] == "e958b2ca"' \
    'r["container"]["env"] == ["CUDA_DEVICE_MAX_CONNECTIONS", "NCCL_TOPO_FILE", "LOGLEVEL"]' \
    'r["env"] == {"NCCL_TOPO_FILE": "/opt/microsoft/ndv5-topo.xml", "CUDA_DEVICE_MAX_CONNECTIONS": "1", "LOGLEVEL": "INFO"}' \
    'r["target"]["env"] == {}' \
    '"--save-interval" in r["launch"]["extra_args"] and "--save" not in r["launch"]["extra_args"]' \
    '"--load" not in r["launch"]["extra_args"] and "--tensorboard-dir" not in r["launch"]["extra_args"]'
# seed 002, the SHARP update (77e7526)
check recipes/azure-nd-h100-v5/gpt3-175b-sharp.yaml \
    'r["framework_version"] == "878d65f"' 'r["slurm"]["network"] == "sharp"' \
    '"--use-sharp" in r["launch"]["extra_args"]' \
    'r["env"]["NCCL_COLLNET_ENABLE"] == "1" and r["env"]["SHARP_COLL_ENABLE_SAT"] == "1"' \
    'r["env"]["NCCL_TOPO_FILE"] == "/opt/microsoft/ndv5-topo.xml"'
check recipes/azure-nd-h100-v5/gpt3-175b-h200.yaml 'r["target"]["name"] == "azure-nd-h200-v5"'
check recipes/azure-nd-h100-v5/gpt3-175b-smoke.yaml \
    'r["nodes"] == 2' 'r["model"]["layers"] == 12 and r["model"]["hidden"] == 512' \
    'r["model"]["heads"] == 8 and r["model"]["seq_length"] == 1024' 'r["parallelism"]["tensor"] == 1'

# seed 003: opt-baselines --model-size 175b --benchmark -g 8 -n 128 --azure
check recipes/azure-a100-metaseq/opt-175b.yaml \
    'r["framework"] == "metaseq"' 'r["model"]["name"] == "opt-175b"' 'r["nodes"] == 128' \
    'r["parallelism"]["tensor"] == 8' 'r["batch"]["micro"] == 8 and r["batch"]["global"] == 1024' \
    'r["steps"] == 50' 'r["precision"] == "fp16"' 'r["container"]["runtime"] == "none"' \
    'r["data"]["kind"] == "mock"' 'r["metrics"]["source"] == "metaseq"' \
    'r["framework_version"] == "f7ffa5f"' '"--sample-break-mode" not in r["launch"]["extra_args"]'
check recipes/azure-a100-metaseq/opt-125m-smoke.yaml \
    'r["nodes"] == 1' 'r["expect"]["tokens_per_s"]["min"] == 200000'

# seed 004: gpt3-175b-256gpus-fp8.yaml on 32 A3 Mega nodes
check recipes/gcp-a3-mega/gpt3-175b-fp8.yaml \
    'r["target"]["name"] == "gcp-a3-megagpu-8g"' 'r["nodes"] == 32' \
    'r["parallelism"] == {"tensor": 4, "pipeline": 8, "virtual_pipeline": 2, "context": 1, "expert": 1, "sequence_parallel": True}' \
    'r["batch"] == {"micro": 1, "global": 2048}' 'r["precision"] == "fp8"' 'r["steps"] == 50' \
    'r["profiling"]["nsys"] is False and [r["profiling"]["start_step"], r["profiling"]["end_step"]] == [41, 43]' \
    'r["metrics"] == {"source": "dllogger", "path": "dllogger/rank-0/dllogger.json", "window": [10, 30], "flops": "gpu-recipes"}' \
    'r["expect"]["step_time_s"]["value"] == 25.1' 'r["kubernetes"]["namespace"] == "default"'
check recipes/gcp-a3-mega/gpt3-175b-fp8-nsys.yaml 'r["profiling"]["nsys"] is True'

# the embedded default
check recipes/local/tinygpt.yaml \
    'r["target"]["name"] == "local"' 'r["framework"] == "tinygpt"' 'r["model"]["name"] == "tinygpt-tiny"' \
    'r["precision"] == "fp32"' 'r["metrics"]["window"] == [5, 25]'
check recipes/local-slurm/tinygpt-2n.yaml 'r["target"]["name"] == "local-slurm"' 'r["nodes"] == 2'

# 3. A size variant changes only what it says: the 5B ladder file keeps seed 000's stages and env.
check recipes/azure-ndm-a100-v4/gpt3-5b.yaml \
    'r["nodes"] == 20' 'r["parallelism"]["tensor"] == 2' 'len(r["stages"]) == 3' \
    'r["env"]["NCCL_IB_TIMEOUT"] == "22"'

if (( fail )); then
    exit 1
fi
echo "ok: ${#recipes[@]} shipped recipes validate; the seed main recipes resolve to their documents' settings"

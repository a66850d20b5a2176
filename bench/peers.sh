#!/usr/bin/env bash
# Reports, parse output and sweeps beside the tools that do the same work, measured in one run
# (docs/performance.md, "Beside the peers"):
#   report --flops gpu-recipes / megatron of a 160 MiB DLLogger log  vs  gpu-recipes'
#     process_training_results.py (from ../shared/reference beside the repository, or $GPU_RECIPES), jq and cat
#   parse --json of a 1 GiB DLLogger log (peak RSS)
#   report of 160 MiB Megatron-Bridge, TorchTitan logs and parse of an MLPerf log  vs  dgxc-benchmarking's
#     pretrain_log_parser.py (Bridge, --window dgxc) and MLCommons' ruleset_600.py (MLPerf), from
#     ../shared/reference; with --no-1g skipped, the same at 1 GiB (peak RSS)
#   sweep --dry-run -o of 1,000 and 10,000 points  vs  Ramble `workspace setup --dry-run` of
#     1,000 experiments (GoogleCloudPlatform/ramble from git, its Python deps in a cached venv)
#   render of seed 001 (recipes/aws-p4d/gpt3-5b.yaml)  vs  the NeMo launcher 23.07 rendering the
#     same job in its own dry run (NVIDIA/NeMo-Framework-Launcher from git, NEMO_LAUNCHER_DEBUG=1)
# Peak RSS from GNU time. Prints a markdown table; hyperfine JSON under OUT/results.
#   bench/peers.sh [--trainbench PATH] [--out DIR] [--runs N] [--no-ramble] [--no-launcher] [--no-1g]
#                  [--no-frameworks] [--frameworks-only]
# (RAMBLE_GIT=URL|DIR and NEMO_LAUNCHER_GIT=URL|DIR clone from elsewhere than GitHub.)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
tb=$root/build-bench/trainbench
out=${TMPDIR:-/tmp}/trainbench-peers
runs=10
ramble_on=1
launcher_on=1
big=1
frameworks=1
others=1
while [ $# -gt 0 ]; do
  case "$1" in
    --trainbench) tb=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --no-ramble) ramble_on=0; shift ;;
    --no-launcher) launcher_on=0; shift ;;
    --no-1g) big=0; shift ;;
    --no-frameworks) frameworks=0; shift ;;
    --frameworks-only) others=0; ramble_on=0; launcher_on=0; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "peers.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
for tool in hyperfine jq python3 c++ /usr/bin/time git; do
  command -v "$tool" >/dev/null || { echo "peers.sh: '$tool' not found" >&2; exit 2; }
done
[ -x "$tb" ] || { echo "peers.sh: no trainbench at $tb (bench/run builds build-bench/)" >&2; exit 2; }
cache=${TRAINBENCH_CACHE:-$HOME/.cache/trainbench}
gr=${GPU_RECIPES:-$(ls -d "$here"/../../shared/reference/gpu-recipes@*/src/utils/training_metrics 2>/dev/null | head -1)}
res=$out/results
mkdir -p "$res"
rm -f "$res"/*.json "$res"/rss.txt
c++ -O2 -std=c++20 "$here/gen_logs.cpp" -o "$out/gen_logs"
dll=$out/dllogger-160
[ -s "$dll" ] || "$out/gen_logs" dllogger 160 "$dll" >/dev/null
cat "$dll" >/dev/null

hf() {  # name runs command (through a shell: the gpu-recipes tool needs its directory); one warm-up
        # run unless HF_WARMUP says otherwise
  # HF_PREPARE: a command run before each timed run, outside the time (hyperfine --prepare)
  local name=$1 n=$2; shift 2
  local prepare=()
  [ -n "${HF_PREPARE:-}" ] && prepare=(--prepare "$HF_PREPARE")
  hyperfine --style none --warmup "${HF_WARMUP:-1}" --runs "$n" "${prepare[@]}" --export-json "$res/$name.json" "$*" >/dev/null 2>&1 \
    || echo "peers.sh: '$*' failed" >&2
}
rss() {  # name command...
  local name=$1; shift
  echo "$name $(/usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F': ' '/Maximum resident set size/ {print $2}')" >> "$res/rss.txt"
}
{
  echo "date $(date -u +%FT%TZ)"
  echo "load_before $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "commit $(git -C "$root" rev-parse --short HEAD)"
  echo "bytes $(stat -c %s "$dll")"
} > "$res/meta.txt"

ref=$(cd "$here/../../shared/reference" 2>/dev/null && pwd || true)
if (( frameworks )); then
  # The 2026 framework logs (bench/gen_logs.cpp writes each in its writer's format).
  echo "peers.sh: Megatron-Bridge, TorchTitan and MLPerf logs" >&2
  for f in megatron-bridge torchtitan mlperf; do
    [ -s "$out/$f-160" ] || "$out/gen_logs" "$f" 160 "$out/$f-160" >/dev/null
    cat "$out/$f-160" >/dev/null
    echo "bytes_$f $(stat -c %s "$out/$f-160")" >> "$res/meta.txt"
  done
  bflags="--format megatron-bridge --model llama3.1-405b --gpus 1024 --gpu h100 --precision fp8 --global-batch 256 --seq 8192 --window dgxc"
  tflags="--format torchtitan --model llama3.1-8b --gpus 8 --gpu h100 --global-batch 16 --seq 8192 --flops torchtitan-2026-08"
  hf report_bridge "$runs" "$tb report $out/megatron-bridge-160 $bflags"
  rss report_bridge "$tb" report "$out/megatron-bridge-160" $bflags
  dgxc=$ref/dgxc-benchmarking@841f5466/cli/llmb-run/src
  if [ -d "$dgxc/llmb_run" ]; then
    # dgxc's parser reads the whole log (it finds no final iteration here: status "incomplete").
    echo "import sys; sys.path.insert(0, '$dgxc'); from llmb_run.pretrain_log_parser import parse_pretrain_log; print(parse_pretrain_log(sys.argv[1], 'megatron_bridge').status)" > "$out/dgxc.py"
    HF_WARMUP=0 hf dgxc_parser 3 "python3 -B $out/dgxc.py $out/megatron-bridge-160"
    rss dgxc_parser python3 -B "$out/dgxc.py" "$out/megatron-bridge-160"
  fi
  hf report_titan "$runs" "$tb report $out/torchtitan-160 $tflags"
  rss report_titan "$tb" report "$out/torchtitan-160" $tflags
  hf parse_mlperf "$runs" "$tb parse $out/mlperf-160 --format mlperf --json -q"
  rss parse_mlperf "$tb" parse "$out/mlperf-160" --format mlperf --json -q
  mlp=$ref/logging@7bbf7926/mlperf_logging/compliance_checker/mlp_parser/ruleset_600.py
  if [ -f "$mlp" ]; then
    HF_WARMUP=0 hf mlperf_ruleset_parser 3 "python3 -B $mlp $out/mlperf-160"
    rss mlperf_ruleset_parser python3 -B "$mlp" "$out/mlperf-160"
  fi
  if (( big )); then
    for f in megatron-bridge torchtitan mlperf; do "$out/gen_logs" "$f" 1024 "$out/$f-1024" >/dev/null; done
    rss report_bridge_1024 "$tb" report "$out/megatron-bridge-1024" $bflags
    rss report_titan_1024 "$tb" report "$out/torchtitan-1024" $tflags
    rss parse_mlperf_1024 "$tb" parse "$out/mlperf-1024" --format mlperf --json -q
    rm -f "$out"/*-1024
  fi
fi
if (( ! others )); then
  echo "load_after $(cut -d' ' -f1-3 /proc/loadavg)" >> "$res/meta.txt"
  python3 "$here/peers_table.py" "$res"
  exit 0
fi

flags="--model gpt3-175b --gpus 256 --gpu h100 --global-batch 2048"
echo "peers.sh: report vs the gpu-recipes tool" >&2
hf report_gpu_recipes "$runs" "$tb report $dll $flags --flops gpu-recipes"
hf report_megatron "$runs" "$tb report $dll $flags --flops megatron"
rss report_gpu_recipes "$tb" report "$dll" $flags --flops gpu-recipes
rss report_megatron "$tb" report "$dll" $flags --flops megatron
if [ -n "$gr" ] && [ -f "$gr/process_training_results.py" ]; then
  cmd="cd $gr && python3 process_training_results.py --file $dll --batch_size 2048 --model_type gpt3-175b --num_accelerators 256 --accelerator_type h100"
  HF_WARMUP=0 hf gpu_recipes_tool 3 "$cmd"
  echo "gpu_recipes_tool $( { /usr/bin/time -v bash -c "$cmd" >/dev/null; } 2>&1 | awk -F': ' '/Maximum resident set size/ {print $2}')" >> "$res/rss.txt"
fi
echo 'ltrimstr("DLLL ") | fromjson | .data["train_step_timing in s"]' > "$out/filter.jq"
hf jq_step_times 3 "jq -c -R -f $out/filter.jq $dll"
hf cat_log "$runs" "cat $dll"
hf parse_json_160 3 "$tb parse $dll --json -q"
rss parse_json_160 "$tb" parse "$dll" --json -q
if (( big )); then
  echo "peers.sh: parse --json of 1 GiB" >&2
  "$out/gen_logs" dllogger 1024 "$out/dllogger-1024" >/dev/null
  rss parse_json_1024 "$tb" parse "$out/dllogger-1024" --json -q
  rm -f "$out/dllogger-1024"
fi

echo "peers.sh: sweeps" >&2
for n in 1000 10000; do "$here/sweep/gen_sweep.sh" "$n" "$out/sweep-$n.yaml"; done
# Each run into a directory of its own, before any tree is removed: on an ext4 without a journal
# the kernel skips inodes freed in the last minute or more when it allocates new ones, so a
# render right after a large removal pays for that scan (the next row shows it).
HF_WARMUP=0 hf sweep_1000_new_dir 5 "$tb sweep $out/sweep-1000.yaml --dry-run -o $out/sweep-new/\$(date +%s%N)"
rm -rf "$out/sweep-new"
# The previous run's tree is removed (and its removal written back) before each run, outside the time.
HF_PREPARE="rm -rf $out/sweep-out && sync" hf sweep_1000_render 5 "$tb sweep $out/sweep-1000.yaml --dry-run -o $out/sweep-out"
rm -rf "$out/sweep-out"
rss sweep_1000_render "$tb" sweep "$out/sweep-1000.yaml" --dry-run -o "$out/sweep-out"
rm -rf "$out/sweep-out"
HF_WARMUP=0 HF_PREPARE="rm -rf $out/sweep-out && sync" hf sweep_10000_render 1 "$tb sweep $out/sweep-10000.yaml --dry-run -o $out/sweep-out"
rm -rf "$out/sweep-out"
rss sweep_10000_render "$tb" sweep "$out/sweep-10000.yaml" --dry-run -o "$out/sweep-out"
rm -rf "$out/sweep-out"
if (( ramble_on )); then
  rdir=$cache/ramble
  # RAMBLE_GIT: where to clone Ramble from (a local mirror where GitHub is not reachable)
  [ -d "$rdir/.git" ] || git clone -q --depth 1 "${RAMBLE_GIT:-https://github.com/GoogleCloudPlatform/ramble}" "$rdir" \
    || { echo "peers.sh: Ramble not available" >&2; ramble_on=0; }
fi
if (( ramble_on )); then
  venv=$cache/ramble-venv
  [ -x "$venv/bin/python" ] || { python3 -m venv "$venv" && "$venv/bin/pip" install -q tqdm deprecation; }
  "$here/sweep/gen_ramble.sh" 1000 "$out/ramble-1000.yaml"
  rm -rf "$out/ramble-ws"
  PATH=$venv/bin:$PATH python "$rdir/bin/ramble" workspace create -d "$out/ramble-ws" -c "$out/ramble-1000.yaml" >/dev/null
  # Like the sweeps: the previous run's experiments are removed before each run, outside the time.
  rprep="rm -rf $out/ramble-ws/experiments && sync"
  rcmd="PATH=$venv/bin:\$PATH python $rdir/bin/ramble -D $out/ramble-ws workspace setup --dry-run"
  HF_WARMUP=0 HF_PREPARE=$rprep hf ramble_1000_setup 2 "$rcmd"
  bash -c "$rprep"
  echo "ramble_1000_setup $( { /usr/bin/time -v bash -c "$rcmd" >/dev/null; } 2>&1 | awk -F': ' '/Maximum resident set size/ {print $2}')" >> "$res/rss.txt"
  echo "ramble_version $(cd "$rdir" && git rev-parse --short HEAD)" >> "$res/meta.txt"
fi
if (( launcher_on )); then
  # Seed 001's job: the NeMo launcher at the seed's release (tag 23.07, the commit
  # ../shared/reference names) renders it in its own dry run, NEMO_LAUNCHER_DEBUG=1: the Hydra
  # composition and the submission script are written, the sbatch call is faked.
  echo "peers.sh: one job rendered vs the NeMo launcher" >&2
  ldir=$cache/nemo-launcher-23.07
  lcommit=45d6d33bc205f921919bb528625cf0c55a5c10b2
  if [ ! -d "$ldir/.git" ]; then
    rm -rf "$ldir"
    { git clone -q --no-checkout "${NEMO_LAUNCHER_GIT:-https://github.com/NVIDIA/NeMo-Framework-Launcher}" "$ldir" \
        && git -C "$ldir" checkout -q "$lcommit"; } || { echo "peers.sh: the NeMo launcher is not available" >&2; rm -rf "$ldir"; launcher_on=0; }
  fi
fi
if (( launcher_on )); then
  # Its requirements.txt pins hydra-core <1.3, which does not import on Python 3.11 (a dataclass
  # with a mutable default); Hydra 1.3.2 / OmegaConf 2.3.0 (what the conformance tests use) run it.
  pins="hydra-core==1.3.2 omegaconf==2.3.0 pynvml==11.4.1 requests==2.26.0 tqdm==4.62.3 zstandard==0.25.0"
  lvenv=$cache/nemo-launcher-venv
  if [ "$(cat "$lvenv/pins.txt" 2>/dev/null)" != "$pins" ]; then
    rm -rf "$lvenv"
    # shellcheck disable=SC2086 # the pins are words
    python3 -m venv "$lvenv" && "$lvenv/bin/pip" install -q $pins && echo "$pins" > "$lvenv/pins.txt"
  fi
  recipe=$root/recipes/aws-p4d/gpt3-5b.yaml
  overrides=$(sed -n 's/^# seed-command: //p' "$recipe")
  lcmd="set -f; cd $ldir/launcher_scripts && NEMO_LAUNCHER_DEBUG=1 $lvenv/bin/python main.py stages=[training] cluster_type=bcm launcher_scripts_path=$ldir/launcher_scripts base_results_dir=$out/launcher-out data_dir=$out/launcher-data $overrides"
  HF_PREPARE="rm -rf $out/launcher-out" hf launcher_render 5 "$lcmd"
  rm -rf "$out/launcher-out"
  /usr/bin/time -v -o "$out/launcher.time" bash -c "$lcmd" >/dev/null 2>&1 || echo "peers.sh: the NeMo launcher failed" >&2
  echo "launcher_render $(awk -F': ' '/Maximum resident set size/ {print $2}' "$out/launcher.time")" >> "$res/rss.txt"
  [ -s "$out/launcher-out/gpt3_5b/nemo-megatron-gpt3_5b_submission.sh" ] \
    || echo "peers.sh: the NeMo launcher wrote no submission script" >&2
  rm -rf "$out/launcher-out"
  HF_PREPARE="rm -rf $out/render-out" hf render_seed001 "$runs" "$tb render $recipe -o $out/render-out"
  rm -rf "$out/render-out"
  rss render_seed001 "$tb" render "$recipe" -o "$out/render-out"
  rm -rf "$out/render-out"
  echo "launcher_version 23.07 ($(git -C "$ldir" rev-parse --short HEAD))" >> "$res/meta.txt"
fi
echo "load_after $(cut -d' ' -f1-3 /proc/loadavg)" >> "$res/meta.txt"
python3 "$here/peers_table.py" "$res"

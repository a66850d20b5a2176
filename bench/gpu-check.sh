#!/usr/bin/env bash
# bench/gpu-check.sh OUTDIR [--cpu] [--compile]: the embedded workload on this machine's GPU
# through trainbench's real pipeline, and its FLOPs checked against PyTorch's own count
# (issue 38; docs/workload.md "On GPUs").
#
# ON THE GPU MACHINE (one H100/H200, `python3` with a CUDA PyTorch, no internet, none of
# trainbench's build dependencies), from the repository root, carrying build-bundle/:
#
#     bash bench/gpu-check.sh /tmp/gpu-check          # carry: build-bundle   (about 2 minutes)
#
# (the session's device tool: command `bash bench/gpu-check.sh "$OUT/gpu-check"`, carry
# ["build-bundle"], timeout_s 420: the logs come back with the command's $OUT)
#
# Prepare the carried bundle on the build machine first (a self-contained trainbench: the
# binary, every shared library ldd lists and the dynamic loader; 13 MiB):
#
#     scripts/build.sh && scripts/bundle.sh build-bundle
#
# Here, without a GPU: bash bench/gpu-check.sh /tmp/gpu-check-cpu --cpu
#
# What it does, each step time-limited, every step run even when one before it failed:
#   1. identity: python3, PyTorch, CUDA, nvidia-smi (name, driver, clocks), or the CPU (--cpu)
#   2. trainbench validate and render of recipes/local/gpt-gpu.yaml (the command the run executes)
#   3. GPU: trainbench run recipes/local/gpt-gpu.yaml (render -> local backend -> workload on
#      CUDA -> report: step time, tokens/s, TFLOPS/GPU, MFU against the datasheet peak and
#      against the measured one), then the report as JSON.
#      --cpu: the same run must fail with exit 4 naming the missing GPU and leave no run; then
#      recipes/local/tinygpt.yaml runs through the same pipeline on the CPU.
#      If the bundle cannot start at all, the workload runs directly with the same arguments
#      (those `trainbench render --argv` gives; a test keeps them equal) and OUTDIR holds its
#      log for `trainbench report` on another machine.
#   4. --compile: the same run with torch.compile (-s 'launch.extra_args=[--compile]').
#   5. the FlopCounterMode check (workloads/tinygpt/flops_check.py) of the recipe's model shape
#      on the GPU (--cpu: a 2-layer shape of the same family, on the CPU)
# OUTDIR gets gpu-check.log (everything printed), identity.txt, runs/ (the run directories
# with their logs), report.txt, report.json, flops-check.txt and flops-check.json.
# Exit 0 when every step passed, 1 otherwise (the summary at the end says which failed).
set -uo pipefail

usage() { echo "usage: bench/gpu-check.sh OUTDIR [--cpu] [--compile]" >&2; exit 2; }
[[ $# -ge 1 ]] || usage
out=$1; shift
cpu=0; compile=0
for a in "$@"; do
    case $a in --cpu) cpu=1 ;; --compile) compile=1 ;; *) usage ;; esac
done
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo" || exit 1
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
exec > >(tee -a "$out/gpu-check.log") 2>&1

recipe=recipes/local/gpt-gpu.yaml
python=${TRAINBENCH_PYTHON:-python3}
[[ $cpu -eq 1 ]] && python=${TRAINBENCH_PYTHON:-/usr/bin/python3}
export TRAINBENCH_HOME=$repo TRAINBENCH_RUNS=$out/runs NO_COLOR=1
failed=()
step() { printf '\n=== %s (%s)\n' "$1" "$(date -u +%H:%M:%S)"; }
fail() { echo "gpu-check: FAILED: $*"; failed+=("$*"); }

# trainbench: $TRAINBENCH_BIN, the carried bundle, a build tree's binary, or PATH's.
tb=()
if [[ -n ${TRAINBENCH_BIN:-} ]]; then tb=("$TRAINBENCH_BIN")
elif [[ -x build-bundle/trainbench ]]; then tb=(sh build-bundle/trainbench)
elif [[ -x build/trainbench ]]; then tb=(build/trainbench)
elif command -v trainbench >/dev/null; then tb=(trainbench)
fi
tb_ok=0
if [[ ${#tb[@]} -gt 0 ]] && "${tb[@]}" --version >/dev/null 2>&1; then tb_ok=1; fi

step "1. identity"
{
    echo "host: $(hostname) $(uname -srm)"
    echo "trainbench: ${tb[*]:-none} -> $([[ $tb_ok -eq 1 ]] && "${tb[@]}" --version 2>&1 | head -1 || echo 'does not start')"
    echo "python: $(command -v "$python") $("$python" --version 2>&1)"
    timeout 90 "$python" - "$cpu" "$out/cuda-count" <<'EOF' 2>&1
import sys
import torch
print(f"torch {torch.__version__}, built for CUDA {torch.version.cuda}, cuda available: {torch.cuda.is_available()}")
open(sys.argv[2], "w").write(str(torch.cuda.device_count() if torch.cuda.is_available() else 0))
if torch.cuda.is_available():
    for i in range(torch.cuda.device_count()):
        p = torch.cuda.get_device_properties(i)
        print(f"  cuda:{i} {p.name}, {p.total_memory / 2**30:.1f} GiB, sm_{p.major}{p.minor}, "
              f"{p.multi_processor_count} SMs")
elif sys.argv[1] == "1":
    name = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    import os
    print(f"--cpu: no CUDA here; CPU {name}, {os.cpu_count()} logical CPUs")
EOF
    if command -v nvidia-smi >/dev/null; then
        nvidia-smi -L
        nvidia-smi --query-gpu=name,driver_version,pci.bus_id,memory.total,clocks.sm,clocks.max.sm,clocks.mem,power.limit,mig.mode.current --format=csv
    else
        echo "nvidia-smi: not on PATH"
        [[ -r /proc/driver/nvidia/version ]] && head -1 /proc/driver/nvidia/version
    fi
} | tee "$out/identity.txt"
[[ $tb_ok -eq 1 ]] || fail "trainbench does not start (${tb[*]:-not found}): carry build-bundle/ (scripts/bundle.sh)"
# trainbench counts the GPUs by their device nodes; where PyTorch sees GPUs that have none in /dev,
# say how many (TRAINBENCH_LOCAL_GPUS) rather than fail the run.
cuda_count=$(cat "$out/cuda-count" 2>/dev/null || echo 0)
if [[ $cpu -eq 0 && $cuda_count -gt 0 ]] && ! ls /dev/nvidia[0-9]* >/dev/null 2>&1; then
    echo "gpu-check: PyTorch sees $cuda_count GPU(s) but /dev has no nvidia<N> node: TRAINBENCH_LOCAL_GPUS=$cuda_count"
    export TRAINBENCH_LOCAL_GPUS=$cuda_count
fi

step "2. validate and render $recipe"
if [[ $tb_ok -eq 1 ]]; then
    timeout 60 "${tb[@]}" validate "$recipe" || fail "trainbench validate $recipe"
    timeout 60 "${tb[@]}" render "$recipe" -o "$out/rendered" >/dev/null && sed -n '/^# tinygpt/,$p' "$out/rendered/train/run.sh" \
        || fail "trainbench render $recipe"
fi

# The workload run directly, as the rendered job runs it (the fallback when trainbench cannot start).
# These arguments are `trainbench render recipes/local/gpt-gpu.yaml --argv`'s
# (tests/integration/bench_cpu_check.test.sh keeps them equal).
direct_args=(--layers 24 --hidden 1024 --heads 16 --ffn 4096 --seq-len 1024 --vocab 50257 --micro-batch 16
             --global-batch 32 --steps 60 --lr 0.003 --seed 1234 --device cuda --precision bf16 --attention sdpa
             --pad-vocab-to 128)
run_direct() {
    mkdir -p "$out/direct"
    timeout 300 "$python" -u workloads/tinygpt/train.py "${direct_args[@]}" \
        --dllogger-file "$out/direct/dllogger.json" > "$out/direct/stdout.log" 2> >(tee "$out/direct/stderr.log" >&2)
}

report_run() {  # the run directory of the last run of recipe name $1: its report as text and JSON
    local dir
    dir=$(ls -d "$out/runs/$1"/*/ 2>/dev/null | sort | tail -1)
    [[ -n $dir ]] || { fail "no run directory of $1"; return; }
    # (`run` printed the report; saved here as text and JSON)
    timeout 60 "${tb[@]}" report "$dir" > "$out/report$2.txt" 2>/dev/null || fail "report of $dir"
    timeout 60 "${tb[@]}" --json report "$dir" > "$out/report$2.json" 2>/dev/null || fail "report --json of $dir"
    grep "done:" "$dir/logs/train/stderr.log" 2>/dev/null | tee "$out/done$2.txt"
}

step "3. the run"
if [[ $cpu -eq 0 && $tb_ok -eq 1 ]]; then
    timeout 240 "${tb[@]}" run "$recipe"; rc=$?
    [[ $rc -eq 0 ]] || fail "trainbench run $recipe exited $rc"
    report_run gpt-gpu-local ""
elif [[ $cpu -eq 0 ]]; then
    echo "trainbench cannot start: running the workload directly; report it elsewhere with"
    echo "  trainbench report $out/direct/dllogger.json --model gpt2-medium --flops megatron-2025-03 --window 10:55"
    run_direct || fail "the workload run directly"
    tail -3 "$out/direct/stdout.log"
elif [[ $tb_ok -eq 1 ]]; then
    timeout 60 "${tb[@]}" run "$recipe"; rc=$?
    left=$(ls "$out/runs/gpt-gpu-local" 2>/dev/null | wc -l)
    if [[ $rc -eq 4 && $left -eq 0 ]]; then echo "gpu-check: as expected without a GPU: exit 4, no run left"
    else fail "trainbench run $recipe without a GPU: exit $rc (want 4), $left run(s) left (want 0)"; fi
    timeout 300 "${tb[@]}" run recipes/local/tinygpt.yaml -s steps=12 -s metrics.window=[4,10] \
        || fail "trainbench run recipes/local/tinygpt.yaml"
    report_run tinygpt-local ""
fi

if [[ $compile -eq 1 && $cpu -eq 0 && $tb_ok -eq 1 ]]; then
    step "4. the run with torch.compile"
    timeout 420 "${tb[@]}" run "$recipe" -s 'launch.extra_args=[--compile]' || fail "run with --compile"
    report_run gpt-gpu-local "-compile"
fi

step "5. FLOPs: trainbench against PyTorch's count of one training step"
# gpt2-medium's shape with the vocabulary 50176 (50257 rounded down to a multiple of 1024), so that
# every convention's vocabulary padding (none, 128, 1024) gives the model's own row count.
shape=(--layers 24 --hidden 1024 --heads 16 --ffn 4096 --seq-len 1024 --vocab 50176 --pad-vocab-to 128)
overrides=(-s model.vocab=50176 -s batch.micro=4 -s batch.global=4); batch=4; device=cuda; precision=bf16
if [[ $cpu -eq 1 ]]; then  # the same family at a size two CPU cores count in seconds
    shape=(--layers 2 --hidden 256 --heads 4 --ffn 1024 --seq-len 256 --vocab 50176 --pad-vocab-to 128)
    overrides=(-s model.layers=2 -s model.hidden=256 -s model.heads=4 -s model.ffn=1024 -s model.seq_length=256
               -s model.vocab=50176 -s batch.micro=2 -s batch.global=2)
    batch=2; device=cpu; precision=fp32
fi
if [[ $tb_ok -eq 1 ]]; then
    if timeout 60 "${tb[@]}" --json plan "$recipe" "${overrides[@]}" > "$out/plan-flops.json"; then
        timeout 150 "$python" workloads/tinygpt/flops_check.py --plan-json "$out/plan-flops.json" "${shape[@]}" \
            --batch "$batch" --device "$device" --precision "$precision" --json "$out/flops-check.json" \
            | tee "$out/flops-check.txt"
        [[ ${PIPESTATUS[0]} -eq 0 ]] || fail "the FLOPs check"
    else
        fail "trainbench plan $recipe"
    fi
fi

step "summary"
cat "$out/identity.txt"
for r in "" -compile; do
    [[ -f $out/report$r.txt ]] || continue
    echo "report$r:"
    grep -E "^  (GPUs|peak|measured peak|step time \(window mean\)|tokens/s|TFLOPS/GPU|MFU)" "$out/report$r.txt"
    cat "$out/done$r.txt" 2>/dev/null
done
[[ -f $out/flops-check.txt ]] && grep -E "^  (megatron|nemo|narayanan)|^attention|^flops_check:" "$out/flops-check.txt"
echo "logs: $out"
if [[ ${#failed[@]} -gt 0 ]]; then
    printf 'gpu-check: %d step(s) failed:\n' "${#failed[@]}"; printf '  %s\n' "${failed[@]}"
    exit 1
fi
echo "gpu-check: every step passed"

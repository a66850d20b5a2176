#!/usr/bin/env bash
# The local GPU recipes on a machine without (visible) NVIDIA GPUs (issue 38): `validate`
# passes; `run` and `submit` fail at once with exit 4 and a message naming the missing GPU,
# and leave no run directory; 8 GPUs asked of a 1-GPU machine say both numbers. The GPUs are
# hidden with CUDA_VISIBLE_DEVICES='', so the test also holds on a machine that has some.
source "$(dirname "$0")/runs_lib.sh"
src=${TRAINBENCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
one=$src/recipes/local/gpt-gpu.yaml
eight=$src/recipes/local/gpt-gpu-8.yaml

tb validate "$one" "$eight" >"$WORK/validate.out" 2>&1 || fail "validate: $(cat "$WORK/validate.out")"

no_run_left() {
    [[ -z $(find "$WORK/runs" -name run.json 2>/dev/null) ]] || fail "$1 left a run: $(find "$WORK/runs")"
}

for hide in "" visible; do
    # (without CUDA_VISIBLE_DEVICES on a machine without /dev/nvidia<N>; with it empty everywhere)
    if [[ -z $hide ]]; then
        ls /dev/nvidia[0-9]* >/dev/null 2>&1 && continue
        env=(env -u CUDA_VISIBLE_DEVICES -u TRAINBENCH_LOCAL_GPUS)
    else
        env=(env -u TRAINBENCH_LOCAL_GPUS CUDA_VISIBLE_DEVICES=)
    fi
    for cmd in run submit; do
        rc=0
        "${env[@]}" "$TB" --runs "$WORK/runs" "$cmd" "$one" >"$WORK/out" 2>"$WORK/err" || rc=$?
        [[ $rc -eq 4 ]] || fail "$cmd without a GPU exited $rc, not 4: $(cat "$WORK/out" "$WORK/err")"
        grep -q "recipe 'gpt-gpu-local' runs on 1 NVIDIA GPU(s) of this machine (target 'local-gpu', GPU 'h100-sxm-80gb'), and this machine has no NVIDIA GPU" "$WORK/err" ||
            fail "$cmd: the message does not name the missing GPU: $(cat "$WORK/err")"
        grep -q "recipes/local/tinygpt.yaml is the workload on this CPU" "$WORK/err" || fail "no hint: $(cat "$WORK/err")"
        [[ -z $hide ]] || grep -q "CUDA_VISIBLE_DEVICES=''" "$WORK/err" || fail "the hidden GPUs are not said: $(cat "$WORK/err")"
        no_run_left "$cmd"
    done
done

rc=0
TRAINBENCH_LOCAL_GPUS=1 "$TB" --runs "$WORK/runs" run "$eight" >"$WORK/out" 2>"$WORK/err" || rc=$?
[[ $rc -eq 4 ]] || fail "8 GPUs on a 1-GPU machine exited $rc: $(cat "$WORK/err")"
grep -q "runs on 8 NVIDIA GPU(s) of this machine .* and this machine has 1 NVIDIA GPU(s): TRAINBENCH_LOCAL_GPUS=1" "$WORK/err" ||
    fail "$(cat "$WORK/err")"
grep -q "lower gpus_per_node" "$WORK/err" || fail "no hint: $(cat "$WORK/err")"
no_run_left "run of 8"
rc=0
TRAINBENCH_LOCAL_GPUS=many "$TB" --runs "$WORK/runs" run "$one" >/dev/null 2>"$WORK/err" || rc=$?
[[ $rc -eq 2 ]] || fail "TRAINBENCH_LOCAL_GPUS=many exited $rc: $(cat "$WORK/err")"

# What the job runs: python3 from PATH on CUDA; torchrun over the node's GPUs for 8.
tb render "$one" -o "$WORK/r1" >/dev/null
grep -q '^python3 -u "${TRAINBENCH_WORKLOADS}"/tinygpt/train.py \\$' "$WORK/r1/train/run.sh" || fail "$(cat "$WORK/r1/train/run.sh")"
grep -q -- '--device cuda \\$' "$WORK/r1/train/run.sh" || fail "no --device cuda"
tb render "$eight" -o "$WORK/r8" >/dev/null
grep -q '^python3 -u -m torch.distributed.run --standalone --nnodes=1 --nproc-per-node=8 "${TRAINBENCH_WORKLOADS}"/tinygpt/train.py \\$' \
    "$WORK/r8/train/run.sh" || fail "$(cat "$WORK/r8/train/run.sh")"
grep -q 'for ((rank = 0' "$WORK/r8/train/run.sh" && fail "the 8-GPU script spawns ranks itself"
echo ok

#!/usr/bin/env bash
# trainbench killed mid-submit: `status` shows a consistent state. A delay shim in front of
# the real sbatch (the only stand-in here) holds trainbench inside the submission.
#  1. killed after the controller accepted the job: status finds the job by name.
#  2. killed before sbatch reached the controller: status says INTERRUPTED, nothing runs.
source "$(dirname "$0")/runs_lib.sh"
use_slurm
real=$(command -v sbatch)
mkdir -p "$WORK/after" "$WORK/before"
printf '#!/bin/sh\n"%s" "$@"; rc=$?; sleep 60; exit $rc\n' "$real" >"$WORK/after/sbatch"
printf '#!/bin/sh\nsleep 60; exec "%s" "$@"\n' "$real" >"$WORK/before/sbatch"
chmod +x "$WORK/after/sbatch" "$WORK/before/sbatch"
write_recipe "$WORK/after.yaml" it-interrupt-after local-slurm 1 '["/bin/sh", "-c", "echo done"]'
write_recipe "$WORK/before.yaml" it-interrupt-before local-slurm 1 '["/bin/sh", "-c", "echo done"]'

submit_and_kill() {  # submit_and_kill after|before: the run directory of a killed submission
    PATH="$WORK/$1:$PATH" "$TB" --runs "$WORK/runs" submit "$WORK/$1.yaml" >/dev/null 2>&1 &
    local pid=$! dir="" d
    for ((i = 0; i < 100; i++)); do
        for d in "$WORK/runs/it-interrupt-$1"/*; do
            [[ -f $d/journal.jsonl ]] && grep -q '"submitting"' "$d/journal.jsonl" && dir=$d
        done
        [[ -n $dir ]] && break
        sleep 0.1
    done
    sleep 2  # inside the shim
    kill -9 "$pid"
    wait "$pid" 2>/dev/null || true
    # The shim (ours) and its sleep, by process group: it must not reach sbatch later, and the run's
    # lock (inherited by every command of the submission) is released only when both have ended.
    local shim
    for shim in $(pgrep -f "$WORK/$1/sbatch"); do kill -KILL -- "-$(ps -o pgid= -p "$shim" | tr -d ' ')" 2>/dev/null || true; done
    echo "$dir"
}

dir=$(submit_and_kill after)
grep -q '"submitted"' "$dir/journal.jsonl" && fail "the journal already has 'submitted'"
id=${dir: -6}

tb --json status --no-refresh "$id" | jq -e '.[0].state == "UNKNOWN" and (.[0].detail | test("interrupted"))' >/dev/null ||
    fail "before resolution: $(tb --json status --no-refresh "$id")"
wait_for_state "$id" COMPLETED 60
jq -s -e 'map(select(.event == "submitted"))[0].resolved' "$dir/journal.jsonl" >/dev/null ||
    fail "not resolved by name: $(cat "$dir/journal.jsonl")"
[[ $(grep -c '"submitted"' "$dir/journal.jsonl") -eq 1 ]] || fail "submitted twice"

dir=$(submit_and_kill before)
id=${dir: -6}
wait_for_state "$id" INTERRUPTED 30
[[ -z $(squeue -h -n "trainbench-it-interrupt-before-$id-train") ]] || fail "a job of the interrupted submission exists"
echo ok

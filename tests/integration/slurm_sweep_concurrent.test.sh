#!/usr/bin/env bash
# One submission per sweep point on the real local Slurm: two invocations of a 40-point sweep
# started together leave exactly 40 runs and exactly 40 Slurm jobs (counted in the
# controller by job name, not only in the journals). docs/reliability.md.
source "$(dirname "$0")/runs_lib.sh"
use_slurm
source "$(dirname "$0")/sweep_lib.sh"
name=cs$$  # unique: the controller remembers finished jobs for 10 minutes
# (the jobs write their status files into $WORK until they end: wait for that, at most 30 s,
# before removing it, or rm races a job's last write and fails with "Directory not empty")
cleanup_jobs() {
    scancel -n "$(squeue -h --states=all -o %j | grep "^trainbench-$name-" | sort -u | paste -sd, -)" 2>/dev/null || true
    for ((i = 0; i < 150; i++)); do
        squeue -h -t PD,R,CG,CF -o %j 2>/dev/null | grep -q "^trainbench-$name-" || break
        sleep 0.2
    done
    rm -rf "$WORK" 2>/dev/null || { sleep 1; rm -rf "$WORK"; }
}
trap cleanup_jobs EXIT
write_sweep "$WORK" "$name" local-slurm 40 '["/bin/true"]'

tb sweep "$WORK/sweep.yaml" --json >"$WORK/a.json" 2>"$WORK/a.err" & a=$!
tb sweep "$WORK/sweep.yaml" --json >"$WORK/b.json" 2>"$WORK/b.err" & b=$!
rc_a=0; rc_b=0
wait "$a" || rc_a=$?
wait "$b" || rc_b=$?
((rc_a == 0 && rc_b == 0)) || fail "exits $rc_a and $rc_b: $(tail -3 "$WORK/a.err" "$WORK/b.err")"
check_one_run_per_point "$WORK" "$name" 40
jobs=$(squeue -h --states=all -o %j | grep -c "^trainbench-$name-" || true)
[[ $jobs -eq 40 ]] || fail "the controller has $jobs jobs of the sweep, want 40"
ids=$(cat "$WORK"/runs/"$name"-*/*/journal.jsonl | jq -r 'select(.event == "submitted") | .job_id' | sort -u | wc -l)
[[ $ids -eq 40 ]] || fail "the journals name $ids distinct job ids, want 40"
echo "ok: 2 concurrent invocations of a 40-point sweep on Slurm: 40 runs, 40 jobs"

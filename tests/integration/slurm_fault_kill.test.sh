#!/usr/bin/env bash
# Fault injection against the real local Slurm: a 30-point sweep submission is killed with
# SIGKILL at 20 random moments (seeded: TRAINBENCH_FAULT_SEED; the seed is printed on
# failure), with a slow sbatch first on PATH (0.2 s before and after the real one) to widen the
# windows; `status` right after each kill (while an orphaned sbatch may still be running), then
# a plain re-run and `status`. The Slurm queue is compared with the journals:
# every point has exactly one job (0 duplicates), every job of the sweep is in a journal and
# every journaled job is in the queue (0 lost). Label: fault. docs/reliability.md.
source "$(dirname "$0")/runs_lib.sh"
use_slurm
source "$(dirname "$0")/sweep_lib.sh"
seed=${TRAINBENCH_FAULT_SEED:-$(($(date +%s%N) % 1000000))}
kills=${TRAINBENCH_FAULT_KILLS:-20}
points=30
RANDOM=$seed
name=fk$$
real=$(command -v sbatch)
finish() {
    local rc=$?
    ((rc == 0)) || echo "FAIL: seed $seed (rerun with TRAINBENCH_FAULT_SEED=$seed)" >&2
    scancel -n "$(squeue -h --states=all -o %j | grep "^trainbench-$name-" | sort -u | paste -sd, -)" 2>/dev/null || true
    rm -rf "$WORK"
}
trap finish EXIT
mkdir -p "$WORK/bin"
cat >"$WORK/bin/sbatch" <<SH
#!/bin/sh
sleep 0.2; "$real" "\$@"; rc=\$?; sleep 0.2; exit \$rc
SH
chmod +x "$WORK/bin/sbatch"
write_sweep "$WORK" "$name" local-slurm "$points" '["/bin/true"]'

delays=()
for ((k = 1; k <= kills; k++)); do
    delay_ms=$((150 + RANDOM % 1200))
    delays+=("$delay_ms")
    PATH="$WORK/bin:$PATH" "$TB" --runs "$WORK/runs" sweep "$WORK/sweep.yaml" >/dev/null 2>&1 &
    pid=$!
    sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    # At once, as a user would after a crash: an sbatch orphaned by the kill may still be on
    # its way to the controller, and status must not take that submission for abandoned.
    tb status >/dev/null 2>&1 || true
done
PATH="$WORK/bin:$PATH" "$TB" --runs "$WORK/runs" sweep "$WORK/sweep.yaml" >/dev/null 2>"$WORK/final.err" ||
    fail "the re-run failed: $(tail -5 "$WORK/final.err")"
tb --json status >"$WORK/status.json" 2>"$WORK/status.err" || fail "status failed: $(cat "$WORK/status.err")"

# The queue: job name -> point (trainbench-<sweep>-<steps>-<short id>-train).
squeue -h --states=all -o '%i %j' | grep " trainbench-$name-" >"$WORK/queue" || true
sed -E "s/^([0-9]+) trainbench-($name-[0-9]+)-[0-9a-f]{6}-train$/\1 \2/" "$WORK/queue" | sort -k2 >"$WORK/queue_points"
dups=$(awk '{print $2}' "$WORK/queue_points" | uniq -d | wc -l)
queued_points=$(awk '{print $2}' "$WORK/queue_points" | sort -u | wc -l)
# The journals: every job id a run recorded.
cat "$WORK"/runs/"$name"-*/*/journal.jsonl | jq -r 'select(.event == "submitted") | .job_id' | sort -u >"$WORK/journal_ids"
awk '{print $1}' "$WORK/queue" | sort -u >"$WORK/queue_ids"
untracked=$(comm -23 "$WORK/queue_ids" "$WORK/journal_ids" | wc -l)
missing=$(comm -13 "$WORK/queue_ids" "$WORK/journal_ids" | wc -l)
lost=$((untracked + missing + points - queued_points))
resolved=$(cat "$WORK"/runs/"$name"-*/*/journal.jsonl | jq -r 'select(.resolved != null) | .job_id' | wc -l)
abandoned=$(cat "$WORK"/runs/"$name"-*/*/journal.jsonl | jq -r 'select(.event == "abandoned") | .stage' | wc -l)
echo "seed $seed: $kills kills at ${delays[*]} ms; $points points, $(wc -l <"$WORK/queue_ids") jobs;" \
    "lost $lost (untracked $untracked, journaled but not queued $missing, points without a job $((points - queued_points)));" \
    "duplicates $dups; $resolved resolved by name, $abandoned abandoned"
((dups == 0)) || fail "points with two jobs: $(awk '{print $2}' "$WORK/queue_points" | uniq -d | paste -sd' ')"
((lost == 0)) || fail "lost submissions (see above)"
echo ok

#!/usr/bin/env bash
# Hanging and garbage-printing squeue first on PATH, in front of the real local Slurm:
#  1. squeue hangs: `status` returns within TRAINBENCH_SCHEDULER_TIMEOUT (3 s here) plus 1 s,
#     with a clear message and exit 4, showing the last known state; a hung query is
#     not retried five times;
#  2. squeue prints garbage: `status` does not crash and still prints the run.
# docs/reliability.md.
source "$(dirname "$0")/runs_lib.sh"
use_slurm
mkdir -p "$WORK/hang" "$WORK/garbage"
printf '#!/bin/sh\nexec sleep 300\n' >"$WORK/hang/squeue"
printf '#!/bin/sh\nhead -c 5000 /dev/urandom\nprintf "\\n1|RUNNING||x|y\\n||||||\\n"\nexit 0\n' >"$WORK/garbage/squeue"
chmod +x "$WORK"/*/squeue
write_recipe "$WORK/r.yaml" it-fault-squeue local-slurm 1 '["/bin/sh", "-c", "sleep 60"]'
id=$(short_id_of "$(tb --json submit "$WORK/r.yaml")")
job=$(tb --json status --no-refresh "$id" | jq -r '.[0].stages[0].job_id')
trap 'scancel "$job" 2>/dev/null || true; rm -rf "$WORK"' EXIT

# 1. hanging. Limit 4 s: the 3 s command time limit plus 1 s of headroom for everything else
# `status` does (start, the run store, ending the hung squeue's process group); measured
# 3.03-3.04 s here at load average 17 on 2 cores (2026-11-27). A retried hung query takes 6 s or more.
limit_s=4
t0=$(date +%s.%N)
rc=0
PATH="$WORK/hang:$PATH" TRAINBENCH_SCHEDULER_TIMEOUT=3 tb status "$id" >"$WORK/hang.out" 2>"$WORK/hang.err" || rc=$?
took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
((rc == 4)) || fail "status with a hanging squeue exited $rc, want 4: $(cat "$WORK/hang.err")"
awk -v t="$took" -v l="$limit_s" 'BEGIN { exit !(t <= l) }' ||
    fail "status took $took s with a 3 s command time limit (limit $limit_s s)"
grep -q "timed out: no answer within the command time limit" "$WORK/hang.err" || fail "no clear message: $(cat "$WORK/hang.err")"
grep -q "$id" "$WORK/hang.out" || fail "status printed no table: $(cat "$WORK/hang.out")"

# 2. garbage
rc=0
PATH="$WORK/garbage:$PATH" tb status "$id" >"$WORK/garbage.out" 2>"$WORK/garbage.err" || rc=$?
((rc == 0 || rc == 4)) || fail "status with a garbage squeue exited $rc: $(head -c 500 "$WORK/garbage.err")"
grep -q "internal error" "$WORK/garbage.err" && fail "internal error: $(cat "$WORK/garbage.err")"
grep -q "$id" "$WORK/garbage.out" || fail "status printed no table with a garbage squeue"
echo "ok: hanging squeue: status in ${took} s (command limit 3 s, test limit $limit_s s), exit 4; garbage squeue: exit $rc, no crash"

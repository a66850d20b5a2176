#!/usr/bin/env bash
# One submission per sweep point whatever runs at once (local target): two invocations of a
# 40-point sweep started together leave exactly 40 runs, the second waits for the first with
# a message naming the holder's pid and host, and `--no-wait` against a held lock exits 6 at
# once naming the holder. docs/reliability.md.
source "$(dirname "$0")/runs_lib.sh"
command -v flock >/dev/null || { echo "skip: flock (util-linux) is not installed"; exit 125; }
source "$(dirname "$0")/sweep_lib.sh"

write_sweep "$WORK" conc-local local 40 '["/bin/true"]'
lock=$WORK/runs/_sweeps/conc-local/state.lock

# 1. Two invocations at once.
"$TB" --runs "$WORK/runs" sweep "$WORK/sweep.yaml" --json >"$WORK/a.json" 2>"$WORK/a.err" & a=$!
"$TB" --runs "$WORK/runs" sweep "$WORK/sweep.yaml" --json >"$WORK/b.json" 2>"$WORK/b.err" & b=$!
rc_a=0; rc_b=0
wait "$a" || rc_a=$?
wait "$b" || rc_b=$?
((rc_a == 0 && rc_b == 0)) || fail "exits $rc_a and $rc_b: $(tail -3 "$WORK/a.err" "$WORK/b.err")"
check_one_run_per_point "$WORK" conc-local 40
submitted=$(jq -s 'map(.submitted) | add' "$WORK/a.json" "$WORK/b.json")
[[ $submitted == 40 ]] || fail "the two invocations say they submitted $submitted points, not 40"
# The one that waited named the other (pid and host).
grep -h "waiting for sweep 'conc-local': it is being submitted by pid \($a\|$b\) on host $(hostname)" \
    "$WORK/a.err" "$WORK/b.err" >/dev/null || fail "no waiting message naming the holder: $(grep -h waiting "$WORK"/[ab].err)"

# 2. --no-wait against a held lock: exit 6 at once, naming the holder.
exec 9>>"$lock"
flock -x 9
printf 'pid %s on host %s\n' "$$" "$(hostname)" >"$lock"
t0=$(date +%s%N)
rc=0
tb sweep "$WORK/sweep.yaml" --no-wait >/dev/null 2>"$WORK/nowait.err" || rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
((rc == 6)) || fail "--no-wait exited $rc, want 6: $(cat "$WORK/nowait.err")"
grep -q "sweep 'conc-local' is being submitted by pid $$ on host" "$WORK/nowait.err" ||
    fail "--no-wait does not name the holder: $(cat "$WORK/nowait.err")"
flock -u 9
exec 9>&-
check_one_run_per_point "$WORK" conc-local 40
echo "ok: 2 concurrent invocations of a 40-point sweep: 40 runs; --no-wait exit 6 in ${ms} ms"

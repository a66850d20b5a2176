#!/usr/bin/env bash
# slurmctld stopped and restarted (with its saved state) while `trainbench wait` follows a
# running job: the controller stays down for 20 s; wait keeps waiting (retrying, and warning
# when a query's retries run out) and ends 0 with the run COMPLETED once the controller is
# back; the journal has one "finished".
# docs/reliability.md.
source "$(dirname "$0")/runs_lib.sh"
use_slurm
pidfile=$TRAINBENCH_SLURM_DIR/run/slurmctld.pid
[[ -s $pidfile ]] || { echo "skip: no slurmctld pid file (a cluster this test did not start)"; exit 125; }
ctld_up() { scontrol ping 2>/dev/null | grep -q 'is UP'; }
restart_ctld() {  # with the saved state (no -c), as after a controller crash
    ctld_up && return 0
    slurmctld -f "$SLURM_CONF" || return 1
    for ((i = 0; i < 100; i++)); do ctld_up && return 0; sleep 0.2; done
    return 1
}
wpid=""
trap '[[ -n $wpid ]] && kill "$wpid" 2>/dev/null; restart_ctld || echo "WARNING: slurmctld did not come back" >&2; rm -rf "$WORK"' EXIT
write_recipe "$WORK/r.yaml" it-ctld-restart local-slurm 1 '["/bin/sh", "-c", "sleep 35; echo done"]'
id=$(short_id_of "$(tb --json submit "$WORK/r.yaml")")
wait_for_state "$id" RUNNING 60

"$TB" --runs "$WORK/runs" wait "$id" --timeout 300 --interval 1 >"$WORK/wait.out" 2>"$WORK/wait.err" &  # the binary: its pid is $!
wpid=$!
sleep 2
kill -TERM "$(cat "$pidfile")"
for ((i = 0; i < 100; i++)); do ctld_up || break; sleep 0.1; done
ctld_up && fail "slurmctld did not stop"
sleep 20  # longer than squeue's retries (1+2+4+8 s): wait sees the query fail and must go on
kill -0 "$wpid" 2>/dev/null || fail "wait ended while the controller was down: $(cat "$WORK/wait.err")"
restart_ctld || fail "slurmctld did not restart"
rc=0
wait "$wpid" || rc=$?
wpid=""
((rc == 0)) || fail "wait exited $rc after the restart: $(tail -5 "$WORK/wait.err")"
grep -q "COMPLETED" "$WORK/wait.out" || fail "wait did not end COMPLETED: $(cat "$WORK/wait.out")"
dir=$(tb --json status --no-refresh "$id" | jq -r '.[0].dir')
[[ $(grep -c '"event":"finished"' "$dir/journal.jsonl") -eq 1 ]] || fail "not one 'finished': $(cat "$dir/journal.jsonl")"
echo "ok: wait survived a slurmctld stop and restart: $(grep -c warning "$WORK/wait.err") warnings, COMPLETED"

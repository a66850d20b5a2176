#!/usr/bin/env bash
# A live local job is recognised whatever path reaches its run store (issue #35, 1): submitted
# through one path, `status` through a symlink to it, and `status .` from inside the run
# directory, show RUNNING (never FAILED "process ended without writing its exit status"), and
# `cancel` through the symlink ends the job. The job's TRAINBENCH_RUN_DIR and the run directory
# are compared as files (device and inode), not as strings. docs/reliability.md.
source "$(dirname "$0")/runs_lib.sh"
mkdir -p "$WORK/p"
ln -s p "$WORK/plink"
write_recipe "$WORK/r.yaml" it-symlinked-store local 1 '["/bin/sh", "-c", "sleep 300"]'
cd "$WORK"
id=$("$TB" --runs p/runs --json submit r.yaml | jq -r .short_id)
dir=$(ls -d "$WORK"/p/runs/it-symlinked-store/*)
state_via() { "$TB" --runs "$1" --json status "$id" | jq -r '.[0].state'; }
deadline=$((SECONDS + 20))
until [[ $(state_via p/runs) == RUNNING ]]; do
    ((SECONDS < deadline)) || fail "the job is not RUNNING after 20 s: $(state_via p/runs)"
    sleep 0.2
done
pgid=$("$TB" --runs p/runs --json status "$id" | jq -r '.[0].stages[0].job_id')
trap 'kill -KILL -- "-$pgid" 2>/dev/null || true; rm -rf "$WORK"' EXIT

# 1. The store through a symlink.
"$TB" --runs plink/runs --json status "$id" >"$WORK/via-link.json"
[[ $(jq -r '.[0].state' "$WORK/via-link.json") == RUNNING ]] ||
    fail "through the symlinked store the live job is $(jq -c '.[0] | [.state, .detail]' "$WORK/via-link.json")"
# 2. The run directory as '.', entered through the symlink (getcwd gives the physical path).
(cd "$WORK/plink/runs/it-symlinked-store/$(basename "$dir")" && "$TB" --json status . >"$WORK/dot.json")
[[ $(jq -r '.[0].state' "$WORK/dot.json") == RUNNING ]] ||
    fail "'status .' shows the live job as $(jq -c '.[0] | [.state, .detail]' "$WORK/dot.json")"
! grep -q '"state":"FAILED"' "$dir/journal.jsonl" || fail "a FAILED state was journaled: $(grep FAILED "$dir/journal.jsonl")"
# 3. Cancel through the symlink ends the process group.
"$TB" --runs plink/runs cancel "$id" >"$WORK/cancel.out" 2>&1 || fail "cancel failed: $(cat "$WORK/cancel.out")"
live_members() { ps -e -o pgid=,stat= | awk -v g="$pgid" '$1 == g && $2 !~ /^Z/' | wc -l; }
deadline=$((SECONDS + 10))
while (($(live_members) > 0 && SECONDS < deadline)); do sleep 0.1; done
(($(live_members) == 0)) || fail "the job's process group $pgid still runs after cancel through the symlink: $(cat "$WORK/cancel.out")"
[[ $(state_via plink/runs) == CANCELLED ]] || fail "the run is $(state_via plink/runs) after cancel, want CANCELLED"
echo "ok: a live local job is RUNNING through a symlinked store and as '.', and cancel through the symlink ends it"

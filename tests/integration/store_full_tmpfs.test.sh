#!/usr/bin/env bash
# Clean failure on a full or read-only run store (local target): the store is a 48 KiB tmpfs.
# A 100-point sweep fills it: every point is either submitted (a run with a job id, its job
# files whole) or a clear error; no run directory is left UNKNOWN; `status` still prints on
# the full disk; a read-only store gives a clear error and creates nothing.
# Needs root to mount (CI runs as root); exit 125 (skipped) where mounting is not permitted.
source "$(dirname "$0")/runs_lib.sh"
source "$(dirname "$0")/sweep_lib.sh"
store=$WORK/store
mkdir -p "$store"
mount -t tmpfs -o size=48k tmpfs "$store" 2>"$WORK/mount.err" ||
    { echo "skip: cannot mount a tmpfs here ($(cat "$WORK/mount.err")); needs root"; exit 125; }
trap 'umount -l "$store" 2>/dev/null; rm -rf "$WORK"' EXIT
write_sweep "$WORK" full local 100 '["/bin/true"]'

rc=0
"$TB" --runs "$store" sweep "$WORK/sweep.yaml" --json >"$WORK/sweep.json" 2>"$WORK/sweep.err" || rc=$?
((rc == 4)) || fail "the sweep on a full store exited $rc, want 4: $(tail -5 "$WORK/sweep.err")"
grep -q 'internal error' "$WORK/sweep.err" && fail "internal error: $(grep 'internal error' "$WORK/sweep.err")"
submitted=$(jq .submitted "$WORK/sweep.json")
failed=$(jq .failed "$WORK/sweep.json")
((submitted + failed == 100 && failed > 0)) || fail "submitted $submitted + failed $failed, want 100 with failures"
grep -q 'No space left on device' "$WORK/sweep.err" || fail "the errors do not say the disk is full: $(tail -3 "$WORK/sweep.err")"

# status prints on the full disk, and no run stays UNKNOWN.
rc=0
"$TB" --runs "$store" --json status >"$WORK/status.json" 2>"$WORK/status.err" || rc=$?
((rc == 0 || rc == 4)) || fail "status on the full store exited $rc: $(cat "$WORK/status.err")"
runs=$(find "$store" -mindepth 2 -maxdepth 2 -type d -path "$store/full-*" | wc -l)
[[ $(jq length "$WORK/status.json") -eq $runs ]] || fail "status shows $(jq length "$WORK/status.json") of $runs runs"
unknown=$(jq -r '.[] | select(.state == "UNKNOWN") | "\(.run_id) \(.detail)"' "$WORK/status.json")
[[ -z $unknown ]] || fail "runs left UNKNOWN: $unknown"
# Every run left has its job and its whole job files; every submitted point has its run.
with_job=$(jq '[.[] | select(any(.stages[]; .job_id != ""))] | length' "$WORK/status.json")
((with_job == submitted)) || fail "$with_job runs with a job for $submitted submitted points"
for d in "$store"/full-*/*/; do
    [[ -s $d/run.json && -x $d/rendered/train/run.sh ]] || fail "run $d has no run.json or job script: $(ls -R "$d")"
done

# A read-only store: a clear error, nothing created.
mount -o remount,ro "$store"
rc=0
"$TB" --runs "$store" submit "$WORK/base.yaml" >/dev/null 2>"$WORK/ro.err" || rc=$?
((rc == 4)) || fail "submit into a read-only store exited $rc, want 4: $(cat "$WORK/ro.err")"
grep -q 'Read-only file system' "$WORK/ro.err" || fail "no clear error: $(cat "$WORK/ro.err")"
rc=0
"$TB" --runs "$store" status >/dev/null 2>"$WORK/ro-status.err" || rc=$?
((rc == 0 || rc == 4)) || fail "status on a read-only store exited $rc: $(cat "$WORK/ro-status.err")"
echo "ok: 100 points on a 48 KiB store: $submitted submitted, $failed clear errors, 0 UNKNOWN; read-only store refused"

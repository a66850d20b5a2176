#!/usr/bin/env bash
# Lock files never follow a link (issue #35, 7): on a shared store another user may plant
# `runs/_sweeps/S/state.lock` or a run's `.lock` as a symlink (or a hard link) to a file of the
# user who runs trainbench. The lock is then refused with a clear error (exit 4) and the
# target keeps its content; a lock file that is not a regular file is refused the same way.
# docs/reliability.md.
source "$(dirname "$0")/runs_lib.sh"
source "$(dirname "$0")/sweep_lib.sh"
write_sweep "$WORK" symlock local 2 '["/bin/sh", "-c", "sleep 60"]'
victim=$WORK/victim.txt
printf 'precious data\n' >"$victim"
mkdir -p "$WORK/runs/_sweeps/symlock"
lock=$WORK/runs/_sweeps/symlock/state.lock
intact() { [[ $(cat "$victim") == "precious data" ]] || fail "$1 changed the lock's target: '$(cat "$victim")'"; }
expect_refused() {  # expect_refused WHAT COMMAND...
    local what=$1 rc=0
    shift
    "$@" >"$WORK/out.txt" 2>"$WORK/err.txt" || rc=$?
    ((rc == 4)) || fail "$what: exit $rc, want 4: $(cat "$WORK/err.txt")"
    grep -q "lock" "$WORK/err.txt" || fail "$what: the error does not say it is the lock: $(cat "$WORK/err.txt")"
    intact "$what"
}
# 1. The sweep's state.lock as a symlink, then as a hard link, then as a FIFO.
ln -s "$victim" "$lock"
expect_refused "sweep with a symlinked state.lock" tb sweep "$WORK/sweep.yaml"
[[ -z $(ls "$WORK/runs" | grep -v _sweeps) ]] || fail "the sweep submitted with a symlinked lock"
rm "$lock"
ln "$victim" "$lock"
expect_refused "sweep with a hard-linked state.lock" tb sweep "$WORK/sweep.yaml"
rm "$lock"
mkfifo "$lock"
expect_refused "sweep with a FIFO as state.lock" timeout 20 "$TB" --runs "$WORK/runs" sweep "$WORK/sweep.yaml"
rm "$lock"
# 2. A run's .lock as a symlink: status cannot journal (it warns) and cancel refuses; nothing is written through it.
tb sweep "$WORK/sweep.yaml" >/dev/null 2>"$WORK/err.txt" || fail "the sweep failed with a plain lock: $(cat "$WORK/err.txt")"
run=$(ls -d "$WORK"/runs/symlock-*/* | head -1)
trap 'for r in "$WORK"/runs/symlock-*/*; do pg=$(jq -r "select(.event==\"submitted\") | .job_id" "$r/journal.jsonl" 2>/dev/null); [[ -n $pg ]] && kill -KILL -- "-$pg" 2>/dev/null; done; rm -rf "$WORK"' EXIT
rm -f "$run/.lock"
ln -s "$victim" "$run/.lock"
expect_refused "cancel with a symlinked run lock" tb cancel "$(basename "$run")"
tb status >/dev/null 2>&1 || true
intact "status with a symlinked run lock"
[[ -L $run/.lock ]] || fail "the planted link was replaced"
echo "ok: symlinked, hard-linked and FIFO lock files refused (exit 4); the target is intact"

#!/usr/bin/env bash
# A job whose command exits 3 is FAILED with exit code 3; `wait` exits 4 and says so.
source "$(dirname "$0")/runs_lib.sh"
use_slurm
write_recipe "$WORK/r.yaml" it-fail local-slurm 1 '["/bin/sh", "-c", "echo failing; exit 3"]'
id=$(short_id_of "$(tb --json submit "$WORK/r.yaml")")
set +e
tb wait "$id" --interval 1 >"$WORK/out" 2>"$WORK/err"
rc=$?
set -e
[[ $rc -eq 4 ]] || fail "wait exited $rc, expected 4"
grep -q "ended FAILED" "$WORK/err" || fail "wait said: $(cat "$WORK/err")"
run_json "$id" | jq -e '.state == "FAILED" and .stages[0].exit_code == 3' >/dev/null ||
    fail "status: $(run_json "$id")"
out=$(tb logs "$id")
grep -q failing <<<"$out" || fail "logs do not show the job output"
echo ok

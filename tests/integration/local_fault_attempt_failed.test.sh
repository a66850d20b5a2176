#!/usr/bin/env bash
# A local submission that worked journals no `attempt_failed` (issue #35, 12): the detached
# start of the job script is a success, not a failed scheduler command. A command that really
# fails still journals one (the local backend's start of a script that cannot run).
source "$(dirname "$0")/runs_lib.sh"
write_recipe "$WORK/r.yaml" it-attempt local 1 '["/bin/true"]'
for i in 1 2 3; do tb run "$WORK/r.yaml" --no-report --interval 0.2 >/dev/null 2>"$WORK/err" || fail "run $i: $(cat "$WORK/err")"; done
journals=("$WORK"/runs/it-attempt/*/journal.jsonl)
((${#journals[@]} == 3)) || fail "${#journals[@]} runs, want 3"
spurious=$(cat "${journals[@]}" | jq -c 'select(.event == "attempt_failed")')
[[ -z $spurious ]] || fail "a successful local submission journaled: $spurious"
for j in "${journals[@]}"; do
    jq -e 'select(.event == "finished") | .state == "COMPLETED"' "$j" >/dev/null || fail "run $(dirname "$j") did not complete"
done
echo "ok: 3 local submissions, 0 attempt_failed events"

#!/usr/bin/env bash
# `trainbench cancel` of a running local job ends its whole process group: CANCELLED.
source "$(dirname "$0")/runs_lib.sh"
write_recipe "$WORK/r.yaml" it-local-cancel local 1 '["/bin/sh", "-c", "sleep 300 & sleep 300; wait"]'
id=$(short_id_of "$(tb --json submit "$WORK/r.yaml")")
wait_for_state "$id" RUNNING 20
pgid=$(run_json "$id" | jq -r '.stages[0].job_id')
out=$(tb cancel "$id")
grep -q CANCELLED <<<"$out" || fail "cancel did not report CANCELLED: $out"
# The group's processes are signalled by cancel; poll until none is left (not a fixed sleep).
live_members() { ps -e -o pgid=,stat= | awk -v g="$pgid" '$1 == g && $2 !~ /^Z/' | wc -l; }
deadline=$((SECONDS + 10))
while (( $(live_members) > 0 && SECONDS < deadline )); do sleep 0.1; done
live=$(live_members)
[[ $live -eq 0 ]] || fail "$live processes of group $pgid still run 10 s after cancel"
wait_for_state "$id" CANCELLED 5
echo ok

#!/usr/bin/env bash
# A job that runs past its time limit (1 minute) reports TIMEOUT.
source "$(dirname "$0")/runs_lib.sh"
use_slurm
write_recipe "$WORK/r.yaml" it-timeout local-slurm 1 '["sleep", "600"]' \
    'slurm: {partition: debug, time: "00:01:00", exclusive: false}'
id=$(short_id_of "$(tb --json submit "$WORK/r.yaml")")
start=$SECONDS
tb wait "$id" --interval 2 --timeout 240 >/dev/null 2>"$WORK/err" && fail "a timed-out run completed"
echo "TIMEOUT after $((SECONDS - start)) s"
run_json "$id" | jq -e '.state == "TIMEOUT"' >/dev/null || fail "state: $(run_json "$id" | jq -c .) $(cat "$WORK/err")"
echo ok

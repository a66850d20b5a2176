#!/usr/bin/env bash
# Step times that are not finite positive numbers are refused (issue #35, 11): a window with a
# NaN, an Infinity, a -1 or a 0 step time makes `report` exit 3 with a located error (the log
# and the step), prints no "nan%" figure and records nothing; a NaN final loss (divergence) is a
# warning, and the result is recorded with no final loss. docs/reliability.md.
source "$(dirname "$0")/runs_lib.sh"
source "$(dirname "$0")/results_lib.sh"
db=$WORK/results.sqlite
# log_with FILE STEP VALUE [LOSS]: the usual 40 steps of 0.5 s, with VALUE as STEP's step time
log_with() {
    awk -v bad_step="$2" -v bad="$3" -v loss="${4:-}" 'BEGIN {
        printf "DLLL {\"timestamp\": \"0\", \"type\": \"LOG\", \"step\": \"PARAMETER\", \"data\": {\"peak_tflops_measured\": 0.05}}\n"
        for (s = 0; s < 40; s++) {
            t = (s == bad_step) ? bad : sprintf("%.6f", 0.5 + 0.001 * (s % 5))
            l = (s == 39 && loss != "") ? loss : sprintf("%.6f", 8 - s * 0.05)
            printf "DLLL {\"timestamp\": \"%d\", \"type\": \"LOG\", \"step\": %d, \"data\": {\"reduced_train_loss\": %s, \"train_step_timing in s\": %s}}\n", s, s, l, t
        }
    }' >"$1"
}
for bad in NaN Infinity -Infinity -1 0; do
    log_with "$WORK/bad.json" 17 "$bad"
    expect_exit 3 record_log "$db" "$WORK/bad.json" 2026-11-01T10:00:00Z
    grep -q "bad.json" "$WORK/err.txt" && grep -q "step 17" "$WORK/err.txt" ||
        fail "step time $bad: the error does not locate the log and step: $(cat "$WORK/err.txt")"
    grep -qi "nan%\|internal error\|NOT NULL\|INSERT" "$WORK/err.txt" "$WORK/out.txt" &&
        fail "step time $bad: $(cat "$WORK/out.txt" "$WORK/err.txt")"
    expect_exit 3 "$TB" report "$WORK/bad.json" --model tinygpt-tiny --gpus 1 --gpu cpu --precision fp32 --global-batch 16 --window 10:30
    [[ ! -s $WORK/out.txt ]] || fail "step time $bad: report printed figures: $(cat "$WORK/out.txt")"
done
[[ ! -e $db ]] || [[ $("$TB" --results "$db" --json history | jq '.results | length') == 0 ]] || fail "a refused log was recorded"
# Outside the window a bad step time is only a warning.
log_with "$WORK/outside.json" 35 NaN
expect_exit 0 "$TB" report "$WORK/outside.json" --model tinygpt-tiny --gpus 1 --gpu cpu --precision fp32 --global-batch 16 --window 10:30
grep -q "step 35" "$WORK/err.txt" || fail "no warning about step 35 outside the window: $(cat "$WORK/err.txt")"
# A NaN final loss: a warning, recorded without a final loss.
log_with "$WORK/diverged.json" -1 0 NaN
expect_exit 0 record_log "$db" "$WORK/diverged.json" 2026-11-02T10:00:00Z
grep -qi "loss" "$WORK/err.txt" || fail "no warning about the NaN loss: $(cat "$WORK/err.txt")"
"$TB" --results "$db" --json history | jq -e '.results | length == 1 and .[0].final_loss == null' >/dev/null ||
    fail "the diverged run was not recorded with a null final loss: $("$TB" --results "$db" --json history)"
echo "ok: NaN, Infinity, -Infinity, -1 and 0 in the window refused with the log and step; a NaN loss warned"

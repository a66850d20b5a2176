#!/usr/bin/env bash
# Figures near the limits of a double never make the results database unreadable (issue #35, 2):
#  1. a denormal MFU (--peak 1e308: MFU about 2e-310) is recorded and read back exactly by
#     history (table, --json, --csv), tag and regress;
#  2. a log whose step times are all 4e-320 s is refused with a located error (exit 3: its
#     throughput overflows), nothing is recorded, and the database stays readable;
#  3. a value no double can hold, written into the file by another program, is a clear error
#     naming the database and the column (exit 4), not "internal error: stod".
# docs/reliability.md.
source "$(dirname "$0")/runs_lib.sh"
source "$(dirname "$0")/results_lib.sh"
db=$WORK/results.sqlite

# 1. A denormal MFU.
write_log "$WORK/a.json" 11 1.0
record_log "$db" "$WORK/a.json" 2026-11-01T10:00:00Z --peak 1e308 || fail "recording with --peak 1e308 failed"
"$TB" --json report "$WORK/a.json" --model tinygpt-tiny --gpus 1 --gpu cpu --precision fp32 --global-batch 16 \
    --window 10:30 --peak 1e308 >"$WORK/report.json"
want=$(jq -r '.mfu' "$WORK/report.json")
awk -v m="$want" 'BEGIN { exit !(m > 0 && m < 2.3e-308) }' || fail "the report's MFU $want is not a denormal"
expect_exit 0 "$TB" --results "$db" history tinygpt-scenario
grep -q 'tinygpt-scenario' "$WORK/out.txt" || fail "history shows no result: $(cat "$WORK/out.txt" "$WORK/err.txt")"
expect_exit 0 "$TB" --results "$db" --json history tinygpt-scenario
got=$(jq -r '.results[0].mfu' "$WORK/out.txt")
[[ $got == "$want" ]] || fail "history gives MFU $got, the report $want"
expect_exit 0 "$TB" --results "$db" history tinygpt-scenario --csv
grep -q "$want" "$WORK/out.txt" || fail "history --csv lacks MFU $want: $(cat "$WORK/out.txt")"
id=$(jq -r '.results[0].run_id' <("$TB" --results "$db" --json history tinygpt-scenario))
expect_exit 0 "$TB" --results "$db" tag "$id" good
write_log "$WORK/b.json" 12 1.0
record_log "$db" "$WORK/b.json" 2026-11-02T10:00:00Z --peak 1e308 || fail "recording a second log failed"
id2=$(jq -r '.results[1].run_id' <("$TB" --results "$db" --json history tinygpt-scenario))
expect_exit 0 "$TB" --results "$db" regress "$id2"

# 2. Step times of 4e-320 s.
awk 'BEGIN { printf "DLLL {\"timestamp\": \"0\", \"type\": \"LOG\", \"step\": \"PARAMETER\", \"data\": {\"peak_tflops_measured\": 0.05}}\n"
    for (s = 0; s < 40; s++) printf "DLLL {\"timestamp\": \"%d\", \"type\": \"LOG\", \"step\": %d, \"data\": {\"train_step_timing in s\": 4e-320}}\n", s, s }' >"$WORK/tiny.json"
expect_exit 3 record_log "$db" "$WORK/tiny.json" 2026-11-03T10:00:00Z
grep -q "tiny.json" "$WORK/err.txt" || fail "the error does not name the log: $(cat "$WORK/err.txt")"
grep -qi "not a finite\|overflow\|finite" "$WORK/err.txt" || fail "the error does not say what is wrong: $(cat "$WORK/err.txt")"
expect_exit 0 "$TB" --results "$db" --json history tinygpt-scenario
[[ $(jq '.results | length' "$WORK/out.txt") == 2 ]] || fail "history holds $(jq '.results | length' "$WORK/out.txt") results, want 2"

# 3. A value no double holds, written behind trainbench's back.
if command -v sqlite3 >/dev/null; then
    sqlite3 "$db" "UPDATE results SET mfu = 'not-a-number' WHERE run_id = '$id2'"
    expect_exit 4 "$TB" --results "$db" history tinygpt-scenario
    grep -q "internal error" "$WORK/err.txt" && fail "a bad value is an internal error: $(cat "$WORK/err.txt")"
    grep -q "results.sqlite" "$WORK/err.txt" && grep -q "mfu" "$WORK/err.txt" ||
        fail "the error names neither the database nor the column: $(cat "$WORK/err.txt")"
fi
echo "ok: MFU $want recorded and read back exactly; a 4e-320 s log refused (exit 3); a foreign value is exit 4"

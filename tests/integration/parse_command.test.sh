#!/usr/bin/env bash
# trainbench parse: detects the format, prints the series table (stdout) and parse
# statistics (stderr), --csv / --json / --tags / --points, a TensorBoard directory,
# nccl-tests rows, and exit code 3 with a hint for an undetectable or unknown format.
set -euo pipefail

tb=${TRAINBENCH_BINARY:?TRAINBENCH_BINARY is not set}
src=${TRAINBENCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
logs=$src/tests/data/logs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$tb" parse "$logs/dllogger_nemo.json" > "$work/out" 2> "$work/err"
grep -q '^step_time_s  *train_step_timing in s  *1 ' "$work/out" || fail "dllogger table: $(cat "$work/out")"
grep -q 'as dllogger: 5 records, 0 skipped, 0 corrupt' "$work/err" || fail "dllogger stats: $(cat "$work/err")"
grep -q 'cfg/precision: "bf16"' "$work/out" || fail "parameters missing"

"$tb" parse "$logs/megatron_variants.log" --csv --tags step_time_s > "$work/csv" 2> "$work/err"
[ "$(head -1 "$work/csv")" = "series,source_name,step,value,wall_time" ] || fail "csv header"
grep -q '^step_time_s,elapsed time per iteration (ms),30,5.571[0-9]*,1712372303.000000$' "$work/csv" || fail "csv row: $(cat "$work/csv")"
grep -q 'incomplete last record' "$work/err" && fail "megatron fixture ends with a newline"
[ "$(grep -c '^step_time_s,' "$work/csv")" = 5 ] || fail "csv rows: $(cat "$work/csv")"

"$tb" parse "$logs/tensorboard_run" --json > "$work/json" 2>/dev/null
python3 - "$work/json" <<'PY' || fail "tensorboard json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "tensorboard", d["format"]
pts = d["series"]["step_time_s"]["points"]
assert [p["step"] for p in pts] == [0, 1, 2, 3], pts
assert pts[0]["value"] == 2.5 and pts[0]["wall_time"] == 1000.0, pts[0]
assert d["series"]["loss"]["source_name"] == "reduced_train_loss"
PY

"$tb" parse "$logs/nccl_all_reduce.log" > "$work/out" 2>/dev/null
grep -q '^operation: all_reduce_perf' "$work/out" || fail "nccl operation"
grep -q '^avg bus bandwidth: 238.019 GB/s' "$work/out" || fail "nccl avg: $(cat "$work/out")"
grep -q '^134217728 ' "$work/out" || fail "nccl row"

"$tb" parse "$logs/dllogger_nemo.json" --points -q > "$work/out"
grep -q '^STEP ' "$work/out" || fail "--points table"

echo "just some text" > "$work/plain.txt"
set +e
"$tb" parse "$work/plain.txt" > /dev/null 2> "$work/err"; rc=$?
set -e
[ "$rc" = 3 ] || fail "undetectable format: exit $rc"
grep -q "cannot tell the log format of '$work/plain.txt'" "$work/err" || fail "message: $(cat "$work/err")"
grep -q 'hint: name it with --format' "$work/err" || fail "hint: $(cat "$work/err")"

set +e
"$tb" parse "$work/plain.txt" --format dlloger > /dev/null 2> "$work/err"; rc=$?
set -e
[ "$rc" = 2 ] || fail "unknown --format: exit $rc"

set +e
"$tb" parse "$work/missing.log" > /dev/null 2> "$work/err"; rc=$?
set -e
[ "$rc" = 4 ] || fail "missing file: exit $rc ($(cat "$work/err"))"
echo ok

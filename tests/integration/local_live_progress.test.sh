#!/usr/bin/env bash
# `trainbench run recipes/local/tinygpt.yaml` shows the training's progress while it
# trains (step n of 30, step time, MFU so far, ETA), read incrementally from the rank-0
# DLLogger log; `watch --json` gives the same as JSON events on stdout; the run's
# report is recorded in the results database. Skips (125) without python3-torch.
source "$(dirname "$0")/runs_lib.sh"
/usr/bin/python3 -c 'import torch' >/dev/null 2>&1 || { echo "skip: python3 cannot import torch"; exit 125; }
src=${TRAINBENCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}

tb run "$src/recipes/local/tinygpt.yaml" --interval 0.5 >"$WORK/run.out" 2>"$WORK/run.err" &
run_pid=$!
# Watch the same run from another process, with JSON events.
for _ in $(seq 1 240); do
    run_dir=$(find "$WORK/runs" -name run.json -printf '%h\n' 2>/dev/null | head -1 || true)
    [[ -n $run_dir ]] && break
    sleep 0.25
done
[[ -n $run_dir ]] || fail "no run directory appeared"
tb --json watch "$run_dir" --interval 0.5 >"$WORK/watch.out" 2>"$WORK/watch.err" || true
wait "$run_pid" || { cat "$WORK/run.err" >&2; fail "trainbench run failed"; }

# Plain progress lines (stderr is not a TTY), several of them before the last step.
grep 'progress: step' "$WORK/run.err" >"$WORK/progress.txt" || { cat "$WORK/run.err" >&2; fail "no progress lines"; }
first=$(head -1 "$WORK/progress.txt" | sed -E 's/.*step ([0-9]+) of 30.*/\1/')
count=$(wc -l <"$WORK/progress.txt")
[[ $count -ge 3 && $first -lt 25 ]] ||
    { cat "$WORK/run.err" >&2; fail "expected progress from early on: $count lines, the first at step $first"; }
grep -Eq 'MFU [0-9]+\.[0-9]+%' "$WORK/progress.txt" || fail "no live MFU: $(head -3 "$WORK/progress.txt")"
grep -q 'ETA' "$WORK/progress.txt" || fail "no ETA"
# The progress appears while training: before the run's COMPLETED line.
awk '/progress: step/ { p = NR } /COMPLETED/ && !c { c = NR } END { exit !(p && c && p < c) }' "$WORK/run.err" ||
    fail "progress lines did not come before the run completed"

# The run's own report was recorded, in the run store's database.
tb --json history tinygpt-local | jq -e '.results | length == 1' >/dev/null || fail "the run's result was not recorded"
# A one-time import of the run store into another database records it once.
tb --results "$WORK/imported.sqlite" --json history --import "$WORK/runs" >"$WORK/import.json" ||
    fail "history --import failed"
jq -e '.recorded == 1 and .already_recorded == 0' "$WORK/import.json" >/dev/null || fail "import: $(cat "$WORK/import.json")"
tb --results "$WORK/imported.sqlite" --json history --import "$WORK/runs" | jq -e '.recorded == 0 and .already_recorded == 1' \
    >/dev/null || fail "a second import recorded the run again"

# watch --json: progress events with rising steps; the last one, which has seen the whole window,
# gives the report's MFU. Both are the same computation (the window mean step time, the report's
# FLOPs convention and measured peak) on the same steps, and JSON carries the doubles at full
# precision: they are equal (measured: identical to the last digit), so the tolerance, 1e-9
# relative, only absorbs the text round trip through jq and awk. Any other window, convention or
# peak moves the MFU by far more.
jq -c 'select(.event? == "progress")' "$WORK/watch.out" >"$WORK/events.jsonl" 2>/dev/null || true
[[ $(wc -l <"$WORK/events.jsonl") -ge 2 ]] || { cat "$WORK/watch.out" "$WORK/watch.err" >&2; fail "watch gave no JSON progress events"; }
jq -s -e '[.[].step] | . == sort' "$WORK/events.jsonl" >/dev/null || fail "event steps do not rise"
last_step=$(tail -1 "$WORK/events.jsonl" | jq .step)
last_mfu=$(tail -1 "$WORK/events.jsonl" | jq .mfu)
tb --json report "$run_dir" >"$WORK/report.json" 2>/dev/null || fail "report failed"
report_mfu=$(jq .mfu "$WORK/report.json")
window_end=$(jq .window.end "$WORK/report.json")
((last_step >= window_end)) || fail "the last progress event (step $last_step) came before the window's end (step $window_end)"
awk -v a="$last_mfu" -v b="$report_mfu" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 0 && b > 0 && d <= 1e-9 * b) }' ||
    fail "the live MFU $last_mfu is not the report's $report_mfu"

head -3 "$WORK/progress.txt"
echo "ok ($count progress lines, live MFU $last_mfu, report MFU $report_mfu)"

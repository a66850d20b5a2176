#!/usr/bin/env bash
# The results history against the embedded SQLite database: 5 recorded runs of one
# recipe, one 10% slower; history lists them in order, regress flags only the slow one.
source "$(dirname "$0")/runs_lib.sh"
source "$(dirname "$0")/results_lib.sh"

db="$WORK/results.sqlite"
results_scenario "$db"
# WAL mode and the schema version, read with sqlite3's own client where there is one.
if command -v sqlite3 >/dev/null; then
    [[ $(sqlite3 "$db" 'PRAGMA journal_mode') == wal ]] || fail "the database is not in WAL mode"
    [[ $(sqlite3 "$db" 'SELECT max(version) FROM trainbench_schema') == 1 ]] || fail "schema version is not 1"
    [[ $(sqlite3 "$db" 'PRAGMA integrity_check') == ok ]] || fail "integrity check failed"
fi
# The HTML page, as Chromium reads it: two trend plots (step time, MFU), one series per
# target/container (a sixth result on another container makes a second series), the table.
write_log "$WORK/log5.json" 16 1.0
CONTAINER=py3.12 record_log "$db" "$WORK/log5.json" 2026-11-06T10:00:00Z || fail "recording log 5 failed"
"$TB" --results "$db" history tinygpt-scenario --html "$WORK/history.html" >/dev/null || fail "history --html failed"
chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [[ -n $chrome ]]; then
    timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --user-data-dir="$WORK/chrome" \
        --dump-dom "file://$WORK/history.html" >"$WORK/dom.html" 2>"$WORK/chrome.err" ||
        { cat "$WORK/chrome.err" >&2; fail "chromium could not load the page"; }
    [[ $(grep -o '<svg' "$WORK/dom.html" | wc -l) == 2 ]] || fail "the page does not have 2 plots"
    [[ $(grep -o '<polyline' "$WORK/dom.html" | wc -l) == 4 ]] || fail "expected 2 series in each plot"
    grep -q 'data-series="local / py3.12"' "$WORK/dom.html" || fail "no series for the second container"
    [[ $(grep -o '<circle' "$WORK/dom.html" | wc -l) == 12 ]] || fail "expected 6 points per plot"
    [[ $(grep -o '<tr>' "$WORK/dom.html" | wc -l) == 7 ]] || fail "expected a header and 6 rows in the table"
else
    echo "note: no chromium; the HTML page was not checked in a browser" >&2
fi

# The default database lives in the run store.
write_log "$WORK/d.json" 1 1.0
"$TB" --runs "$WORK/runs" report "$WORK/d.json" --record --name d --model tinygpt-tiny --gpus 1 --gpu cpu \
    --precision fp32 --global-batch 16 >/dev/null || fail "recording into the default database failed"
[[ -f $WORK/runs/results.sqlite ]] || fail "no runs/results.sqlite"
TRAINBENCH_RESULTS="$WORK/runs/results.sqlite" "$TB" --json history d | jq -e '.results | length == 1' >/dev/null ||
    fail "\$TRAINBENCH_RESULTS does not name the database"
echo "ok"

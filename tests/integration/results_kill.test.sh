#!/usr/bin/env bash
# Killing trainbench (SIGKILL) while it records a result loses no earlier result and
# leaves the SQLite database consistent: every result has all its step rows, none is half there.
source "$(dirname "$0")/runs_lib.sh"
source "$(dirname "$0")/results_lib.sh"
command -v sqlite3 >/dev/null || { echo "skip: the sqlite3 client is not installed"; exit 125; }

db="$WORK/results.sqlite"
check_db() {
    [[ $(sqlite3 "$db" 'PRAGMA integrity_check') == ok ]] || fail "integrity check failed ($1)"
    local bad
    bad=$(sqlite3 "$db" 'SELECT count(*) FROM results r WHERE step_count !=
        (SELECT count(*) FROM step_times s WHERE s.result_id = r.result_id)')
    [[ $bad == 0 ]] || fail "$bad results lack step rows ($1)"
    bad=$(sqlite3 "$db" 'SELECT count(*) FROM step_times s WHERE NOT EXISTS
        (SELECT 1 FROM results r WHERE r.result_id = s.result_id)')
    [[ $bad == 0 ]] || fail "$bad step rows without a result ($1)"
    # Each result has the rows of the log it came from, counted here, not taken from the product's
    # own step_count: the small logs' window 10..30 holds 21 of their 40 steps, a large log's
    # window 0:40000 all of its $steps steps (0..39999). (ran_at tells them apart: small ones
    # ran 2026-11-01..03 and 2026-11-30.)
    bad=$(sqlite3 "$db" "SELECT r.ran_at || ' has ' || count(s.result_id) || ' rows' FROM results r
        LEFT JOIN step_times s ON s.result_id = r.result_id GROUP BY r.result_id
        HAVING count(s.result_id) != CASE WHEN r.ran_at < '2026-11-09' OR r.ran_at >= '2026-11-30' THEN 21 ELSE $steps END")
    [[ -z $bad ]] || fail "results without the step rows of their log ($1): $bad"
}
steps=40000

# Three results recorded in full first.
for i in 1 2 3; do
    write_log "$WORK/small$i.json" "$i" 1.0
    record_log "$db" "$WORK/small$i.json" "2026-11-0${i}T00:00:00Z" || fail "recording small log $i failed"
done
before=$(sqlite3 "$db" 'SELECT result_id FROM results ORDER BY result_id')

# A large window (40,000 step rows) makes one record take long enough to be killed inside it.
big_args=(report --record --name tinygpt-scenario --model tinygpt-tiny --gpus 1 --gpu cpu --precision fp32
    --global-batch 16 --window "0:$steps")
now() { date +%s.%N; }
write_log "$WORK/big0.json" 100 1.0 "$steps"
t0=$(now)
"$TB" --results "$WORK/scratch.sqlite" "${big_args[@]}" "$WORK/big0.json" --ran-at 2026-11-09T00:00:00Z \
    >/dev/null 2>&1 || fail "recording the large log failed"
t1=$(now)
"$TB" --results "$db" "${big_args[@]}" "$WORK/big0.json" --ran-at 2026-11-10T00:00:00Z >/dev/null 2>&1 ||
    fail "recording the large log failed"
t2=$(now)
# The second record's database already exists: its time less the report alone is the recording.
"$TB" report "${big_args[@]:2}" "$WORK/big0.json" >/dev/null 2>&1 || fail "reporting the large log failed"
t3=$(now)
full=$(awk -v a="$t1" -v b="$t2" 'BEGIN { print b - a }')
parse=$(awk -v a="$t2" -v b="$t3" 'BEGIN { print b - a }')
before=$(sqlite3 "$db" 'SELECT result_id FROM results ORDER BY result_id')
echo "one large record takes ${full}s, of which the report without recording ${parse}s"

killed=0 uncommitted=0 in_transaction=0
for i in $(seq 1 12); do
    write_log "$WORK/big$i.json" $((100 + i)) 1.0 "$steps"
    "$TB" --results "$db" "${big_args[@]}" "$WORK/big$i.json" --ran-at "2026-11-1${i}T00:00:00Z" >/dev/null 2>&1 &
    pid=$!
    # Kill between the end of the report (the transaction starts) and the end of the record.
    sleep "$(awk -v f="$full" -v p="$parse" -v i="$i" 'BEGIN { print p + (f - p) * (i - 0.5) / 12 }')"
    # A write transaction is open right now when BEGIN IMMEDIATE fails at once (WAL write lock held).
    open=0
    sqlite3 "$db" '.timeout 0' 'BEGIN IMMEDIATE' 'ROLLBACK' >/dev/null 2>&1 || open=1
    hit=0
    if kill -KILL "$pid" 2>/dev/null; then killed=$((killed + 1)) hit=1; fi
    wait "$pid" 2>/dev/null || true
    check_db "after kill $i"
    # Every earlier result is still there, whole.
    after=$(sqlite3 "$db" 'SELECT result_id FROM results ORDER BY result_id')
    missing=$(comm -23 <(echo "$before") <(echo "$after"))
    [[ -z $missing ]] || fail "kill $i lost earlier results: $missing"
    if [[ $after == "$before" ]]; then
        uncommitted=$((uncommitted + 1))
        # The transaction was open just before the kill, the kill hit the live process, and
        # nothing of that record was committed: the kill landed inside the open transaction.
        ((open && hit)) && in_transaction=$((in_transaction + 1))
    fi
    before=$after
done
((killed > 0)) || fail "no kill reached a running record (each had ended); the test proved nothing"
((in_transaction > 0)) || fail "no kill landed inside an open write transaction ($killed killed, $uncommitted uncommitted); the test proved nothing"
echo "killed $killed of 12 records, $uncommitted before they committed, $in_transaction inside an open transaction;" \
    "$(sqlite3 "$db" 'SELECT count(*) FROM results') results, consistent"
# The database still takes new results after the kills.
write_log "$WORK/after.json" 999 1.0
record_log "$db" "$WORK/after.json" 2026-11-30T00:00:00Z || fail "recording after the kills failed"
check_db "at the end"
echo "ok"

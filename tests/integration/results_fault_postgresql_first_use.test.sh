#!/usr/bin/env bash
# The first use of a fresh PostgreSQL database by several trainbench processes at once
# (issue #35, 4): the schema is created under the writers' advisory lock, so 8 recorders and
# 2 readers started together all succeed and the 8 results are all there. Three rounds, each
# on a new database. docs/reliability.md.
source "$(dirname "$0")/runs_lib.sh"
source "$(dirname "$0")/results_lib.sh"
start_postgresql
psql_bin=$(ls -d /usr/lib/postgresql/*/bin/psql | sort -V | tail -1)
for i in 1 2 3 4 5 6 7 8; do write_log "$WORK/log$i.json" $((i + 30)) 1.0; done
for round in 1 2 3; do
    url=${PG_URL%/postgres}/fresh$round
    "${PG_CTL[@]}" status >/dev/null || fail "the server is down"
    "$psql_bin" -h 127.0.0.1 -p "$PG_PORT" -U tb -d postgres -qc "CREATE DATABASE fresh$round" >/dev/null ||
        fail "cannot create database fresh$round"
    pids=()
    for i in 1 2 3 4 5 6 7 8; do
        record_log "$url" "$WORK/log$i.json" "2026-11-0${i}T10:00:00Z" 2>"$WORK/rec$i.err" & pids+=($!)
    done
    for i in 1 2; do "$TB" --results "$url" history >/dev/null 2>"$WORK/hist$i.err" & pids+=($!); done
    failed=0
    for p in "${pids[@]}"; do wait "$p" || failed=$((failed + 1)); done
    ((failed == 0)) || fail "round $round: $failed of 10 concurrent first uses failed: $(cat "$WORK"/rec*.err "$WORK"/hist*.err | head -5)"
    n=$("$TB" --results "$url" --json history | jq '.results | length')
    [[ $n == 8 ]] || fail "round $round: $n results recorded, want 8"
done
echo "ok: 3 rounds of 8 recorders + 2 readers on a fresh PostgreSQL database: 10 of 10 succeeded, 8 results each"

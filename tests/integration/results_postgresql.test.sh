#!/usr/bin/env bash
# The results history against a real PostgreSQL server on loopback (started here):
# the same scenario as results_sqlite, through the same code path.
source "$(dirname "$0")/runs_lib.sh"
source "$(dirname "$0")/results_lib.sh"

start_postgresql
results_scenario "$PG_URL"
# Through the environment variable, and a bad URL is a clear error (exit 4).
TRAINBENCH_RESULTS="$PG_URL" "$TB" --json history tinygpt-scenario | jq -e '.results | length == 5' >/dev/null ||
    fail "\$TRAINBENCH_RESULTS does not reach the server"
rc=0
"$TB" --results "postgresql://tb:secret@127.0.0.1:1/none" history 2>"$WORK/err.txt" || rc=$?
[[ $rc == 4 ]] || fail "an unreachable server exited $rc, expected 4"
grep -q 'cannot connect' "$WORK/err.txt" || fail "no clear message: $(cat "$WORK/err.txt")"
! grep -q secret "$WORK/err.txt" || fail "the password was printed"
# libpq is opened when a PostgreSQL store is used (above), not loaded by every start.
LD_DEBUG=libs "$TB" --version >"$WORK/ld.txt" 2>&1
grep -q 'calling init' "$WORK/ld.txt" || fail "LD_DEBUG printed nothing to check: $(head -3 "$WORK/ld.txt")"
! grep -q 'libpq' "$WORK/ld.txt" || fail "trainbench --version loads libpq"
LD_DEBUG=libs "$TB" --results "$PG_URL" history tinygpt-scenario >"$WORK/ld.txt" 2>&1
grep -q 'libpq' "$WORK/ld.txt" || fail "a PostgreSQL store did not open libpq"
echo "ok"

#!/usr/bin/env bash
# A PostgreSQL password never shows, whichever form libpq is given it in (issue #35, 6): URI
# userinfo, ?password= (also percent-encoded), a conninfo string (quoted or not), any case of
# the scheme. Such locations reach PostgreSQL (never a SQLite file named after them), and an
# unknown scheme is a usage error (exit 2). Checked in messages of success ("recorded ... in"),
# of failure ("cannot connect"), "no results in", and on disk. docs/reliability.md.
source "$(dirname "$0")/runs_lib.sh"
source "$(dirname "$0")/results_lib.sh"
start_postgresql
cd "$WORK"
pw=SeCrEtPw
write_log "$WORK/log.json" 51 1.0
no_secret() {  # no_secret WHAT: neither stdout nor stderr of the last command shows the password
    ! grep -q "$pw" "$WORK/out.txt" "$WORK/err.txt" || fail "$1 shows the password: $(cat "$WORK/out.txt" "$WORK/err.txt")"
}
hostport=127.0.0.1:$PG_PORT
# 1. Reachable server (trust: the password is ignored), every form records and says where without it.
i=0
for url in "postgresql://tb:$pw@$hostport/postgres" "postgresql://$hostport/postgres?user=tb&password=$pw" \
    "POSTGRESQL://tb:$pw@$hostport/postgres" "Postgres://$hostport/postgres?user=tb&%70assword=$pw" \
    "postgresql://$hostport/postgres?sslmode=disable&password=$pw&user=tb" \
    "host=127.0.0.1 port=$PG_PORT user=tb password=$pw dbname=postgres" \
    "host=127.0.0.1 port=$PG_PORT user=tb password = '$pw with \\' quote' dbname=postgres"; do
    i=$((i + 1))
    expect_exit 0 record_log "$url" "$WORK/log.json" "2026-11-0${i}T10:00:00Z"
    expect_exit 0 "$TB" --results "$url" report "$WORK/log.json" --record --name pw-$i --model tinygpt-tiny --gpus 1 \
        --gpu cpu --precision fp32 --global-batch 16 --ran-at "2026-11-0${i}T10:00:00Z"
    grep -q "recorded" "$WORK/err.txt" || fail "form $i: no 'recorded' message: $(cat "$WORK/err.txt")"
    no_secret "recording through form $i ($(sed "s/$pw/***/g" <<<"$url"))"
    expect_exit 0 "$TB" --results "$url" history no-such-recipe
    grep -q "no results in" "$WORK/err.txt" || fail "form $i: no 'no results in' message: $(cat "$WORK/err.txt")"
    no_secret "'history' through form $i"
done
expect_exit 0 "$TB" --results "$PG_URL" --json history tinygpt-scenario
[[ $(jq '.results | length' "$WORK/out.txt") == 7 ]] || fail "the server holds $(jq '.results | length' "$WORK/out.txt") results, want 7"
# 2. Unreachable server: a clear error (exit 4) without the password.
for url in "postgresql://tb:$pw@127.0.0.1:1/none" "postgresql://127.0.0.1:1/none?user=tb&password=$pw" \
    "POSTGRESQL://tb:$pw@127.0.0.1:1/none" "host=127.0.0.1 port=1 user=tb password=$pw dbname=none" \
    "postgresql://127.0.0.1:1/none?password=$pw%zz"; do
    expect_exit 4 "$TB" --results "$url" history
    grep -q "cannot connect\|invalid" "$WORK/err.txt" || fail "no clear message for an unreachable server: $(cat "$WORK/err.txt")"
    no_secret "an unreachable server"
    expect_exit 4 env TRAINBENCH_RESULTS="$url" "$TB" history
    no_secret "an unreachable server through \$TRAINBENCH_RESULTS"
done
# 3. An unknown scheme is a usage error, and never a file.
for url in "mysql://tb:$pw@127.0.0.1/db" "postgresq://tb:$pw@127.0.0.1/db"; do
    expect_exit 2 "$TB" --results "$url" history
    no_secret "an unknown scheme"
    grep -q "scheme" "$WORK/err.txt" || fail "the error does not name the scheme: $(cat "$WORK/err.txt")"
done
# Nothing on disk holds the password, in a name or in a file.
leaks=$(find "$WORK" -name "*$pw*"; grep -rl "$pw" "$WORK" || true)
[[ -z $leaks ]] || fail "the password is on disk: $leaks"
echo "ok: 7 password forms recorded without showing it, 5 unreachable forms exit 4 without it, 2 unknown schemes exit 2"

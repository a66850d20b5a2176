# shellcheck shell=bash
# Shared by the results tests (sourced; not a test itself): writes DLLogger logs with
# chosen step times and runs the history/regress scenario against a results database.
# Gives: write_log FILE SEED FACTOR [STEPS], record_log LOCATION FILE RAN_AT [ARGS...],
# results_scenario LOCATION, start_postgresql (sets PG_URL; stops it on exit).

# write_log FILE SEED FACTOR [STEPS]: a tinygpt-like DLLogger log, step times
# 0.5 s * FACTOR with +-3% uniform noise (a fixed seed per log), a loss per step.
write_log() {
    local file=$1 seed=$2 factor=$3 steps=${4:-40}
    awk -v seed="$seed" -v factor="$factor" -v steps="$steps" 'BEGIN {
        srand(seed)
        printf "DLLL {\"timestamp\": \"0\", \"type\": \"LOG\", \"step\": \"PARAMETER\", \"data\": {\"peak_tflops_measured\": 0.05}}\n"
        for (s = 0; s < steps; s++) {
            t = 0.5 * factor * (1 + 0.06 * (rand() - 0.5))
            printf "DLLL {\"timestamp\": \"%d\", \"type\": \"LOG\", \"step\": %d, \"data\": {\"reduced_train_loss\": %.6f, \"train_step_timing in s\": %.9f}}\n", s, s, 8 - s * 0.05, t
        }
    }' >"$file"
}

# record_log LOCATION FILE RAN_AT [EXTRA ARGS]: report a bare log and record it under tinygpt-scenario.
record_log() {
    local location=$1 file=$2 ran_at=$3
    shift 3
    "$TB" --results "$location" report "$file" --record --name tinygpt-scenario --target local --container "${CONTAINER:-py3.11}" \
        --ran-at "$ran_at" --model tinygpt-tiny --gpus 1 --gpu cpu --precision fp32 --global-batch 16 \
        --window "${WINDOW:-10:30}" "$@" >/dev/null
}

# run_id_at LOCATION N: the run id of the N-th (1-based) result in history order.
run_id_at() { "$TB" --results "$1" --json history tinygpt-scenario | jq -r ".results[$(($2 - 1))].run_id"; }

# expect_exit CODE COMMAND...: runs it and fails unless it exits with CODE.
expect_exit() {
    local want=$1 rc=0
    shift
    "$@" >"$WORK/out.txt" 2>"$WORK/err.txt" || rc=$?
    [[ $rc == "$want" ]] || { cat "$WORK/out.txt" "$WORK/err.txt" >&2; fail "'$*' exited $rc, expected $want"; }
}

# results_scenario LOCATION: 5 runs of one recipe, the 3rd 10% slower; regress flags only it.
results_scenario() {
    local db=$1 i
    local -a factors=(1.0 1.0 1.10 1.0 1.0) ran=(2026-11-01T10:00:00Z 2026-11-02T10:00:00Z 2026-11-03T10:00:00Z
        2026-11-04T10:00:00Z 2026-11-05T10:00:00Z)
    # Recorded out of order: history sorts by when they ran.
    for i in 4 0 2 1 3; do
        write_log "$WORK/log$i.json" $((i + 11)) "${factors[$i]}"
        record_log "$db" "$WORK/log$i.json" "${ran[$i]}" || fail "recording log $i failed"
    done
    # The same report again is not a second result.
    record_log "$db" "$WORK/log0.json" "${ran[0]}" || fail "recording log 0 twice failed"

    local hist
    hist=$("$TB" --results "$db" --json history tinygpt-scenario)
    [[ $(jq '.results | length' <<<"$hist") == 5 ]] || fail "history holds $(jq '.results | length' <<<"$hist") results, expected 5"
    [[ $(jq -r '[.results[].ran_at] | join(" ")' <<<"$hist") == "${ran[*]}" ]] ||
        fail "history is not in the order the runs ran: $(jq -r '[.results[].ran_at] | join(" ")' <<<"$hist")"
    [[ $(jq '[.results[] | .window_steps | length] | unique' -c <<<"$hist") == "[21]" ]] ||
        fail "each result should keep the 21 step times of its window"
    "$TB" --results "$db" history tinygpt-scenario >"$WORK/table.txt" || fail "history (table) failed"
    [[ $(grep -c 'tinygpt-scenario' "$WORK/table.txt") == 5 ]] || fail "the history table does not list 5 runs"
    "$TB" --results "$db" history --name tinygpt-scenario --csv >"$WORK/h.csv" || fail "history --csv failed"
    [[ $(wc -l <"$WORK/h.csv") == 6 ]] || fail "history --csv should have a header and 5 rows"

    local -a id
    for i in 1 2 3 4 5; do id[i]=$(run_id_at "$db" "$i"); done
    "$TB" --results "$db" tag "${id[1]}" good >/dev/null || fail "tag failed"
    # last-good = run 1 for every later run; only run 3 is slower (exit 5).
    expect_exit 0 "$TB" --results "$db" regress "${id[2]}"
    grep -q 'no change beyond noise' "$WORK/out.txt" || fail "run 2 should show no change: $(cat "$WORK/out.txt")"
    expect_exit 5 "$TB" --results "$db" regress "${id[3]}" --junit "$WORK/regress.xml"
    grep -q 'verdict   slower' "$WORK/out.txt" || fail "run 3 should be slower: $(cat "$WORK/out.txt")"
    grep -q '<failure' "$WORK/regress.xml" || fail "the JUnit file of run 3 has no failure"
    expect_exit 0 "$TB" --results "$db" regress "${id[4]}" --baseline last-good
    expect_exit 0 "$TB" --results "$db" --json regress "${id[5]}" --baseline "${id[4]}"
    [[ $(jq -r .verdict "$WORK/out.txt") == no-change ]] || fail "run 5 against run 4 should show no change"
    # Against the slow run, run 4 is faster (no regression, exit 0).
    expect_exit 0 "$TB" --results "$db" --json regress "${id[4]}" --baseline "${id[3]}"
    [[ $(jq -r .verdict "$WORK/out.txt") == faster ]] || fail "run 4 against run 3 should be faster"
    local rel
    rel=$("$TB" --results "$db" --json regress "${id[3]}" | jq .relative) || true
    awk -v r="$rel" 'BEGIN { exit !(r > 0.07 && r < 0.13) }' || fail "run 3's shift $rel is not about +10%"
}

# start_postgresql: a throw-away PostgreSQL server on 127.0.0.1 (a free port), as the
# unprivileged user `nobody` when run as root (postgres refuses root). Sets PG_URL.
start_postgresql() {
    local bin
    bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
    [[ -x $bin/initdb && -x $bin/pg_ctl ]] ||
        { echo "skip: PostgreSQL is not installed (scripts/setup.sh --test installs it)"; exit 125; }
    PG_BASE=$(mktemp -d "${TMPDIR:-/tmp}/tb-pg-XXXXXX")
    chmod 755 "$PG_BASE"
    mkdir -p "$PG_BASE/data" "$PG_BASE/sock"
    local as=()
    if [[ $(id -u) == 0 ]]; then
        chown nobody "$PG_BASE/data" "$PG_BASE/sock"
        as=(runuser -u nobody --)
    fi
    PG_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    PG_CTL=("${as[@]}" "$bin/pg_ctl" -D "$PG_BASE/data")
    trap 'pg_stop' EXIT
    "${as[@]}" "$bin/initdb" -D "$PG_BASE/data" -A trust -U tb >"$PG_BASE/initdb.log" 2>&1 ||
        { cat "$PG_BASE/initdb.log" >&2; fail "initdb failed"; }
    "${PG_CTL[@]}" -l "$PG_BASE/data/server.log" -w -t 60 \
        -o "-p $PG_PORT -c listen_addresses=127.0.0.1 -k $PG_BASE/sock -c fsync=off" start >/dev/null ||
        { cat "$PG_BASE/data/server.log" >&2; fail "the PostgreSQL server did not start"; }
    PG_URL="postgresql://tb@127.0.0.1:$PG_PORT/postgres"
}

pg_stop() {
    [[ -n ${PG_BASE:-} ]] && "${PG_CTL[@]}" -m immediate stop >/dev/null 2>&1
    [[ -n ${PG_BASE:-} ]] && rm -rf "$PG_BASE"
    rm -rf "$WORK"
}

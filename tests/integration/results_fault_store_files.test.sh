#!/usr/bin/env bash
# The results database's smaller failure modes (issue #35, "weaker points"):
#  1. commands that only read (history, regress) create no database: in an empty folder
#     `history` says "no results in sqlite:runs/results.sqlite" and leaves no runs/;
#  2. a file that is not a SQLite database, and one of a newer schema, are errors (exit 4)
#     that name the file;
#  3. another user's database (not writable) is read: history works, record is refused;
#  4. a run whose result cannot be recorded (PostgreSQL down) says how to record it later.
source "$(dirname "$0")/runs_lib.sh"
source "$(dirname "$0")/results_lib.sh"
# 1.
mkdir -p "$WORK/empty"
(cd "$WORK/empty" && "$TB" history >"$WORK/out.txt" 2>"$WORK/err.txt") || fail "history in an empty folder: $(cat "$WORK/err.txt")"
grep -q "no results in sqlite:runs/results.sqlite" "$WORK/err.txt" || fail "history said: $(cat "$WORK/err.txt")"
rc=0
(cd "$WORK/empty" && "$TB" regress abc123 >/dev/null 2>"$WORK/err.txt") || rc=$?
((rc == 2)) || fail "regress of an unknown run in an empty folder exited $rc: $(cat "$WORK/err.txt")"
[[ -z $(ls -A "$WORK/empty") ]] || fail "reading created: $(ls -R "$WORK/empty")"
# 2.
head -c 8192 /dev/urandom >"$WORK/garbage.sqlite"
expect_exit 4 "$TB" --results "$WORK/garbage.sqlite" history
grep -q "garbage.sqlite" "$WORK/err.txt" || fail "the error does not name the file: $(cat "$WORK/err.txt")"
db=$WORK/results.sqlite
write_log "$WORK/log.json" 81 1.0
record_log "$db" "$WORK/log.json" 2026-11-01T10:00:00Z || fail "recording failed"
cp "$db" "$WORK/newer.sqlite"
if command -v sqlite3 >/dev/null; then
    sqlite3 "$WORK/newer.sqlite" "INSERT INTO trainbench_schema (version, applied_at) VALUES (99, 'x')"
    expect_exit 4 "$TB" --results "$WORK/newer.sqlite" history
    grep -q "newer.sqlite" "$WORK/err.txt" && grep -q "schema version 99" "$WORK/err.txt" ||
        fail "a newer schema: $(cat "$WORK/err.txt")"
fi
# 3. Another user's database, as `nobody` (root only).
if [[ $(id -u) == 0 ]] && id nobody >/dev/null 2>&1; then
    chmod 755 "$WORK"
    chmod 644 "$db"
    as_nobody=(runuser -u nobody -- "$TB")
    "${as_nobody[@]}" --version >/dev/null 2>&1 || { echo "note: nobody cannot run $TB; part 3 not run"; as_nobody=(); }
    if ((${#as_nobody[@]})); then
        "${as_nobody[@]}" --results "$db" --json history >"$WORK/out.txt" 2>"$WORK/err.txt" ||
            fail "history of another user's database: $(cat "$WORK/err.txt")"
        [[ $(jq '.results | length' "$WORK/out.txt") == 1 ]] || fail "history of a read-only database: $(cat "$WORK/out.txt")"
        rc=0
        "${as_nobody[@]}" --results "$db" tag "$(jq -r '.results[0].run_id' "$WORK/out.txt")" good >/dev/null 2>"$WORK/err.txt" || rc=$?
        ((rc == 4)) || fail "tagging in another user's database exited $rc: $(cat "$WORK/err.txt")"
    fi
fi
# 4. PostgreSQL down when a run ends: exit 4, how to record it later, and that way works.
write_log "$WORK/emit.log" 82 1.0
write_recipe "$WORK/r.yaml" it-pg-down local 1 "[\"/bin/cat\", \"$WORK/emit.log\"]"
sed -i 's/log_format: megatron/log_format: dllogger/' "$WORK/r.yaml"
rc=0
tb --results postgresql://tb@127.0.0.1:1/none run "$WORK/r.yaml" --interval 0.2 >"$WORK/out.txt" 2>"$WORK/err.txt" || rc=$?
((rc == 4)) || fail "run with PostgreSQL down exited $rc: $(cat "$WORK/err.txt")"
grep -q "history --import" "$WORK/err.txt" || fail "no word on recording it later: $(cat "$WORK/err.txt")"
tb --results "$WORK/later.sqlite" history --import "$WORK/runs" >"$WORK/out.txt" 2>&1 || fail "history --import: $(cat "$WORK/out.txt")"
grep -q "imported 1 results" "$WORK/out.txt" || fail "history --import: $(cat "$WORK/out.txt")"
echo "ok: reading creates nothing; garbage and newer files named (exit 4); a read-only database is read; PostgreSQL down says 'history --import'"

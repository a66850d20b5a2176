#!/usr/bin/env bash
# `report --record --ran-at` takes a real UTC time or an offset it converts (issue #35, 10):
# impossible dates and times, a bare offset, a space for the T and other text are usage errors
# (exit 2) that record nothing; an offset is stored as the same instant in UTC, so history sorts
# by time, not by text. docs/results.md.
source "$(dirname "$0")/runs_lib.sh"
source "$(dirname "$0")/results_lib.sh"
db=$WORK/results.sqlite
write_log "$WORK/log.json" 61 1.0
for bad in 2026-02-30 2026-02-29T10:00:00Z 2026-03-01T25:00:00Z 2026-03-01T10:60:00Z 25:00 +05:00 \
    "2026-03-01 00:00:00" 2026-03-01T10:00:00+24:00 yesterday "2026-03-01T10:00:00Z\$(id)" ""; do
    expect_exit 2 record_log "$db" "$WORK/log.json" "$bad"
    grep -q -- "--ran-at" "$WORK/err.txt" || fail "'$bad': the error does not name --ran-at: $(cat "$WORK/err.txt")"
done
[[ ! -e $db ]] || [[ $("$TB" --results "$db" --json history | jq '.results | length') == 0 ]] ||
    fail "a refused --ran-at recorded something"
# Accepted forms, stored in UTC: the +05:00 run (05:00 UTC) sorts before the 06:00Z one.
record_log "$db" "$WORK/log.json" 2026-03-01T06:00:00Z || fail "a UTC time was refused"
record_log "$db" "$WORK/log.json" 2026-03-01T10:00:00+05:00 || fail "an offset was refused"
record_log "$db" "$WORK/log.json" 2026-03-02 || fail "a date was refused"
record_log "$db" "$WORK/log.json" 2026-03-03T07:08:09.250Z || fail "fractional seconds were refused"
got=$("$TB" --results "$db" --json history | jq -r '[.results[].ran_at] | join(" ")')
want="2026-03-01T05:00:00Z 2026-03-01T06:00:00Z 2026-03-02T00:00:00Z 2026-03-03T07:08:09Z"
[[ $got == "$want" ]] || fail "stored ran_at: '$got', want '$want'"
"$TB" --results "$db" --json history | jq -e '[.results[].run_id | test("^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{6}$")] | all' >/dev/null ||
    fail "run ids are not <UTC time>-<hash>: $("$TB" --results "$db" --json history | jq -c '[.results[].run_id]')"
echo "ok: 11 bad --ran-at values refused (exit 2); an offset stored as UTC and sorted by time"

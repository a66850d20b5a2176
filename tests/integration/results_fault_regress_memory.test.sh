#!/usr/bin/env bash
# `regress` takes memory linear in the window sizes (issue #35, 3): two recorded windows of
# 40,001 steps each are compared under a 512 MiB address-space limit in under 5 s (the
# pairwise differences, 1.6e9 of them, are counted, never stored). docs/reliability.md.
source "$(dirname "$0")/runs_lib.sh"
source "$(dirname "$0")/results_lib.sh"
db=$WORK/results.sqlite
write_log "$WORK/a.json" 21 1.0 40011
write_log "$WORK/b.json" 22 1.10 40011
WINDOW=10:40010 record_log "$db" "$WORK/a.json" 2026-11-01T10:00:00Z || fail "recording log a failed"
WINDOW=10:40010 record_log "$db" "$WORK/b.json" 2026-11-02T10:00:00Z || fail "recording log b failed"
a=$(run_id_at "$db" 1)
b=$(run_id_at "$db" 2)
"$TB" --results "$db" --json history tinygpt-scenario | jq -e '[.results[].window_steps | length] == [40001, 40001]' >/dev/null ||
    fail "the recorded windows do not hold 40,001 steps each"
limit=$((512 * 1024))  # KiB
t0=$(date +%s%N)
rc=0
(ulimit -v "$limit" && exec "$TB" --results "$db" --json regress "$b" --baseline "$a") >"$WORK/out.json" 2>"$WORK/err.txt" || rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
((rc == 5)) || fail "regress exited $rc under a 512 MiB limit (want 5, slower): $(head -c 600 "$WORK/err.txt")"
((ms < 5000)) || fail "regress of two 40,001-step windows took $ms ms (want < 5000)"
jq -e '.verdict == "slower" and .relative > 0.08 and .relative < 0.12' "$WORK/out.json" >/dev/null ||
    fail "the verdict is not about +10% slower: $(cat "$WORK/out.json")"
# The interval holds the shift.
jq -e '.ci_low_s <= .shift_s and .shift_s <= .ci_high_s' "$WORK/out.json" >/dev/null || fail "the interval does not hold the shift"
echo "ok: regress of 2 x 40,001 steps under 512 MiB in $ms ms, shift $(jq -r .relative "$WORK/out.json")"

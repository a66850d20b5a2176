#!/usr/bin/env bash
# Results timestamps are UTC whatever the time zone (issue #35, 5): under TZ=Pacific/Kiritimati
# (UTC+14) and TZ=America/Adak (UTC-10/-9), a bare log's ran_at (its mtime) and recorded_at are
# within a minute of `date -u`, and the run store's creation time agrees. docs/reliability.md.
source "$(dirname "$0")/runs_lib.sh"
source "$(dirname "$0")/results_lib.sh"
[[ -e /usr/share/zoneinfo/Pacific/Kiritimati ]] || { echo "skip: no time zone data (tzdata)"; exit 125; }
db=$WORK/results.sqlite
# seconds since the epoch of an ISO UTC time ("2026-11-23T19:02:03Z" or with .micro)
epoch_of() { date -u -d "$(sed -e 's/T/ /' -e 's/\.[0-9]*Z$/Z/' <<<"$1")" +%s; }
i=0
for zone in Pacific/Kiritimati America/Adak; do
    i=$((i + 1))
    write_log "$WORK/log$i.json" $((40 + i)) 1.0
    now=$(date -u +%s)
    TZ=$zone "$TB" --results "$db" report "$WORK/log$i.json" --record --name tz-$i --model tinygpt-tiny --gpus 1 \
        --gpu cpu --precision fp32 --global-batch 16 --window 10:30 >/dev/null 2>"$WORK/err" || fail "record: $(cat "$WORK/err")"
    TZ=$zone "$TB" --results "$db" --json history tz-$i >"$WORK/h.json"
    for field in ran_at recorded_at; do
        value=$(jq -r ".results[0].$field" "$WORK/h.json")
        [[ $value == *Z ]] || fail "$field '$value' is not written as UTC"
        t=$(epoch_of "$value")
        ((t - now <= 60 && now - t <= 60)) || fail "TZ=$zone: $field '$value' is $((t - now)) s away from UTC now ($(date -u -d "@$now" +%FT%TZ))"
    done
done
# The run store agrees (it always used gmtime_r): a local run's created time under UTC+14.
write_recipe "$WORK/r.yaml" it-tz local 1 '["/bin/true"]'
now=$(date -u +%s)
created=$(TZ=Pacific/Kiritimati tb --json submit "$WORK/r.yaml" | jq -r .run_id)
t=$(epoch_of "$(sed -E 's/^([0-9]{4})([0-9]{2})([0-9]{2})T([0-9]{2})([0-9]{2})([0-9]{2})Z-.*/\1-\2-\3T\4:\5:\6Z/' <<<"$created")")
((t - now <= 60 && now - t <= 60)) || fail "the run id $created is $((t - now)) s away from UTC now"
echo "ok: ran_at and recorded_at within 60 s of UTC under UTC+14 and UTC-10"

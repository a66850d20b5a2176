#!/usr/bin/env bash
# Hostile logs: every parser (`trainbench parse` and `report` with each --format) is given a
# single 2 GiB line (a sparse file: nothing is written to disk), a TFRecord whose length field
# says 2^63, gzip'd input (refused by name) and random bytes. Each run must end with a clear
# error or warning,
# never a crash (exit 1 "internal error", a signal, a sanitizer or bad_alloc message), under a
# hard limit of 1 GiB of address space (prlimit) with a peak RSS under 64 MiB (GNU time) and a
# 60 s hang bound. Prints the time and peak RSS of each. docs/reliability.md.
set -euo pipefail
bin=${TRAINBENCH_BINARY:?set TRAINBENCH_BINARY}
src=${TRAINBENCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
[[ -x /usr/bin/time ]] || { echo "skip: GNU time (/usr/bin/time) is not installed"; exit 125; }
command -v prlimit >/dev/null || { echo "skip: prlimit (util-linux) is not installed"; exit 125; }
command -v python3 >/dev/null || { echo "skip: python3 is not installed"; exit 125; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
limit_kb=$((64 * 1024))

# A single 2 GiB line: text start, then 2 GiB of NUL bytes, no newline (sparse).
printf 'iteration 1/10 | {"step": 1, "data": "' >"$work/line_2g.log"
truncate -s 2G "$work/line_2g.log"
# A TFRecord whose length field is 2^63 (with a correct length CRC), then garbage.
python3 - "$work/len_2p63.tfevents" <<'PY'
import struct, sys
def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF
def masked(data):
    c = crc32c(data)
    return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF
length = struct.pack("<Q", 1 << 63)
with open(sys.argv[1], "wb") as f:
    f.write(length + struct.pack("<I", masked(length)) + b"\x00" * 4096)
PY
# gzip'd real logs, and random bytes.
gzip -c "$src/tests/data/logs/megatron_variants.log" >"$work/gzipped.log.gz"
gzip -c "$src/tests/data/logs/dllogger_nemo.json" >"$work/gzipped.json.gz"
head -c $((4 * 1024 * 1024)) /dev/urandom >"$work/random.bin"

formats=(dllogger tensorboard megatron nemo metaseq nccl-tests megatron-bridge torchtitan mlperf)
inputs=(line_2g.log len_2p63.tfevents gzipped.log.gz gzipped.json.gz random.bin)
report_args=(--model gpt3-126m --gpus 8 --gpu h100 --precision bf16 --global-batch 8)

run_one() {  # run_one LABEL CMD...: bounded run, checked and reported
    local label=$1 rc=0 out rss_kb seconds
    shift
    (exec /usr/bin/time -f '%M %e' -o "$work/time" prlimit --as=$((1024 * 1024 * 1024)) -- \
        timeout 60 "$bin" "$@") >"$work/out" 2>"$work/err" || rc=$?
    read -r rss_kb seconds < <(tail -n 1 "$work/time") || { rss_kb=0; seconds=?; }
    out=$(head -c 100000 "$work/out"; head -c 100000 "$work/err")
    if ((rc == 1 || rc == 124 || rc > 125)); then
        echo "FAIL: $label: exit $rc: $(tail -c 600 <<<"$out")"; fail=1
    elif grep -qiE 'internal error|bad_alloc|AddressSanitizer|runtime error:|terminate called' <<<"$out"; then
        echo "FAIL: $label: crash-like output: $(grep -m2 -iE 'internal error|bad_alloc|Sanitizer|runtime error:|terminate' <<<"$out")"; fail=1
    elif ((rc == 0)) && ! grep -qiE 'warning|skipped|no metrics|error' "$work/err"; then
        echo "FAIL: $label: exit 0 without a warning: $(tail -c 300 "$work/err")"; fail=1
    elif [[ $label == *gzipped* ]] && ! grep -q "is gzip-compressed" "$work/err"; then
        echo "FAIL: $label: gzip'd input not named as such: $(tail -c 300 "$work/err")"; fail=1
    elif ((rss_kb > limit_kb)); then
        echo "FAIL: $label: peak RSS ${rss_kb} KiB, more than 64 MiB"; fail=1
    else
        printf 'ok: %-40s exit %d in %5s s, peak RSS %3d MiB: %s\n' "$label" "$rc" "$seconds" $((rss_kb / 1024)) \
            "$(grep -m1 -iE 'warning|error' "$work/err" | cut -c1-110)"
    fi
}

for input in "${inputs[@]}"; do
    for format in "${formats[@]}"; do
        run_one "parse $format $input" parse --format "$format" "$work/$input"
        run_one "report $format $input" report "${report_args[@]}" --format "$format" "$work/$input"
    done
    run_one "parse (detected) $input" parse "$work/$input"
done
exit $fail

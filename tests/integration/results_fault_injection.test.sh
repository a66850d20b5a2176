#!/usr/bin/env bash
# What a results database holds never acts on the program that shows it (issue #35, 9):
#  1. bare-record --name, --target and --container are checked like recipe names: formula
#     leaders (= + - @), control characters (escape sequences, a newline that would forge a
#     table row) and other odd text are usage errors (exit 2) that record nothing;
#  2. a database that already holds such text (an older trainbench, another writer) is shown
#     safely: CSV cells that start with = + - @ TAB CR are neutralised (OWASP: a leading ') and
#     carry no control character, the table on a terminal (a pseudo-terminal here) carries none
#     and every row stays one line, JSON escapes, HTML escapes. docs/reliability.md.
source "$(dirname "$0")/runs_lib.sh"
source "$(dirname "$0")/results_lib.sh"
db=$WORK/results.sqlite
write_log "$WORK/log.json" 71 1.0
esc=$'\e]0;pwned\a\e[31m'
bad_values=("=cmd|' /C calc'!A0" "+1+1" "@SUM(A1)" "-2+3" "${esc}red" $'two\nlines' $'tab\there' "a b" "")
for flag in --name --target --container; do
    for v in "${bad_values[@]}"; do
        args=(--name inj --target local --container py3.11)
        case $flag in --name) args[1]=$v ;; --target) args[3]=$v ;; --container) args[5]=$v ;; esac
        expect_exit 2 "$TB" --results "$db" report "$WORK/log.json" --record "${args[@]}" --model tinygpt-tiny --gpus 1 \
            --gpu cpu --precision fp32 --global-batch 16 --window 10:30
        grep -q -- "$flag" "$WORK/err.txt" || fail "$flag $(printf %q "$v"): the error does not name $flag: $(cat -v "$WORK/err.txt")"
        grep -q $'\e' "$WORK/err.txt" && fail "$flag: the error echoes an escape sequence raw: $(cat -v "$WORK/err.txt")"
    done
done
# Good values still work (an image reference with registry, path, tag and digest).
expect_exit 0 "$TB" --results "$db" report "$WORK/log.json" --record --name inj --target gcp-a3-mega \
    --container nvcr.io/nvidia/nemo:24.07@sha256:0123abcd --model tinygpt-tiny --gpus 1 --gpu cpu --precision fp32 --global-batch 16
[[ $("$TB" --results "$db" --json history | jq '.results | length') == 1 ]] || fail "a refused value was recorded"

# 2. Hostile text already in the database (written with the sqlite3 client).
command -v sqlite3 >/dev/null || { echo "skip: the sqlite3 client is not installed (scripts/setup.sh --test)"; exit 125; }
sqlite3 "$db" "UPDATE results SET recipe_name = '=cmd|'' /C calc''!A0', target = '+1+1' || char(10) || 'FORGED ROW',
    container = char(27) || ']0;pwned' || char(7) || char(27) || '[31m@SUM(A1)'"
sqlite3 "$db" "INSERT INTO tags (run_id, tag, tagged_at) SELECT run_id, char(9) || '-tag', '2026-01-01T00:00:00Z' FROM results"
expect_exit 0 "$TB" --results "$db" history --csv
python3 - "$WORK/out.txt" <<'PY' || fail "history --csv is not neutralised: $(cat -v "$WORK/out.txt")"
import csv, sys
text = open(sys.argv[1], newline="").read()
assert not [c for c in text if ord(c) < 0x20 and c != "\n"], "a control character in the CSV"
rows = list(csv.DictReader(text.splitlines()))
assert len(rows) == 1, rows
for key in ("recipe_name", "target", "container", "tags"):
    cell = rows[0][key]
    assert not cell or cell[0] not in "=+-@\t\r", (key, cell)
for key in ("recipe_name", "target"):
    assert rows[0][key].startswith("'"), (key, rows[0][key])
# numbers stay numbers
float(rows[0]["step_time_mean"]); float(rows[0]["mfu"])
PY
# The table on a pseudo-terminal: no control character but the line ends, one line per row.
python3 - "$TB" "$db" "$WORK/tty.txt" <<'PY' || fail "the table on a terminal: $(cat -v "$WORK/tty.txt")"
import os, pty, sys
tb, db, out = sys.argv[1:4]
pid, fd = pty.fork()
if pid == 0:
    os.execv(tb, [tb, "--results", db, "history"])
data = b""
while True:
    try:
        chunk = os.read(fd, 65536)
    except OSError:
        break
    if not chunk:
        break
    data += chunk
os.waitpid(pid, 0)
open(out, "wb").write(data)
bad = sorted({b for b in data if (b < 0x20 and b not in (0x0A, 0x0D)) or b == 0x7F})
assert not bad, f"control bytes {bad}"
lines = [l for l in data.split(b"\r\n") if l.strip()]
assert len(lines) == 2, f"{len(lines)} lines: {lines}"
assert b"FORGED ROW" in lines[1], lines
PY
expect_exit 0 "$TB" --results "$db" history --html "$WORK/h.html"
grep -q $'\e' "$WORK/h.html" && fail "the HTML page holds a raw escape character"
expect_exit 0 "$TB" --results "$db" --json history
jq -e '.results[0].container | startswith("\u001b]0;pwned")' "$WORK/out.txt" >/dev/null || fail "JSON does not keep the text exactly"
grep -q $'\e' "$WORK/out.txt" && fail "the JSON output holds a raw escape character"
id=$(jq -r '.results[0].run_id' "$WORK/out.txt")
expect_exit 0 "$TB" --results "$db" tag "$id" good
grep -q $'\e\|\a' "$WORK/out.txt" "$WORK/err.txt" && fail "tag echoes control characters: $(cat -v "$WORK/out.txt")"
echo "ok: 27 hostile bare-record values refused (exit 2); CSV neutralised, terminal table clean, HTML and JSON escaped"

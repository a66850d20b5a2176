#!/usr/bin/env bash
# Parser throughput: `trainbench parse` against `cat` of the same file, a plain
# Python json.loads loop and jq, on page-cached synthetic logs (bench/gen_logs.cpp).
# Not a test: prints a table for docs/performance.md ("Parsers").
#
#   bench/parse_bench.sh [--size MB] [--out DIR] [--trainbench PATH] [--runs N]
#
# Needs hyperfine, jq, python3, a C++ compiler and /usr/bin/time (GNU).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
size=160
out=${TMPDIR:-/tmp}/trainbench-parse-bench
tb=""
runs=10
while [ $# -gt 0 ]; do
  case "$1" in
    --size) size=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --trainbench) tb=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    *) echo "parse_bench: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
if [ -z "$tb" ]; then
  for cand in "$here/../build/trainbench" "$here"/../build-*/trainbench; do
    [ -x "$cand" ] && { tb=$cand; break; }
  done
fi
[ -x "$tb" ] || { echo "parse_bench: no trainbench binary (use --trainbench PATH)" >&2; exit 2; }
for tool in hyperfine jq python3 c++; do
  command -v "$tool" >/dev/null || { echo "parse_bench: '$tool' not found" >&2; exit 2; }
done

mkdir -p "$out"
c++ -O2 -std=c++20 "$here/gen_logs.cpp" -o "$out/gen_logs"
dll="$out/dllogger.json"
tfe="$out/events.out.tfevents.1727486460.bench"
meg="$out/megatron.log"
fai="$out/fairseq.log"
[ -s "$dll" ] || "$out/gen_logs" dllogger "$size" "$dll"
[ -s "$tfe" ] || "$out/gen_logs" tfevents "$size" "$tfe"
[ -s "$meg" ] || "$out/gen_logs" megatron "$size" "$meg"
[ -s "$fai" ] || "$out/gen_logs" fairseq "$size" "$fai"
for f in "$dll" "$tfe" "$meg" "$fai"; do cat "$f" > /dev/null; done  # page cache

cat > "$out/json_loop.py" <<'PY'
import json, sys
n = 0
with open(sys.argv[1], "rb") as f:
    for line in f:
        if line.startswith(b"DLLL "):
            line = line[5:]
        json.loads(line)
        n += 1
PY

echo 'ltrimstr("DLLL ") | fromjson | .data["train_step_timing in s"]' > "$out/filter.jq"

results="$out/results"
mkdir -p "$results"
run() {  # name runs command... (hyperfine -N splits the command on spaces: no quoted arguments)
  local name=$1 n=$2; shift 2
  hyperfine --style none -N --warmup 1 --runs "$n" --export-json "$results/$name.json" "$*" > /dev/null
}
run dll_trainbench "$runs" "$tb" parse "$dll" -q
run dll_cat "$runs" cat "$dll"
run dll_python 3 python3 "$out/json_loop.py" "$dll"
run dll_jq 3 jq -c -R -f "$out/filter.jq" "$dll"
run tfe_trainbench "$runs" "$tb" parse "$tfe" -q
run tfe_cat "$runs" cat "$tfe"
run meg_trainbench "$runs" "$tb" parse "$meg" -q
run meg_cat "$runs" cat "$meg"
run fai_trainbench "$runs" "$tb" parse "$fai" -q
run fai_cat "$runs" cat "$fai"

rss() { /usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F': ' '/Maximum resident set size/ {print $2}'; }
{
  echo "rss dll_trainbench $(rss "$tb" parse "$dll" -q)"
  echo "rss dll_trainbench_one_series $(rss "$tb" parse "$dll" -q --tags step_time_s)"
  echo "rss tfe_trainbench $(rss "$tb" parse "$tfe" -q)"
  echo "rss tfe_trainbench_one_series $(rss "$tb" parse "$tfe" -q --tags step_time_s)"
  echo "rss meg_trainbench $(rss "$tb" parse "$meg" -q)"
  echo "rss fai_trainbench $(rss "$tb" parse "$fai" -q)"
  echo "rss dll_python $(rss python3 "$out/json_loop.py" "$dll")"
} > "$results/rss.txt"

python3 - "$results" "$dll" "$tfe" "$meg" "$fai" <<'PY'
import json, os, statistics, sys
res = sys.argv[1]
sizes = {"dll": os.path.getsize(sys.argv[2]), "tfe": os.path.getsize(sys.argv[3]),
         "meg": os.path.getsize(sys.argv[4]), "fai": os.path.getsize(sys.argv[5])}
rss = {}
for line in open(os.path.join(res, "rss.txt")):
    _, name, kb = line.split()
    rss[name] = int(kb) / 1024
labels = {"dll": "DLLogger", "tfe": "TensorBoard (CRC checked)", "meg": "Megatron", "fai": "fairseq json"}
print(f"| file | tool | size MB | median s | MB/s median | MB/s min..max | user s | sys s | peak RSS MB |")
print(f"|---|---|---|---|---|---|---|---|---|")
for name in sorted(f[:-5] for f in os.listdir(res) if f.endswith(".json")):
    r = json.load(open(os.path.join(res, name + ".json")))["results"][0]
    kind, tool = name.split("_", 1)
    mb = sizes[kind] / 1e6
    times = r["times"]
    med = statistics.median(times)
    print(f"| {labels[kind]} | {tool} | {mb:.0f} | {med:.3f} | {mb / med:.0f} | {mb / max(times):.0f}..{mb / min(times):.0f} "
          f"| {r['user']:.3f} | {r['system']:.3f} | {rss.get(name, float('nan')):.0f} |")
for k in ("dll_trainbench_one_series", "tfe_trainbench_one_series"):
    print(f"peak RSS {k}: {rss[k]:.0f} MB")
PY
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"

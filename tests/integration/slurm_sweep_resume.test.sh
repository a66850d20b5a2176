#!/usr/bin/env bash
# A sweep on the local Slurm test cluster survives Ctrl-C without duplicate submissions:
# sweeps/local-slurm-tinygpt.yaml (4 points) is submitted with --max-active 1, interrupted with
# SIGINT right after the first submission (while it waits for a free slot), resumed, and run a
# third time; every point ends with exactly one run and one Slurm job, the state file maps each
# point hash to its run, and `sweep status` summarises all four. Skips (125) without the
# cluster fixture or the built binary.
set -euo pipefail

if [ -z "${TRAINBENCH_SLURM_DIR:-}" ] || [ ! -f "$TRAINBENCH_SLURM_DIR/env.sh" ]; then
  echo "skip: no local Slurm cluster (TRAINBENCH_SLURM_DIR/env.sh)" >&2
  exit 125
fi
# shellcheck source=/dev/null
source "$TRAINBENCH_SLURM_DIR/env.sh"
command -v sbatch >/dev/null || { echo "skip: no sbatch" >&2; exit 125; }
tb=${TRAINBENCH_BINARY:-}
[ -x "$tb" ] || { echo "skip: TRAINBENCH_BINARY is not set" >&2; exit 125; }
src=${TRAINBENCH_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
sweep=$src/sweeps/local-slurm-tinygpt.yaml

work=$(mktemp -d)
runs=$work/runs
state=$runs/_sweeps/local-slurm-tinygpt/state.jsonl
pid=""
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  # cancel every job this test submitted (their ids are in the run journals)
  local ids
  ids=$(grep -ho '"job_id":"[0-9]*"' "$runs"/*/*/journal.jsonl 2>/dev/null | grep -o '[0-9]\+' | sort -u || true)
  [ -n "$ids" ] && scancel $ids 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; [ -f "$work/first.err" ] && tail -20 "$work/first.err" >&2; exit 1; }
submitted_lines() { local n; n=$(grep -c '"event":"submitted"' "$state" 2>/dev/null || true); echo "${n:-0}"; }

# 1. Dry run: 4 valid points.
"$tb" --runs "$runs" sweep "$sweep" --dry-run --json >"$work/dry.json" || fail "dry run failed"
python3 - "$work/dry.json" <<'PY' || fail "dry run did not show 4 valid points"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["valid"] == 4 and d["pruned_count"] == 0, d
PY

# 2. Submit with one slot; SIGINT once the first point is submitted.
"$tb" --runs "$runs" sweep "$sweep" --max-active 1 --poll 1 >"$work/first.out" 2>"$work/first.err" &
pid=$!
deadline=$((SECONDS + 120))
until [ "$(submitted_lines)" -ge 1 ]; do
  kill -0 "$pid" 2>/dev/null || fail "sweep ended before the first submission"
  [ $SECONDS -lt $deadline ] || fail "no submission after 120 s"
  sleep 0.2
done
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
pid=""
[ "$rc" -eq 130 ] || fail "interrupted sweep exited $rc, expected 130"
[ "$(submitted_lines)" -eq 1 ] || fail "expected 1 submitted point after the interrupt, state has $(submitted_lines)"
[ "$(ls -d "$runs"/tinygpt-*/*/ | wc -l)" -eq 1 ] || fail "expected 1 run directory after the interrupt"

# 3. Resume without a slot limit: the 3 remaining points only.
"$tb" --runs "$runs" sweep "$sweep" --json >"$work/second.json" 2>"$work/second.err" || fail "resume failed: $(cat "$work/second.err")"
python3 - "$work/second.json" <<'PY' || fail "resume did not submit exactly the 3 remaining points"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["submitted"] == 3 and d["skipped"] == 1 and d["failed"] == 0, d
PY

# 4. A third run submits nothing.
"$tb" --runs "$runs" sweep "$sweep" --json >"$work/third.json" 2>/dev/null || fail "third invocation failed"
python3 - "$work/third.json" <<'PY' || fail "third invocation submitted something"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["submitted"] == 0 and d["skipped"] == 4, d
PY

# 5. Exactly one run and one Slurm job per point.
[ "$(ls -d "$runs"/tinygpt-*/*/ | wc -l)" -eq 4 ] || fail "expected 4 run directories"
jobs=$(grep -ho '"job_id":"[0-9]*"' "$runs"/*/*/journal.jsonl | grep -o '[0-9]\+' | sort -u | wc -l)
[ "$jobs" -eq 4 ] || fail "expected 4 distinct Slurm job ids in the journals, got $jobs"
for d in "$runs"/tinygpt-*/*/; do
  short=$(basename "$d"); short=${short##*-}
  n=$( (squeue -h -o '%j' 2>/dev/null; for id in $(grep -ho '"job_id":"[0-9]*"' "$runs"/*/*/journal.jsonl | grep -o '[0-9]\+'); do
          scontrol show job "$id" 2>/dev/null | grep -o 'JobName=[^ ]*' | cut -d= -f2; done) | grep -- "-$short-" | sort -u | wc -l)
  [ "$n" -le 1 ] || fail "run $short has $n Slurm jobs"
done
python3 - "$state" <<'PY' || fail "state file does not map 4 hashes to 4 runs"
import json, sys
last = {}
for line in open(sys.argv[1]):
    e = json.loads(line)
    last[e["hash"]] = e
assert len(last) == 4, last
assert all(e["event"] == "submitted" for e in last.values()), last
assert len({e["run_id"] for e in last.values()}) == 4, last
PY

# 6. Summary: status lists every point with its run.
"$tb" --runs "$runs" sweep status "$sweep" --json >"$work/status.json" || fail "sweep status failed"
python3 - "$work/status.json" <<'PY' || fail "sweep status does not show 4 submitted points"
import json, sys
d = json.load(open(sys.argv[1]))
pts = d["points"]
assert len(pts) == 4, d
assert all(p["run_id"] != "-" and p["state"] != "NOT SUBMITTED" for p in pts), d
PY
"$tb" --runs "$runs" sweep status "$sweep" | tail -1
"$tb" --runs "$runs" sweep report "$sweep" --json >"$work/report.json" || fail "sweep report failed"
python3 - "$work/report.json" <<'PY' || fail "sweep report does not list the 4 runs"
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["points"]) == 4 and all(p["run_id"] for p in d["points"]), d
assert sorted(p["nodes"] for p in d["points"]) == [1, 1, 2, 2], d
PY
"$tb" --runs "$runs" sweep report "$sweep" --format html -o "$work/report.html" 2>"$work/report-html.err" || fail "sweep report --format html failed: $(cat "$work/report-html.err")"
grep -q '<h1>Sweep local-slurm-tinygpt</h1>' "$work/report.html" || fail "html report has no title"
# 7. Once every run has finished, every report format renders the measured figures (MFU and
#    scaling as percentages); a report made while the runs still trained must not be the only
#    one the test sees.
deadline=$((SECONDS + 300))
until "$tb" --runs "$runs" sweep report "$sweep" --json 2>/dev/null |
      python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(0 if all(p["mfu"] is not None for p in d["points"]) else 1)'; do
  [ $SECONDS -lt $deadline ] || fail "the 4 runs have no MFU 300 s after submission"
  sleep 2
done
for format in table markdown html csv; do
  "$tb" --runs "$runs" sweep report "$sweep" --format "$format" >"$work/final.$format" 2>"$work/final.err" ||
    fail "sweep report --format $format of finished runs failed: $(cat "$work/final.err")"
done
grep -Eq '[0-9]+\.[0-9]{2}%' "$work/final.table" || fail "the table report shows no MFU percentage: $(cat "$work/final.table")"
grep -Eq '<td[^>]*>[0-9]+\.[0-9]{2}%</td>' "$work/final.html" || fail "the html report shows no MFU percentage"
grep -q '<polyline' "$work/final.html" || fail "the html report has no scaling plot of the measured points"
echo "ok: 4 points, 4 runs, 4 jobs, no duplicates after SIGINT and resume; reports of the finished runs"

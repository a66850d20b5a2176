#!/usr/bin/env bash
# Failing and garbage-printing sbatch first on PATH, in front of the real local Slurm:
#  1. transient failure twice ("Socket timed out"), then the real sbatch: submit succeeds with
#     one job, and the journal shows both failed attempts before "submitted";
#  2. a permanent refusal: submit fails at once (exit 4) with sbatch's message, run FAILED;
#  3. garbage on stdout with exit 0: a clear error (exit 4), run FAILED, no crash.
# docs/reliability.md.
source "$(dirname "$0")/runs_lib.sh"
use_slurm
real=$(command -v sbatch)
mkdir -p "$WORK/flaky" "$WORK/refuse" "$WORK/garbage"
cat >"$WORK/flaky/sbatch" <<SH
#!/bin/sh
n=\$(cat "$WORK/count" 2>/dev/null || echo 0); n=\$((n + 1)); echo \$n >"$WORK/count"
if [ \$n -le 2 ]; then
    echo "sbatch: error: Batch job submission failed: Socket timed out on send/recv operation" >&2
    exit 1
fi
exec "$real" "\$@"
SH
printf '#!/bin/sh\necho "sbatch: error: Batch job submission failed: Invalid partition name specified" >&2\nexit 1\n' >"$WORK/refuse/sbatch"
printf '#!/bin/sh\nhead -c 3000 /dev/urandom\nexit 0\n' >"$WORK/garbage/sbatch"
chmod +x "$WORK"/*/sbatch
write_recipe "$WORK/r.yaml" it-fault-sbatch local-slurm 1 '["/bin/sh", "-c", "echo done"]'
trap 'scancel -n "$(squeue -h --states=all -o %j | grep "^trainbench-it-fault-sbatch-" | sort -u | paste -sd, -)" 2>/dev/null || true; rm -rf "$WORK"' EXIT

# 1. fails twice, then succeeds
out=$(PATH="$WORK/flaky:$PATH" tb --json submit "$WORK/r.yaml" 2>"$WORK/flaky.err") ||
    fail "submit with a flaky sbatch failed: $(cat "$WORK/flaky.err")"
id=$(short_id_of "$out")
dir=$(jq -r .dir <<<"$out")
[[ $(cat "$WORK/count") -eq 3 ]] || fail "sbatch was called $(cat "$WORK/count") times, want 3"
events=$(jq -r '.event' "$dir/journal.jsonl" | paste -sd' ')
[[ $events == *"submitting attempt_failed attempt_failed submitted"* ]] || fail "journal events: $events"
jq -s -e '[.[] | select(.event == "attempt_failed" and .command == "sbatch" and (.message | test("Socket timed out")))] | length == 2' \
    "$dir/journal.jsonl" >/dev/null || fail "the retries are not journaled: $(cat "$dir/journal.jsonl")"
[[ $(squeue -h --states=all -n "trainbench-it-fault-sbatch-$id-train" -o %i | wc -l) -eq 1 ]] || fail "not exactly one job"

# 2. a permanent refusal: at once, with sbatch's message
rc=0
PATH="$WORK/refuse:$PATH" tb submit "$WORK/r.yaml" >/dev/null 2>"$WORK/refuse.err" || rc=$?
((rc == 4)) || fail "refused submit exited $rc, want 4"
grep -q "Invalid partition name specified" "$WORK/refuse.err" || fail "no sbatch message: $(cat "$WORK/refuse.err")"
refused=$(tb --json status --no-refresh | jq -r '.[] | select(.state == "FAILED") | .detail')
grep -q "Invalid partition name" <<<"$refused" || fail "the refused run is not FAILED with the reason: $refused"

# 3. garbage with exit 0
rc=0
PATH="$WORK/garbage:$PATH" tb submit "$WORK/r.yaml" >/dev/null 2>"$WORK/garbage.err" || rc=$?
((rc == 4)) || fail "garbage sbatch: exit $rc, want 4: $(head -c 500 "$WORK/garbage.err")"
grep -q "sbatch printed no job id" "$WORK/garbage.err" || fail "no clear error: $(head -c 500 "$WORK/garbage.err")"
[[ $(tb --json status --no-refresh | jq '[.[] | select(.state == "FAILED")] | length') -eq 2 ]] ||
    fail "the two failed submissions are not both FAILED: $(tb --json status --no-refresh | jq -c '[.[] | {state, detail}]')"
echo "ok: flaky sbatch retried twice (journaled), refusal and garbage are clear errors"

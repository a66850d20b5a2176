#!/usr/bin/env bash
# The local backend: `trainbench run` of a local recipe completes with a complete run
# directory; a failing one is FAILED with its exit code; `cancel` ends the process group.
source "$(dirname "$0")/runs_lib.sh"
write_recipe "$WORK/ok.yaml" it-local local 1 '["/bin/sh", "-c", "echo hello from $TRAINBENCH_RUN_DIR"]'
tb run "$WORK/ok.yaml" --no-report --interval 0.5 >"$WORK/out" 2>"$WORK/err" || fail "run: $(cat "$WORK/err")"
grep -q COMPLETED "$WORK/out" || fail "$(cat "$WORK/out")"
dir=$(ls -d "$WORK"/runs/it-local/*)
grep -q "hello from $dir" "$dir/logs/train/stdout.log" || fail "stdout not captured"
for f in run.json recipe.resolved.yaml journal.jsonl rendered/train status/train.exit; do
    [[ -e $dir/$f ]] || fail "missing $f"
done
out=$(tb logs "${dir: -6}")
grep -q "hello from" <<<"$out" || fail "logs: $out"

write_recipe "$WORK/bad.yaml" it-local-bad local 1 '["/bin/sh", "-c", "exit 9"]'
tb run "$WORK/bad.yaml" --no-report --interval 0.5 >/dev/null 2>&1 && fail "a failing local run succeeded"
tb --json status | jq -e 'map(select(.recipe == "it-local-bad"))[0] | .state == "FAILED" and .stages[0].exit_code == 9' >/dev/null ||
    fail "$(tb --json status)"
echo ok

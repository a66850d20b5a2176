#!/usr/bin/env bash
# A two-node job on the real local Slurm reaches COMPLETED through `trainbench run`; its run
# directory is complete; a "${env:NAME}" secret reaches the job and is written nowhere.
source "$(dirname "$0")/runs_lib.sh"
use_slurm

write_recipe "$WORK/r.yaml" it-multinode local-slurm 2 \
    '["/bin/sh", "-c", "echo rank $SLURM_PROCID of $SLURM_NTASKS on $SLURMD_NODENAME token-length ${#MY_TOKEN}"]' \
    'env: {MY_TOKEN: "${env:TB_IT_SECRET}"}'
secret="s3cr3t-$RANDOM-$RANDOM-value"

# Without the variable, nothing is submitted.
if env -u TB_IT_SECRET "$TB" --runs "$WORK/runs" submit "$WORK/r.yaml" 2>"$WORK/err"; then
    fail "submit without the secret variable succeeded"
fi
grep -q "TB_IT_SECRET" "$WORK/err" || fail "the error does not name the variable: $(cat "$WORK/err")"
[[ ! -d $WORK/runs/it-multinode ]] || fail "a run directory was created without the secret"

start=$SECONDS
TB_IT_SECRET=$secret tb run "$WORK/r.yaml" --no-report --interval 1 >"$WORK/out" 2>"$WORK/err" ||
    fail "trainbench run failed: $(cat "$WORK/err")"
echo "run took $((SECONDS - start)) s"
grep -q COMPLETED "$WORK/out" || fail "not COMPLETED: $(cat "$WORK/out")"
dir=$(ls -d "$WORK"/runs/it-multinode/*)
for f in run.json recipe.resolved.yaml journal.jsonl rendered/train/job.sbatch commands/001.json status/train.started status/train.exit; do
    [[ -e $dir/$f ]] || fail "missing $f in the run directory"
done
head -n1 "$dir/journal.jsonl" | jq -e '.format == "trainbench-journal" and .version == 1' >/dev/null || fail "journal signature"
log=$(cat "$dir"/logs/train/*)
# the custom launch runs the command once per node (srun, one task per node)
for rank in 0 1; do grep -q "rank $rank of 2" <<<"$log" || fail "rank $rank missing from the logs: $log"; done
grep -q "on gpu-1" <<<"$log" && grep -q "on gpu-2" <<<"$log" || fail "the job did not span gpu-1 and gpu-2: $log"
grep -q "token-length ${#secret}" <<<"$log" || fail "the secret did not reach the job: $log"
if grep -rqF "$secret" "$dir"; then fail "the secret value was written under the run directory: $(grep -rlF "$secret" "$dir")"; fi
jq -e '.[0].stages[0].exit_code == 0 and .[0].state == "COMPLETED"' <<<"$(tb --json status)" >/dev/null || fail "status --json"
# every sbatch call is recorded with its argv and the job id it printed
jq -s -e 'map(select(.argv[0] == "sbatch")) | length == 1 and .[0].exit_code == 0 and (.[0].stdout | test("^[0-9]+"))' \
    "$dir"/commands/*.json >/dev/null ||
    fail "no sbatch record in commands/"
echo ok

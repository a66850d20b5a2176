#!/usr/bin/env bash
# slurm.exclude keeps a job off a node on the real local Slurm: a one-node job that excludes
# gpu-1 runs on gpu-2 (and one that excludes gpu-2 runs on gpu-1), and slurm.nodelist pins a
# job to the node it names. The knobs are #SBATCH lines, never shell: a host list holding
# shell syntax is refused by validate before anything is submitted.
source "$(dirname "$0")/runs_lib.sh"
use_slurm

cat >"$WORK/where.sh" <<'SH'
#!/bin/sh
echo "ran on ${SLURMD_NODENAME:?}"
for i in $(seq 1 30); do
  echo " iteration $i/ 30 | elapsed time per iteration (ms): 100.0 | learning rate: 1.0E-04 | lm loss: 7.0E+00 |"
done
SH
chmod +x "$WORK/where.sh"

# node_of RECIPE: submits it, waits, prints the node its job ran on.
node_of() {
    local id dir
    id=$(short_id_of "$(tb --json submit "$1")")
    tb wait "$id" --interval 1 >/dev/null || fail "run of $1 did not complete: $(run_json "$id" | jq -c .stages)"
    dir=$(run_json "$id" | jq -r .dir)
    grep -rho "ran on .*" "$dir"/logs/train | head -1 | awk '{print $3}'
}

for excluded in gpu-1 gpu-2; do
    write_recipe "$WORK/ex-$excluded.yaml" "it-exclude-$excluded" local-slurm 1 "[\"$WORK/where.sh\"]" \
        "slurm: {partition: debug, time: \"00:10:00\", exclusive: false, exclude: $excluded}"
    tb render "$WORK/ex-$excluded.yaml" | grep -qx "#SBATCH --exclude=$excluded" || fail "no --exclude line"
    node=$(node_of "$WORK/ex-$excluded.yaml")
    [[ -n $node && $node != "$excluded" ]] || fail "a job excluding $excluded ran on '$node'"
    echo "exclude $excluded: ran on $node"
done

write_recipe "$WORK/pin.yaml" it-nodelist local-slurm 1 "[\"$WORK/where.sh\"]" \
    'slurm: {partition: debug, time: "00:10:00", exclusive: false, nodelist: "gpu-[2]"}'
node=$(node_of "$WORK/pin.yaml")
[[ $node == gpu-2 ]] || fail "a job pinned to gpu-[2] ran on '$node'"

# Shell in a host list is an error at its key, and nothing is submitted.
write_recipe "$WORK/evil.yaml" it-evil local-slurm 1 "[\"$WORK/where.sh\"]" \
    'slurm: {partition: debug, exclude: "gpu-1; touch /tmp/tb-pwned"}'
rc=0
tb validate "$WORK/evil.yaml" >/dev/null 2>"$WORK/evil.err" || rc=$?
[[ $rc == 3 ]] || fail "validate exit $rc for a host list with shell in it"
grep -q "slurm.exclude" "$WORK/evil.err" || fail "error does not name slurm.exclude: $(cat "$WORK/evil.err")"
echo ok

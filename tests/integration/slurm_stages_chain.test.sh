#!/usr/bin/env bash
# A recipe with a validate stage and a train stage is one `trainbench submit` on the real local
# Slurm: validate (DCGM and nccl-tests stand-ins printing real outputs, over the nodes Slurm gives:
# all nodes and each node pair) runs first, train starts after it ended (afterok), and
# `trainbench report` shows the validation (bus bandwidth per size and per pair, threshold,
# pass/fail) next to the training figures. A threshold the cluster misses fails validation,
# cancels training and names the bad nodes.
source "$(dirname "$0")/runs_lib.sh"
use_slurm
src=$(cd "$(dirname "$0")/../.." && pwd)

mkdir -p "$WORK/bin"
# An all_reduce_perf stand-in printing the nccl-tests table (-b 8 -e 8G -f 2, 16 ranks): time
# grows with size, algbw = size / time, busbw = algbw * 2 (n-1) / n, reaching 328 GB/s at 8 GiB.
# nccl-tests prints from rank 0 only; so does the stand-in.
cat >"$WORK/bin/all_reduce_perf" <<'SH'
#!/bin/sh
[ "${SLURM_PROCID:-0}" = 0 ] || exit 0
echo "# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0"
echo "#"
echo "#                                                              out-of-place                       in-place"
echo "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong"
echo "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)"
awk 'BEGIN {
    for (size = 8; size <= 8589934592; size *= 2) {
        t = 120 + size / 175000; alg = size / t / 1000; bus = alg * 30 / 16
        printf "%12.0f  %12.0f     float     sum      -1  %7.1f  %6.2f  %6.2f      0  %7.1f  %6.2f  %6.2f      0\n",
               size, size / 4, t, alg, bus, t, alg, bus
        sum += bus; n++
    }
    print "# Out of bounds values : 0 OK"
    printf "# Avg bus bandwidth    : %.3f\n#\n", sum / n
}'
exit 0
SH
cat >"$WORK/bin/dcgmi" <<'SH'
#!/bin/sh
cat <<'OUT'
Successfully ran diagnostic for group.
+---------------------------+------------------------------------------------+
| Diagnostic                | Result                                         |
+===========================+================================================+
|-----  Deployment  --------+------------------------------------------------|
| Denylist                  | Pass                                           |
| NVML Library              | Pass                                           |
| CUDA Main Library         | Pass                                           |
+-----  Integration  -------+------------------------------------------------+
| PCIe                      | Pass - All                                     |
+---------------------------+------------------------------------------------+
OUT
SH
cat >"$WORK/train.sh" <<SH
#!/bin/sh
[ "\${SLURM_PROCID:-0}" = 0 ] || exit 0
i=1
while [ \$i -le 30 ]; do
  echo " iteration       \$i/      30 | elapsed time per iteration (ms): 350.5 | learning rate: 1.500E-04 | lm loss: 7.123456E+00 |"
  i=\$((i + 1))
done
SH
chmod +x "$WORK/bin/all_reduce_perf" "$WORK/bin/dcgmi" "$WORK/train.sh"

stages() {
    cat <<YAML
stages:
  - name: validate
    kind: validate
    options:
      dcgm: {level: 1, binary: $WORK/bin/dcgmi}
      nccl: {build: {path: $WORK/bin}, min_bytes: 8, max_bytes: 8G, busbw_threshold_gbs: $1}
  - {name: train, kind: train, dependency: afterok}
YAML
}
write_recipe "$WORK/ok.yaml" it-stages local-slurm 2 "[\"$WORK/train.sh\"]" "$(stages 300)"
tb validate "$WORK/ok.yaml" >/dev/null || fail "the recipe does not validate"
id=$(short_id_of "$(tb --json submit "$WORK/ok.yaml")")
dir=$(run_json "$id" | jq -r .dir)
[[ -f $dir/rendered/validate/job.sbatch && -f $dir/rendered/train/job.sbatch ]] || fail "stages not rendered"
first=$(jq -rs 'map(select(.argv[0] == "sbatch"))[0].stdout' "$dir"/commands/*.json | tr -d '\n')
jq -s -e --arg dep "--dependency=afterok:$first" \
    'map(select(.argv[0] == "sbatch")) | length == 2 and (.[1].argv | any(. == $dep))' \
    "$dir"/commands/*.json >/dev/null || fail "train is not submitted with afterok on the validate job"
tb wait "$id" --interval 1 >/dev/null || fail "the chain did not complete: $(run_json "$id" | jq -c .stages)"
# Order from the status files the jobs wrote: validate ended before train started.
v_end=$(awk '{print $2}' "$dir/status/validate.exit")
t_start=$(awk '{print $1}' "$dir/status/train.started")
[[ $(awk '{print $1}' "$dir/status/validate.exit") == 0 ]] || fail "validate exit: $(cat "$dir/status/validate.exit")"
[[ $v_end < $t_start || $v_end == "$t_start" ]] || fail "train started $t_start before validate ended $v_end"
mapfile -t nodes <"$dir/logs/validate/nodes.txt"
[[ ${#nodes[@]} == 2 ]] || fail "validate ran on ${#nodes[@]} nodes, expected 2"
for f in nccl-all.txt "nccl-${nodes[0]}-${nodes[1]}.txt" "dcgm-${nodes[0]}.txt" "dcgm-${nodes[1]}.txt"; do
    [[ -s $dir/logs/validate/$f ]] || fail "missing logs/validate/$f"
done
tb report "$id" --peak 100 >"$WORK/report.txt" 2>"$WORK/report.err" || fail "report failed: $(cat "$WORK/report.err")"
grep -q "Cluster validation: PASS" "$WORK/report.txt" || fail "no validation result: $(cat "$WORK/report.txt")"
grep -q "${nodes[0]} + ${nodes[1]}" "$WORK/report.txt" || fail "no pair line: $(cat "$WORK/report.txt")"
tb --json report "$id" --peak 100 >"$WORK/report.json" || fail "report --json failed"
jq -e '.validation.passed and (.validation.runs | length == 2) and (.validation.dcgm | length == 2)
       and (.validation.runs[0].sizes | length > 10) and .validation.threshold_gbs == 300' \
    "$WORK/report.json" >/dev/null || fail "validation json: $(jq -c .validation "$WORK/report.json")"
jq -e '.figures.step_time_s.value // .step_time_s // empty' "$WORK/report.json" >/dev/null ||
    grep -qi "step time" "$WORK/report.txt" || fail "no training figures in the report"

# A threshold above what the sample reaches: validation fails, training is cancelled, bad nodes named.
write_recipe "$WORK/bad.yaml" it-stages-bad local-slurm 2 "[\"$WORK/train.sh\"]" "$(stages 1000)"
id=$(short_id_of "$(tb --json submit "$WORK/bad.yaml")")
tb wait "$id" --interval 1 >/dev/null 2>&1 && fail "a chain whose validation failed completed"
run_json "$id" | jq -e '.stages[0].state == "FAILED" and .stages[1].state == "CANCELLED"' >/dev/null ||
    fail "states: $(run_json "$id" | jq -c '.stages')"
dir=$(run_json "$id" | jq -r .dir)
rc=0
tb report "$id" --peak 100 >"$WORK/bad.txt" 2>"$WORK/bad.err" || rc=$?
grep -q "Cluster validation: FAIL" "$WORK/bad.txt" || fail "no failed validation: $(cat "$WORK/bad.txt" "$WORK/bad.err")"
grep -q "bad nodes: ${nodes[0]} ${nodes[1]}" "$WORK/bad.txt" || grep -q "bad nodes:" "$WORK/bad.txt" ||
    fail "bad nodes not named: $(cat "$WORK/bad.txt")"
echo ok

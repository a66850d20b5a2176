#!/usr/bin/env bash
# Prepared once, reused, on the real local Slurm: two variants of one recipe (validate ->
# prepare-data -> train) submitted in a row run validation and data preparation once. The
# second run submits only its training, which waits (afterok) for the first run's validate and
# prepare-data jobs; its journal and reused.json say what it reused and from which run. A third
# submission after they finished reuses them as done (no dependency), and --revalidate /
# --reprepare run the stages again.
source "$(dirname "$0")/runs_lib.sh"
use_slurm

mkdir -p "$WORK/bin" "$WORK/data"
cat >"$WORK/bin/dcgmi" <<'SH'
#!/bin/sh
echo "$(date +%s.%N)" >> "${TB_COUNT_DIR:?}/validate.count"
cat <<'OUT'
+---------------------------+------------------------------------------------+
| Diagnostic                | Result                                         |
+===========================+================================================+
| PCIe                      | Pass - All                                     |
+---------------------------+------------------------------------------------+
OUT
SH
cat >"$WORK/bin/all_reduce_perf" <<'SH'
#!/bin/sh
[ "${SLURM_PROCID:-0}" = 0 ] || exit 0
echo "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong"
echo "  8589934592    2147483648     float     sum      -1  49089.1  174.98  328.09      0  49089.1  174.98  328.09      0"
echo "# Avg bus bandwidth    : 328.090"
SH
cat >"$WORK/prepare.sh" <<'SH'
#!/bin/sh
echo "$(date +%s.%N)" >> "${TB_COUNT_DIR:?}/prepare.count"
sleep 2
printf 'bin' > "$1.bin.tmp" && mv "$1.bin.tmp" "$1.bin"
printf 'idx' > "$1.idx.tmp" && mv "$1.idx.tmp" "$1.idx"
SH
cat >"$WORK/train.sh" <<'SH'
#!/bin/sh
[ "${SLURM_PROCID:-0}" = 0 ] || exit 0
[ -s "$1.bin" ] || { echo "no prepared data at $1" >&2; exit 1; }
for i in $(seq 1 30); do
  echo " iteration $i/ 30 | elapsed time per iteration (ms): 100.0 | learning rate: 1.0E-04 | lm loss: 7.0E+00 |"
done
SH
chmod +x "$WORK/bin/"* "$WORK/prepare.sh" "$WORK/train.sh"
export TB_COUNT_DIR=$WORK
stages="stages:
  - name: validate
    kind: validate
    options:
      dcgm: {level: 1, binary: $WORK/bin/dcgmi}
      nccl: {build: {path: $WORK/bin}, mpi: none, busbw_threshold_gbs: 100, env: {TB_COUNT_DIR: $WORK}}
  - name: prepare-data
    kind: prepare-data
    options:
      dataset: custom
      command: [\"$WORK/prepare.sh\", \"$WORK/data/corpus_text_document\"]
      prefixes: [{prefix: $WORK/data/corpus_text_document}]
      env: {TB_COUNT_DIR: $WORK}
  - {name: train, kind: train}"
write_recipe "$WORK/base.yaml" it-reuse local-slurm 2 "[\"$WORK/train.sh\", \"$WORK/data/corpus_text_document\"]" "$stages"
tb validate "$WORK/base.yaml" >/dev/null || fail "the recipe does not validate"

# Two variants, one right after the other.
a=$(short_id_of "$(tb --json submit "$WORK/base.yaml" -s steps=30)")
b_out=$(tb --json submit "$WORK/base.yaml" -s steps=40 2>"$WORK/b.err")
b=$(short_id_of "$b_out")
a_dir=$(run_json "$a" | jq -r .dir)
b_dir=$(run_json "$b" | jq -r .dir)
grep -q "stage validate: reused from run" "$WORK/b.err" || fail "submit did not say it reused: $(cat "$WORK/b.err")"
jq -e --arg a "$(basename "$a_dir")" '[.[] | select(.from_run == $a)] | map(.stage) == ["validate", "prepare-data"]' \
    "$b_dir/reused.json" >/dev/null || fail "reused.json: $(cat "$b_dir/reused.json")"
[[ $(jq -s '[.[] | select(.event == "reused")] | length' "$b_dir/journal.jsonl") == 2 ]] || fail "no reused events"
[[ $(jq -s 'map(select(.argv[0] == "sbatch")) | length' "$b_dir"/commands/*.json) == 1 ]] ||
    fail "the second variant submitted more than its training"
a_jobs=$(run_json "$a" | jq -r '[.stages[] | select(.name != "train") | .job_id] | join(":")')
jq -s -e --arg dep "--dependency=afterok:$a_jobs" 'map(select(.argv[0] == "sbatch"))[0].argv | any(. == $dep)' \
    "$b_dir"/commands/*.json >/dev/null || fail "the second training does not wait for $a_jobs"
tb wait "$a" --interval 1 >/dev/null || fail "run $a: $(run_json "$a" | jq -c .stages)"
tb wait "$b" --interval 1 >/dev/null || fail "run $b: $(run_json "$b" | jq -c .stages)"
[[ $(wc -l <"$WORK/validate.count") == 2 ]] || fail "DCGM ran $(wc -l <"$WORK/validate.count") times (2 nodes once = 2)"
[[ $(wc -l <"$WORK/prepare.count") == 1 ]] || fail "preparation ran $(wc -l <"$WORK/prepare.count") times"
echo "two variants: validation and preparation ran once (run $a), run $b reused them"

# After they finished: reused as done, nothing to wait for.
c_out=$(tb --json submit "$WORK/base.yaml" -s steps=50 2>"$WORK/c.err")
c_dir=$(run_json "$(short_id_of "$c_out")" | jq -r .dir)
jq -e 'all(.state == "COMPLETED")' "$c_dir/reused.json" >/dev/null || fail "c reused: $(cat "$c_dir/reused.json")"
grep -q "validated .* h ago on gpu-1 gpu-2" "$c_dir/reused.json" || fail "no node list: $(cat "$c_dir/reused.json")"
jq -s -e 'map(select(.argv[0] == "sbatch"))[0].argv | all(startswith("--dependency") | not)' "$c_dir"/commands/*.json \
    >/dev/null || fail "a reused finished stage is still waited for"
tb wait "$(short_id_of "$c_out")" --interval 1 >/dev/null || fail "third run failed"

# --revalidate and --reprepare force both again.
d_out=$(tb --json submit "$WORK/base.yaml" --revalidate --reprepare 2>/dev/null)
d_dir=$(run_json "$(short_id_of "$d_out")" | jq -r .dir)
[[ ! -f $d_dir/reused.json ]] || fail "forced run reused: $(cat "$d_dir/reused.json")"
tb wait "$(short_id_of "$d_out")" --interval 1 >/dev/null || fail "forced run failed"
[[ $(wc -l <"$WORK/prepare.count") == 2 ]] || fail "--reprepare did not prepare again"
echo ok

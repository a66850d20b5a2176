#!/usr/bin/env bash
# The validate stage builds nccl-tests (git clone + make MPI=1 with HPC-X loaded) and runs them
# as MPI ranks with `srun --mpi=pmix` on the real local Slurm, as seed 000 does. The stand-in
# all_reduce_perf is an "MPI program": without a PMIx rank (no --mpi=pmix) each rank would be a
# singleton reporting bus bandwidth 0; with one, every rank of the step registers under the
# step's PMIx namespace and waits at a barrier for all the others before rank 0 prints the
# table and the rank list, as nccl-tests' MPI build does. The test checks that all 4 ranks of
# the all-nodes run (2 nodes x 2) and of the pair run started in one namespace, together (within
# 1 s), and met at the barrier, that the build ran once, and that HPC-X was loaded for the build
# and the runs.
source "$(dirname "$0")/runs_lib.sh"
use_slurm
command -v git >/dev/null || { echo "skip: git is not installed"; exit 125; }

# HPC-X stand-in: hpcx-init.sh defines hpcx_load, which sets HPC-X's MPI location.
mkdir -p "$WORK/hpcx/ompi"
cat >"$WORK/hpcx/hpcx-init.sh" <<SH
hpcx_load() { export HPCX_MPI_DIR=$WORK/hpcx/ompi TB_HPCX_LOADED=1; }
SH

# nccl-tests stand-in source tree: `make MPI=1 MPI_HOME=...` installs build/all_reduce_perf.
src="$WORK/nccl-tests-src"
mkdir -p "$src/src"
cat >"$src/Makefile" <<'MK'
all:
	test "$(MPI)" = 1
	test "$(MPI_HOME)" = "$(HPCX_MPI_DIR)"
	mkdir -p build
	cp src/all_reduce_perf.sh build/all_reduce_perf
	chmod +x build/all_reduce_perf
	date +%s%N >> $(COUNT_FILE)
MK
cat >"$src/src/all_reduce_perf.sh" <<'SH'
#!/bin/bash
# An MPI all-reduce stand-in: ranks come from PMIx (srun --mpi=pmix), the size from Slurm.
set -eu
[ "${TB_HPCX_LOADED:-}" = 1 ] || { echo "HPC-X is not loaded: libmpi.so not found" >&2; exit 127; }
if [ -z "${PMIX_RANK:-}" ] || [ -z "${PMIX_NAMESPACE:-}" ]; then
  size=1 rank=0      # no PMIx: MPI_Init makes a singleton; all-reduce over one rank moves nothing
else
  size=${SLURM_STEP_NUM_TASKS:?} rank=$PMIX_RANK
  bar="${TRAINBENCH_RUN_DIR:?}/mpi-barrier/$PMIX_NAMESPACE"
  mkdir -p "$bar"
  echo "$(date +%s.%N) $SLURMD_NODENAME" > "$bar/rank-$rank"
  for _ in $(seq 1 600); do
    [ "$(find "$bar" -name 'rank-*' | wc -l)" -ge "$size" ] && break
    sleep 0.1
  done
  [ "$(find "$bar" -name 'rank-*' | wc -l)" -ge "$size" ] || { echo "rank $rank: barrier timed out" >&2; exit 1; }
fi
[ "$rank" = 0 ] || exit 0
echo "# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0"
echo "#"
echo "# Using devices"
for r in $(seq 0 $((size - 1))); do
  node=$( [ -n "${bar:-}" ] && awk '{print $2}' "$bar/rank-$r" || echo "$SLURMD_NODENAME")
  echo "#  Rank $r Group  0 Pid  100 on $node device  $r [0x07] NVIDIA A100-SXM4-80GB namespace ${PMIX_NAMESPACE:-singleton}"
done
echo "#                                                              out-of-place                       in-place"
echo "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong"
echo "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)"
awk -v n="$size" 'BEGIN {
    for (size = 8; size <= 8589934592; size *= 2) {
        t = 120 + size / 175000; alg = size / t / 1000; bus = n > 1 ? alg * 2 * (n - 1) / n : 0
        printf "%12.0f  %12.0f     float     sum      -1  %7.1f  %6.2f  %6.2f      0  %7.1f  %6.2f  %6.2f      0\n",
               size, size / 4, t, alg, bus, t, alg, bus
        sum += bus; k++
    }
    print "# Out of bounds values : 0 OK"
    printf "# Avg bus bandwidth    : %.3f\n#\n", sum / k
}'
SH
(cd "$src" && git init -q && git add -A && git -c user.email=t@t -c user.name=t commit -qm standin && git tag v2.19.6)

cat >"$WORK/dcgmi" <<'SH'
#!/bin/sh
cat <<'OUT'
Successfully ran diagnostic for group.
+---------------------------+------------------------------------------------+
| Diagnostic                | Result                                         |
+===========================+================================================+
|-----  Deployment  --------+------------------------------------------------|
| Denylist                  | Pass                                           |
+-----  Integration  -------+------------------------------------------------+
| PCIe                      | Pass - All                                     |
+---------------------------+------------------------------------------------+
OUT
SH
cat >"$WORK/train.sh" <<'SH'
#!/bin/sh
[ "${SLURM_PROCID:-0}" = 0 ] || exit 0
for i in $(seq 1 30); do
  echo " iteration $i/ 30 | elapsed time per iteration (ms): 100.0 | learning rate: 1.0E-04 | lm loss: 7.0E+00 |"
done
SH
chmod +x "$WORK/dcgmi" "$WORK/train.sh"

# stages MPI: a validate stage building into $WORK/nccl-tests and launching with --mpi=MPI.
stages() {
    cat <<YAML
stages:
  - name: validate
    kind: validate
    options:
      dcgm: {level: 1, binary: $WORK/dcgmi, time: "5"}
      nccl:
        mpi: $1
        build: {dir: $WORK/nccl-tests, repo: "file://$src", ref: v2.19.6}
        hpcx_path: $WORK/hpcx
        time: "00:05:00"
        env: {COUNT_FILE: $WORK/builds.txt}
        busbw_threshold_gbs: 100
  - {name: train, kind: train}
YAML
}
write_recipe "$WORK/mpi.yaml" it-validate-mpi local-slurm 2 "[\"$WORK/train.sh\"]" "$(stages pmix)"
tb validate "$WORK/mpi.yaml" >/dev/null || fail "the recipe does not validate"
tb render "$WORK/mpi.yaml" --stage validate >"$WORK/validate.sbatch"
grep -q -- "--mpi=pmix" "$WORK/validate.sbatch" || fail "nccl-tests are not launched with srun --mpi=pmix"
grep -q "hpcx-init.sh" "$WORK/validate.sbatch" || fail "HPC-X is not loaded for nccl-tests"
grep -q -- "--time=00:05:00" "$WORK/validate.sbatch" || fail "nccl.time is not the steps' limit"
# The job's time: DCGM 5 min + 3 nccl-tests runs (all nodes, two rounds of pairs) x 5 min.
grep -qx "#SBATCH --time=00:20:00" "$WORK/validate.sbatch" || fail "job time: $(grep -- --time "$WORK/validate.sbatch")"

id=$(short_id_of "$(tb --json submit "$WORK/mpi.yaml")")
dir=$(run_json "$id" | jq -r .dir)
tb wait "$id" --interval 1 >/dev/null ||
    fail "validation with --mpi=pmix did not pass: $(run_json "$id" | jq -c .stages) $(cat "$dir"/logs/validate/*.err "$dir"/logs/validate/nccl-*.txt 2>/dev/null | tail -20)"
[[ $(wc -l <"$WORK/builds.txt") == 1 ]] || fail "nccl-tests built $(wc -l <"$WORK/builds.txt") times"
all="$dir/logs/validate/nccl-all.txt"
# All 4 ranks of the all-nodes run in one PMIx namespace, on both nodes, met at the barrier.
[[ $(grep -c '^#  Rank' "$all") == 4 ]] || fail "all-nodes run: $(grep -c '^#  Rank' "$all") ranks, expected 4: $(cat "$all")"
[[ $(grep '^#  Rank' "$all" | awk '{print $NF}' | sort -u | wc -l) == 1 ]] || fail "ranks in several namespaces"
grep '^#  Rank' "$all" | grep -q "namespace slurm.pmix" || fail "ranks without PMIx: $(grep '^#  Rank' "$all")"
[[ $(grep '^#  Rank' "$all" | awk '{print $9}' | sort -u | wc -l) == 2 ]] || fail "all-nodes ranks not on both nodes"
# The ranks of each run start together: one srun step launches all of them at once, so the first
# and the last rank's start stamps are at most 1 s apart. (The barrier waits up to 60 s, so ranks
# started one after another would still meet there.) Measured 0.023-0.035 s here at load average 17 on
# 2 cores (2026-11-27); the 1 s leaves room for a loaded slurmd.
start_spread() {  # start_spread NAMESPACE: seconds from the first to the last rank's start
    awk '{print $1}' "$dir/mpi-barrier/$1"/rank-* | sort -n | awk 'NR == 1 {a = $1} {b = $1} END {printf "%.3f", b - a}'
}
ns=$(grep '^#  Rank' "$all" | head -1 | awk '{print $NF}')
spread=$(start_spread "$ns")
awk -v s="$spread" 'BEGIN { exit !(s <= 1.0) }' || fail "all-nodes run: the ranks started $spread s apart, not together"
echo "all-nodes run: 4 ranks in $ns, first to last start ${spread} s apart"
mapfile -t nodes <"$dir/logs/validate/nodes.txt"
pair="$dir/logs/validate/nccl-${nodes[0]}-${nodes[1]}.txt"
[[ $(grep -c '^#  Rank' "$pair") == 4 ]] || fail "pair run ranks: $(cat "$pair")"
pair_ns=$(grep '^#  Rank' "$pair" | head -1 | awk '{print $NF}')
[[ $pair_ns != "$ns" && -d $dir/mpi-barrier/$pair_ns ]] || fail "pair run: no PMIx namespace of its own ($pair_ns)"
pair_spread=$(start_spread "$pair_ns")
awk -v s="$pair_spread" 'BEGIN { exit !(s <= 1.0) }' || fail "pair run: the ranks started $pair_spread s apart, not together"
echo "pair run: 4 ranks in $pair_ns, first to last start ${pair_spread} s apart"
tb report "$id" --peak 100 >"$WORK/report.txt" 2>&1 || fail "report: $(cat "$WORK/report.txt")"
grep -q "Cluster validation: PASS" "$WORK/report.txt" || fail "$(cat "$WORK/report.txt")"

# The same stand-in launched without PMIx (mpi: none) starts singletons: bus bandwidth 0,
# below the threshold, and the validation fails, naming both nodes as bad.
write_recipe "$WORK/nompi.yaml" it-validate-nompi local-slurm 2 "[\"$WORK/train.sh\"]" "$(stages none)"
id=$(short_id_of "$(tb --json submit --revalidate "$WORK/nompi.yaml")")
tb wait "$id" --interval 1 >/dev/null 2>&1 && fail "singleton ranks passed validation"
dir=$(run_json "$id" | jq -r .dir)
grep -q "namespace singleton" "$dir/logs/validate/nccl-all.txt" || fail "expected singleton ranks without --mpi"
rc=0
tb report "$id" --peak 100 --markdown >"$WORK/bad.md" 2>/dev/null || rc=$?
[[ $rc == 5 ]] || fail "report of a failed validation exit $rc"
grep -q "Bad nodes:\*\* ${nodes[0]} ${nodes[1]}\|Bad nodes:\*\* ${nodes[1]} ${nodes[0]}" "$WORK/bad.md" ||
    fail "markdown does not name the bad nodes: $(cat "$WORK/bad.md")"
tb report "$id" --peak 100 --html "$WORK/bad.html" --junit "$WORK/bad.xml" >/dev/null 2>&1 || true
grep -q "bad-nodes.*${nodes[0]}" "$WORK/bad.html" || fail "HTML does not name the bad nodes"
grep -q "failure message=\"bad nodes: " "$WORK/bad.xml" || fail "JUnit does not name the bad nodes: $(cat "$WORK/bad.xml")"
tb --json report "$id" --peak 100 2>/dev/null >"$WORK/bad.json" || true
jq -e '.validation.bad_nodes | length == 2' "$WORK/bad.json" >/dev/null ||
    fail "JSON bad_nodes: $(head -c 600 "$WORK/bad.json")"
echo ok

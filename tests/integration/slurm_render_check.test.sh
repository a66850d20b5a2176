#!/usr/bin/env bash
# `trainbench render --check` asks the real Slurm scheduler (the local test cluster: 2 nodes,
# 8 fake GPUs each, partition debug) to validate every Slurm recipe's batch script with
# `sbatch --test-only`, at a size the cluster holds; nothing runs. A script the cluster cannot
# hold (3 nodes) is rejected with exit 4, so the check is real.
set -euo pipefail

bin=${TRAINBENCH_BINARY:-}
src=${TRAINBENCH_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
if [[ -z $bin || ! -x $bin ]]; then
    echo "skip: TRAINBENCH_BINARY is not set to the built CLI"
    exit 125
fi
if [[ -z ${TRAINBENCH_SLURM_DIR:-} || ! -f $TRAINBENCH_SLURM_DIR/env.sh ]]; then
    echo "skip: the local Slurm cluster is not running (TRAINBENCH_SLURM_DIR)"
    exit 125
fi
# shellcheck disable=SC1091
source "$TRAINBENCH_SLURM_DIR/env.sh"
command -v sbatch >/dev/null || { echo "skip: sbatch not installed"; exit 125; }
cd "$src"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# The Slurm recipes: those whose render has a job.sbatch.
"$bin" render --all recipes -o "$tmp/out" >/dev/null
mapfile -t recipes < <(cd "$tmp/out" && find . -name job.sbatch -path '*/train/*' | sed 's|^\./||; s|/train/job.sbatch$||' | LC_ALL=C sort)
if (( ${#recipes[@]} < 10 )); then echo "FAIL: only ${#recipes[@]} Slurm recipes found"; exit 1; fi

# Fit each recipe to the test cluster: 2 nodes (8 GPUs each; the local-slurm recipe keeps its
# own 2 ranks), the debug partition, no account/qos/constraint the cluster does not know.
# The memory/parallelism checks are for the real size, so they are skipped here.
fit=(-s nodes=2 -s slurm.partition=debug -s slurm.account= -s slurm.qos= -s slurm.constraint= --no-validate)
# NVLink-domain targets (slurm.block_topology) ask for `#SBATCH --segment`, which needs Slurm 23.11+
# and the topology/block plugin; where this cluster's sbatch has no such option their scripts are
# checked without the directive (the directive itself: placement_render_test, docs/recipes.md).
segment_known=0
sbatch --help 2>&1 | grep -q -- '--segment' && segment_known=1
for r in "${recipes[@]}"; do
    no_segment=()
    if (( !segment_known )) && grep -q '^#SBATCH --segment' "$tmp/out/$r/train/job.sbatch"; then
        no_segment=(-s target.slurm.block_topology=false)
        echo "note: $r: this sbatch has no --segment; checked without it"
    fi
    # A prepare-data stage names its own partition (the seed's CPU partition) in its
    # options, which -s slurm.partition does not reach: check those recipes' train stage.
    stage=()
    # (grep reads all of show's output: with -q it could exit first, and pipefail would then count
    # show's SIGPIPE as "no partition")
    if "$bin" show "recipes/$r.yaml" 2>/dev/null | grep -E "^ {6}partition:" >/dev/null; then stage=(--stage train); fi
    if out=$("$bin" render "recipes/$r.yaml" "${fit[@]}" "${no_segment[@]}" "${stage[@]}" --check 2>&1); then
        if ! grep -q "accepted: .*to start at" <<<"$out"; then echo "FAIL: $r: no scheduler answer in: $out"; fail=1; fi
    else
        echo "FAIL: $r rejected:"; echo "$out"; fail=1
    fi
done

# Too big for the cluster: rejected, exit 4, the scheduler's words shown.
set +e
out=$("$bin" render recipes/local-slurm/tinygpt-2n.yaml -s nodes=3 --no-validate --check 2>&1)
rc=$?
set -e
if (( rc != 4 )); then echo "FAIL: a 3-node job on the 2-node cluster exited $rc, expected 4: $out"; fail=1; fi
grep -q "rejected by sbatch --test-only" <<<"$out" || { echo "FAIL: no rejection message: $out"; fail=1; }

echo "sbatch --test-only accepted ${#recipes[@]} recipes"
exit $fail

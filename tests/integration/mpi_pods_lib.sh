# shellcheck shell=bash
# Shared by kubernetes_validate_mpi.test.sh and k8s_validate_report.test.sh (sourced; not a
# test itself): the Kubernetes validation Job's launch script run for real by three "pods"
# (processes with the environment the rendered Indexed Job gives each pod). Pod 0 starts the
# nccl-tests stand-in with the real Open MPI mpirun across them, reaching each pod through
# Open MPI's remote shell (OMPI_MCA_plm_rsh_agent: a stand-in for ssh that runs the command
# "in" the pod it names: its home directory and TB_POD). The stand-in is a real MPI program
# (tests/data/mpi/all_reduce_perf.c): its ranks all-reduce together, so a run reports every
# pod's ranks and a bus bandwidth only when mpirun started them as one job.
# Needs runs_lib.sh (WORK, tb, fail). Gives: mpi_pods_setup (stand-ins, the recipe $WORK/r.yaml,
# $WORK/launch.sh from the rendered ConfigMap, $job) and run_pods (pod-<i>.log, rc-<i>).

mpi_pods_src=${TRAINBENCH_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}

# dcgmi stand-in: a passing level-1 diagnostic; notes which pod it ran in.
mpi_pods_dcgmi() {
    cat <<'SH'
#!/bin/sh
echo "ran in ${TB_POD:-nowhere}" >> "$HOME/dcgmi.calls"
cat <<'OUT'
Successfully ran diagnostic for group.
+---------------------------+------------------------------------------------+
| Diagnostic                | Result                                         |
+===========================+================================================+
|-----  Deployment  --------+------------------------------------------------|
| Denylist                  | Pass                                           |
| NVML Library              | Pass                                           |
| CUDA Main Library         | Pass                                           |
| Permissions and OS Blocks | Pass                                           |
| Persistence Mode          | Pass                                           |
| Environment Variables     | Pass                                           |
+---------------------------+------------------------------------------------+
OUT
SH
}

# The remote shell: ssh's options (-p PORT, -o OPTION), the pod's name behind the headless
# Service (<job>-<index>.<job>), the command for the pod's shell, run in a clean environment
# as sshd runs it. Logs "port=P host=H".
mpi_pods_rsh() {
    cat <<SH
#!/bin/bash
port=
while [[ \$1 == -* ]]; do
    [[ \$1 == -p ]] && port=\$2
    shift 2
done
host=\$1
shift
echo "port=\$port host=\$host" >> "$WORK/rsh.log"
index=\${host%%.*}
index=\${index##*-}
[[ -d "$WORK/pod-\$index" ]] || { echo "ssh: Could not resolve hostname \$host" >&2; exit 255; }
# no answer before the pod started its sshd (nccl.sshd touches sshd-started)
[[ -f "$WORK/pod-\$index/sshd-started" ]] || { echo "ssh: connect to host \$host port \$port: Connection refused" >&2; exit 255; }
cd "$WORK/pod-\$index"
# as sshd does: a login's own environment, not the caller's (mpirun's -x carries the rest);
# each pod its own /tmp (Open MPI's session directories are per host name, and here every
# "pod" has the same one)
exec env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$WORK/pod-\$index" TMPDIR="$WORK/pod-\$index/tmp" \\
    TB_POD=node-\$index bash -c "\$*"
SH
}

# mpi_pods_setup: the stand-ins, a recipe extending the shipped validated GKE recipe (3 nodes,
# 2 ranks of 4 GPUs per pod, threshold 50 GB/s), its rendered launch script and Job name.
mpi_pods_setup() {
    command -v mpicc >/dev/null && command -v mpirun >/dev/null ||
        { echo "skip: Open MPI (openmpi-bin, libopenmpi-dev) is not installed"; exit 125; }
    mkdir -p "$WORK/nccl/build"
    mpicc -O1 -o "$WORK/nccl/build/all_reduce_perf" "$mpi_pods_src/tests/data/mpi/all_reduce_perf.c"
    mpi_pods_dcgmi >"$WORK/dcgmi"
    mpi_pods_rsh >"$WORK/rsh"
    chmod +x "$WORK/dcgmi" "$WORK/rsh"
    cat >"$WORK/r.yaml" <<YAML
version: 1
name: it-k8s-validate-mpi
description: the shipped validated GKE recipe, validating 3 nodes with stand-ins
extends: [$mpi_pods_src/recipes/gcp-a3-mega/gpt3-175b-fp8-smoke-validated.yaml]
stages:
  - name: validate
    kind: validate
    options:
      nodes: 3
      dcgm: {enabled: true, level: 1, binary: "$WORK/dcgmi"}
      nccl:
        tests: [all_reduce_perf]
        min_bytes: 1M
        max_bytes: 8M
        gpus_per_rank: 4
        busbw_threshold_gbs: 50
        build: {path: "$WORK/nccl/build"}
        sshd: [sh, -c, 'touch "\$HOME/sshd-started"']
        mpirun_args: [--mca, btl_tcp_if_include, lo, --mca, oob_tcp_if_include, lo]
        env: {TB_SLOW_PODS: ""}
  - {name: train, kind: train}
YAML
    tb validate "$WORK/r.yaml" >/dev/null || fail "the recipe does not validate: $(tb validate "$WORK/r.yaml" 2>&1)"
    tb render "$WORK/r.yaml" -o "$WORK/out" >"$WORK/render.out" 2>&1 || fail "render: $(cat "$WORK/render.out")"
    manifest=$(find "$WORK/out" -path '*validate*' -name manifests.yaml | head -1)
    [[ -f $manifest ]] || fail "no validate manifests in $(find "$WORK/out" -type f)"
    # The ConfigMap's launch.sh (a YAML literal block indented by 4).
    awk '/^  launch.sh: \|$/ { on = 1; next } on && /^ {0,3}[^ ]/ { exit } on { sub(/^    /, ""); print }' \
        "$manifest" >"$WORK/launch.sh"
    grep -q "TB_MPIRUN=(mpirun " "$WORK/launch.sh" || fail "the launch script has no MPI launch: $(head -40 "$WORK/launch.sh")"
    job=$(awk '/^kind: Job/ { j = 1 } j && /^  name: / { gsub(/"/, "", $2); print $2; exit }' "$manifest")
    [[ -n $job ]] || fail "no Job name in $manifest"
    # The pod's volumes (/semaphore: an emptyDir shared with the TCPXO sidecar) are in $WORK here.
    sed -i "s#/semaphore#$WORK/semaphore#g" "$WORK/launch.sh"
}

# run_pods [SLOW_PODS]: the three pods as the Indexed Job starts them, in parallel; waits for
# all. Their logs in pod-<i>.log, exit codes in rc-<i>. SLOW_PODS (TB_SLOW_PODS, the value the
# container's env gives it) makes the stand-in slow whenever one of those pods takes part.
run_pods() {
    local i pids=()
    rm -rf "$WORK"/pod-* "$WORK/rsh.log"
    for i in 0 1 2; do mkdir -p "$WORK/pod-$i/run" "$WORK/pod-$i/tmp"; done
    for i in 0 1 2; do
        (
            cd "$WORK/pod-$i"
            export HOME="$WORK/pod-$i" TMPDIR="$WORK/pod-$i/tmp" JOB_COMPLETION_INDEX=$i TRAINBENCH_RUN_DIR="$WORK/pod-$i/run"
            export JOB_IDENTIFIER="$job" NNODES=3 GPUS_PER_NODE=8 WORLD_SIZE=24 MASTER_ADDR=localhost
            export TRAINBENCH_NODE_NAME="node-$i" TB_POD="node-$i" OMPI_MCA_plm_rsh_agent="$WORK/rsh"
            export TB_SLOW_PODS="${1:-}"
            if [[ $i == 2 ]]; then sleep 3; fi  # pods start in any order: the last one late
            rc=0
            timeout 300 bash "$WORK/launch.sh" >"$WORK/pod-$i.log" 2>&1 || rc=$?
            echo "$rc" >"$WORK/rc-$i"
        ) &
        pids+=($!)
    done
    wait "${pids[@]}"
}

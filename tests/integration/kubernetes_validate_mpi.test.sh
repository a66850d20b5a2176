#!/usr/bin/env bash
# The Kubernetes validation Job's launch script, run for real: three "pods" (processes with the
# environment the rendered Indexed Job gives each pod) run the script from the rendered
# ConfigMap; pod 0 starts nccl-tests with the real Open MPI mpirun across them, reaching each
# pod through Open MPI's remote shell (OMPI_MCA_plm_rsh_agent: here a stand-in for ssh that
# runs the command "in" the pod it names: its home directory and TB_POD). The nccl-tests
# stand-in is a real MPI program (tests/data/mpi/all_reduce_perf.c): its ranks all-reduce
# together, so a run over all pods reports every pod's ranks and a bus bandwidth only if
# mpirun started them as one job. Checks: all ranks of every run in one job on the right
# pods, both rounds of node pairs, DCGM on each node, the ssh port passed, the results
# carried in pod 0's log for trainbench, and a slow node failing the stage.
source "$(dirname "$0")/runs_lib.sh"
source "$(dirname "$0")/mpi_pods_lib.sh"
mpi_pods_setup

run_pods
for i in 0 1 2; do
    [[ $(cat "$WORK/rc-$i") == 0 ]] || fail "pod $i exited $(cat "$WORK/rc-$i"): $(tail -30 "$WORK/pod-$i.log")"
    [[ -f $WORK/pod-$i/sshd-started ]] || fail "pod $i did not start sshd (nccl.sshd)"
done
d=$WORK/pod-0/run/logs/validate
[[ $(cat "$d/nodes.txt") == $'node-0\nnode-1\nnode-2' ]] || fail "nodes.txt: $(cat "$d/nodes.txt")"
# All 6 ranks (2 per pod: 8 GPUs, 4 per rank) in one job, on the three pods.
grep -c '^#  Rank' "$d/nccl-all.txt" | grep -qx 6 || fail "the all-nodes run: $(cat "$d/nccl-all.txt")"
for i in 0 1 2; do
    [[ $(grep -c "on node-$i device" "$d/nccl-all.txt") == 2 ]] || fail "node-$i does not have 2 ranks: $(cat "$d/nccl-all.txt")"
done
grep -q '^# Avg bus bandwidth *: [1-9]' "$d/nccl-all.txt" || fail "no bus bandwidth over all nodes: $(cat "$d/nccl-all.txt")"
# Node pairs: round 0 (node-0, node-1), round 1 (node-1, node-2); 4 ranks each, both pods.
for p in node-0-node-1 node-1-node-2; do
    f=$d/nccl-$p.txt
    [[ -f $f ]] || fail "no pair run $p: $(ls "$d")"
    [[ $(grep -c '^#  Rank' "$f") == 4 ]] || fail "pair $p: $(cat "$f")"
done
for i in 0 1 2; do
    grep -q 'Pass' "$d/dcgm-node-$i.txt" || fail "no DCGM result for node-$i: $(ls "$d")"
    grep -qx "ran in node-$i" "$WORK/pod-$i/dcgmi.calls" || fail "dcgmi did not run in pod $i"
done
grep -q '^port=222 ' "$WORK/rsh.log" || fail "ssh was not given port 222: $(head -3 "$WORK/rsh.log")"
grep -v -q '^port=222 ' "$WORK/rsh.log" && fail "a remote call without port 222: $(grep -v '^port=222 ' "$WORK/rsh.log")"
# Pod 0 carries every result file in its log, where trainbench takes them from.
for f in nodes.txt nccl-all.txt nccl-node-0-node-1.txt dcgm-node-2.txt; do
    grep -qx "==> trainbench file: logs/validate/$f <==" "$WORK/pod-0.log" || fail "pod 0's log does not carry $f"
done

# A slow node: every run with node-2's ranks is below the threshold (the slow-node setting
# reaches the remote ranks only through mpirun's -x of the stage's env); the stage fails and
# the other pods still end. (k8s_validate_report.test.sh takes this log through trainbench.)
run_pods node-2
[[ $(cat "$WORK/rc-0") == 1 ]] || fail "pod 0 exited $(cat "$WORK/rc-0") with a slow node: $(tail -20 "$WORK/pod-0.log")"
for i in 1 2; do [[ $(cat "$WORK/rc-$i") == 0 ]] || fail "pod $i did not end after pod 0: $(cat "$WORK/rc-$i")"; done
for f in nccl-all nccl-node-1-node-2; do
    grep -q "logs/validate/$f.txt: below the bus bandwidth threshold\|$f.*below\|over all nodes is below" "$WORK/pod-0.log" ||
        fail "no threshold message for $f: $(tail -20 "$WORK/pod-0.log")"
done
grep -q 'nccl-node-0-node-1.txt: below' "$WORK/pod-0.log" && fail "the pair without node-2 failed: $(tail -20 "$WORK/pod-0.log")"
echo ok

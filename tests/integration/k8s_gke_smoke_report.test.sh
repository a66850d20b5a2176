#!/usr/bin/env bash
# The seed's GKE smoke recipe (gcp-a3-mega/gpt3-175b-fp8-smoke.yaml: 16 A3 Mega pods, TCPXO
# sidecar, NeMo) run on the simulated cluster with `--namespace` other than the recipe's, ends
# with `trainbench report RUN` printing step time and MFU from the DLLogger log that came out of
# the pod. Boundary: no container runs, so the DLLogger file is made here; what reaches the pod
# log is the output of the rendered launch script's own exit trap on that file (run here with
# bash), served by kwok as the training container's log; everything after that is the product.
source "$(dirname "$0")/k8s_lib.sh"
use_k8s
ns=tb-it-smoke
k8s_namespace $ns
here=$(cd "$(dirname "$0")" && pwd)
recipe=$here/../../recipes/gcp-a3-mega/gpt3-175b-fp8-smoke.yaml

# A smoke-shaped DLLogger log (16 nodes, GBS 1024, 20 steps) and the exit trap's output on it.
# (sed quits at line 21 itself: `| head` would kill the generator with SIGPIPE under pipefail)
bash "$here/../golden/report/make_dllogger.sh" >"$WORK/dllogger-full.json"
sed -e 's/"cfg\/global_batch_size": 2048/"cfg\/global_batch_size": 1024/' -e 's/"trainer\/num_nodes": 32/"trainer\/num_nodes": 16/' \
    -e 21q "$WORK/dllogger-full.json" >"$WORK/dllogger.json"    # the PARAMETER record and steps 0..19
"$TB" render "$recipe" -o "$WORK/out" >/dev/null
launch=$(find "$WORK/out" -path '*/train/launch.sh' -not -path '*/chart/*' | head -1)
# shellcheck disable=SC2016 # the pattern matches the script's literal ${...}
dll=$(sed -n 's/^  if \[ "${JOB_COMPLETION_INDEX:-}" = 0 \] && \[ -f \(.*\) \]; then$/\1/p' "$launch")
[[ -n $dll ]] || fail "the launch script's exit trap does not copy the DLLogger file"
mkdir -p "$WORK/pod/$(dirname "$dll")" "$WORK/pod/status"
cp "$WORK/dllogger.json" "$WORK/pod/$dll"
trap_fn=$(sed -n '/^trainbench_exit() {$/,/^}$/p' "$launch" | sed "s#/semaphore#$WORK/semaphore#g")
(cd "$WORK/pod" && JOB_COMPLETION_INDEX=0 bash -c "$trap_fn"$'\ntrue; trainbench_exit') >"$WORK/pod-stdout.txt"
mapfile -t lines <"$WORK/pod-stdout.txt"
pod_log_lines "Pod is running" "${lines[@]}"

tb run "$recipe" --context tb-test --namespace $ns --timeout 300 >"$WORK/run.out" 2>"$WORK/run.err" ||
    fail "run: $(cat "$WORK/run.out" "$WORK/run.err")"
dir=$(ls -d "$WORK"/runs/*/*)
[[ $(jq -r .kube_namespace "$dir/run.json") == "$ns" ]] || fail "run.json namespace"
cmp -s "$WORK/dllogger.json" "$dir/$dll" || fail "the collected DLLogger log differs from the pod's"
report=$(tb report "$dir")
want=$("$TB" report "$WORK/dllogger.json" --model gpt3-175b --gpus 128 --gpu h100 --precision fp8 \
    --global-batch 1024 --flops gpu-recipes --window 5:19)
# The figures are read from their report fields ("  step time (window mean)  25.10377273 s",
# "  MFU  0.35444380 (35.44%)") and must be numbers; each report must have the same field.
field() {  # field NAME: the number on the report line "  NAME  <number> ..."
    sed -n "s|^  $1  *\([0-9][0-9]*\.[0-9][0-9]*\)\( .*\)\{0,1\}$|\1|p"
}
step=$(field 'step time (window mean)' <<<"$want")
mfu=$(field MFU <<<"$want")
[[ $step =~ ^[0-9]+\.[0-9]+$ && $mfu =~ ^0\.[0-9]+$ ]] || fail "reference report without step time or MFU: $want"
[[ $(field 'step time (window mean)' <<<"$report") == "$step" ]] || fail "report's step time is not $step s: $report"
[[ $(field MFU <<<"$report") == "$mfu" ]] || fail "report's MFU is not $mfu: $report"
[[ $(field 'step time (window mean)' <"$WORK/run.out") == "$step" ]] ||
    fail "run's own report's step time is not $step s: $(cat "$WORK/run.out")"
echo "step time $step s, MFU $mfu in the reference, the run's and report's"
echo ok

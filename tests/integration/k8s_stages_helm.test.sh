#!/usr/bin/env bash
# Stages on the Helm path (kubernetes.install: helm): one release per stage, the later ones'
# Jobs created suspended and started by `wait` in order; `cancel` uninstalls every stage's
# release. And the shipped GKE recipe with a validation stage: both stages' manifests pass the
# real API server's validation (`kubectl apply --dry-run=server`), the training Job suspended.
source "$(dirname "$0")/k8s_lib.sh"
use_k8s
[[ -n ${TRAINBENCH_K8S_HELM:-} ]] || { echo "skip: helm is not installed (scripts/setup.sh --test)"; exit 125; }
ns=tb-it-stages-helm
k8s_namespace $ns
helm_ls() { helm --kube-context tb-test list -n $ns -q | sort; }

recipe=$(dirname "$0")/../../recipes/gcp-a3-mega/gpt3-175b-fp8-smoke-validated.yaml
"$TB" render "$recipe" -o "$WORK/out" >/dev/null
for stage in validate train; do
    m=$(find "$WORK/out" -path "*/$stage/manifests.yaml")
    kc -n $ns apply --dry-run=server -f "$m" -o json >"$WORK/$stage.json" 2>"$WORK/$stage.err" ||
        fail "the API server refused the $stage manifests: $(cat "$WORK/$stage.err")"
done
jq -e '.items[] | select(.kind == "Job") | .spec.suspend == true and
    (.metadata.annotations["trainbench.io/after"] | endswith("-dryrun"))' "$WORK/train.json" >/dev/null ||
    fail "the training Job does not wait: $(jq -c '.items[] | select(.kind == "Job") | .metadata' "$WORK/train.json")"

write_k8s_stages_recipe "$WORK/r.yaml" it-stages-helm '{TRAINBENCH_SIM_RUN: "3s"}' '{TRAINBENCH_SIM_RUN: "3s"}'
write_k8s_stages_recipe "$WORK/c.yaml" it-stages-helm-c '{TRAINBENCH_SIM_RUN: "600s"}' '{}'
for f in r c; do echo 'kubernetes: {install: helm}' >>"$WORK/$f.yaml"; done
id=$(short_id_of "$(tb --json submit "$WORK/r.yaml" --context tb-test --namespace $ns)")
dir=$(ls -d "$WORK"/runs/it-stages-helm/*)
mapfile -t jobs < <(stage_jobs "$dir" | cut -d' ' -f2)
[[ ${#jobs[@]} == 3 && $(helm_ls) == "$(printf '%s\n' "${jobs[@]}" | sort)" ]] || fail "releases: $(helm_ls)"
[[ $(job_field $ns "${jobs[2]}" .spec.suspend) == true ]] || fail "the training Job does not wait"
tb wait "$id" --timeout 180 --interval 1 >"$WORK/wait.out" 2>&1 || fail "wait: $(cat "$WORK/wait.out")"
for k in 0 1; do
    done_at=$(job_field $ns "${jobs[k]}" .status.completionTime)
    start=$(job_field $ns "${jobs[k + 1]}" .status.startTime)
    [[ -n $done_at && -n $start && ! $start < $done_at ]] || fail "${jobs[k + 1]} started at $start, before $done_at"
done

cid=$(short_id_of "$(tb --json submit "$WORK/c.yaml" --context tb-test --namespace $ns)")
cdir=$(ls -d "$WORK"/runs/it-stages-helm-c/*)
wait_for_state "$cid" RUNNING 90
tb cancel "$cid" >"$WORK/cancel.out" 2>&1 || fail "cancel: $(cat "$WORK/cancel.out")"
# (anchored, with its hyphen: the first run's releases are it-stages-helm-<id>, and a
# hexadecimal id may start with c)
left=$(helm_ls | grep -c '^it-stages-helm-c-' || true)
[[ $left == 0 ]] || fail "releases left after cancel: $(helm_ls)"
for ((i = 0; i < 120; i++)); do
    objs=$(kc -n $ns get job,service,configmap,pods -l "trainbench.io/run-id=$(basename "$cdir")" -o name)
    [[ -z $objs ]] && break
    sleep 0.5
done
[[ -z $objs ]] || fail "objects left after cancel: $objs"
echo ok

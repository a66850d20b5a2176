#!/usr/bin/env bash
# GKE A3 Ultra and A4 targets against Google's own charts: `helm template` of gpu-recipes'
# a3ultra and a4 Llama 3 70B recipes (../shared/reference/gpu-recipes@2e1fd5ef, with their
# values.yaml and launcher.sh, and the Kueue queue their README sets) gives the facts of the
# network stack a workload needs there; trainbench's render of a shipped recipe on each target
# must carry the same: the gIB plugin installer image and its copy commands, the volume at
# /usr/local/gib, NCCL_PLUGIN_PATH, the host network and privileged container, the NCCL
# environment script sourced before the overrides gpu-recipes exports after it (socket
# interfaces, tuner configuration), and the Kueue topology-aware scheduling annotation.
set -euo pipefail

bin=${TRAINBENCH_BINARY:-}
src=${TRAINBENCH_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
ref=${TRAINBENCH_SHARED_DIR:-$src/../shared}/reference/gpu-recipes@2e1fd5ef/training
if [[ -z $bin || ! -x $bin ]]; then echo "skip: TRAINBENCH_BINARY is not set to the built CLI"; exit 125; fi
helm=${HELM:-}
[[ -z $helm && -x $src/.tools/helm/helm ]] && helm=$src/.tools/helm/helm
[[ -z $helm ]] && helm=$(command -v helm || true)
if [[ -z $helm ]]; then echo "skip: helm missing (scripts/install-tools.sh)"; exit 125; fi
if [[ ! -d $ref ]]; then echo "skip: $ref is absent"; exit 125; fi
if ! python3 -c 'import yaml' 2>/dev/null; then echo "skip: python3 yaml missing"; exit 125; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

compare() {  # name, gpu-recipes recipe folder, queue, trainbench recipe
    local name=$1 chart=$2 queue=$3 recipe=$4
    (cd "$chart" && "$helm" template wl . -f values.yaml --set-file workload_launcher=launcher.sh \
        --set queue="$queue" --set 'volumes.gcsMounts[0].bucketName=b' \
        --set 'volumes.gcsMounts[0].mountPath=/job-logs') >"$tmp/$name-upstream.yaml"
    "$bin" render "$src/$recipe" -o "$tmp/$name" >/dev/null
    if ! python3 - "$tmp/$name-upstream.yaml" "$tmp/$name/train/manifests.yaml" "$tmp/$name/train/launch.sh" <<'PY'
import re, sys, yaml
up = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
tb = [d for d in yaml.safe_load_all(open(sys.argv[2])) if d]
launch = open(sys.argv[3]).read()
jobset = next(d for d in up if d["kind"] == "JobSet")
upod = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]
job = next(d for d in tb if d["kind"] == "Job")
tpod = job["spec"]["template"]
problems = []
def same(what, a, b):
    if a != b: problems.append(f"{what}: gpu-recipes {a!r}, trainbench {b!r}")
us, ts = upod["spec"], tpod["spec"]
same("hostNetwork", us.get("hostNetwork"), ts.get("hostNetwork"))
same("dnsPolicy", us.get("dnsPolicy"), ts.get("dnsPolicy"))
ui, ti = us["initContainers"][0], ts["initContainers"][0]
same("plugin installer name", ui["name"], ti["name"])
same("plugin installer image", ui["image"], ti["image"])
for cmd in ["/scripts/container_entry.sh install --install-nccl",
            "cp -R /var/lib/gib/lib64/. /target/usr/local/gib/lib64", "cp -R /var/lib/gib/. /target/usr/local/gib"]:
    if cmd not in ui["args"][0]: problems.append(f"gpu-recipes' installer lacks {cmd!r} (reference changed?)")
    if cmd not in ti["args"][0]: problems.append(f"trainbench's installer lacks {cmd!r}")
same("installer mount", [m["mountPath"] for m in ui["volumeMounts"]], [m["mountPath"] for m in ti["volumeMounts"]])
uw = next(c for c in us["containers"] if c["name"] == "workload")
tw = next(c for c in ts["containers"] if c["name"] == "training")
same("privileged", uw["securityContext"]["privileged"], tw["securityContext"]["privileged"])
gib_mount = lambda c: sorted(m["mountPath"] for m in c["volumeMounts"] if m["name"] == "gib")
same("gib mount", gib_mount(uw), gib_mount(tw))
uenv = {e["name"]: e.get("value") for e in uw["env"]}
tenv = {e["name"]: e.get("value") for e in tw["env"]}
for name in ["NCCL_PLUGIN_PATH", "GLOO_SOCKET_IFNAME", "NCCL_DEBUG"]:
    same(f"env {name}", uenv.get(name), tenv.get(name))
# gpu-recipes: `source ${NCCL_INIT_SCRIPT}` (NCCL_INIT_SCRIPT from the env), then its exports
ucmd = uw["command"][2]
init = uenv["NCCL_INIT_SCRIPT"]
exports = re.findall(r"^\s*export (NCCL_\w+)=(\S+)", ucmd, re.M)
if not exports: problems.append("no exports after the init script in gpu-recipes (reference changed?)")
src_at = launch.find(f"source {init}\n")
if src_at < 0: problems.append(f"trainbench's launch.sh does not source {init}")
for name, value in exports:
    value = value.strip('"')  # the shell value (trainbench quotes only what needs quoting)
    at = launch.find(f"export {name}={value}\n")
    if at < 0: problems.append(f"trainbench's launch.sh does not export {name}={value}")
    elif at < src_at: problems.append(f"trainbench exports {name} before sourcing {init}")
same("Kueue queue label", jobset["metadata"]["labels"].get("kueue.x-k8s.io/queue-name"),
     job["metadata"]["labels"].get("kueue.x-k8s.io/queue-name"))
ua, ta = upod["metadata"]["annotations"], tpod["metadata"]["annotations"]
key = "kueue.x-k8s.io/podset-preferred-topology"
same("topology-aware scheduling annotation", ua.get(key), ta.get(key))
if problems:
    print("\n".join(problems)); sys.exit(1)
print(f"{len(exports)} exports after {init}; image {ti['image']}")
PY
    then echo "FAIL: $name"; fail=1; else echo "ok   $name"; fi
}

compare a3ultra "$ref/a3ultra/llama3_70b/megatron-bridge-gke/nemo2602/64gpus-fp8cs-seq8192-gbs256/recipe" a3ultra \
    recipes/gcp-a3-ultra/llama3.1-70b-fp8.yaml
compare a4 "$ref/a4/llama3_70b/nemo-gke/nemo2602/64gpus-fp8mx-gbs256/recipe" a4 recipes/gcp-a4/mixtral-8x7b-fp8.yaml
exit $fail

// The "kubernetes" context key: object names, network stack, queue, node selectors,
// results storage and the Helm chart's names.
#include "render/kubernetes_context.hpp"

#include "render/escape.hpp"

#include <trainbench/render.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>

using nlohmann::ordered_json;

namespace trainbench::render {

namespace {

// Seed 004 (AI-Hypercomputer/gpu-recipes @ 24ba6df, values.yaml): the TCPXO
// NCCL plugin and the receive-datapath manager (RxDM) that go with it.
constexpr const char* k_tcpxo_plugin_image =
    "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/nccl-plugin-gpudirecttcpx-dev:v1.0.3";
constexpr const char* k_tcpxo_daemon_image = "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev:v1.0.9";
constexpr int k_k8s_master_port = 6002;  // seed 004
constexpr const char* k_k8s_run_dir = "/workspace/trainbench-run";

bool env_name_ok(const std::string& name) {
    if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    });
}

// Object names keep the recipe name's start (`kubectl get pods | grep gpt3` finds them)
// and end in the run's short id, so two runs never collide; pod hostnames are
// "<name>-<index>", so 52 characters leave room for the index.
std::string kubernetes_name(const recipe::Recipe& r, const std::string& stage_name, const std::string& run_id) {
    const std::string short_id = run_id.size() > 6 ? run_id.substr(run_id.size() - 6) : run_id;
    const std::string unique = "-" + dns_label(short_id, 16);
    std::string head = dns_label(r.name + (stage_name == "train" ? "" : "-" + stage_name), 200);
    if (head.size() + unique.size() > 52) head.resize(52 - unique.size());
    while (!head.empty() && head.back() == '-') head.pop_back();
    return head + unique;
}

// Node selectors (target's, then the recipe's), image pull secrets and scheduling gates as lists.
void add_kubernetes_lists(const recipe::Recipe& r, ordered_json& k) {
    const catalog::KubernetesDefaults& kd = r.target.kubernetes;
    ordered_json gates = ordered_json::array();
    for (const std::string& g : kd.scheduling_gates) gates.push_back({{"name", g}});
    ordered_json selectors = ordered_json::array();
    std::map<std::string, std::string> node_selector = kd.node_selector;
    for (const auto& [key, v] : r.kubernetes.node_selector) node_selector[key] = v;
    for (const auto& [key, v] : node_selector) selectors.push_back({{"key", key}, {"value", v}});
    ordered_json secrets = ordered_json::array();
    for (const std::string& s : r.kubernetes.image_pull_secrets) secrets.push_back({{"name", s}});
    k["image_pull_secrets"] = secrets;
    k["has_image_pull_secrets"] = !secrets.empty();
    k["node_selector"] = selectors;
    k["has_node_selector"] = !selectors.empty();
    k["scheduling_gates"] = gates;
    k["has_scheduling_gates"] = !gates.empty();
}

// The network stack beside TCPXO: gIB, GPUDirect RDMA over RoCE (A3 Ultra, A4). An init
// container copies the plugin into /usr/local/gib; the launch script sources its environment
// script and then exports the target's network_env over it (gpu-recipes @ 2e1fd5ef,
// training/a3ultra/.../templates/workload-job.yaml).
void add_kubernetes_network(const recipe::Recipe& r, ordered_json& k) {
    const catalog::KubernetesDefaults& kd = r.target.kubernetes;
    const bool tcpxo = kd.network_stack == "tcpxo";
    const bool gib = kd.network_stack == "gib";
    k["gib"] = gib;
    k["gib_plugin_image"] = gib ? kd.nccl_plugin_image : "";
    // gpu-recipes runs the workload privileged on the host network for both stacks.
    k["privileged"] = tcpxo || gib;
    ordered_json env = ordered_json::array();
    for (const auto& [name, value] : kd.network_env) {
        if (!env_name_ok(name))
            throw InputError(fmt::format("target '{}': kubernetes.network_env name '{}' is not a variable name",
                                         r.target.name, name));
        env.push_back({{"name", name}, {"value", value}, {"line_sh", "export " + name + "=" + shell_escape(value)}});
    }
    k["network_env"] = env;
    k["has_network_env"] = !env.empty();
}

// Pod annotations (Kueue's topology-aware scheduling, when the Job has a queue) and the
// NVLink-domain placement: a Job that fits one domain requires its pods to share the
// domain's label value (pod affinity); a larger queued Job asks Kueue for slices of that
// many nodes, each in one domain (kueue.sigs.k8s.io, "Run Workloads with Topology-Aware
// Scheduling"); an unqueued Job larger than a domain gets no placement.
void add_kubernetes_placement(const recipe::Recipe& r, ordered_json& k) {
    const catalog::KubernetesDefaults& kd = r.target.kubernetes;
    const bool queued = !r.kubernetes.queue.empty();
    std::map<std::string, std::string> annotations;
    if (queued) annotations = kd.topology_request;
    const int slice = recipe::kubernetes_domain_slice(r);
    const bool one_domain = slice > 0 && slice == std::max(1, r.nodes);
    if (slice > 0 && !one_domain && queued) {
        annotations["kueue.x-k8s.io/podset-slice-required-topology"] = kd.nvlink_domain_label;
        annotations["kueue.x-k8s.io/podset-slice-size"] = std::to_string(slice);
    }
    ordered_json list = ordered_json::array();
    for (const auto& [key, v] : annotations) list.push_back({{"key", key}, {"value", v}});
    k["pod_annotations"] = list;
    k["has_pod_annotations"] = !list.empty();
    k["has_pod_annotation_block"] = !list.empty() || k.value("has_results_bucket", false);
    k["nvlink_affinity"] = one_domain;
    k["nvlink_domain_label"] = kd.nvlink_domain_label;
}

// Where the run directory lives on Kubernetes: a PVC, a bucket, or the pod's emptyDir.
void add_kubernetes_results(const recipe::Recipe& r, const std::string& run_id, ordered_json& k) {
    const catalog::KubernetesDefaults& kd = r.target.kubernetes;
    const std::string results_pvc = r.kubernetes.results_pvc.empty() ? kd.results_pvc : r.kubernetes.results_pvc;
    const std::string results_bucket =
        r.kubernetes.results_bucket.empty() ? kd.results_bucket : r.kubernetes.results_bucket;
    if (!results_pvc.empty() && !results_bucket.empty())
        throw InputError(fmt::format("recipe '{}' sets both kubernetes.results_pvc and results_bucket", r.name),
                         "keep the run directory on one of them");
    k["results_pvc"] = results_pvc;
    k["results_bucket"] = results_bucket;
    k["has_results_pvc"] = !results_pvc.empty();
    k["has_results_bucket"] = !results_bucket.empty();
    k["results_emptydir"] = results_pvc.empty() && results_bucket.empty();
    k["results_subpath"] = "trainbench-runs/" + dns_label(r.name, 200) + "/" + run_id;
}

// A Kubernetes stage's own part of the context: the Job it waits for (stages after the first
// are created suspended, naming it; `trainbench status/wait` releases them, docs/stages.md),
// its own environment (validate: nccl.env; prepare-data: env) and image (validate:
// nccl.build.image; prepare-data: image), else the recipe's.
void add_kubernetes_stage(const recipe::Recipe& r, const recipe::Stage& stage, const std::string& run_id,
                          ordered_json& k) {
    std::string after;
    const std::vector<recipe::Stage> all_stages = effective_stages(r);
    for (std::size_t i = 1; i < all_stages.size(); ++i)
        if (all_stages[i].name == stage.name && stage.dependency != "none")
            after = kubernetes_name(r, all_stages[i - 1].name, run_id);
    const bool queued = !r.kubernetes.queue.empty();
    catalog::EnvList own_env;
    if (stage.kind == "validate") own_env = recipe::validate_options(r, stage).nccl.env;
    if (stage.kind == "prepare-data") own_env = recipe::prepare_data_options(r, stage).env;
    ordered_json stage_env = ordered_json::array();
    for (const auto& [name, value] : own_env) stage_env.push_back({{"name", name}, {"value", value}});
    k["after"] = after;
    k["has_after"] = !after.empty();
    k["dependency"] = stage.dependency;
    k["suspend"] = queued || !after.empty();
    // Kueue admits a Job that carries its queue label: a waiting stage gets it when released.
    k["queue_label"] = queued && after.empty();
    k["stage_env"] = stage_env;
}

}  // namespace

std::string kubernetes_stage_image(const recipe::Recipe& r, const recipe::Stage& stage) {
    if (r.target.scheduler != catalog::Scheduler::kubernetes) return {};
    if (stage.kind == "validate") return recipe::validate_options(r, stage).nccl.build_image;
    if (stage.kind == "prepare-data") return recipe::prepare_data_options(r, stage).image;
    return {};
}

ordered_json kubernetes_json(const recipe::Recipe& r, const recipe::Stage& stage, const std::string& run_id) {
    const catalog::KubernetesDefaults& kd = r.target.kubernetes;
    std::string ns = r.kubernetes.namespace_name.empty() ? kd.namespace_name : r.kubernetes.namespace_name;
    std::string name = kubernetes_name(r, stage.name, run_id);
    bool tcpxo = kd.network_stack == "tcpxo";
    ordered_json k = {{"name", name},
                      {"namespace", ns.empty() ? std::string("default") : ns},
                      {"gpu_resource", kd.gpu_resource},
                      {"shm_size", kd.shm_size},
                      {"host_network", kd.host_network},
                      {"network_stack", kd.network_stack},
                      {"tcpxo", tcpxo},
                      {"tcpxo_plugin_image", tcpxo ? k_tcpxo_plugin_image : ""},
                      {"tcpxo_daemon_image", tcpxo ? k_tcpxo_daemon_image : ""},
                      {"master_addr", name + "-0." + name},
                      {"master_port", k_k8s_master_port},
                      {"run_dir", k_k8s_run_dir},
                      {"queue", r.kubernetes.queue},
                      {"has_queue", !r.kubernetes.queue.empty()},
                      {"service_account", r.kubernetes.service_account},
                      {"has_service_account", !r.kubernetes.service_account.empty()}};
    add_kubernetes_lists(r, k);
    add_kubernetes_results(r, run_id, k);
    add_kubernetes_network(r, k);
    add_kubernetes_placement(r, k);
    k["secret_name"] = name + "-env";
    k["chart_name"] = dns_label("trainbench-" + r.name, 53);
    k["chart_description"] = fmt::format("{} ({} on {}), rendered by trainbench", r.name, r.framework, r.target.name);
    k["launch_script_yaml"] = "";
    k["training_config_yaml"] = "";
    k["config_files"] = ordered_json::array();
    add_kubernetes_stage(r, stage, run_id, k);
    if (r.target.scheduler == catalog::Scheduler::kubernetes && r.container.image.empty())
        throw InputError(fmt::format("recipe '{}' runs on Kubernetes but sets no container.image", r.name),
                         "set container: {image: ...}");
    return k;
}

}  // namespace trainbench::render

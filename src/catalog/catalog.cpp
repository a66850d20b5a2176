#include "catalog/catalog_yaml.hpp"

#include <trainbench/catalog.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <stdexcept>

namespace fs = std::filesystem;

namespace trainbench::catalog {

// ---------------------------------------------------------------- names

namespace {
constexpr std::array<Precision, 7> k_precisions{Precision::bf16,  Precision::fp16, Precision::fp8, Precision::mxfp8,
                                                Precision::nvfp4, Precision::tf32, Precision::fp32};
}

std::string_view to_string(Precision p) {
    switch (p) {
        case Precision::bf16:
            return "bf16";
        case Precision::fp16:
            return "fp16";
        case Precision::fp8:
            return "fp8";
        case Precision::mxfp8:
            return "mxfp8";
        case Precision::nvfp4:
            return "nvfp4";
        case Precision::tf32:
            return "tf32";
        case Precision::fp32:
            return "fp32";
    }
    return "bf16";
}

std::optional<Precision> parse_precision(std::string_view s) {
    for (Precision p : k_precisions)
        if (to_string(p) == s) return p;
    return std::nullopt;
}

const std::vector<std::string>& precision_names() {
    static const std::vector<std::string> names = {"bf16", "fp16", "fp8", "mxfp8", "nvfp4", "tf32", "fp32"};
    return names;
}

std::string_view to_string(Scheduler s) {
    switch (s) {
        case Scheduler::slurm:
            return "slurm";
        case Scheduler::kubernetes:
            return "kubernetes";
        case Scheduler::local:
            return "local";
    }
    return "slurm";
}

std::optional<Scheduler> parse_scheduler(std::string_view s) {
    for (Scheduler x : {Scheduler::slurm, Scheduler::kubernetes, Scheduler::local})
        if (to_string(x) == s) return x;
    return std::nullopt;
}

namespace detail {

const std::vector<std::string>& scheduler_names() {
    static const std::vector<std::string> v = {"slurm", "kubernetes", "local"};
    return v;
}
const std::vector<std::string>& fabric_names() {
    static const std::vector<std::string> v = {"infiniband-hdr", "infiniband-ndr", "efa",      "roce",
                                               "tcpxo",          "tcpx",           "ethernet", "none"};
    return v;
}
const std::vector<std::string>& activation_names() {
    static const std::vector<std::string> v = {"gelu", "swiglu", "relu"};
    return v;
}
const std::vector<std::string>& position_names() {
    static const std::vector<std::string> v = {"learned", "rope"};
    return v;
}

}  // namespace detail

const std::vector<std::string>& container_runtime_names() {
    static const std::vector<std::string> v = {"pyxis", "enroot", "containerd", "none"};
    return v;
}

namespace {

void read_env(yaml::MapReader& r, EnvList& env, std::string_view name = "env") {
    const yaml::Node* n = r.get(name);
    if (!n) return;
    std::string key = r.key_path(name);
    if (!n->is_map()) {
        yaml::type_error(r.diagnostics(), *n, key, "a map of NAME: value");
        return;
    }
    // Merges: a name already present (from the catalog entry an inline edit starts from) is
    // overridden in place, new names are appended.
    for (const yaml::Entry& e : n->entries) {
        std::string k = yaml::join_key(key, e.key);
        if (!e.value.is_scalar()) {
            yaml::type_error(r.diagnostics(), e.value, k, "a string or number");
            continue;
        }
        auto it = std::find_if(env.begin(), env.end(), [&](const auto& kv) { return kv.first == e.key; });
        if (it != env.end())
            it->second = e.value.scalar;
        else
            env.emplace_back(e.key, e.value.scalar);
    }
}

// A map of label: value (node selector, annotations); replaces `out` when present.
void read_label_map(yaml::MapReader& r, std::string_view name, std::map<std::string, std::string>& out) {
    const yaml::Node* n = r.get(name);
    if (!n) return;
    std::string key = r.key_path(name);
    if (!n->is_map()) {
        yaml::type_error(r.diagnostics(), *n, key, "a map of label: value");
        return;
    }
    std::map<std::string, std::string> m;
    for (const yaml::Entry& e : n->entries)
        if (auto v = yaml::as_string(e.value, yaml::join_key(key, e.key), r.diagnostics())) m[e.key] = *v;
    out = std::move(m);
}

void read_kubernetes_fields(yaml::MapReader& kr, KubernetesDefaults& k) {
    kr.read("namespace", k.namespace_name);
    kr.read("gpu_resource", k.gpu_resource);
    kr.read("shm_size", k.shm_size);
    kr.read("host_network", k.host_network);
    kr.read_enum("network_stack", k.network_stack, {"tcpxo", "tcpx", "gib", ""});
    kr.read("nccl_plugin_image", k.nccl_plugin_image);
    read_env(kr, k.network_env, "network_env");
    kr.read("queue", k.queue);
    read_label_map(kr, "topology_request", k.topology_request);
    kr.read("nvlink_domain_label", k.nvlink_domain_label);
    kr.read("scheduling_gates", k.scheduling_gates);
    kr.read("results_pvc", k.results_pvc);
    kr.read("results_bucket", k.results_bucket);
    read_label_map(kr, "node_selector", k.node_selector);
}

}  // namespace

void read_target_fields(yaml::MapReader& r, Target& t, const std::vector<std::string>& gpu_names) {
    r.read("description", t.description);
    r.read("cloud", t.cloud);
    r.read("instance", t.instance);
    std::string scheduler;
    if (r.read_enum("scheduler", scheduler, detail::scheduler_names())) t.scheduler = *parse_scheduler(scheduler);
    r.read("gpus_per_node", t.gpus_per_node, 1, 1024);
    r.read("cpus_per_node", t.cpus_per_node, 0);
    r.read("host_memory_gib", t.host_memory_gib, 0.0);
    if (const yaml::Node* g = r.get("gpu")) {
        std::string k = r.key_path("gpu");
        if (auto name = yaml::as_string(*g, k, r.diagnostics())) {
            if (std::find(gpu_names.begin(), gpu_names.end(), *name) == gpu_names.end())
                r.diagnostics().error(g->where, k, fmt::format("unknown GPU '{}'", *name),
                                      "a GPU of recipes/catalog/gpus.yaml", did_you_mean(*name, gpu_names));
            else
                t.gpu = *name;
        }
    }
    r.read_enum("fabric", t.fabric, detail::fabric_names());
    r.read_enum("container_runtime", t.container_runtime, container_runtime_names());
    read_env(r, t.env);
    r.read("topology_file", t.topology_file);
    r.read("default_mounts", t.default_mounts);
    r.read("nccl_busbw_threshold_gbs", t.nccl_busbw_threshold_gbs, 0.0);
    r.read("nvlink_domain_nodes", t.nvlink_domain_nodes, 0, 1024);
    if (const yaml::Node* s = r.get("slurm")) {
        yaml::MapReader sr(*s, r.key_path("slurm"), r.diagnostics());
        sr.read("partition", t.slurm.partition);
        sr.read("account", t.slurm.account);
        sr.read("exclusive", t.slurm.exclusive);
        sr.read("mem", t.slurm.mem);
        sr.read("use_gres", t.slurm.use_gres);
        sr.read("time", t.slurm.time);
        sr.read("cpus_per_task", t.slurm.cpus_per_task, 0);
        sr.read("block_topology", t.slurm.block_topology);
        sr.finish();
    }
    if (const yaml::Node* k = r.get("kubernetes")) {
        yaml::MapReader kr(*k, r.key_path("kubernetes"), r.diagnostics());
        read_kubernetes_fields(kr, t.kubernetes);
        kr.finish();
    }
}

// ---------------------------------------------------------------- loading

namespace {

// name: the file stem; a `name` key, when present, must agree with it.
std::string entity_name(yaml::MapReader& r, const fs::path& file, Diagnostics& d) {
    std::string stem = file.stem().string();
    if (const yaml::Node* n = r.get("name")) {
        if (auto v = yaml::as_string(*n, "name", d); v && *v != stem)
            d.error(n->where, "name",
                    fmt::format("name '{}' does not match the file name '{}'", *v, file.filename().string()),
                    fmt::format("'{}'", stem), "a catalog entry is named after its file");
    }
    return stem;
}

// The location of root.<a>.<b> (else of root.<a>, else of the file).
SourceLocation where_of(const yaml::Node& root, const char* a, const char* b, const SourceLocation& file) {
    const yaml::Node* n = root.is_map() ? root.find(a) : nullptr;
    if (!n) return file;
    const yaml::Node* m = n->is_map() ? n->find(b) : nullptr;
    return m ? m->where : n->where;
}

// The network stack and NVLink-domain keys that only make sense together.
void check_target_placement(const Target& t, const yaml::Node& root, Diagnostics& d) {
    const KubernetesDefaults& k = t.kubernetes;
    if (k.network_stack == "gib" && k.nccl_plugin_image.empty())
        d.error(where_of(root, "kubernetes", "network_stack", t.where), "kubernetes.nccl_plugin_image",
                "network stack 'gib' names no NCCL plugin image",
                "the gIB plugin installer image (gpu-recipes values.yaml network.gibVersion)");
    if (t.nvlink_domain_nodes == 0 && t.slurm.block_topology)
        d.error(where_of(root, "slurm", "block_topology", t.where), "slurm.block_topology",
                "block topology without an NVLink domain size",
                "nvlink_domain_nodes: the nodes of one block (18 for GB200 NVL72 of 4-GPU nodes)");
    if (t.nvlink_domain_nodes == 0 && !k.nvlink_domain_label.empty())
        d.error(where_of(root, "kubernetes", "nvlink_domain_label", t.where), "kubernetes.nvlink_domain_label",
                "an NVLink domain label without an NVLink domain size", "nvlink_domain_nodes: the nodes of one domain");
}

void load_target(const fs::path& file, const std::vector<std::string>& gpu_names, Catalog& cat, Diagnostics& d) {
    std::string display = file.string();
    yaml::Node root = yaml::parse_file(file, display, d);
    if (root.is_null() && d.has_errors()) return;
    yaml::MapReader r(root, {}, d);
    if (!r.valid()) return;
    Target t;
    t.name = entity_name(r, file, d);
    t.where = SourceLocation{display, 1, 1, {}};
    read_target_fields(r, t, gpu_names);
    if (!r.get("gpu")) r.require("gpu", "a GPU of recipes/catalog/gpus.yaml");
    if (!r.get("scheduler")) r.require("scheduler", quoted_list(detail::scheduler_names()));
    if (t.container_runtime.empty()) t.container_runtime = "none";
    if (t.fabric.empty()) t.fabric = "none";
    r.finish();
    check_target_placement(t, root, d);
    cat.add_target(std::move(t));
}

void load_model(const fs::path& file, Catalog& cat, Diagnostics& d) {
    std::string display = file.string();
    yaml::Node root = yaml::parse_file(file, display, d);
    if (root.is_null() && d.has_errors()) return;
    yaml::MapReader r(root, {}, d);
    if (!r.valid()) return;
    Model m;
    m.name = entity_name(r, file, d);
    m.where = SourceLocation{display, 1, 1, {}};
    read_model_fields(r, m);
    r.finish();
    check_model(m, m.where, {}, d);
    cat.add_model(std::move(m));
}

std::vector<fs::path> yaml_files(const fs::path& dir) {
    std::vector<fs::path> out;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return out;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        std::string ext = e.path().extension().string();
        if (e.is_regular_file(ec) && (ext == ".yaml" || ext == ".yml")) out.push_back(e.path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

template <typename Map>
std::vector<std::string> keys_of(const Map& m) {
    std::vector<std::string> out;
    out.reserve(m.size());
    for (const auto& [k, v] : m) out.push_back(k);
    return out;
}

}  // namespace

Catalog Catalog::load(const std::vector<fs::path>& recipe_dirs, CatalogParts parts, std::string_view only_model) {
    Catalog cat;
    cat.m_has_targets = parts == CatalogParts::all;
    Diagnostics d;
    // GPUs first: targets refer to them.
    for (const fs::path& dir : recipe_dirs) {
        std::error_code ec;
        fs::path gpus = dir / "catalog" / "gpus.yaml";
        if (fs::exists(gpus, ec)) detail::load_gpus(gpus, cat, d);
    }
    std::vector<std::string> gpu_names = cat.gpu_names();
    for (const fs::path& dir : recipe_dirs) {
        if (cat.m_has_targets)
            for (const fs::path& f : yaml_files(dir / "catalog" / "targets")) load_target(f, gpu_names, cat, d);
        for (const fs::path& f : yaml_files(dir / "catalog" / "models")) {
            if (parts == CatalogParts::without_targets && !only_model.empty() && f.stem() != only_model)
                cat.m_unread_models.insert(f.stem().string());
            else
                load_model(f, cat, d);
        }
        for (const fs::path& f : yaml_files(dir / "catalog" / "frameworks")) cat.add_framework_file(f);
    }
    d.throw_if_errors("invalid catalog");
    for (const auto& [name, m] : cat.m_models) cat.m_unread_models.erase(name);
    return cat;
}

const Gpu* Catalog::find_gpu(std::string_view name) const {
    auto it = m_gpus.find(std::string(name));
    return it == m_gpus.end() ? nullptr : &it->second;
}

const std::map<std::string, Target>& Catalog::targets() const {
    if (!m_has_targets) throw std::logic_error("the catalog was loaded without its targets");
    return m_targets;
}

const Target* Catalog::find_target(std::string_view name) const {
    const auto& all = targets();
    auto it = all.find(std::string(name));
    return it == all.end() ? nullptr : &it->second;
}

const Model* Catalog::find_model(std::string_view name) const {
    auto it = m_models.find(std::string(name));
    if (it != m_models.end()) return &it->second;
    if (m_unread_models.count(std::string(name)) != 0)
        throw std::logic_error(fmt::format("the catalog was loaded without model '{}'", name));
    return nullptr;
}

const std::map<std::string, Model>& Catalog::models() const {
    if (!m_unread_models.empty()) throw std::logic_error("the catalog was loaded with one of its models only");
    return m_models;
}

std::vector<std::string> Catalog::gpu_names() const {
    return keys_of(m_gpus);
}
std::vector<std::string> Catalog::target_names() const {
    return keys_of(targets());
}
std::vector<std::string> Catalog::model_names() const {
    std::vector<std::string> names = keys_of(m_models);
    names.insert(names.end(), m_unread_models.begin(), m_unread_models.end());
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace trainbench::catalog

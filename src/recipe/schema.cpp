#include "recipe/schema.hpp"

#include <fmt/format.h>

namespace trainbench::recipe {

// The names owned elsewhere come from the catalog's one table of them.
const std::vector<std::string>& framework_names() {
    static const std::vector<std::string> v = catalog::framework_kind_names();
    return v;
}
const catalog::FrameworkKind& framework_kind(const Recipe& r) {
    static const catalog::FrameworkKind unknown{};
    const catalog::FrameworkKind* k = catalog::find_framework_kind(r.framework);
    return k ? *k : unknown;
}
const std::vector<std::string>& metrics_source_names() {
    static const std::vector<std::string> v = [] {
        std::vector<std::string> names{"auto"};
        for (const std::string& f : catalog::log_format_names()) names.push_back(f);
        return names;
    }();
    return v;
}
const std::vector<NamedWindow>& named_windows() {
    // dgxc-benchmarking 841f5466, cli/llmb-run/src/llmb_run/pretrain_log_parser.py:
    // MIN_ITERATION = 35, MAX_ITERATION = 44 (a year earlier its scripts averaged 11..44).
    static const std::vector<NamedWindow> v = {
        {"dgxc", 35, 44, "dgxc-benchmarking llmb-run's pretrain_log_parser.py (841f5466): iterations 35..44"},
    };
    return v;
}
const NamedWindow* find_named_window(std::string_view name) {
    for (const NamedWindow& w : named_windows())
        if (w.name == name) return &w;
    return nullptr;
}
std::vector<std::string> named_window_names() {
    std::vector<std::string> v;
    for (const NamedWindow& w : named_windows()) v.emplace_back(w.name);
    return v;
}
const std::vector<std::string>& flops_names() {
    return catalog::flops_convention_names();
}
const std::vector<std::string>& figure_names() {
    static const std::vector<std::string> v = {"step_time_s",   "tokens_per_s",   "tokens_per_s_per_gpu",
                                               "samples_per_s", "tflops_per_gpu", "mfu",
                                               "loss",          "busbw_gbs"};
    return v;
}
const std::vector<std::string>& stage_kind_names() {
    static const std::vector<std::string> v = {"validate", "prepare-data", "train"};
    return v;
}
const std::vector<std::string>& log_format_names() {
    static const std::vector<std::string> v = catalog::log_format_names();
    return v;
}

namespace {

nlohmann::ordered_json env_json(const catalog::EnvList& env) {
    nlohmann::ordered_json o = nlohmann::ordered_json::object();
    for (const auto& [k, v] : env) o[k] = v;
    return o;
}

// The network stack and NVLink-domain fields of today's targets, each only where it is set
// (so an older target's resolved recipe reads as it did before they existed).
void add_placement_json(nlohmann::ordered_json& j, const catalog::Target& t) {
    const catalog::KubernetesDefaults& k = t.kubernetes;
    if (t.nvlink_domain_nodes > 0) j["nvlink_domain_nodes"] = t.nvlink_domain_nodes;
    if (t.slurm.block_topology) j["slurm"]["block_topology"] = true;
    if (!k.nccl_plugin_image.empty()) j["kubernetes"]["nccl_plugin_image"] = k.nccl_plugin_image;
    if (!k.network_env.empty()) j["kubernetes"]["network_env"] = env_json(k.network_env);
    if (!k.queue.empty()) j["kubernetes"]["queue"] = k.queue;
    if (!k.topology_request.empty()) {
        nlohmann::ordered_json tr = nlohmann::ordered_json::object();
        for (const auto& [key, v] : k.topology_request) tr[key] = v;
        j["kubernetes"]["topology_request"] = tr;
    }
    if (!k.nvlink_domain_label.empty()) j["kubernetes"]["nvlink_domain_label"] = k.nvlink_domain_label;
}

nlohmann::ordered_json target_json(const catalog::Target& t) {
    nlohmann::ordered_json j;
    j["name"] = t.name;
    j["description"] = t.description;
    j["cloud"] = t.cloud;
    j["instance"] = t.instance;
    j["scheduler"] = std::string(catalog::to_string(t.scheduler));
    j["gpus_per_node"] = t.gpus_per_node;
    j["cpus_per_node"] = t.cpus_per_node;
    j["host_memory_gib"] = t.host_memory_gib;
    j["gpu"] = t.gpu;
    j["fabric"] = t.fabric;
    j["container_runtime"] = t.container_runtime;
    j["env"] = env_json(t.env);
    j["topology_file"] = t.topology_file;
    j["default_mounts"] = t.default_mounts;
    j["nccl_busbw_threshold_gbs"] = t.nccl_busbw_threshold_gbs;
    j["slurm"] = {{"partition", t.slurm.partition},        {"account", t.slurm.account},
                  {"exclusive", t.slurm.exclusive},        {"mem", t.slurm.mem},
                  {"use_gres", t.slurm.use_gres},          {"time", t.slurm.time},
                  {"cpus_per_task", t.slurm.cpus_per_task}};
    nlohmann::ordered_json sel = nlohmann::ordered_json::object();
    for (const auto& [k, v] : t.kubernetes.node_selector) sel[k] = v;
    j["kubernetes"] = {{"namespace", t.kubernetes.namespace_name},
                       {"gpu_resource", t.kubernetes.gpu_resource},
                       {"shm_size", t.kubernetes.shm_size},
                       {"host_network", t.kubernetes.host_network},
                       {"network_stack", t.kubernetes.network_stack},
                       {"node_selector", sel},
                       {"scheduling_gates", t.kubernetes.scheduling_gates},
                       {"results_pvc", t.kubernetes.results_pvc},
                       {"results_bucket", t.kubernetes.results_bucket}};
    add_placement_json(j, t);
    return j;
}

// The fields of today's architectures, each only where it differs from its default (so a
// GPT-3 model's resolved recipe reads as it did before they existed).
void add_new_model_fields(nlohmann::ordered_json& j, const catalog::Model& m) {
    const catalog::Model d;
    auto put = [&j](const char* key, const auto& value, const auto& unset) {
        if (value != unset) j[key] = value;
    };
    put("source", m.source, d.source);
    put("norm", m.norm, d.norm);
    put("norm_epsilon", m.norm_epsilon, d.norm_epsilon);
    put("max_position_embeddings", m.max_position_embeddings, d.max_position_embeddings);
    put("head_dim", m.head_dim, d.head_dim);
    put("qk_norm", m.qk_norm, d.qk_norm);
    put("linear_bias", m.linear_bias, d.linear_bias);
    put("qkv_bias", m.qkv_bias, d.qkv_bias);
    put("rope_theta", m.rope_theta, d.rope_theta);
    put("rope_scaling", m.rope_scaling, d.rope_scaling);
    put("rope_scaling_factor", m.rope_scaling_factor, d.rope_scaling_factor);
    put("rope_low_freq_factor", m.rope_low_freq_factor, d.rope_low_freq_factor);
    put("rope_high_freq_factor", m.rope_high_freq_factor, d.rope_high_freq_factor);
    put("rope_original_max_positions", m.rope_original_max_positions, d.rope_original_max_positions);
    put("rope_beta_fast", m.rope_beta_fast, d.rope_beta_fast);
    put("rope_beta_slow", m.rope_beta_slow, d.rope_beta_slow);
    put("rope_mscale", m.rope_mscale, d.rope_mscale);
    put("rope_mscale_all_dim", m.rope_mscale_all_dim, d.rope_mscale_all_dim);
    put("moe_ffn", m.moe_ffn, d.moe_ffn);
    put("moe_shared_experts", m.moe_shared_experts, d.moe_shared_experts);
    put("moe_shared_ffn", m.moe_shared_ffn, d.moe_shared_ffn);
    put("moe_dense_layers", m.moe_dense_layers, d.moe_dense_layers);
    put("moe_layer_freq", m.moe_layer_freq, d.moe_layer_freq);
    put("moe_score_function", m.moe_score_function, d.moe_score_function);
    put("moe_top_k_scaling", m.moe_top_k_scaling, d.moe_top_k_scaling);
    put("moe_groups", m.moe_groups, d.moe_groups);
    put("moe_group_top_k", m.moe_group_top_k, d.moe_group_top_k);
    put("moe_expert_bias", m.moe_expert_bias, d.moe_expert_bias);
    put("attention", m.attention, d.attention);
    put("q_lora_rank", m.q_lora_rank, d.q_lora_rank);
    put("kv_lora_rank", m.kv_lora_rank, d.kv_lora_rank);
    put("qk_head_dim", m.qk_head_dim, d.qk_head_dim);
    put("qk_rope_head_dim", m.qk_rope_head_dim, d.qk_rope_head_dim);
    put("v_head_dim", m.v_head_dim, d.v_head_dim);
    put("mtp_layers", m.mtp_layers, d.mtp_layers);
}

nlohmann::ordered_json model_json(const catalog::Model& m) {
    nlohmann::ordered_json j;
    j["name"] = m.name;
    j["family"] = m.family;
    j["description"] = m.description;
    j["layers"] = m.layers;
    j["hidden"] = m.hidden;
    j["heads"] = m.heads;
    j["kv_heads"] = m.kv_heads;
    j["ffn"] = m.ffn;
    j["seq_length"] = m.seq_length;
    j["vocab"] = m.vocab;
    j["activation"] = m.activation;
    j["position"] = m.position;
    j["tied_embeddings"] = m.tied_embeddings;
    j["experts"] = m.experts;
    j["moe_top_k"] = m.moe_top_k;
    add_new_model_fields(j, m);
    return j;
}

nlohmann::ordered_json expectations_json(const std::vector<Expectation>& expectations) {
    nlohmann::ordered_json expect = nlohmann::ordered_json::object();
    for (const Expectation& x : expectations) {
        nlohmann::ordered_json e = nlohmann::ordered_json::object();
        if (x.value) e["value"] = *x.value;
        if (x.tolerance) {
            if (x.tolerance_is_relative)
                e["tolerance"] = fmt::format("{:g}%", *x.tolerance * 100.0);
            else
                e["tolerance"] = *x.tolerance;
        }
        if (x.min) e["min"] = *x.min;
        if (x.max) e["max"] = *x.max;
        expect[x.figure] = e;
    }
    return expect;
}

// metrics.window: [start, end], or the name of a named window ("dgxc").
nlohmann::ordered_json window_json(const Metrics& m) {
    if (!m.window_name.empty()) return m.window_name;
    return nlohmann::ordered_json::array({m.window_start, m.window_end});
}

// `base` names the catalog entry, so the resolved recipe (recipe.resolved.yaml in a run
// directory) loads again as an inline edit of that entry.
nlohmann::ordered_json with_base(const std::string& base, const nlohmann::ordered_json& fields) {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    if (!base.empty()) out["base"] = base;
    for (const auto& [k, v] : fields.items()) out[k] = v;
    return out;
}

nlohmann::ordered_json parallelism_json(const Parallelism& p) {
    nlohmann::ordered_json j = {
        {"tensor", p.tensor},   {"pipeline", p.pipeline}, {"virtual_pipeline", p.virtual_pipeline},
        {"context", p.context}, {"expert", p.expert},     {"sequence_parallel", p.sequence_parallel}};
    if (p.expert_tensor > 0) j["expert_tensor"] = p.expert_tensor;
    if (!p.pipeline_layout.empty()) j["pipeline_layout"] = p.pipeline_layout;
    return j;
}

nlohmann::ordered_json recompute_json(const Recompute& r) {
    nlohmann::ordered_json j = {{"granularity", r.granularity}, {"method", r.method}, {"num_layers", r.num_layers}};
    if (!r.modules.empty()) j["modules"] = r.modules;
    return j;
}

nlohmann::ordered_json data_json(const Data& d) {
    nlohmann::ordered_json j;
    j["kind"] = d.kind;
    nlohmann::ordered_json prefixes = nlohmann::ordered_json::array();
    for (const DataPrefix& p : d.prefixes) prefixes.push_back({{"weight", p.weight}, {"prefix", p.prefix}});
    j["prefixes"] = prefixes;
    j["tokenizer"] = d.tokenizer;
    j["vocab_file"] = d.vocab_file;
    j["merge_file"] = d.merge_file;
    return j;
}

// The recipe's own variables, and null for each it unsets.
nlohmann::ordered_json recipe_env_json(const Recipe& r) {
    nlohmann::ordered_json j = env_json(r.env);
    for (const std::string& name : r.env_unset) j[name] = nullptr;
    return j;
}

nlohmann::ordered_json slurm_json(const Slurm& s) {
    nlohmann::ordered_json j = {{"partition", s.partition},
                                {"account", s.account},
                                {"qos", s.qos},
                                {"time", s.time},
                                {"exclusive", s.exclusive.value_or(true)},
                                {"mem", s.mem},
                                {"use_gres", s.use_gres.value_or(false)},
                                {"constraint", s.constraint},
                                {"network", s.network},
                                {"job_name_prefix", s.job_name_prefix},
                                {"cpus_per_task", s.cpus_per_task},
                                {"nodelist", s.nodelist},
                                {"exclude", s.exclude},
                                {"reservation", s.reservation},
                                {"directives", s.directives},
                                {"srun_args", s.srun_args}};
    if (s.segment > 0) j["segment"] = s.segment;
    return j;
}

nlohmann::ordered_json kubernetes_json(const Kubernetes& k) {
    nlohmann::ordered_json sel = nlohmann::ordered_json::object();
    for (const auto& [key, value] : k.node_selector) sel[key] = value;
    return {{"namespace", k.namespace_name},
            {"queue", k.queue},
            {"service_account", k.service_account},
            {"image_pull_secrets", k.image_pull_secrets},
            {"node_selector", sel},
            {"results_pvc", k.results_pvc},
            {"results_bucket", k.results_bucket},
            {"install", k.install}};
}

nlohmann::ordered_json launch_json(const Launch& l) {
    nlohmann::ordered_json j = {
        {"command", l.command}, {"entrypoint", l.entrypoint}, {"workdir", l.workdir}, {"extra_args", l.extra_args}};
    if (!l.log_format.empty()) j["log_format"] = l.log_format;
    return j;
}

nlohmann::ordered_json stages_json(const std::vector<Stage>& stages) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const Stage& s : stages) {
        nlohmann::ordered_json st;
        st["name"] = s.name;
        st["kind"] = s.kind;
        st["dependency"] = s.dependency;
        if (!s.time.empty()) st["time"] = s.time;
        if (!s.mem.empty()) st["mem"] = s.mem;
        st["options"] = s.options.is_null() ? nlohmann::ordered_json::object() : s.options;
        out.push_back(st);
    }
    return out;
}

}  // namespace

// Every section in the schema's order (docs/recipes.md), each written by its own function.
nlohmann::ordered_json to_json(const Recipe& r) {
    nlohmann::ordered_json j;
    j["version"] = r.version;
    j["name"] = r.name;
    j["description"] = r.description;
    j["target"] = with_base(r.target_name, target_json(r.target));
    j["model"] = with_base(r.model_name, model_json(r.model));
    j["framework"] = r.framework;
    if (!r.framework_version.empty()) j["framework_version"] = r.framework_version;
    if (!r.framework_config.empty()) j["framework_config"] = r.framework_config;
    j["nodes"] = r.nodes;
    j["gpus_per_node"] = r.gpus_per_node_effective();
    j["parallelism"] = parallelism_json(r.parallelism);
    j["batch"] = {{"micro", r.batch.micro}, {"global", r.batch.global}};
    j["precision"] = std::string(catalog::to_string(r.precision));
    j["steps"] = r.steps;
    j["recompute"] = recompute_json(r.recompute);
    j["distributed_optimizer"] = r.distributed_optimizer;
    j["data"] = data_json(r.data);
    j["container"] = {{"runtime", r.container.runtime},
                      {"image", r.container.image},
                      {"mounts", r.container.mounts},
                      {"mount_home", r.container.mount_home},
                      {"env", r.container.env}};
    j["env"] = recipe_env_json(r);
    j["profiling"] = {{"nsys", r.profiling.nsys},
                      {"start_step", r.profiling.start_step},
                      {"end_step", r.profiling.end_step},
                      {"ranks", r.profiling.ranks}};
    j["metrics"] = {{"source", r.metrics.source},
                    {"path", r.metrics.path},
                    {"window", window_json(r.metrics)},
                    {"flops", r.metrics.flops}};
    j["expect"] = expectations_json(r.expectations);
    j["slurm"] = slurm_json(r.slurm);
    j["kubernetes"] = kubernetes_json(r.kubernetes);
    j["launch"] = launch_json(r.launch);
    j["stages"] = stages_json(r.stages);
    return j;
}

const SourceLocation* find_origin(const Recipe& r, const std::string& key) {
    std::string k = key;
    while (true) {
        auto it = r.origins.find(k);
        if (it != r.origins.end()) return &it->second;
        std::size_t cut = k.find_last_of(".[");
        if (cut == std::string::npos || cut == 0) return nullptr;
        k = k.substr(0, cut);
    }
}

SourceLocation origin_of(const Recipe& r, const std::string& key) {
    if (const SourceLocation* s = find_origin(r, key)) return *s;
    return SourceLocation{r.file.string(), 0, 0, {}};
}

}  // namespace trainbench::recipe

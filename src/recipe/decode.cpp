// Decoding a merged recipe tree: the top-level order, and the sections that fill plain fields.
#include "recipe/loading.hpp"
#include "recipe/schema.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <regex>

namespace trainbench::recipe {

void Decoder::decode(const Node& root) {
    MapReader top(root, {}, m_d);
    if (!top.valid()) return;
    top.allow("extends");
    decode_version_and_name(top);
    top.read("description", m_r.description);
    decode_target(top);
    decode_model(top);
    top.read_enum("framework", m_r.framework, framework_names());
    decode_framework_version(top);
    decode_framework_config(top);
    top.read("nodes", m_r.nodes, 1, 100000);
    top.read("gpus_per_node", m_r.gpus_per_node, 1, 1024);
    decode_parallelism_and_batch(top);
    std::string precision;
    if (top.read_enum("precision", precision, catalog::precision_names()))
        m_r.precision = *catalog::parse_precision(precision);
    top.read("steps", m_r.steps, 1);
    decode_recompute(top);
    top.read("distributed_optimizer", m_r.distributed_optimizer);
    decode_data(top);
    decode_container(top);
    decode_env(top);
    decode_profiling(top);
    decode_metrics(top);
    decode_expect(top);
    decode_slurm(top);
    decode_kubernetes(top);
    decode_launch(top);
    decode_stages(top);
    top.finish();
    default_framework_version();
    default_flops_convention();
}

void Decoder::decode_version_and_name(MapReader& top) {
    if (const Node* v = top.require("version", "1")) {
        if (auto n = yaml::as_int(*v, "version", m_d)) {
            if (*n != 1)
                m_d.error(v->where, "version", fmt::format("unsupported recipe version {}", *n), "1",
                          "this trainbench reads version 1 recipes; a newer trainbench may read this one");
        }
    }
    if (const Node* n = top.require("name", "a name such as 'gpt3-126m-p4d-2n'")) {
        if (auto s = yaml::as_string(*n, "name", m_d)) {
            static const std::regex re("[a-z0-9][a-z0-9._-]*");
            if (!std::regex_match(*s, re) || s->size() > 100)
                m_d.error(n->where, "name", fmt::format("invalid name '{}'", *s),
                          "lower-case letters, digits, '.', '_' or '-', starting with a letter or digit",
                          "the name is used in run directories and job names");
            else
                m_r.name = *s;
        }
    }
}

void Decoder::decode_parallelism_and_batch(MapReader& top) {
    if (const Node* p = top.get("parallelism")) {
        MapReader pr(*p, "parallelism", m_d);
        pr.read("tensor", m_r.parallelism.tensor, 1, 1024);
        pr.read("pipeline", m_r.parallelism.pipeline, 1, 4096);
        pr.read("virtual_pipeline", m_r.parallelism.virtual_pipeline, 0, 1024);
        pr.read("context", m_r.parallelism.context, 1, 1024);
        pr.read("expert", m_r.parallelism.expert, 1, 4096);
        pr.read("expert_tensor", m_r.parallelism.expert_tensor, 1, 1024);
        pr.read("sequence_parallel", m_r.parallelism.sequence_parallel);
        pr.read("pipeline_layout", m_r.parallelism.pipeline_layout);
        pr.finish();
    }
    if (const Node* b = top.get("batch")) {
        MapReader br(*b, "batch", m_d);
        br.read("micro", m_r.batch.micro, 1);
        br.read("global", m_r.batch.global, 1);
        br.finish();
    }
}

void Decoder::decode_recompute(MapReader& top) {
    if (const Node* rc = top.get("recompute")) {
        MapReader rr(*rc, "recompute", m_d);
        rr.read_enum("granularity", m_r.recompute.granularity, {"none", "selective", "full"});
        rr.read_enum("method", m_r.recompute.method, {"block", "uniform"});
        rr.read("num_layers", m_r.recompute.num_layers, 0);
        rr.read("modules", m_r.recompute.modules);
        rr.finish();
    }
}

void Decoder::decode_profiling(MapReader& top) {
    if (const Node* p = top.get("profiling")) {
        MapReader pr(*p, "profiling", m_d);
        pr.read("nsys", m_r.profiling.nsys);
        pr.read("start_step", m_r.profiling.start_step, 0);
        pr.read("end_step", m_r.profiling.end_step, 0);
        pr.read("ranks", m_r.profiling.ranks, 0);
        pr.finish();
    }
}

void Decoder::decode_launch(MapReader& top) {
    if (const Node* l = top.get("launch")) {
        MapReader lr(*l, "launch", m_d);
        lr.read("command", m_r.launch.command);
        lr.read("entrypoint", m_r.launch.entrypoint);
        lr.read("workdir", m_r.launch.workdir);
        lr.read("extra_args", m_r.launch.extra_args);
        lr.read_enum("log_format", m_r.launch.log_format, log_format_names());
        lr.finish();
    }
}

// framework_config: a map of dotted keys, nested maps allowed ({model: {optim: {lr: 1}}}
// is "model.optim.lr"); flattened in document order, so a later file's value wins.
void Decoder::decode_framework_config(MapReader& top) {
    const Node* n = top.get("framework_config");
    if (!n) return;
    if (!n->is_map()) {
        yaml::type_error(m_d, *n, "framework_config", "a map of framework config keys (model.optim.lr: 1.2e-4)");
        return;
    }
    flatten_config(*n, {});
}

void Decoder::flatten_config(const Node& n, const std::string& prefix) {
    for (const yaml::Entry& e : n.entries) {
        std::string key = prefix.empty() ? e.key : prefix + "." + e.key;
        if (e.value.is_map() && !e.value.entries.empty()) {
            flatten_config(e.value, key);
            continue;
        }
        if (e.value.is_map()) {
            m_r.framework_config[key] = nlohmann::ordered_json::object();
            continue;
        }
        m_r.framework_config[key] = yaml::to_json(e.value);  // a later file's value wins, in place
    }
}

void Decoder::decode_data(MapReader& top) {
    const Node* n = top.get("data");
    if (!n) return;
    if (n->is_scalar()) {
        if (n->scalar == "mock" || n->scalar == "prepared") {
            m_r.data.kind = n->scalar;
        } else {
            m_d.error(n->where, "data", fmt::format("unknown data '{}'", n->scalar),
                      "'mock' or {kind: prefixes, prefixes: [{weight: 1.0, prefix: /path/name_text_document}]}",
                      did_you_mean(n->scalar, {"mock"}));
        }
        return;
    }
    MapReader dr(*n, "data", m_d);
    if (!dr.valid()) return;
    bool kind_set = dr.read_enum("kind", m_r.data.kind, {"mock", "prefixes", "prepared"});
    if (const Node* ps = dr.get("prefixes")) {
        if (!ps->is_sequence()) {
            yaml::type_error(m_d, *ps, "data.prefixes", "a list of {weight: <number>, prefix: <path>}");
        } else {
            for (std::size_t i = 0; i < ps->items.size(); ++i) {
                MapReader pr(ps->items[i], fmt::format("data.prefixes[{}]", i), m_d);
                if (!pr.valid()) continue;
                DataPrefix p;
                pr.read("weight", p.weight, 0.0);
                if (!pr.require("prefix", "a Megatron .bin/.idx path prefix")) {
                    pr.finish();
                    continue;
                }
                pr.read("prefix", p.prefix);
                pr.finish();
                m_r.data.prefixes.push_back(p);
            }
        }
        if (!kind_set) m_r.data.kind = "prefixes";
    }
    dr.read("tokenizer", m_r.data.tokenizer);
    dr.read("vocab_file", m_r.data.vocab_file);
    dr.read("merge_file", m_r.data.merge_file);
    dr.finish();
    if (m_r.data.kind == "prefixes" && m_r.data.prefixes.empty() && dr.valid())
        m_d.error(n->where, "data.prefixes", "data kind 'prefixes' needs at least one prefix",
                  "a list of {weight: <number>, prefix: <path>}");
}

void Decoder::decode_container(MapReader& top) {
    m_r.container.runtime = m_r.target.container_runtime.empty() ? "none" : m_r.target.container_runtime;
    if (const Node* c = top.get("container")) {
        MapReader cr(*c, "container", m_d);
        cr.read_enum("runtime", m_r.container.runtime, catalog::container_runtime_names());
        if (m_r.container.runtime == "pyxis" || m_r.container.runtime == "enroot")
            read_checked(cr, "image", m_r.container.image, pyxis_image_problem,
                         "an absolute path ('/shared/nemo.sqsh'), a relative one written './nemo.sqsh', or a "
                         "registry image ('nvcr.io#nvidia/nemo:24.05')");
        else
            cr.read("image", m_r.container.image);
        cr.read("mounts", m_r.container.mounts);
        cr.read("mount_home", m_r.container.mount_home);
        cr.read("env", m_r.container.env);
        cr.finish();
    }
    // The target's default mounts come first (e.g. /opt/microsoft for the topology file).
    std::vector<std::string> mounts = m_r.target.default_mounts;
    for (const std::string& m : m_r.container.mounts)
        if (std::find(mounts.begin(), mounts.end(), m) == mounts.end()) mounts.push_back(m);
    m_r.container.mounts = std::move(mounts);
}

void Decoder::decode_env(MapReader& top) {
    const Node* n = top.get("env");
    if (!n) return;
    if (!n->is_map()) {
        yaml::type_error(m_d, *n, "env", "a map of NAME: value");
        return;
    }
    static const std::regex name_re("[A-Za-z_][A-Za-z0-9_]*");
    for (const yaml::Entry& e : n->entries) {
        std::string k = yaml::join_key("env", e.key);
        if (!std::regex_match(e.key, name_re)) {
            m_d.error(e.key_where, k, fmt::format("invalid environment variable name '{}'", e.key),
                      "letters, digits and '_', not starting with a digit");
            continue;
        }
        if (e.value.is_null()) {  // NAME: null removes a variable the target (or a base recipe) sets
            std::erase_if(m_r.env, [&](const auto& kv) { return kv.first == e.key; });
            m_r.env_unset.push_back(e.key);
            continue;
        }
        if (!e.value.is_scalar()) {
            yaml::type_error(m_d, e.value, k, "a string or number, or null to unset the variable");
            continue;
        }
        std::erase(m_r.env_unset, e.key);
        m_r.env.emplace_back(e.key, e.value.scalar);
    }
}

}  // namespace trainbench::recipe

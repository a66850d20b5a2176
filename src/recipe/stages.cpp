// Stage options: one schema per stage kind (validate, prepare-data, train),
// checked key by key (unknown keys with did-you-mean, types, ranges) and read
// into typed structs with defaults. docs/stages.md is the reference.
#include <trainbench/recipe.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

using nlohmann::ordered_json;

namespace trainbench::recipe {

namespace {

enum class Type { boolean, integer, number, string, size, string_list, env, map, prefix_list, time, image };

struct Key {
    std::string path;  // dotted, relative to options
    Type type;
    std::vector<std::string> datasets;  // prepare-data: the datasets it applies to; empty = all
    std::vector<std::string> choices;   // strings: allowed values
    long long min = 0;                  // integers: lower bound
    long long max = 0;                  // integers: upper bound; 0 = none
};

const std::vector<std::string> k_nccl_tests = {
    "all_reduce_perf", "all_gather_perf", "alltoall_perf",       "broadcast_perf", "gather_perf",
    "hypercube_perf",  "reduce_perf",     "reduce_scatter_perf", "scatter_perf",   "sendrecv_perf"};

const std::vector<Key>& validate_keys() {
    static const std::vector<Key> keys = {
        {"nodes", Type::integer, {}, {}, 1, 0},
        {"reuse_hours", Type::integer, {}, {}, 0, 0},
        {"dcgm", Type::map, {}, {}, 0, 0},
        {"dcgm.enabled", Type::boolean, {}, {}, 0, 0},
        {"dcgm.level", Type::integer, {}, {}, 1, 3},
        {"dcgm.binary", Type::string, {}, {}, 0, 0},
        {"dcgm.image", Type::image, {}, {}, 0, 0},
        {"dcgm.time", Type::time, {}, {}, 0, 0},
        {"nccl", Type::map, {}, {}, 0, 0},
        {"nccl.enabled", Type::boolean, {}, {}, 0, 0},
        {"nccl.tests", Type::string_list, {}, k_nccl_tests, 0, 0},
        {"nccl.min_bytes", Type::size, {}, {}, 0, 0},
        {"nccl.max_bytes", Type::size, {}, {}, 0, 0},
        {"nccl.step_factor", Type::integer, {}, {}, 2, 0},
        {"nccl.iters", Type::integer, {}, {}, 0, 0},
        {"nccl.gpus_per_rank", Type::integer, {}, {}, 1, 0},
        {"nccl.pairwise", Type::boolean, {}, {}, 0, 0},
        {"nccl.all_nodes", Type::boolean, {}, {}, 0, 0},
        {"nccl.busbw_threshold_gbs", Type::number, {}, {}, 0, 0},
        {"nccl.build", Type::map, {}, {}, 0, 0},
        {"nccl.build.path", Type::string, {}, {}, 0, 0},
        {"nccl.build.image", Type::image, {}, {}, 0, 0},
        {"nccl.build.dir", Type::string, {}, {}, 0, 0},
        {"nccl.build.repo", Type::string, {}, {}, 0, 0},
        {"nccl.build.ref", Type::string, {}, {}, 0, 0},
        {"nccl.hpcx_path", Type::string, {}, {}, 0, 0},
        {"nccl.mpi", Type::string, {}, {"pmix", "pmix_v4", "pmi2", "none"}, 0, 0},
        {"nccl.mounts", Type::string_list, {}, {}, 0, 0},
        {"nccl.env", Type::env, {}, {}, 0, 0},
        {"nccl.mem", Type::string, {}, {}, 0, 0},
        {"nccl.time", Type::time, {}, {}, 0, 0},
        {"nccl.ssh_port", Type::integer, {}, {}, 1, 65535},
        {"nccl.sshd", Type::string_list, {}, {}, 0, 0},
        {"nccl.mpirun_args", Type::string_list, {}, {}, 0, 0},
    };
    return keys;
}

const std::vector<Key>& prepare_keys() {
    const std::vector<std::string> pile{"pile"}, slim{"slimpajama"}, both{"pile", "slimpajama"}, custom{"custom"};
    static const std::vector<Key> keys = {
        {"dataset", Type::string, {}, {"pile", "slimpajama", "custom"}, 0, 0},
        {"data_dir", Type::string, both, {}, 0, 0},
        {"output_dir", Type::string, {}, {}, 0, 0},
        {"image", Type::image, {}, {}, 0, 0},
        {"mounts", Type::string_list, {}, {}, 0, 0},
        {"env", Type::env, {}, {}, 0, 0},
        {"time", Type::time, {}, {}, 0, 0},
        {"partition", Type::string, {}, {}, 0, 0},
        {"nodes", Type::integer, {}, {}, 1, 0},
        {"tasks_per_node", Type::integer, {}, {}, 1, 0},
        {"download", Type::boolean, both, {}, 0, 0},
        {"extract", Type::boolean, both, {}, 0, 0},
        {"concat", Type::boolean, slim, {}, 0, 0},
        {"preprocess", Type::boolean, both, {}, 0, 0},
        {"rm_downloaded", Type::boolean, both, {}, 0, 0},
        {"rm_extracted", Type::boolean, both, {}, 0, 0},
        {"tokenizer_type", Type::string, both, {}, 0, 0},
        {"vocab_file", Type::string, both, {}, 0, 0},
        {"merge_file", Type::string, both, {}, 0, 0},
        {"url", Type::string, both, {}, 0, 0},
        {"vocab_url", Type::string, both, {}, 0, 0},
        {"merges_url", Type::string, both, {}, 0, 0},
        {"retries", Type::integer, both, {}, 1, 100},
        {"retry_delay", Type::integer, both, {}, 0, 3600},
        {"nemo_dir", Type::string, both, {}, 0, 0},
        {"shards", Type::string, pile, {}, 0, 0},
        {"chunks", Type::integer, slim, {}, 1, 0},
        {"valid_test_chunks", Type::integer, slim, {}, 0, 0},
        {"download_chunks", Type::integer, slim, {}, 1, 0},
        {"download_shards", Type::integer, slim, {}, 1, 0},
        {"launcher_version", Type::string, slim, {}, 0, 0},
        {"preprocess_mounts", Type::string_list, slim, {}, 0, 0},
        {"gpus_per_node", Type::integer, slim, {}, 0, 0},
        {"command", Type::string_list, custom, {}, 0, 0},
        {"array", Type::integer, custom, {}, 0, 0},
        {"prefixes", Type::prefix_list, custom, {}, 0, 0},
    };
    return keys;
}

std::string type_text(Type t) {
    switch (t) {
        case Type::boolean:
            return "true or false";
        case Type::integer:
            return "an integer";
        case Type::number:
            return "a number";
        case Type::string:
            return "a string";
        case Type::size:
            return "a size such as 8, 128M or 8G";
        case Type::string_list:
            return "a list of strings";
        case Type::env:
            return "a map NAME: value";
        case Type::map:
            return "a map";
        case Type::prefix_list:
            return "a list of {weight: <number>, prefix: <path>}";
        case Type::time:
            return std::string("a Slurm time limit: ") + slurm_time_forms();
        case Type::image:
            return "an image: an absolute path, './relative.sqsh', or a registry image";
    }
    return "a value";
}

bool is_size(const ordered_json& v) {
    if (v.is_number_unsigned() || (v.is_number_integer() && v.get<long long>() >= 0)) return true;
    if (!v.is_string()) return false;
    std::string s = v.get<std::string>();
    if (s.empty()) return false;
    std::size_t digits = 0;
    while (digits < s.size() && std::isdigit(static_cast<unsigned char>(s[digits]))) ++digits;
    if (digits == 0) return false;
    std::string unit = s.substr(digits);
    return unit.empty() || unit == "K" || unit == "M" || unit == "G" || unit == "T";
}

std::string value_text(const ordered_json& v) {
    return v.is_string() ? v.get<std::string>() : v.dump();
}

class Checker {
public:
    Checker(const Recipe& r, std::size_t index, Diagnostics& d) : m_r(r), m_index(index), m_d(d) {}

    SourceLocation at(const std::string& path) const {
        std::string key = fmt::format("stages[{}].options", m_index) + (path.empty() ? "" : "." + path);
        while (true) {
            auto it = m_r.origins.find(key);
            if (it != m_r.origins.end() && it->second.known()) return it->second;
            auto dot = key.rfind('.');
            if (dot == std::string::npos || key.size() <= fmt::format("stages[{}]", m_index).size()) break;
            key.erase(dot);
        }
        return m_r.stages[m_index].where;
    }
    std::string full(const std::string& path) const { return fmt::format("stages[{}].options.{}", m_index, path); }

    void error(const std::string& path, std::string message, std::string hint = {}) {
        m_d.error(at(path), full(path), std::move(message), std::move(hint));
    }

    // Checks `obj` (the map at `prefix`) against `keys`.
    void check_map(const ordered_json& obj, const std::string& prefix, const std::vector<Key>& keys,
                   const std::string& dataset) {
        std::vector<std::string> names;
        for (const Key& k : keys) {
            std::string parent = k.path.find('.') == std::string::npos ? "" : k.path.substr(0, k.path.rfind('.'));
            if (parent == prefix) names.push_back(k.path.substr(prefix.empty() ? 0 : prefix.size() + 1));
        }
        for (const auto& [name, value] : obj.items()) {
            std::string path = prefix.empty() ? name : prefix + "." + name;
            auto it = std::find_if(keys.begin(), keys.end(), [&](const Key& k) { return k.path == path; });
            if (it == keys.end()) {
                std::string hint = did_you_mean(name, names);
                error(path, fmt::format("unknown option '{}' for a '{}' stage", path, m_r.stages[m_index].kind),
                      hint.empty() ? (names.empty() ? std::string("this stage kind takes no options")
                                                    : "known here: " + quoted_list(names, " and "))
                                   : hint);
                continue;
            }
            if (!it->datasets.empty() && !dataset.empty() &&
                std::find(it->datasets.begin(), it->datasets.end(), dataset) == it->datasets.end()) {
                error(path, fmt::format("option '{}' does not apply to dataset '{}'", path, dataset),
                      fmt::format("it applies to {}", quoted_list(it->datasets)));
                continue;
            }
            check_value(*it, value);
            if (it->type == Type::map && value.is_object()) check_map(value, path, keys, dataset);
        }
    }

    void check_value(const Key& k, const ordered_json& v) {
        bool ok = true;
        switch (k.type) {
            case Type::boolean:
                ok = v.is_boolean();
                break;
            case Type::integer:
                ok = v.is_number_integer();
                break;
            case Type::number:
                ok = v.is_number();
                break;
            case Type::string:
                ok = v.is_string() || v.is_number();
                break;
            case Type::size:
                ok = is_size(v);
                break;
            case Type::string_list:
                ok = v.is_array() && std::all_of(v.begin(), v.end(),
                                                 [](const ordered_json& e) { return e.is_string() || e.is_number(); });
                break;
            case Type::env:
                ok = v.is_object() && std::all_of(v.begin(), v.end(), [](const ordered_json& e) {
                         return e.is_primitive() && !e.is_null();
                     });
                break;
            case Type::map:
                ok = v.is_object();
                break;
            case Type::prefix_list:
                ok = v.is_array() && std::all_of(v.begin(), v.end(), [](const ordered_json& e) {
                         return e.is_object() && e.contains("prefix") && e["prefix"].is_string() &&
                                (!e.contains("weight") || e["weight"].is_number());
                     });
                break;
            case Type::time:
            case Type::image:
                ok = v.is_string() || v.is_number();
                if (ok && !checked_text(k, value_text(v))) return;
                break;
        }
        if (!ok) {
            error(k.path, fmt::format("option '{}' is '{}', expected {}", k.path, value_text(v), type_text(k.type)),
                  type_text(k.type));
            return;
        }
        if (k.type == Type::integer) {
            long long n = v.get<long long>();
            if (n < k.min || (k.max > 0 && n > k.max))
                error(k.path, fmt::format("option '{}' is {}, out of range", k.path, n),
                      k.max > 0 ? fmt::format("an integer from {} to {}", k.min, k.max)
                                : fmt::format("an integer >= {}", k.min));
        }
        if (k.type == Type::number && v.get<double>() <= 0)
            error(k.path, fmt::format("option '{}' is {}, must be positive", k.path, value_text(v)), "a number > 0");
        if (!k.choices.empty()) {
            std::vector<ordered_json> items =
                v.is_array() ? std::vector<ordered_json>(v.begin(), v.end()) : std::vector<ordered_json>{v};
            for (const ordered_json& e : items) {
                std::string s = value_text(e);
                if (std::find(k.choices.begin(), k.choices.end(), s) == k.choices.end()) {
                    std::string hint = did_you_mean(s, k.choices);
                    error(k.path, fmt::format("option '{}': unknown value '{}'", k.path, s),
                          hint.empty() ? "one of " + quoted_list(k.choices) : hint);
                }
            }
        }
    }

private:
    // Slurm times and Pyxis images: the shared checks of src/recipe/slurm_values.cpp.
    bool checked_text(const Key& k, const std::string& text) {
        std::string problem = k.type == Type::time ? slurm_time_problem(text) : pyxis_image_problem(text);
        if (!problem.empty()) error(k.path, fmt::format("option '{}': {}", k.path, problem), type_text(k.type));
        return problem.empty();
    }

    const Recipe& m_r;
    std::size_t m_index;
    Diagnostics& m_d;
};

const ordered_json* find_path(const ordered_json& o, std::string_view path) {
    const ordered_json* cur = &o;
    std::size_t start = 0;
    while (true) {
        if (!cur->is_object()) return nullptr;
        std::size_t dot = path.find('.', start);
        std::string key(path.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
        auto it = cur->find(key);
        if (it == cur->end()) return nullptr;
        cur = &*it;
        if (dot == std::string_view::npos) return cur;
        start = dot + 1;
    }
}

struct Reader {
    const ordered_json& o;
    void get(std::string_view path, bool& out) const {
        if (const auto* v = find_path(o, path); v && v->is_boolean()) out = v->get<bool>();
    }
    void get(std::string_view path, int& out) const {
        if (const auto* v = find_path(o, path); v && v->is_number_integer()) out = v->get<int>();
    }
    void get(std::string_view path, double& out) const {
        if (const auto* v = find_path(o, path); v && v->is_number()) out = v->get<double>();
    }
    void get(std::string_view path, std::string& out) const {
        if (const auto* v = find_path(o, path); v && (v->is_string() || v->is_number())) out = value_text(*v);
    }
    void get(std::string_view path, std::vector<std::string>& out) const {
        if (const auto* v = find_path(o, path); v && v->is_array()) {
            out.clear();
            for (const auto& e : *v) out.push_back(value_text(e));
        }
    }
    void get(std::string_view path, catalog::EnvList& out) const {
        if (const auto* v = find_path(o, path); v && v->is_object())
            for (const auto& [k, e] : v->items())
                out.emplace_back(k, e.is_boolean() ? (e.get<bool>() ? "true" : "false") : value_text(e));
    }
};

std::string trim_slash(std::string s) {
    while (s.size() > 1 && s.back() == '/') s.pop_back();
    return s;
}

}  // namespace

void validate_stage_options(const Recipe& r, Diagnostics& d) {
    bool has_prepare = false;
    for (std::size_t i = 0; i < r.stages.size(); ++i) {
        const Stage& s = r.stages[i];
        Checker c(r, i, d);
        const ordered_json& o = s.options;
        if (!o.is_null() && !o.is_object()) continue;  // load reported it
        const ordered_json opts = o.is_null() ? ordered_json::object() : o;
        if (s.kind == "validate") {
            c.check_map(opts, "", validate_keys(), "");
            ValidateOptions v = validate_options(r, s);
            if (!v.dcgm.enabled && !v.nccl.enabled)
                c.error("", fmt::format("stage '{}' validates nothing: dcgm and nccl are both disabled", s.name),
                        "enable dcgm or nccl, or remove the stage");
            // On Kubernetes every pod runs an image: `path` says where in it the binaries are.
            const bool k8s = r.target.scheduler == catalog::Scheduler::kubernetes;
            if (v.nccl.enabled && !k8s && !v.nccl.build_path.empty() && !v.nccl.build_image.empty())
                c.error("nccl.build", "nccl.build gives both 'path' and 'image'", "one way to obtain nccl-tests");
            if (v.nccl.enabled && k8s && !v.nccl.build_dir.empty())
                c.error("nccl.build.dir", "on Kubernetes nccl-tests come with the pods' image, not a build",
                        "set nccl.build.image, and nccl.build.path where the binaries are not on its PATH");
            if (v.nccl.enabled && !v.nccl.build_path.empty() && !v.nccl.build_dir.empty())
                c.error("nccl.build", "nccl.build gives both 'path' (prebuilt) and 'dir' (build here)",
                        "one way to obtain nccl-tests");
            if (!v.nccl.build_dir.empty() && v.nccl.build_dir.front() != '/')
                c.error("nccl.build.dir", fmt::format("'{}' is not an absolute path", v.nccl.build_dir),
                        "a directory on the shared file system, e.g. /shared/nccl-tests");
        } else if (s.kind == "prepare-data") {
            has_prepare = true;
            std::string dataset;
            if (const auto* ds = find_path(opts, "dataset"); ds && ds->is_string()) dataset = ds->get<std::string>();
            c.check_map(opts, "", prepare_keys(), dataset);
            if (!opts.contains("dataset")) {
                c.error("dataset", fmt::format("stage '{}' needs options.dataset", s.name),
                        "one of 'pile', 'slimpajama' or 'custom'");
                continue;
            }
            PrepareDataOptions p = prepare_data_options(r, s);
            if ((dataset == "pile" || dataset == "slimpajama") && p.data_dir.empty())
                c.error("data_dir", fmt::format("dataset '{}' needs options.data_dir", dataset),
                        "the directory for downloads, e.g. /shared/data");
            if (dataset == "custom" && p.command.empty())
                c.error("command", "dataset 'custom' needs options.command (the argv each task runs)");
            if (dataset == "pile") {
                try {
                    (void)parse_shards(p.shards);
                } catch (const InputError& e) {
                    c.error("shards", e.what(), "shard numbers such as \"0-1\" or \"0,3,5-7\" (0 to 29)");
                }
            }
            if (dataset == "slimpajama" && 2 * p.valid_test_chunks >= p.chunks)
                c.error("valid_test_chunks",
                        fmt::format("{} validation and {} test chunks leave no training chunk of {}",
                                    p.valid_test_chunks, p.valid_test_chunks, p.chunks),
                        "valid_test_chunks < chunks / 2");
            for (const std::string& dir : {p.data_dir, p.output_dir})
                if (!dir.empty() && dir.front() != '/')
                    c.error(dir == p.data_dir ? "data_dir" : "output_dir",
                            fmt::format("'{}' is not an absolute path", dir),
                            "jobs run on other nodes: use an absolute path");
        } else if (s.kind == "train") {
            c.check_map(opts, "", {}, "");
        }
    }
    if (r.data.kind == "prepared" && !has_prepare) {
        auto it = r.origins.find("data.kind");
        if (it == r.origins.end()) it = r.origins.find("data");
        d.error(it != r.origins.end() ? it->second : SourceLocation{}, "data.kind",
                "data kind 'prepared' needs a prepare-data stage",
                "add a stage {kind: prepare-data, options: {dataset: ...}}");
    }
}

ValidateOptions validate_options(const Recipe& r, const Stage& stage) {
    ValidateOptions v;
    const ordered_json empty = ordered_json::object();
    Reader rd{stage.options.is_object() ? stage.options : empty};
    rd.get("nodes", v.nodes);
    if (v.nodes <= 0) v.nodes = std::max(1, r.nodes);
    rd.get("reuse_hours", v.reuse_hours);
    rd.get("dcgm.enabled", v.dcgm.enabled);
    rd.get("dcgm.level", v.dcgm.level);
    rd.get("dcgm.binary", v.dcgm.binary);
    rd.get("dcgm.image", v.dcgm.image);
    rd.get("dcgm.time", v.dcgm.time);
    NcclTestOptions& n = v.nccl;
    rd.get("nccl.enabled", n.enabled);
    rd.get("nccl.tests", n.tests);
    rd.get("nccl.min_bytes", n.min_bytes);
    rd.get("nccl.max_bytes", n.max_bytes);
    rd.get("nccl.step_factor", n.step_factor);
    rd.get("nccl.iters", n.iters);
    rd.get("nccl.gpus_per_rank", n.gpus_per_rank);
    rd.get("nccl.pairwise", n.pairwise);
    rd.get("nccl.all_nodes", n.all_nodes);
    rd.get("nccl.busbw_threshold_gbs", n.busbw_threshold_gbs);
    if (n.busbw_threshold_gbs <= 0) n.busbw_threshold_gbs = r.target.nccl_busbw_threshold_gbs;
    rd.get("nccl.build.path", n.build_path);
    rd.get("nccl.build.image", n.build_image);
    rd.get("nccl.build.dir", n.build_dir);
    rd.get("nccl.build.repo", n.build_repo);
    rd.get("nccl.build.ref", n.build_ref);
    rd.get("nccl.hpcx_path", n.hpcx_path);
    rd.get("nccl.mpi", n.mpi);
    rd.get("nccl.mounts", n.mounts);
    rd.get("nccl.env", n.env);
    rd.get("nccl.mem", n.mem);
    rd.get("nccl.time", n.time);
    rd.get("nccl.ssh_port", n.ssh_port);
    rd.get("nccl.sshd", n.sshd);
    rd.get("nccl.mpirun_args", n.mpirun_args);
    return v;
}

PrepareDataOptions prepare_data_options(const Recipe& r, const Stage& stage) {
    PrepareDataOptions p;
    const ordered_json empty = ordered_json::object();
    Reader rd{stage.options.is_object() ? stage.options : empty};
    rd.get("dataset", p.dataset);
    rd.get("data_dir", p.data_dir);
    p.data_dir = trim_slash(p.data_dir);
    rd.get("output_dir", p.output_dir);
    p.output_dir = trim_slash(p.output_dir);
    if (p.output_dir.empty() && !p.data_dir.empty())
        p.output_dir = p.dataset == "slimpajama" ? p.data_dir + "/preprocessed" : p.data_dir;
    rd.get("image", p.image);
    // Tokenization needs NeMo: by default the recipe's own container (Pyxis/enroot targets).
    std::string runtime = r.container.runtime.empty() ? r.target.container_runtime : r.container.runtime;
    if (p.image.empty() && p.dataset != "custom" && (runtime == "pyxis" || runtime == "enroot"))
        p.image = r.container.image;
    // NeMo's place in the image: /opt/bignlp/NeMo in the bignlp-training (22.06) images, else /opt/NeMo.
    p.nemo_dir = p.image.find("bignlp-training") != std::string::npos ? "/opt/bignlp/NeMo" : "/opt/NeMo";
    rd.get("nemo_dir", p.nemo_dir);
    rd.get("retries", p.retries);
    rd.get("retry_delay", p.retry_delay);
    rd.get("mounts", p.mounts);
    rd.get("env", p.env);
    rd.get("time", p.time);
    rd.get("partition", p.partition);
    rd.get("nodes", p.nodes);
    if (p.dataset == "slimpajama") p.tasks_per_node = 48;  // seed 002 TASKS_PER_NODE
    rd.get("tasks_per_node", p.tasks_per_node);
    rd.get("download", p.download);
    rd.get("extract", p.extract);
    rd.get("concat", p.concat);
    rd.get("preprocess", p.preprocess);
    rd.get("rm_downloaded", p.rm_downloaded);
    rd.get("rm_extracted", p.rm_extracted);
    rd.get("tokenizer_type", p.tokenizer_type);
    rd.get("vocab_file", p.vocab_file);
    rd.get("merge_file", p.merge_file);
    if (p.vocab_file.empty() && !p.data_dir.empty()) p.vocab_file = p.data_dir + "/bpe/vocab.json";
    if (p.merge_file.empty() && !p.data_dir.empty()) p.merge_file = p.data_dir + "/bpe/merges.txt";
    // The Pile's original mirror (the-eye.eu) is gone; the NeMo launcher now reads the
    // uncopyrighted copy on Hugging Face (same shard names 00..29.jsonl.zst).
    if (p.dataset == "pile") p.url = "https://huggingface.co/datasets/monology/pile-uncopyrighted/resolve/main/train/";
    if (p.dataset == "slimpajama")
        p.url = "https://huggingface.co/datasets/cerebras/SlimPajama-627B/resolve/main/train";
    p.vocab_url = "https://huggingface.co/gpt2/resolve/main/vocab.json";
    p.merges_url = "https://huggingface.co/gpt2/resolve/main/merges.txt";
    rd.get("url", p.url);
    rd.get("vocab_url", p.vocab_url);
    rd.get("merges_url", p.merges_url);
    rd.get("shards", p.shards);
    rd.get("chunks", p.chunks);
    rd.get("valid_test_chunks", p.valid_test_chunks);
    rd.get("download_chunks", p.download_chunks);
    rd.get("download_shards", p.download_shards);
    rd.get("launcher_version", p.launcher_version);
    rd.get("preprocess_mounts", p.preprocess_mounts);
    rd.get("gpus_per_node", p.gpus_per_node);
    rd.get("command", p.command);
    rd.get("array", p.array);
    if (const auto* v = find_path(rd.o, "prefixes"); v && v->is_array())
        for (const auto& e : *v)
            if (e.is_object() && e.contains("prefix") && e["prefix"].is_string())
                p.prefixes.push_back({e.contains("weight") && e["weight"].is_number() ? e["weight"].get<double>() : 1.0,
                                      e["prefix"].get<std::string>()});
    return p;
}

std::vector<int> parse_shards(const std::string& shards) {
    std::set<int> out;
    std::size_t start = 0;
    auto number = [&shards](const std::string& t) {
        if (t.empty() || t.size() > 4 || !std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; }))
            throw InputError(fmt::format("shards '{}': '{}' is not a shard number", shards, t));
        return std::stoi(t);
    };
    while (start <= shards.size()) {
        std::size_t comma = shards.find(',', start);
        std::string part = shards.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        std::size_t dash = part.find('-');
        int a = number(dash == std::string::npos ? part : part.substr(0, dash));
        int b = dash == std::string::npos ? a : number(part.substr(dash + 1));
        if (b < a) throw InputError(fmt::format("shards '{}': range '{}' runs backwards", shards, part));
        for (int i = a; i <= b; ++i) out.insert(i);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    if (out.empty() || *out.rbegin() > 29)
        throw InputError(fmt::format("shards '{}': the Pile has shards 0 to 29", shards));
    return {out.begin(), out.end()};
}

std::vector<DataPrefix> prepared_prefixes(const Recipe& /*r*/, const PrepareDataOptions& p) {
    std::vector<DataPrefix> out;
    if (p.dataset == "pile") {
        std::vector<int> shards;
        try {
            shards = parse_shards(p.shards);
        } catch (const InputError&) {
            return out;
        }
        for (int s : shards)
            out.push_back({1.0 / static_cast<double>(shards.size()),
                           fmt::format("{}/my-gpt3_{:02d}_text_document", p.output_dir, s)});
    } else if (p.dataset == "slimpajama") {
        // Seed 002: every preprocessed chunk in `sort` order minus the last 2 x valid_test_chunks.
        std::vector<std::string> names;
        for (int i = 0; i < p.chunks; ++i) names.push_back(fmt::format("train_chunk_{}.jsonl_text_document", i));
        std::sort(names.begin(), names.end());
        std::size_t keep = names.size() - std::min(names.size(), static_cast<std::size_t>(2 * p.valid_test_chunks));
        for (std::size_t i = 0; i < keep; ++i) out.push_back({1.0, p.output_dir + "/" + names[i]});
    } else {
        out = p.prefixes;
    }
    return out;
}

Data effective_data(const Recipe& r) {
    Data d = r.data;
    if (d.kind != "prepared") return d;
    for (const Stage& s : r.stages) {
        if (s.kind != "prepare-data") continue;
        PrepareDataOptions p = prepare_data_options(r, s);
        d.kind = "prefixes";
        d.prefixes = prepared_prefixes(r, p);
        if (d.vocab_file.empty() && p.dataset != "custom") d.vocab_file = p.vocab_file;
        if (d.merge_file.empty() && p.dataset != "custom") d.merge_file = p.merge_file;
        if (d.tokenizer.empty()) d.tokenizer = "gpt2-bpe";
        break;
    }
    return d;
}

}  // namespace trainbench::recipe

// Stage options: one schema per stage kind (validate, prepare-data, train),
// checked key by key (unknown keys with did-you-mean, types, ranges); read into
// typed structs with defaults in stage_options.cpp. docs/stages.md is the reference.
#include "recipe/stage_options.hpp"

#include <trainbench/recipe.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

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

}  // namespace trainbench::recipe

// Framework profiles: recipes/catalog/frameworks/<framework>-<version>.yaml.
#include "catalog/catalog_yaml.hpp"

#include <trainbench/catalog.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <mutex>

namespace fs = std::filesystem;

namespace trainbench::catalog {

namespace {

void read_string_list(yaml::MapReader& r, std::string_view key, std::vector<std::string>& out) {
    r.read(key, out);
}

// "a.b": {"x": [..]} maps of lists, two levels (choices).
void read_choices(yaml::MapReader& r, FrameworkProfile& p) {
    const yaml::Node* n = r.get("choices");
    if (!n) return;
    Diagnostics& d = r.diagnostics();
    std::string key = r.key_path("choices");
    if (!n->is_map()) {
        yaml::type_error(d, *n, key, "a map of argument -> {value: [arguments]}");
        return;
    }
    for (const yaml::Entry& flag : n->entries) {
        std::string flag_key = yaml::join_key(key, flag.key);
        if (!flag.value.is_map()) {
            yaml::type_error(d, flag.value, flag_key, "a map of value -> [arguments]");
            continue;
        }
        for (const yaml::Entry& choice : flag.value.entries) {
            std::string choice_key = yaml::join_key(flag_key, choice.key);
            if (choice.key == "default") {
                if (auto v = yaml::as_string(choice.value, choice_key, d)) p.choice_defaults[flag.key] = *v;
                continue;
            }
            std::vector<std::string>& args = p.choices[flag.key][choice.key];
            if (choice.value.is_null()) continue;
            if (!choice.value.is_sequence()) {
                yaml::type_error(d, choice.value, choice_key, "a list of arguments");
                continue;
            }
            for (const yaml::Node& item : choice.value.items)
                if (auto v = yaml::as_string(item, choice_key, d)) args.push_back(*v);
            std::sort(args.begin(), args.end());
        }
    }
}

// One `values:` entry: "TYPE" or "action=NAME", then "nargs=N", "nullable", "choices=A|B|C"
// (one scalar per key: a profile of a thousand arguments stays quick to read).
std::optional<ValueRule> parse_value_rule(std::string_view spec) {
    ValueRule rule;
    bool first = true;
    while (!spec.empty()) {
        std::size_t space = spec.find(' ');
        std::string_view token = spec.substr(0, space);
        spec = space == std::string_view::npos ? std::string_view{} : spec.substr(space + 1);
        if (token.empty()) continue;
        if (token.rfind("action=", 0) == 0) {
            rule.action = token.substr(7);
        } else if (token.rfind("nargs=", 0) == 0) {
            rule.nargs = token.substr(6);
        } else if (token == "nullable") {
            rule.nullable = true;
        } else if (token.rfind("choices=", 0) == 0) {
            for (std::string_view rest = token.substr(8); !rest.empty();) {
                std::size_t bar = rest.find('|');
                rule.choices.emplace_back(rest.substr(0, bar));
                rest = bar == std::string_view::npos ? std::string_view{} : rest.substr(bar + 1);
            }
        } else if (first) {
            rule.type = token;
        } else {
            return std::nullopt;
        }
        first = false;
    }
    return rule;
}

// The lines of a `values:` block: "NAME SPEC" each; `line` is the number of the line before the first.
void read_value_lines(std::string_view text, const std::string& file, int line, FrameworkProfile& p, Diagnostics& d) {
    while (!text.empty()) {
        std::size_t end = text.find('\n');
        std::string_view row = text.substr(0, end);
        text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
        ++line;
        while (!row.empty() && (row.front() == ' ' || row.back() == '\r' || row.back() == ' ')) {
            if (row.front() == ' ')
                row.remove_prefix(1);
            else
                row.remove_suffix(1);
        }
        if (row.empty()) continue;
        std::size_t space = row.find(' ');
        std::optional<ValueRule> rule =
            space == std::string_view::npos ? std::nullopt : parse_value_rule(row.substr(space + 1));
        if (!rule) {
            d.error(
                SourceLocation{file, line, 3, {}}, "values",
                fmt::format("'{}' is not 'NAME TYPE [nargs=N] [nullable] [choices=A|B]' or 'NAME action=NAME'", row),
                "a rule per line");
            continue;
        }
        p.values.emplace(std::string(row.substr(0, space)), std::move(*rule));
    }
}

// values: |
//   NAME SPEC      (a block scalar, when the fast path below did not take it)
void read_values(yaml::MapReader& r, FrameworkProfile& p) {
    const yaml::Node* n = r.get("values");
    if (!n) return;
    if (!n->is_scalar()) {
        yaml::type_error(r.diagnostics(), *n, "values", "a block of lines 'NAME TYPE nargs=N nullable choices=A|B'");
        return;
    }
    read_value_lines(n->scalar, n->where.file, n->where.line, p, r.diagnostics());
}

// A profile file's text, and the `values: |` block that ends it split off: the generated profiles
// put it last, and its lines (a thousand for Megatron-LM) are read here rather than by the YAML
// parser, which costs as much again as the rest of the file. Empty block when there is none.
std::pair<std::string, std::string> split_values_block(const fs::path& file, std::string& error) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
        error = "cannot read the file";
        return {};
    }
    constexpr std::streamoff k_max_profile_bytes = 16 << 20;
    in.seekg(0, std::ios::end);
    std::streamoff size = in.tellg();
    if (size < 0 || size > k_max_profile_bytes) {
        error = fmt::format("{} bytes, more than a framework profile may be", size);
        return {};
    }
    std::string text(static_cast<std::size_t>(size), '\0');
    in.seekg(0, std::ios::beg);
    in.read(text.data(), size);
    std::size_t at = text.rfind("\nvalues: |");
    if (at == std::string::npos) return {std::move(text), std::string()};
    std::size_t body = text.find('\n', at + 1);
    std::string block = body == std::string::npos ? std::string() : text.substr(body + 1);
    // the block runs to the end: every line after it is indented (or empty)
    for (std::size_t i = 0; i < block.size(); i = block.find('\n', i) + 1) {
        if (block[i] != ' ' && block[i] != '\n' && block[i] != '\r') return {std::move(text), std::string()};
        if (block.find('\n', i) == std::string::npos) break;
    }
    text.resize(at + 1);
    return {std::move(text), std::move(block)};
}

void read_config(yaml::MapReader& r, FrameworkProfile& p) {
    const yaml::Node* n = r.get("config");
    if (!n) return;
    if (!n->is_map()) {
        yaml::type_error(r.diagnostics(), *n, r.key_path("config"), "a map of dotted key -> value");
        return;
    }
    for (const yaml::Entry& e : n->entries) p.config[e.key] = yaml::to_json(e.value);
}

}  // namespace

namespace detail {

FrameworkProfile read_framework(const fs::path& file, Diagnostics& d) {
    std::string display = file.string();
    FrameworkProfile p;
    std::string error;
    auto [text, values_block] = split_values_block(file, error);
    if (!error.empty()) {
        d.error(SourceLocation{display, 1, 1, {}}, {}, fmt::format("framework profile '{}': {}", display, error));
        return p;
    }
    yaml::Node root = yaml::parse(text, display, d);
    if (root.is_null() && d.has_errors()) return p;
    if (!values_block.empty())
        read_value_lines(values_block, display, static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 1, p, d);
    yaml::MapReader r(root, {}, d);
    if (!r.valid()) return p;
    p.where = SourceLocation{display, 1, 1, {}};
    if (!r.read("framework", p.framework)) r.require("framework", "the framework's name (nemo, megatron-lm, ...)");
    if (!r.read("version", p.version)) r.require("version", "the version this profile describes");
    r.read("title", p.title);
    r.read("schema", p.schema);
    read_string_list(r, "containers", p.containers);
    read_string_list(r, "writes", p.writes);
    if (const yaml::Node* m = r.get("format_modules")) {
        if (!m->is_map()) yaml::type_error(d, *m, "format_modules", "a map of log format -> Python module");
        for (const yaml::Entry& e : m->is_map() ? m->entries : std::vector<yaml::Entry>{})
            if (auto v = yaml::as_string(e.value, "format_modules." + e.key, d)) p.format_modules[e.key] = *v;
    }
    read_config(r, p);
    read_string_list(r, "keys", p.keys);
    read_string_list(r, "open_keys", p.open_keys);
    read_string_list(r, "positionals", p.positionals);
    std::string parser;
    if (r.read("parser", parser)) p.getopt = parser == "getopt";
    read_choices(r, p);
    read_values(r, p);
    r.finish();
    std::string want = p.framework + "-" + p.version;
    if (!p.framework.empty() && file.stem().string() != want)
        d.error(p.where, "version",
                fmt::format("a framework profile is named <framework>-<version>.yaml: '{}' describes '{}'",
                            file.filename().string(), want),
                fmt::format("'{}.yaml'", want), "rename the file or fix framework/version");
    for (const auto& [key, value] : p.config.items()) p.keys.push_back(key);
    std::sort(p.keys.begin(), p.keys.end());
    p.keys.erase(std::unique(p.keys.begin(), p.keys.end()), p.keys.end());
    if (p.title.empty()) p.title = p.framework + " " + p.version;
    if (p.schema.empty()) p.schema = p.title;
    return p;
}

}  // namespace detail

bool FrameworkProfile::knows(std::string_view key, const std::map<std::string, std::string>& chosen) const {
    if (std::binary_search(keys.begin(), keys.end(), key, std::less<>())) return true;
    for (const std::string& open : open_keys)
        if (key.size() > open.size() && key.substr(0, open.size()) == open && key[open.size()] == '.') return true;
    for (const auto& [flag, by_value] : choices) {
        auto c = chosen.find(flag);
        std::string value =
            c != chosen.end() ? c->second : (choice_defaults.count(flag) ? choice_defaults.at(flag) : "");
        auto v = by_value.find(value);
        if (v != by_value.end() && std::binary_search(v->second.begin(), v->second.end(), key, std::less<>()))
            return true;
    }
    return false;
}

std::vector<std::string> FrameworkProfile::all_keys() const {
    std::vector<std::string> out = keys;
    for (const auto& [flag, by_value] : choices)
        for (const auto& [value, args] : by_value) out.insert(out.end(), args.begin(), args.end());
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

struct FrameworkSlot {
    std::string framework, version;
    fs::path file;  // empty for a profile added in code
    std::once_flag once;
    std::shared_ptr<const FrameworkProfile> profile;

    const std::shared_ptr<const FrameworkProfile>& get() {
        std::call_once(once, [this] {
            if (profile) return;
            Diagnostics d;
            FrameworkProfile p = detail::read_framework(file, d);
            d.throw_if_errors(fmt::format("invalid framework profile '{}'", file.string()));
            profile = std::make_shared<const FrameworkProfile>(std::move(p));
        });
        return profile;
    }
};

void Catalog::add_framework(FrameworkProfile p) {
    auto slot = std::make_shared<FrameworkSlot>();
    slot->framework = p.framework;
    slot->version = p.version;
    slot->profile = std::make_shared<const FrameworkProfile>(std::move(p));
    m_frameworks[slot->framework + "@" + slot->version] = std::move(slot);
}

void Catalog::add_framework_file(const fs::path& file) {
    // The name says which profile it is (read_framework checks the content agrees).
    std::string stem = file.stem().string();
    std::size_t dash = stem.rfind('-');
    if (dash == std::string::npos || dash == 0 || dash + 1 == stem.size())
        throw InputError(fmt::format("framework profile '{}' is not named <framework>-<version>.yaml", file.string()),
                         "e.g. nemo-24.07.yaml");
    auto slot = std::make_shared<FrameworkSlot>();
    slot->framework = stem.substr(0, dash);
    slot->version = stem.substr(dash + 1);
    slot->file = file;
    m_frameworks[slot->framework + "@" + slot->version] = std::move(slot);
}

std::shared_ptr<const FrameworkProfile> Catalog::find_framework(std::string_view framework,
                                                                std::string_view version) const {
    auto it = m_frameworks.find(std::string(framework) + "@" + std::string(version));
    return it == m_frameworks.end() ? nullptr : it->second->get();
}

std::vector<std::string> Catalog::framework_versions(std::string_view framework) const {
    std::vector<std::string> out;
    for (const auto& [key, slot] : m_frameworks)
        if (slot->framework == framework) out.push_back(slot->version);
    return out;
}

std::vector<std::shared_ptr<const FrameworkProfile>> Catalog::frameworks() const {
    std::vector<std::shared_ptr<const FrameworkProfile>> out;
    for (const auto& [key, slot] : m_frameworks) out.push_back(slot->get());
    return out;
}

// ---------------------------------------------------------------- the names recipes give

namespace {

// The row of a name table (framework kinds, log formats) with this name; null when none.
template <class Row>
const Row* find_row(const std::vector<Row>& rows, std::string_view name) {
    auto it = std::find_if(rows.begin(), rows.end(), [&](const Row& r) { return r.name == name; });
    return it == rows.end() ? nullptr : &*it;
}

template <class Row>
std::vector<std::string> row_names(const std::vector<Row>& rows) {
    std::vector<std::string> out;
    for (const Row& r : rows) out.emplace_back(r.name);
    return out;
}

}  // namespace

const std::vector<FrameworkKind>& framework_kinds() {
    // NeMo writes DLLogger when metrics.source is auto (render: logs/<stage>/dllogger.json),
    // Megatron-LM and metaseq print their own lines, tinygpt writes DLLogger.
    static const std::vector<FrameworkKind> kinds = {
        {.name = "nemo",
         .log_format = "dllogger",
         .flops = "megatron",
         .config_keys = true,
         .version_from_image = true,
         .fused_attention = true},
        {.name = "megatron-lm",
         .log_format = "megatron",
         .flops = "megatron",
         .megatron_arguments = true,
         .fused_attention = true,
         .owned_outputs = {{"--save",
                            "checkpoints in each run's own directory (logs/<stage>/checkpoints, when "
                            "launch.extra_args sets --save-interval)"},
                           {"--tensorboard-dir",
                            "TensorBoard events in each run's own directory (logs/<stage>/tensorboard)"}}},
        {.name = "metaseq",
         .log_format = "metaseq",
         .flops = "megatron",
         .pipeline_parallel = false,
         .context_parallel = false,
         .min_gpus_per_node = 2,
         .shards_parameters = true,
         .owned_outputs = {{"--save-dir",
                            "checkpoints in each run's own directory (logs/<stage>/checkpoints, when "
                            "launch.extra_args sets a save interval)"},
                           {"--tensorboard-logdir",
                            "TensorBoard events in each run's own directory (logs/<stage>/tb)"}}},
        // the shipped workload: train.py --precision takes fp32 or bf16 (autocast) on a GPU,
        // and calls scaled_dot_product_attention (flash kernels)
        {.name = "tinygpt",
         .log_format = "dllogger",
         .flops = "megatron",
         .gpu_precisions = {Precision::fp32, Precision::bf16},
         .fused_attention = true},
        {.name = "custom", .log_format = "", .flops = "megatron", .own_command = true},
        // the performance scripts' configurations build the model with Transformer Engine and
        // reduce gradients in bf16 (every family's set_*_common_configs at 06f25c22:
        // ddp.grad_reduce_in_fp32 = False)
        {.name = "megatron-bridge",
         .log_format = "megatron-bridge",
         .flops = "megatron-bridge",
         .fused_attention = true,
         .bf16_gradients = true},
        // TorchTitan: FSDP2 shards parameters and gradients over the data-parallel ranks; attention
        // through scaled_dot_product_attention (flash / cuDNN kernels); job config keys in
        // framework_config (the delivered TOML)
        {.name = "torchtitan",
         .log_format = "torchtitan",
         .flops = "torchtitan",
         .config_keys = true,
         .fused_attention = true,
         .shards_parameters = true},
    };
    return kinds;
}

const FrameworkKind* find_framework_kind(std::string_view name) {
    return find_row(framework_kinds(), name);
}

std::vector<std::string> framework_kind_names() {
    return row_names(framework_kinds());
}

const std::vector<LogFormat>& log_formats() {
    static const std::vector<LogFormat> formats = {
        {"dllogger", false},   {"tensorboard", false},    {"megatron", true},   {"nemo", true},   {"metaseq", true},
        {"nccl-tests", false}, {"megatron-bridge", true}, {"torchtitan", true}, {"mlperf", true},
    };
    return formats;
}

const LogFormat* find_log_format(std::string_view name) {
    return find_row(log_formats(), name);
}

std::vector<std::string> log_format_names() {
    return row_names(log_formats());
}

const std::vector<std::string>& flops_convention_names() {
    static const std::vector<std::string> names = {
        "megatron-2025-03",
        "megatron-2024",
        "megatron-bridge-2026",
        "nemo-2025-08",
        "nemo-2024",
        "gpu-recipes-2025-05",
        "gpu-recipes-2024-10",
        "torchtitan-2026-08",
        "torchtitan-2026-02",
        "palm-2022",
        "narayanan2021",
        "megatron",
        "nemo",
        "gpu-recipes",
        "megatron-bridge",
        "torchtitan",
        "palm",
    };
    return names;
}

std::string_view default_flops_convention(std::string_view framework, std::string_view version) {
    struct Row {
        std::string_view framework, version, flops;
    };
    // NeMo: flops_formulas.py halved causal attention on 2025-08-09 (6251117f), after every NeMo
    // version listed here. Megatron-LM halved it on 2025-03-06 (8873b55d): fdfcef87 is its parent.
    static const std::vector<Row> rows = {
        {"nemo", "22.06", "nemo-2024"},
        {"nemo", "23.07", "nemo-2024"},
        {"nemo", "24.07", "nemo-2024"},
        {"megatron-lm", "fdfcef87", "megatron-2024"},
        {"megatron-lm", "e958b2ca", "megatron-2025-03"},
        {"megatron-lm", "878d65f", "megatron-2025-03"},
        {"megatron-lm", "d98e8a64", "megatron-2025-03"},
        {"torchtitan", "0.2.2", "torchtitan-2026-02"},
    };
    for (const Row& r : rows)
        if (r.framework == framework && r.version == version) return r.flops;
    const FrameworkKind* kind = find_framework_kind(framework);
    return kind ? kind->flops : std::string_view{};
}

}  // namespace trainbench::catalog

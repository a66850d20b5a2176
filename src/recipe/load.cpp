// Loading a recipe: extends chains, overrides, catalog references, schema.
#include "recipe/schema.hpp"

#include <trainbench/recipe.hpp>
#include <trainbench/yaml.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <regex>

namespace fs = std::filesystem;

namespace trainbench::recipe {

using yaml::MapReader;
using yaml::Node;

int Recipe::data_parallel() const {
    int model_parallel = parallelism.tensor * parallelism.pipeline * parallelism.context;
    int total = total_gpus();
    if (model_parallel <= 0 || total <= 0 || total % model_parallel != 0) return 0;
    return total / model_parallel;
}

Override parse_override(std::string_view text) {
    std::size_t eq = text.find('=');
    if (eq == std::string_view::npos)
        throw UsageError(fmt::format("override '{}' has no '='", text), "write -s key=value, e.g. -s nodes=2");
    Override o;
    o.key = std::string(text.substr(0, eq));
    o.value = std::string(text.substr(eq + 1));
    o.text = std::string(text);
    // trim spaces around the key
    while (!o.key.empty() && o.key.back() == ' ') o.key.pop_back();
    while (!o.key.empty() && o.key.front() == ' ') o.key.erase(o.key.begin());
    if (o.key.empty()) throw UsageError(fmt::format("override '{}' has an empty key", text), "write -s key=value");
    if (o.key.front() == '.' || o.key.back() == '.' || o.key.find("..") != std::string::npos)
        throw UsageError(fmt::format("override '{}' has a malformed key '{}'", text, o.key),
                         "keys are dotted paths such as parallelism.tensor");
    return o;
}

namespace {

// ---------------------------------------------------------------- extends

std::string display_of(const fs::path& p) {
    return p.lexically_normal().string();
}

// The directories `extends` may read from (canonical): the top recipe's directory, the
// recipes tree it belongs to (the nearest ancestor holding catalog/ or common/, else the
// directory above the recipe's), the data directories ($TRAINBENCH_RECIPES, the shipped
// recipes) and the caller's roots.
std::vector<fs::path> allowed_roots(const fs::path& top, const std::vector<fs::path>& extra) {
    std::vector<fs::path> roots;
    std::error_code ec;
    auto add = [&](const fs::path& p) {
        fs::path c = fs::weakly_canonical(p, ec);
        if (!ec && !c.empty()) roots.push_back(c);
    };
    fs::path dir = fs::weakly_canonical(top, ec).parent_path();
    add(dir);
    bool tree = false;
    for (fs::path p = dir; !p.empty() && p != p.root_path(); p = p.parent_path()) {
        if (fs::is_directory(p / "catalog", ec) || fs::is_directory(p / "common", ec)) {
            add(p);
            tree = true;
            break;
        }
    }
    // A folder of recipe folders without a catalog (bases next to the recipe's folder):
    // the parent, unless that is the file system's root.
    if (!tree && dir.has_parent_path() && dir.parent_path() != dir.root_path()) add(dir.parent_path());
    for (const fs::path& p : default_data_dirs().recipes) add(p);
    for (const fs::path& p : extra) add(p);
    return roots;
}

bool inside(const fs::path& file, const std::vector<fs::path>& roots) {
    for (const fs::path& root : roots) {
        auto [r, f] = std::mismatch(root.begin(), root.end(), file.begin(), file.end());
        if (r == root.end()) return true;
    }
    return false;
}

Node load_tree(const fs::path& file, const std::string& display, std::vector<fs::path>& stack,
               std::vector<std::string>& stack_names, Diagnostics& d, const SourceLocation& from,
               const std::vector<fs::path>& roots) {
    Node root = yaml::parse_file(file, display, d, from);
    if (root.is_null()) return root;
    if (!root.is_map()) {
        yaml::type_error(d, root, {}, "a map of recipe keys");
        return Node{};
    }
    yaml::Entry* ext = root.find_entry("extends");
    if (!ext) return root;
    Node ext_value = ext->value;
    root.erase("extends");
    std::vector<const Node*> entries;
    if (ext_value.is_scalar()) {
        entries.push_back(&ext_value);
    } else if (ext_value.is_sequence()) {
        for (const Node& i : ext_value.items) entries.push_back(&i);
    } else if (!ext_value.is_null()) {
        yaml::type_error(d, ext_value, "extends", "a file path or a list of file paths");
    }
    Node base = Node::make_map(root.where);
    for (const Node* e : entries) {
        if (!e->is_scalar() || e->scalar.empty()) {
            yaml::type_error(d, *e, "extends", "a file path (relative to this file)");
            continue;
        }
        fs::path target = file.parent_path() / e->scalar;
        std::string target_display = display_of(fs::path(display).parent_path() / e->scalar);
        std::error_code ec;
        if (!fs::is_regular_file(target, ec)) {
            d.error(e->where, "extends", fmt::format("extends file '{}' not found", e->scalar), "an existing YAML file",
                    fmt::format("paths are relative to the file that extends; resolved to '{}'", target_display));
            continue;
        }
        fs::path canonical = fs::weakly_canonical(target, ec);
        if (!inside(canonical, roots)) {
            // Never read (or quote) a file outside the recipe trees: a recipe from a pull
            // request must not be able to print /etc/passwd through an error message.
            d.error(e->where, "extends",
                    fmt::format("extends '{}' is outside the recipe's directory tree and the recipe directories",
                                e->scalar),
                    "a recipe under the recipe's own tree, the catalog, or a directory given with --recipes",
                    "pass its directory with --recipes DIR (or $TRAINBENCH_RECIPES) if it is meant to be used");
            continue;
        }
        if (std::find(stack.begin(), stack.end(), canonical) != stack.end()) {
            std::string chain;
            auto it = std::find(stack.begin(), stack.end(), canonical);
            for (auto i = static_cast<std::size_t>(it - stack.begin()); i < stack_names.size(); ++i)
                chain += stack_names[i] + " -> ";
            chain += target_display;
            d.error(e->where, "extends", fmt::format("extends cycle: {}", chain), {},
                    "remove one of the extends entries");
            continue;
        }
        if (stack.size() > 32) {
            d.error(e->where, "extends", "extends chain is too deep", "at most 32 levels");
            continue;
        }
        stack.push_back(canonical);
        stack_names.push_back(target_display);
        Node sub = load_tree(target, target_display, stack, stack_names, d, e->where, roots);
        stack.pop_back();
        stack_names.pop_back();
        if (sub.is_map()) yaml::merge(base, sub);
    }
    yaml::merge(base, root);
    return base;
}

// ---------------------------------------------------------------- overrides

std::vector<std::string> split_dots(const std::string& key) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true) {
        std::size_t dot = key.find('.', start);
        parts.push_back(key.substr(start, dot - start));
        if (dot == std::string::npos) break;
        start = dot + 1;
    }
    return parts;
}

void apply_override(Node& root, const Override& o, Diagnostics& d) {
    SourceLocation where;
    where.override_text = o.text;
    Node value = yaml::parse_value(o.value, where, d);
    if (value.is_null() && !o.value.empty() && o.value != "null" && o.value != "~") return;  // parse error reported
    std::vector<std::string> parts = split_dots(o.key);
    Node* cur = &root;
    if (!cur->is_map()) *cur = Node::make_map(where);
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
        Node* next = cur->find(parts[i]);
        if (!next) {
            next = &cur->set(parts[i], Node::make_map(where), where);
        } else if (next->is_scalar() && i == 0 && (parts[i] == "target" || parts[i] == "model")) {
            // `-s target.gpus_per_node=4` on `target: name`: an inline edit of that entry.
            Node edit = Node::make_map(next->where);
            edit.set("base", *next, next->where);
            *next = std::move(edit);
        } else if (next->is_null()) {
            *next = Node::make_map(where);
        } else if (!next->is_map()) {
            std::string prefix;
            for (std::size_t j = 0; j <= i; ++j) prefix = yaml::join_key(prefix, parts[j]);
            d.error(where, o.key, fmt::format("cannot set a key inside '{}', which is {}", prefix, next->describe()),
                    "a dotted path through maps");
            return;
        }
        cur = next;
    }
    Node* existing = cur->find(parts.back());
    if (existing && existing->is_map() && value.is_map())
        yaml::merge(*existing, value);
    else
        cur->set(parts.back(), std::move(value), where);
}

// ---------------------------------------------------------------- decoding

class Decoder {
public:
    Decoder(const catalog::Catalog& cat, Recipe& r, Diagnostics& d) : m_cat(cat), m_r(r), m_d(d) {}

    void decode(const Node& root) {
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

private:
    void decode_version_and_name(MapReader& top) {
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

    void decode_parallelism_and_batch(MapReader& top) {
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

    void decode_recompute(MapReader& top) {
        if (const Node* rc = top.get("recompute")) {
            MapReader rr(*rc, "recompute", m_d);
            rr.read_enum("granularity", m_r.recompute.granularity, {"none", "selective", "full"});
            rr.read_enum("method", m_r.recompute.method, {"block", "uniform"});
            rr.read("num_layers", m_r.recompute.num_layers, 0);
            rr.read("modules", m_r.recompute.modules);
            rr.finish();
        }
    }

    void decode_profiling(MapReader& top) {
        if (const Node* p = top.get("profiling")) {
            MapReader pr(*p, "profiling", m_d);
            pr.read("nsys", m_r.profiling.nsys);
            pr.read("start_step", m_r.profiling.start_step, 0);
            pr.read("end_step", m_r.profiling.end_step, 0);
            pr.read("ranks", m_r.profiling.ranks, 0);
            pr.finish();
        }
    }

    void decode_launch(MapReader& top) {
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

    // framework_version names a profile of recipes/catalog/frameworks/ (NeMo needs one:
    // its job's config file starts from the profile's configuration).
    void decode_framework_version(MapReader& top) {
        const Node* n = top.get("framework_version");
        std::vector<std::string> versions = m_cat.framework_versions(m_r.framework);
        if (!n) return;  // default_framework_version() picks one once the container is known
        auto v = yaml::as_string(*n, "framework_version", m_d);
        if (!v) return;
        m_r.framework_version = *v;
        m_r.profile = m_cat.find_framework(m_r.framework, *v);
        if (!m_r.profile) {
            if (versions.empty())
                m_d.error(n->where, "framework_version",
                          fmt::format("framework '{}' has no versions in the catalog", m_r.framework),
                          "no framework_version",
                          "remove framework_version, or add a profile under catalog/frameworks/");
            else
                m_d.error(n->where, "framework_version",
                          fmt::format("no profile of {} version '{}'", m_r.framework, *v),
                          fmt::format("one of {}", quoted_list(versions)), did_you_mean(*v, versions));
        }
    }

    // No framework_version: the version whose profile lists the recipe's container image,
    // else the newest the catalog has (`show` prints which).
    void default_framework_version() {
        if (!m_r.framework_version.empty()) return;
        std::vector<std::string> versions = m_cat.framework_versions(m_r.framework);
        const catalog::FrameworkKind* kind = catalog::find_framework_kind(m_r.framework);
        if (versions.empty() || (!(kind && kind->version_from_image) && versions.size() > 1)) return;
        std::string chosen = versions.back();
        for (const std::string& v : versions) {
            auto p = m_cat.find_framework(m_r.framework, v);
            if (std::find(p->containers.begin(), p->containers.end(), m_r.container.image) != p->containers.end())
                chosen = v;
        }
        m_r.framework_version = chosen;
        m_r.profile = m_cat.find_framework(m_r.framework, chosen);
    }

    // framework_config: a map of dotted keys, nested maps allowed ({model: {optim: {lr: 1}}}
    // is "model.optim.lr"); flattened in document order, so a later file's value wins.
    void decode_framework_config(MapReader& top) {
        const Node* n = top.get("framework_config");
        if (!n) return;
        if (!n->is_map()) {
            yaml::type_error(m_d, *n, "framework_config", "a map of framework config keys (model.optim.lr: 1.2e-4)");
            return;
        }
        flatten_config(*n, {});
    }
    void flatten_config(const Node& n, const std::string& prefix) {
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

    void decode_target(MapReader& top) {
        const Node* n = top.require("target", "a target of recipes/catalog/targets/ or {base: <target>, ...}");
        if (!n) return;
        std::vector<std::string> names = m_cat.target_names();
        auto lookup = [&](const Node& name_node, const std::string& key) -> bool {
            auto name = yaml::as_string(name_node, key, m_d);
            if (!name) return false;
            const catalog::Target* t = m_cat.find_target(*name);
            if (!t) {
                m_d.error(name_node.where, key, fmt::format("unknown target '{}'", *name),
                          fmt::format("one of {}", quoted_list(names)), did_you_mean(*name, names));
                return false;
            }
            m_r.target = *t;
            m_r.target_name = *name;
            return true;
        };
        if (n->is_scalar()) {
            lookup(*n, "target");
        } else if (n->is_map()) {
            MapReader tr(*n, "target", m_d);
            const Node* base = tr.require("base", "the catalog target this one edits");
            tr.allow("name");
            bool ok = base && lookup(*base, "target.base");
            catalog::Target scratch;
            catalog::read_target_fields(tr, ok ? m_r.target : scratch, m_cat.gpu_names());
            tr.finish();
        } else {
            yaml::type_error(m_d, *n, "target", "a target name or {base: <target>, ...}");
        }
        if (!m_r.target_name.empty()) {
            if (const catalog::Gpu* g = m_cat.find_gpu(m_r.target.gpu)) m_r.gpu = *g;
        }
    }

    void decode_model(MapReader& top) {
        const Node* n = top.require("model", "a model of recipes/catalog/models/ or {base: <model>, layers: ...}");
        if (!n) return;
        std::vector<std::string> names = m_cat.model_names();
        auto lookup = [&](const Node& name_node, const std::string& key) -> bool {
            auto name = yaml::as_string(name_node, key, m_d);
            if (!name) return false;
            const catalog::Model* m = m_cat.find_model(*name);
            if (!m) {
                m_d.error(name_node.where, key, fmt::format("unknown model '{}'", *name),
                          fmt::format("one of {}", quoted_list(names)), did_you_mean(*name, names));
                return false;
            }
            m_r.model = *m;
            m_r.model_name = *name;
            return true;
        };
        if (n->is_scalar()) {
            lookup(*n, "model");
        } else if (n->is_map()) {
            MapReader mr(*n, "model", m_d);
            const Node* base = mr.get("base");
            bool ok = true;
            if (base) {
                ok = lookup(*base, "model.base");
            } else {
                m_r.model = catalog::Model{};
                m_r.model.name = "custom";
                m_r.model.family = "custom";
                m_r.model.where = n->where;
            }
            std::string name;
            if (mr.read("name", name)) m_r.model.name = name;
            catalog::read_model_fields(mr, m_r.model);
            mr.finish();
            if (ok) catalog::check_model(m_r.model, n->where, "model", m_d);
        } else {
            yaml::type_error(m_d, *n, "model", "a model name or {base: <model>, ...}");
        }
    }

    void decode_data(MapReader& top) {
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

    void decode_container(MapReader& top) {
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

    void decode_env(MapReader& top) {
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

    // No metrics.flops: the convention the framework version prints (once the version is known).
    void default_flops_convention() {
        if (m_flops_given) return;
        const std::string_view conv = catalog::default_flops_convention(m_r.framework, m_r.framework_version);
        if (!conv.empty()) m_r.metrics.flops = std::string(conv);
    }

    // `metrics.window: dgxc`: a window known by name (named_windows()).
    void decode_named_window(const Node& w) {
        const NamedWindow* named = find_named_window(w.scalar);
        if (!named) {
            m_d.error(w.where, "metrics.window", fmt::format("unknown window '{}'", w.scalar),
                      "[first_step, last_step] or one of " + quoted_list(named_window_names(), " or "),
                      did_you_mean(w.scalar, named_window_names()));
            return;
        }
        m_r.metrics.window_start = named->start;
        m_r.metrics.window_end = named->end;
        m_r.metrics.window_name = std::string(named->name);
    }

    void decode_metrics(MapReader& top) {
        const Node* n = top.get("metrics");
        if (!n) return;
        m_flops_given = n->is_map() && n->find("flops") != nullptr;
        MapReader mr(*n, "metrics", m_d);
        mr.read_enum("source", m_r.metrics.source, metrics_source_names());
        mr.read("path", m_r.metrics.path);
        std::vector<int> window;
        // A name ("dgxc"); a number stays the type error of a list read below.
        if (const Node* w = mr.get("window");
            w && w->is_scalar() && !w->scalar.empty() && std::isalpha(static_cast<unsigned char>(w->scalar[0]))) {
            decode_named_window(*w);
        } else if (mr.read("window", window, 0)) {
            if (window.size() != 2) {
                m_d.error(mr.get("window")->where, "metrics.window",
                          fmt::format("window has {} value{}", window.size(), window.size() == 1 ? "" : "s"),
                          "[first_step, last_step]");
            } else {
                m_r.metrics.window_start = window[0];
                m_r.metrics.window_end = window[1];
            }
        }
        mr.read_enum("flops", m_r.metrics.flops, flops_names());
        mr.finish();
    }

    void decode_expect(MapReader& top) {
        const Node* n = top.get("expect");
        if (!n) return;
        if (!n->is_map()) {
            yaml::type_error(m_d, *n, "expect", "a map of figure: {value, tolerance} or {min, max}");
            return;
        }
        const std::vector<std::string>& figures = figure_names();
        for (const yaml::Entry& e : n->entries) {
            std::string k = yaml::join_key("expect", e.key);
            if (std::find(figures.begin(), figures.end(), e.key) == figures.end()) {
                m_d.error(e.key_where, k, fmt::format("unknown figure '{}'", e.key),
                          fmt::format("one of {}", quoted_list(figures)), did_you_mean(e.key, figures));
                continue;
            }
            MapReader er(e.value, k, m_d);
            if (!er.valid()) continue;
            Expectation x;
            x.figure = e.key;
            x.where = e.key_where;
            double v = 0;
            if (er.read("value", v)) x.value = v;
            if (er.read("min", v)) x.min = v;
            if (er.read("max", v)) x.max = v;
            if (const Node* t = er.get("tolerance")) {
                std::string tk = yaml::join_key(k, "tolerance");
                if (t->is_scalar() && !t->scalar.empty() && t->scalar.back() == '%') {
                    Node number = *t;
                    number.scalar.pop_back();
                    number.quoted = false;
                    Diagnostics scratch;
                    auto pct = yaml::as_double(number, tk, scratch);
                    if (pct && *pct >= 0) {
                        x.tolerance = *pct / 100.0;
                        x.tolerance_is_relative = true;
                    } else {
                        m_d.error(t->where, tk, fmt::format("invalid tolerance {}", t->describe()),
                                  "a percentage such as '5%' or an absolute number");
                    }
                } else if (auto abs = yaml::as_double(*t, tk, m_d)) {
                    if (*abs < 0)
                        m_d.error(t->where, tk, "negative tolerance", "a number >= 0");
                    else
                        x.tolerance = *abs;
                }
            }
            er.finish();
            if (!x.value && !x.min && !x.max)
                m_d.error(e.key_where, k, "expectation states no bound",
                          "{value: X, tolerance: 5%} or {min: X} / {max: X}");
            if (x.tolerance && !x.value)
                m_d.error(e.key_where, k, "tolerance without a value", "{value: X, tolerance: ...}");
            if (x.min && x.max && *x.min > *x.max)
                m_d.error(e.key_where, k, fmt::format("min {} is greater than max {}", *x.min, *x.max), "min <= max");
            m_r.expectations.push_back(x);
        }
    }

    void decode_slurm(MapReader& top) {
        Slurm& s = m_r.slurm;
        const catalog::SlurmDefaults& t = m_r.target.slurm;
        if (const Node* n = top.get("slurm")) {
            MapReader sr(*n, "slurm", m_d);
            sr.read("partition", s.partition);
            sr.read("account", s.account);
            sr.read("qos", s.qos);
            read_checked(sr, "time", s.time, slurm_time_problem, slurm_time_forms());
            sr.read("exclusive", s.exclusive);
            sr.read("mem", s.mem);
            sr.read("use_gres", s.use_gres);
            sr.read("constraint", s.constraint);
            sr.read("network", s.network);
            sr.read("job_name_prefix", s.job_name_prefix);
            sr.read("cpus_per_task", s.cpus_per_task, 0);
            sr.read("segment", s.segment, 0, 1024);
            decode_slurm_knobs(sr, s);
            sr.finish();
        }
        // Unset values come from the target.
        if (s.partition.empty()) s.partition = t.partition;
        if (s.account.empty()) s.account = t.account;
        if (s.time.empty()) s.time = t.time;
        if (!s.exclusive) s.exclusive = t.exclusive;
        if (s.mem.empty()) s.mem = t.mem;
        if (!s.use_gres) s.use_gres = t.use_gres;
        if (s.cpus_per_task == 0) s.cpus_per_task = t.cpus_per_task;
    }

    // Reads a string key and reports `problem(value)` at it.
    bool read_checked(MapReader& r, std::string_view key, std::string& out, std::string (*problem)(std::string_view),
                      std::string_view expected) {
        if (!r.read(key, out)) return false;
        if (std::string p = problem(out); !p.empty()) {
            m_d.error(r.get(key)->where, r.key_path(key), p, std::string(expected));
            return false;
        }
        return true;
    }
    void read_checked_list(MapReader& r, std::string_view key, std::vector<std::string>& out,
                           std::string (*problem)(std::string_view), std::string_view expected) {
        if (!r.read(key, out)) return;
        const Node* n = r.get(key);
        for (std::size_t i = 0; i < out.size(); ++i)
            if (std::string p = problem(out[i]); !p.empty())
                m_d.error(n->items[i].where, fmt::format("{}[{}]", r.key_path(key), i), p, std::string(expected));
    }

    // Placement and pass-through knobs: host lists, reservation, extra #SBATCH lines and srun arguments.
    void decode_slurm_knobs(MapReader& sr, Slurm& s) {
        read_checked(sr, "nodelist", s.nodelist, hostlist_problem, "a Slurm host list such as 'gpu-[1-4],gpu-7'");
        read_checked(sr, "exclude", s.exclude, hostlist_problem, "a Slurm host list such as 'gpu-[1-4],gpu-7'");
        read_checked(sr, "reservation", s.reservation, slurm_name_problem, "a reservation name");
        read_checked_list(sr, "directives", s.directives, sbatch_directive_problem,
                          "one sbatch option per item, such as '--gres-flags=enforce-binding'");
        read_checked_list(sr, "srun_args", s.srun_args, srun_argument_problem,
                          "one srun option per item, such as '--mpi=pmix'");
    }

    void decode_kubernetes(MapReader& top) {
        Kubernetes& k = m_r.kubernetes;
        if (const Node* n = top.get("kubernetes")) {
            MapReader kr(*n, "kubernetes", m_d);
            kr.read("namespace", k.namespace_name);
            kr.read("queue", k.queue);
            kr.read("service_account", k.service_account);
            kr.read("image_pull_secrets", k.image_pull_secrets);
            kr.read("results_pvc", k.results_pvc);
            kr.read("results_bucket", k.results_bucket);
            if (const Node* in = kr.get("install")) {
                kr.read("install", k.install);
                if (k.install != "kubectl" && k.install != "helm")
                    m_d.error(in->where, "kubernetes.install", fmt::format("unknown install method '{}'", k.install),
                              "'kubectl' (apply the manifests) or 'helm' (install the chart)",
                              did_you_mean(k.install, {"kubectl", "helm"}));
            }
            if (const Node* ns = kr.get("node_selector")) {
                if (!ns->is_map()) {
                    yaml::type_error(m_d, *ns, "kubernetes.node_selector", "a map of label: value");
                } else {
                    for (const yaml::Entry& e : ns->entries)
                        if (auto v = yaml::as_string(e.value, "kubernetes.node_selector." + e.key, m_d))
                            k.node_selector[e.key] = *v;
                }
            }
            kr.finish();
        }
        if (k.namespace_name.empty()) k.namespace_name = m_r.target.kubernetes.namespace_name;
        if (k.queue.empty()) k.queue = m_r.target.kubernetes.queue;
        if (k.node_selector.empty()) k.node_selector = m_r.target.kubernetes.node_selector;
    }

    void decode_stages(MapReader& top) {
        const Node* n = top.get("stages");
        if (!n) return;
        if (!n->is_sequence()) {
            yaml::type_error(m_d, *n, "stages", "a list of {name, kind, dependency, options}");
            return;
        }
        const std::vector<std::string>& kinds = stage_kind_names();
        for (std::size_t i = 0; i < n->items.size(); ++i) {
            std::string k = fmt::format("stages[{}]", i);
            MapReader sr(n->items[i], k, m_d);
            if (!sr.valid()) continue;
            Stage s;
            s.where = n->items[i].where;
            if (sr.require("name", "a stage name such as 'train'")) sr.read("name", s.name);
            if (!sr.read_enum("kind", s.kind, kinds)) {
                if (!sr.get("kind") && std::find(kinds.begin(), kinds.end(), s.name) != kinds.end())
                    s.kind = s.name;
                else if (!sr.get("kind"))
                    sr.require("kind", fmt::format("one of {}", quoted_list(kinds)));
            }
            sr.read_enum("dependency", s.dependency, {"afterok", "afterany", "afternotok", "none"});
            read_checked(sr, "time", s.time, slurm_time_problem, slurm_time_forms());
            sr.read("mem", s.mem);
            if (const Node* o = sr.get("options")) {
                if (!o->is_map())
                    yaml::type_error(m_d, *o, k + ".options", "a map of stage settings");
                else
                    s.options = yaml::to_json(*o);
            }
            sr.finish();
            for (const Stage& other : m_r.stages)
                if (!s.name.empty() && other.name == s.name)
                    m_d.error(s.where, k + ".name", fmt::format("duplicate stage name '{}'", s.name),
                              "unique stage names");
            m_r.stages.push_back(std::move(s));
        }
    }

    const catalog::Catalog& m_cat;
    Recipe& m_r;
    Diagnostics& m_d;
    bool m_flops_given = false;  // the recipe names metrics.flops
};

// ---------------------------------------------------------------- origins

void record_origins(const Node& n, const std::string& key, std::map<std::string, SourceLocation>& out) {
    if (n.is_map()) {
        if (!key.empty()) out[key] = n.where;
        for (const yaml::Entry& e : n.entries) record_origins(e.value, yaml::join_key(key, e.key), out);
        return;
    }
    out[key] = n.where;
    if (n.is_sequence())  // each item too: an error about one word of launch.extra_args points at it
        for (std::size_t i = 0; i < n.items.size(); ++i) record_origins(n.items[i], fmt::format("{}[{}]", key, i), out);
}

void fill_from(const nlohmann::ordered_json& j, const std::string& key, const SourceLocation& where,
               std::map<std::string, SourceLocation>& out) {
    if (j.is_object() && !j.empty()) {
        for (const auto& [k, v] : j.items()) fill_from(v, yaml::join_key(key, k), where, out);
        return;
    }
    if (!out.count(key)) out[key] = where;
}

}  // namespace

// ---------------------------------------------------------------- entry point

bool inside_recipe_roots(const fs::path& from, const fs::path& target, const std::vector<fs::path>& extra) {
    std::error_code ec;
    return inside(fs::weakly_canonical(target, ec), allowed_roots(from, extra));
}

struct RecipeSource::Tree {
    Node root;
    Diagnostics diagnostics;  // problems found while reading (reported by every load)
};

RecipeSource RecipeSource::read(const fs::path& file, const std::vector<fs::path>& roots) {
    auto tree = std::make_shared<Tree>();
    std::string display = file.string();
    std::vector<fs::path> stack;
    std::vector<std::string> stack_names;
    std::error_code ec;
    if (!fs::is_regular_file(file, ec))
        throw InputError(fmt::format("recipe '{}' not found", display), "give the path of a recipe YAML file");
    stack.push_back(fs::weakly_canonical(file, ec));
    stack_names.push_back(display);
    tree->root = load_tree(file, display, stack, stack_names, tree->diagnostics, {}, allowed_roots(file, roots));
    if (tree->diagnostics.has_errors() && tree->root.is_null())
        tree->diagnostics.throw_if_errors(fmt::format("invalid recipe '{}'", display));
    RecipeSource source;
    source.m_file = file;
    source.m_tree = std::move(tree);
    return source;
}

Recipe load_recipe(const fs::path& file, const catalog::Catalog& catalog, const LoadOptions& options) {
    return load_recipe(RecipeSource::read(file, options.recipe_roots), catalog, options);
}

Recipe load_recipe(const RecipeSource& source, const catalog::Catalog& catalog, const LoadOptions& options) {
    const fs::path& file = source.file();
    std::string display = file.string();
    Diagnostics d = source.tree().diagnostics;
    Node root = source.tree().root;
    for (const Override& o : options.overrides) apply_override(root, o, d);

    Recipe r;
    r.file = file;
    Decoder(catalog, r, d).decode(root);
    record_origins(root, {}, r.origins);
    r.resolved = to_json(r);
    // Values that came from the catalog entry rather than the recipe.
    // The name of a referenced entry comes from the recipe ("target: x" or "target: {base: x}").
    for (const std::string ref : {"target", "model"}) {
        if (r.origins.count(ref + ".name")) continue;
        if (auto base = r.origins.find(ref + ".base"); base != r.origins.end())
            r.origins[ref + ".name"] = base->second;
        else if (auto it = r.origins.find(ref); it != r.origins.end())
            r.origins[ref + ".name"] = it->second;
    }
    if (!r.target_name.empty()) fill_from(r.resolved["target"], "target", r.target.where, r.origins);
    if (!r.model_name.empty()) {
        fill_from(r.resolved["model"], "model", r.model.where, r.origins);
        // A catalog model's keys are located at their own line of the model's file.
        for (const auto& [key, loc] : r.model.key_where) {
            auto it = r.origins.find("model." + key);
            if (it != r.origins.end() && it->second.file == r.model.where.file &&
                it->second.line == r.model.where.line && it->second.column == r.model.where.column)
                it->second = loc;
        }
    }
    d.throw_if_errors(fmt::format("invalid recipe '{}'", display));
    return r;
}

Recipe load_valid_recipe(const fs::path& file, const catalog::Catalog& catalog, const LoadOptions& options) {
    Recipe r = load_recipe(file, catalog, options);
    Diagnostics d;
    validate_recipe(r, d);
    d.throw_if_errors(fmt::format("invalid recipe '{}'", file.string()));
    return r;
}

}  // namespace trainbench::recipe

namespace trainbench::recipe {

std::vector<fs::path> find_recipe_files(const fs::path& dir) {
    std::vector<fs::path> out;
    std::error_code ec;
    if (fs::is_regular_file(dir, ec)) return {dir};
    if (!fs::is_directory(dir, ec)) return out;
    fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
    for (; it != end; it.increment(ec)) {
        if (ec) break;
        const fs::path& p = it->path();
        std::string leaf = p.filename().string();
        if (it->is_directory(ec)) {
            if (leaf == "catalog" || leaf == "common" || (!leaf.empty() && leaf[0] == '.'))
                it.disable_recursion_pending();
            continue;
        }
        std::string ext = p.extension().string();
        if (ext == ".yaml" || ext == ".yml") out.push_back(p);
    }
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace trainbench::recipe

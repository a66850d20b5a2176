// Reading a sweep file: base, name template, set, matrix, zip, exclude, max_points.
#include <trainbench/sweep.hpp>
#include <trainbench/yaml.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <set>

namespace fs = std::filesystem;

namespace trainbench::sweep {

using yaml::MapReader;
using yaml::Node;

namespace {

// A node as YAML text the recipe loader parses back to the same value.
std::string yaml_text(const Node& n) {
    switch (n.kind) {
        case yaml::Kind::null:
            return "null";
        case yaml::Kind::scalar:
            return n.quoted ? yaml_quote(n.scalar) : n.scalar;
        case yaml::Kind::sequence: {
            std::string out = "[";
            for (std::size_t i = 0; i < n.items.size(); ++i) {
                if (i) out += ", ";
                out += yaml_text(n.items[i]);
            }
            return out + "]";
        }
        case yaml::Kind::map: {
            std::string out = "{";
            for (std::size_t i = 0; i < n.entries.size(); ++i) {
                if (i) out += ", ";
                out += yaml_quote(n.entries[i].key) + ": " + yaml_text(n.entries[i].value);
            }
            return out + "}";
        }
    }
    return {};
}

AxisValue axis_value(const Node& n) {
    AxisValue v;
    v.yaml = yaml_text(n);
    v.display = n.is_scalar() ? n.scalar : v.yaml;
    v.where = n.where;
    return v;
}

bool valid_key(const std::string& key) {
    if (key.empty() || key.front() == '.' || key.back() == '.' || key.find("..") != std::string::npos) return false;
    return std::all_of(key.begin(), key.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
               c == '-';
    });
}

void check_key(Diagnostics& d, const SourceLocation& where, const std::string& section, const std::string& key) {
    if (!valid_key(key))
        d.error(where, section, fmt::format("malformed recipe key '{}'", key),
                "a dotted recipe key such as 'parallelism.tensor'");
    else if (key == "name")
        d.error(where, section, "'name' is set by the sweep's name template", {},
                "write the point name in the top-level 'name:' template");
    else if (key == "version" || key == "extends")
        d.error(where, section, fmt::format("'{}' cannot vary in a sweep", key), {}, "change it in the base recipe");
}

std::vector<Axis> read_axes(const Node& node, const std::string& section, Diagnostics& d) {
    std::vector<Axis> axes;
    if (node.is_null()) return axes;
    if (!node.is_map()) {
        yaml::type_error(d, node, section, "a map of recipe key -> list of values");
        return axes;
    }
    for (const yaml::Entry& e : node.entries) {
        std::string k = section + "." + e.key;
        check_key(d, e.key_where, k, e.key);
        Axis a;
        a.key = e.key;
        a.where = e.key_where;
        if (!e.value.is_sequence()) {
            yaml::type_error(d, e.value, k, "a list of values, e.g. [1, 2, 4]");
            continue;
        }
        if (e.value.items.empty()) {
            d.error(e.value.where, k, "empty list of values", "at least one value",
                    "remove the key to keep the base recipe's value");
            continue;
        }
        for (const Node& item : e.value.items) a.values.push_back(axis_value(item));
        axes.push_back(std::move(a));
    }
    return axes;
}

const std::vector<std::string>& ops() {
    static const std::vector<std::string> v = {"==", "!=", "<", "<=", ">", ">=", "in", "not in"};
    return v;
}

bool is_number(const std::string& s) {
    if (s.empty()) return false;
    char* end = nullptr;
    std::strtod(s.c_str(), &end);
    return end && *end == '\0';
}

void read_exclude(const Node& node, SweepSpec& spec, Diagnostics& d) {
    if (node.is_null()) return;
    if (!node.is_sequence()) {
        yaml::type_error(d, node, "exclude", "a list of rules, e.g. [{nodes: 2, parallelism.tensor: 8}]");
        return;
    }
    for (std::size_t i = 0; i < node.items.size(); ++i) {
        const Node& item = node.items[i];
        std::string k = fmt::format("exclude[{}]", i);
        if (!item.is_map() || item.entries.empty()) {
            yaml::type_error(d, item, k, "a map of key: value (all must match) or {key: K, op: '<', value: V}");
            continue;
        }
        ExcludeRule rule;
        rule.where = item.where;
        if (item.find("op")) {
            MapReader r(item, k, d);
            Condition c;
            c.where = item.where;
            r.read("key", c.key);
            if (!r.get("key")) r.require("key", "the recipe key to compare, e.g. 'nodes'");
            r.read_enum("op", c.op, ops());
            const Node* v = r.require("value", "the value to compare with");
            r.finish();
            if (!c.key.empty()) check_key(d, item.where, k + ".key", c.key);
            if (v) {
                bool list_op = c.op == "in" || c.op == "not in";
                if (list_op) {
                    if (!v->is_sequence()) {
                        yaml::type_error(d, *v, k + ".value", fmt::format("a list of values for '{}'", c.op));
                        continue;
                    }
                    for (const Node& x : v->items) c.values.push_back(axis_value(x).display);
                } else {
                    if (!v->is_scalar()) {
                        yaml::type_error(d, *v, k + ".value", "one value");
                        continue;
                    }
                    c.values.push_back(v->scalar);
                    if (c.op != "==" && c.op != "!=" && !is_number(v->scalar))
                        d.error(v->where, k + ".value", fmt::format("'{}' needs a number, got '{}'", c.op, v->scalar),
                                "a number");
                }
            }
            rule.conditions.push_back(std::move(c));
        } else {
            for (const yaml::Entry& e : item.entries) {
                Condition c;
                c.key = e.key;
                c.where = e.key_where;
                check_key(d, e.key_where, k + "." + e.key, e.key);
                if (e.key == "key" || e.key == "value") {
                    d.error(e.key_where, k, fmt::format("'{}' without 'op'", e.key), {},
                            "a comparison is {key: nodes, op: '<', value: 4}");
                    continue;
                }
                if (e.value.is_sequence()) {
                    c.op = "in";
                    for (const Node& x : e.value.items) c.values.push_back(axis_value(x).display);
                } else {
                    c.values.push_back(axis_value(e.value).display);
                }
                rule.conditions.push_back(std::move(c));
            }
        }
        spec.exclude.push_back(std::move(rule));
    }
}

// version (must be 1) and the sweep's own name (it names runs/_sweeps/<name>/).
void read_version_and_name(MapReader& top, SweepSpec& spec, Diagnostics& d) {
    if (const Node* v = top.get("version")) {
        if (auto n = yaml::as_int(*v, "version", d); n && *n != 1)
            d.error(v->where, "version", fmt::format("unsupported sweep version {}", *n), "1");
    }
    if (const Node* n = top.get("sweep")) {
        if (auto s = yaml::as_string(*n, "sweep", d)) {
            if (s->empty() || !valid_key(*s) || s->find('.') == 0)
                d.error(n->where, "sweep", fmt::format("invalid sweep name '{}'", *s),
                        "letters, digits, '.', '_' or '-' (it names runs/_sweeps/<name>/)");
            else
                spec.name = *s;
        }
    }
}

// base: an existing recipe inside the recipe trees, relative to the sweep file.
void read_base(MapReader& top, const fs::path& file, SweepSpec& spec, Diagnostics& d) {
    const Node* b = top.require("base", "the base recipe, relative to this file");
    if (!b) return;
    auto s = yaml::as_string(*b, "base", d);
    if (!s) return;
    spec.base = file.parent_path() / *s;
    std::error_code ec;
    if (!recipe::inside_recipe_roots(file, spec.base))
        // Never read (or quote) a file outside the recipe trees, as for extends.
        d.error(b->where, "base",
                fmt::format("base '{}' is outside the sweep's directory tree and the recipe directories", *s),
                "a recipe under the sweep file's own tree, the catalog, or a directory given with --recipes",
                "pass its directory with --recipes DIR (or $TRAINBENCH_RECIPES) if it is meant to be used");
    else if (!fs::is_regular_file(spec.base, ec))
        d.error(b->where, "base", fmt::format("base recipe '{}' not found", *s), "an existing recipe file",
                fmt::format("paths are relative to the sweep file; resolved to '{}'",
                            spec.base.lexically_normal().string()));
}

// name: the point name template, with balanced single braces.
void read_name_template(MapReader& top, SweepSpec& spec, Diagnostics& d) {
    const Node* n = top.require("name", "a point name template such as '{model}-{nodes}n-tp{parallelism.tensor}'");
    if (!n) return;
    auto s = yaml::as_string(*n, "name", d);
    if (!s) return;
    spec.name_template = *s;
    spec.name_where = n->where;
    int depth = 0;
    for (std::size_t i = 0; i < s->size(); ++i) {
        char c = (*s)[i];
        if ((c == '{' || c == '}') && i + 1 < s->size() && (*s)[i + 1] == c) {
            ++i;
            continue;
        }
        if (c == '{') ++depth;
        if (c == '}') --depth;
        if (depth < 0 || depth > 1) break;
    }
    if (depth != 0)
        d.error(n->where, "name", fmt::format("unbalanced braces in name template '{}'", *s),
                "'{key}' placeholders; '{{' and '}}' for literal braces");
}

// set: recipe key -> value, the same for every point.
void read_set(MapReader& top, SweepSpec& spec, Diagnostics& d) {
    const Node* s = top.get("set");
    if (!s) return;
    if (!s->is_map()) {
        yaml::type_error(d, *s, "set", "a map of recipe key -> value");
        return;
    }
    for (const yaml::Entry& e : s->entries) {
        check_key(d, e.key_where, "set." + e.key, e.key);
        AxisValue v = axis_value(e.value);
        v.where = e.key_where;
        spec.set.emplace_back(e.key, std::move(v));
    }
}

// zip: lists of one length, stepped through together.
void read_zip(MapReader& top, SweepSpec& spec, Diagnostics& d) {
    const Node* z = top.get("zip");
    if (!z) return;
    spec.zip = read_axes(*z, "zip", d);
    for (const Axis& a : spec.zip)
        if (a.values.size() != spec.zip.front().values.size())
            d.error(a.where, "zip." + a.key,
                    fmt::format("zip lists differ in length: '{}' has {} values, '{}' has {}", a.key, a.values.size(),
                                spec.zip.front().key, spec.zip.front().values.size()),
                    "lists of the same length (zip steps through them together)", "use matrix for every combination");
}

// max_points: an integer >= 1.
void read_max_points(MapReader& top, SweepSpec& spec, Diagnostics& d) {
    const Node* mp = top.get("max_points");
    if (!mp) return;
    spec.max_points_where = mp->where;
    if (auto n = yaml::as_int(*mp, "max_points", d)) {
        if (*n < 1)
            d.error(mp->where, "max_points", fmt::format("max_points {}", *n), "an integer >= 1");
        else
            spec.max_points = static_cast<std::size_t>(*n);
    }
}

// A key may vary (or be set) in one place only.
void check_keys_given_once(const SweepSpec& spec, Diagnostics& d) {
    std::map<std::string, std::string> seen;  // key -> section
    auto claim = [&](const std::string& key, const std::string& section, const SourceLocation& where) {
        auto [it, inserted] = seen.emplace(key, section);
        if (!inserted)
            d.error(where, section + "." + key, fmt::format("key '{}' is already given in '{}'", key, it->second),
                    "each key in one of set, matrix or zip");
        for (const auto& [other, sec] : seen) {
            if (other == key) continue;
            if (other.rfind(key + ".", 0) == 0 || key.rfind(other + ".", 0) == 0)
                d.error(where, section + "." + key, fmt::format("key '{}' overlaps '{}' (in '{}')", key, other, sec),
                        "keys that do not contain one another");
        }
    };
    for (const auto& [k, v] : spec.set) claim(k, "set", v.where);
    for (const Axis& a : spec.matrix) claim(a.key, "matrix", a.where);
    for (const Axis& a : spec.zip) claim(a.key, "zip", a.where);
}

}  // namespace

SweepSpec parse_sweep(std::string_view text, const fs::path& file) {
    Diagnostics d;
    Node root = yaml::parse(text, file.string(), d);
    d.throw_if_errors(fmt::format("invalid sweep '{}'", file.string()));
    SweepSpec spec;
    spec.file = file;
    spec.name = file.stem().string();
    MapReader top(root, {}, d);
    if (!top.valid()) {
        if (!root.is_map()) yaml::type_error(d, root, {}, "a map with base, name, matrix/zip, ...");
        d.throw_if_errors(fmt::format("invalid sweep '{}'", file.string()));
    }
    read_version_and_name(top, spec, d);
    top.read("description", spec.description);
    read_base(top, file, spec, d);
    read_name_template(top, spec, d);
    read_set(top, spec, d);
    if (const Node* m = top.get("matrix")) spec.matrix = read_axes(*m, "matrix", d);
    read_zip(top, spec, d);
    if (const Node* e = top.get("exclude")) read_exclude(*e, spec, d);
    read_max_points(top, spec, d);
    top.finish();

    check_keys_given_once(spec, d);
    if (spec.matrix.empty() && spec.zip.empty() && !d.has_errors())
        d.error(root.where, "matrix", "the sweep has no axes", "a 'matrix' or a 'zip' with at least one key");
    d.throw_if_errors(fmt::format("invalid sweep '{}'", file.string()));
    return spec;
}

SweepSpec load_sweep(const fs::path& file) {
    std::error_code ec;
    if (!fs::is_regular_file(file, ec))
        throw InputError(fmt::format("sweep file '{}' not found", file.string()), "give the path of a sweep YAML file");
    return parse_sweep(read_file(file), file);
}

std::size_t raw_point_count(const SweepSpec& spec) {
    // Saturates instead of overflowing: the cap check only needs "more than".
    std::size_t n = spec.zip.empty() ? 1 : spec.zip.front().values.size();
    for (const Axis& a : spec.matrix) {
        std::size_t k = a.values.size();
        if (k != 0 && n > static_cast<std::size_t>(-1) / k) return static_cast<std::size_t>(-1);
        n *= k;
    }
    return n;
}

}  // namespace trainbench::sweep

// The values of a sweep's points: content hashes, a recipe's value by key (for names and
// exclusions), exclusion conditions, the keys a sweep names and the point name template.
#include "sweep/values.hpp"

#include <trainbench/sweep.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

namespace trainbench::sweep {

// ---------------------------------------------------------------- hashing

std::string fnv1a_hex(std::string_view bytes) {
    return fmt::format("{:016x}", fnv1a(bytes));
}

std::string point_hash(const recipe::Recipe& recipe) {
    // nlohmann::json (not ordered) sorts object keys: a canonical form.
    nlohmann::json canonical = recipe.resolved.is_null() ? nlohmann::json::object() : nlohmann::json(recipe.resolved);
    return fnv1a_hex(canonical.dump());
}

// ---------------------------------------------------------------- values

namespace {

std::string scalar_text(const nlohmann::ordered_json& j) {
    if (j.is_string()) return j.get<std::string>();
    if (j.is_boolean()) return j.get<bool>() ? "true" : "false";
    if (j.is_null()) return "null";
    return j.dump();
}

std::optional<double> number(const std::string& s) {
    if (s.empty()) return std::nullopt;
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (!end || *end != '\0') return std::nullopt;
    return v;
}

const std::vector<std::string>& derived_keys() {
    static const std::vector<std::string> v = {"gpus", "model_parallel", "data_parallel"};
    return v;
}

// Free-form maps: any key below them is a recipe key.
bool free_form(const std::string& prefix) {
    return prefix == "env" || prefix == "expect" || prefix == "kubernetes.node_selector" || prefix == "model" ||
           prefix == "target";
}

}  // namespace

bool condition_holds(const Condition& c, const std::string& actual) {
    auto equal = [&](const std::string& want) {
        auto a = number(actual), b = number(want);
        if (a && b) return *a == *b;
        return actual == want;
    };
    if (c.op == "==") return equal(c.values.front());
    if (c.op == "!=") return !equal(c.values.front());
    if (c.op == "in") return std::any_of(c.values.begin(), c.values.end(), equal);
    if (c.op == "not in") return std::none_of(c.values.begin(), c.values.end(), equal);
    auto a = number(actual), b = number(c.values.front());
    if (!a || !b) return false;
    if (c.op == "<") return *a < *b;
    if (c.op == "<=") return *a <= *b;
    if (c.op == ">") return *a > *b;
    if (c.op == ">=") return *a >= *b;
    return false;
}

// Checks that `key` names something in the resolved base recipe.
void check_recipe_key(const nlohmann::ordered_json& resolved, const std::string& key, const SourceLocation& where,
                      const std::string& section, Diagnostics& d, bool allow_derived) {
    if (allow_derived && std::find(derived_keys().begin(), derived_keys().end(), key) != derived_keys().end()) return;
    const nlohmann::ordered_json* cur = &resolved;
    std::string prefix;
    for (const std::string& part : split_dots(key)) {
        if (!cur->is_object()) {
            d.error(where, section, fmt::format("'{}' is not a map: cannot vary '{}'", prefix, key),
                    "a dotted path through maps");
            return;
        }
        auto it = cur->find(part);
        if (it == cur->end()) {
            if (free_form(prefix)) return;
            std::vector<std::string> names;
            for (const auto& [k, v] : cur->items()) names.push_back(prefix.empty() ? k : prefix + "." + k);
            if (allow_derived && prefix.empty())
                names.insert(names.end(), derived_keys().begin(), derived_keys().end());
            std::string full = prefix.empty() ? part : prefix + "." + part;
            d.error(where, section, fmt::format("unknown recipe key '{}'", key), {}, did_you_mean(full, names));
            return;
        }
        prefix = prefix.empty() ? part : prefix + "." + part;
        cur = &*it;
    }
}

std::string sanitize_name(const std::string& s) {
    std::string out;
    for (char c : s) {
        char l = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
        bool ok = (l >= 'a' && l <= 'z') || (l >= '0' && l <= '9') || l == '.' || l == '_' || l == '-';
        out += ok ? l : '-';
    }
    return out;
}

// The keys the name template names, in order.
std::vector<std::string> template_keys(const std::string& t) {
    std::vector<std::string> keys;
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (t[i] == '{' && i + 1 < t.size() && t[i + 1] == '{') {
            ++i;
            continue;
        }
        if (t[i] == '{') {
            std::size_t close = t.find('}', i);
            if (close == std::string::npos) break;
            keys.push_back(t.substr(i + 1, close - i - 1));
            i = close;
        }
    }
    return keys;
}

std::vector<std::string> format_diagnostics(const Diagnostics& d, std::vector<std::string>* warnings) {
    std::vector<std::string> out;
    for (const Diagnostic& x : d.sorted()) {
        std::string text = x.format();
        while (!text.empty() && text.back() == '\n') text.pop_back();
        if (x.severity == Severity::error)
            out.push_back(std::move(text));
        else if (warnings)
            warnings->push_back(std::move(text));
    }
    return out;
}

std::optional<std::string> lookup_value(const recipe::Recipe& r, std::string_view key) {
    if (key == "model") return r.model_name.empty() ? r.model.name : r.model_name;
    if (key == "target") return r.target_name.empty() ? r.target.name : r.target_name;
    if (key == "gpus") return std::to_string(r.total_gpus());
    if (key == "model_parallel")
        return std::to_string(r.parallelism.tensor * r.parallelism.pipeline * r.parallelism.context);
    if (key == "data_parallel") return std::to_string(r.data_parallel());
    if (key == "gpu") return r.gpu.name;
    const nlohmann::ordered_json* cur = &r.resolved;
    for (const std::string& part : split_dots(key)) {
        if (!cur->is_object()) return std::nullopt;
        auto it = cur->find(part);
        if (it == cur->end()) return std::nullopt;
        cur = &*it;
    }
    if (cur->is_object()) {
        auto n = cur->find("name");
        if (n != cur->end() && n->is_string()) return n->get<std::string>();
        return cur->dump();
    }
    if (cur->is_array()) return cur->dump();
    return scalar_text(*cur);
}

}  // namespace trainbench::sweep

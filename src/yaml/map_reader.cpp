// Typed reads of the YAML tree: scalars as int/double/bool/string with located type errors,
// and MapReader (known keys, ranges, enumerations, unknown keys with did-you-mean).
#include <trainbench/yaml.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

namespace trainbench::yaml {

// ---------------------------------------------------------------- scalars

void type_error(Diagnostics& d, const Node& node, const std::string& key, std::string_view expected) {
    d.error(node.where, key, fmt::format("wrong type: got {}", node.describe()), std::string(expected));
}

std::optional<std::int64_t> as_int(const Node& node, const std::string& key, Diagnostics& d) {
    if (node.is_scalar() && !node.quoted) {
        const std::string& s = node.scalar;
        std::int64_t v = 0;
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec == std::errc() && p == s.data() + s.size() && !s.empty()) return v;
        if (ec == std::errc::result_out_of_range) {
            d.error(node.where, key, fmt::format("integer {} is out of range", node.describe()), "an integer");
            return std::nullopt;
        }
    }
    type_error(d, node, key, "an integer");
    return std::nullopt;
}

std::optional<double> as_double(const Node& node, const std::string& key, Diagnostics& d) {
    if (node.is_scalar() && !node.quoted) {
        const std::string& s = node.scalar;
        double v = 0;
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec == std::errc() && p == s.data() + s.size() && !s.empty() && std::isfinite(v)) return v;
    }
    type_error(d, node, key, "a number");
    return std::nullopt;
}

std::optional<bool> as_bool(const Node& node, const std::string& key, Diagnostics& d) {
    if (node.is_scalar() && !node.quoted) {
        const std::string& s = node.scalar;
        if (s == "true" || s == "True" || s == "TRUE") return true;
        if (s == "false" || s == "False" || s == "FALSE") return false;
        if (s == "yes" || s == "no" || s == "on" || s == "off" || s == "1" || s == "0") {
            d.error(node.where, key, fmt::format("wrong type: got {}", node.describe()), "true or false",
                    "write true or false");
            return std::nullopt;
        }
    }
    type_error(d, node, key, "true or false");
    return std::nullopt;
}

std::optional<std::string> as_string(const Node& node, const std::string& key, Diagnostics& d) {
    if (node.is_scalar()) return node.scalar;
    type_error(d, node, key, "a string");
    return std::nullopt;
}

std::string join_key(std::string_view prefix, std::string_view key) {
    if (prefix.empty()) return std::string(key);
    return fmt::format("{}.{}", prefix, key);
}

// ---------------------------------------------------------------- MapReader

std::string suggest(std::string_view word, const std::vector<std::string>& candidates) {
    std::string hint = did_you_mean(word, candidates);
    if (!hint.empty()) return hint;
    // A long shared prefix is a near miss too ("profile" ~ "profiling").
    std::size_t best_len = 0;
    std::string best;
    for (const std::string& c : candidates) {
        std::size_t n = 0;
        while (n < word.size() && n < c.size() && word[n] == c[n]) ++n;
        if (n > best_len) {
            best_len = n;
            best = c;
        }
    }
    if (best_len >= 4 && best_len * 3 >= word.size() * 2) return fmt::format("did you mean '{}'?", best);
    return {};
}

MapReader::MapReader(const Node& node, std::string path, Diagnostics& diagnostics)
    : m_node(node), m_path(std::move(path)), m_diagnostics(diagnostics) {
    m_valid = node.is_map() || node.is_null();
    if (!m_valid) type_error(m_diagnostics, node, m_path, "a map of keys");
}

const Node* MapReader::get(std::string_view key) {
    allow(key);
    if (!m_node.is_map()) return nullptr;
    const Node* n = m_node.find(key);
    if (!n || n->is_null()) return nullptr;
    return n;
}

void MapReader::allow(std::string_view key) {
    if (std::find(m_known.begin(), m_known.end(), key) == m_known.end()) m_known.emplace_back(key);
}

const Node* MapReader::require(std::string_view key, std::string_view expected) {
    const Node* n = get(key);
    if (!n && m_valid)
        m_diagnostics.error(m_node.where, key_path(key), "required key is missing", std::string(expected),
                            fmt::format("add '{}: ...'", key));
    return n;
}

bool MapReader::read(std::string_view key, int& out, int min, int max) {
    const Node* n = get(key);
    if (!n) return false;
    std::string k = key_path(key);
    std::optional<std::int64_t> v = as_int(*n, k, m_diagnostics);
    if (!v) return false;
    if (*v < min || *v > max) {
        std::string expected =
            max == INT_MAX ? fmt::format("an integer >= {}", min) : fmt::format("an integer from {} to {}", min, max);
        m_diagnostics.error(n->where, k, fmt::format("value {} is out of range", *v), expected);
        return false;
    }
    out = static_cast<int>(*v);
    return true;
}

bool MapReader::read(std::string_view key, double& out, double min) {
    const Node* n = get(key);
    if (!n) return false;
    std::string k = key_path(key);
    std::optional<double> v = as_double(*n, k, m_diagnostics);
    if (!v) return false;
    if (*v < min) {
        m_diagnostics.error(n->where, k, fmt::format("value {} is out of range", n->scalar),
                            fmt::format("a number >= {}", min));
        return false;
    }
    out = *v;
    return true;
}

bool MapReader::read(std::string_view key, bool& out) {
    const Node* n = get(key);
    if (!n) return false;
    std::optional<bool> v = as_bool(*n, key_path(key), m_diagnostics);
    if (!v) return false;
    out = *v;
    return true;
}

bool MapReader::read(std::string_view key, std::optional<bool>& out) {
    bool v = false;
    if (!read(key, v)) return false;
    out = v;
    return true;
}

bool MapReader::read(std::string_view key, std::string& out) {
    const Node* n = get(key);
    if (!n) return false;
    std::optional<std::string> v = as_string(*n, key_path(key), m_diagnostics);
    if (!v) return false;
    out = *v;
    return true;
}

bool MapReader::read(std::string_view key, std::vector<std::string>& out) {
    const Node* n = get(key);
    if (!n) return false;
    std::string k = key_path(key);
    if (!n->is_sequence()) {
        type_error(m_diagnostics, *n, k, "a list of strings");
        return false;
    }
    std::vector<std::string> values;
    bool ok = true;
    for (std::size_t i = 0; i < n->items.size(); ++i) {
        std::optional<std::string> v = as_string(n->items[i], fmt::format("{}[{}]", k, i), m_diagnostics);
        if (v)
            values.push_back(*v);
        else
            ok = false;
    }
    if (ok) out = std::move(values);
    return ok;
}

bool MapReader::read(std::string_view key, std::vector<int>& out, int min) {
    const Node* n = get(key);
    if (!n) return false;
    std::string k = key_path(key);
    if (!n->is_sequence()) {
        type_error(m_diagnostics, *n, k, "a list of integers");
        return false;
    }
    std::vector<int> values;
    bool ok = true;
    for (std::size_t i = 0; i < n->items.size(); ++i) {
        std::string ik = fmt::format("{}[{}]", k, i);
        std::optional<std::int64_t> v = as_int(n->items[i], ik, m_diagnostics);
        if (!v) {
            ok = false;
        } else if (*v < min || *v > INT_MAX) {
            m_diagnostics.error(n->items[i].where, ik, fmt::format("value {} is out of range", *v),
                                fmt::format("an integer >= {}", min));
            ok = false;
        } else {
            values.push_back(static_cast<int>(*v));
        }
    }
    if (ok) out = std::move(values);
    return ok;
}

bool MapReader::read_enum(std::string_view key, std::string& out, const std::vector<std::string>& allowed) {
    const Node* n = get(key);
    if (!n) return false;
    std::string k = key_path(key);
    std::optional<std::string> v = as_string(*n, k, m_diagnostics);
    if (!v) return false;
    if (std::find(allowed.begin(), allowed.end(), *v) == allowed.end()) {
        m_diagnostics.error(n->where, k, fmt::format("unknown value '{}'", *v),
                            fmt::format("one of {}", quoted_list(allowed)), suggest(*v, allowed));
        return false;
    }
    out = *v;
    return true;
}

void MapReader::finish() {
    if (!m_node.is_map()) return;
    for (const Entry& e : m_node.entries) {
        if (std::find(m_known.begin(), m_known.end(), e.key) != m_known.end()) continue;
        std::string hint = suggest(e.key, m_known);
        std::vector<std::string> sorted = m_known;
        std::sort(sorted.begin(), sorted.end());
        if (hint.empty()) hint = fmt::format("known keys here: {}", quoted_list(sorted, ", "));
        m_diagnostics.error(e.key_where, key_path(e.key), "unknown key", {}, hint);
    }
}

}  // namespace trainbench::yaml

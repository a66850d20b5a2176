// The resolved recipe as YAML (show), optionally with each value's origin.
#include "recipe/schema.hpp"

#include <trainbench/recipe.hpp>

#include <fmt/format.h>

#include <regex>

namespace trainbench::recipe {

namespace {

using json = nlohmann::ordered_json;

std::string scalar_text(const json& v) {
    if (v.is_string()) {
        const std::string& s = v.get_ref<const std::string&>();
        static const std::regex plain("[A-Za-z_/.][A-Za-z0-9_./@+=-]*");
        static const std::regex reserved(
            "(true|false|yes|no|on|off|null|True|False|Yes|No|On|Off|Null|TRUE|FALSE|NULL|~)");
        if (!s.empty() && std::regex_match(s, plain) && !std::regex_match(s, reserved) && s.back() != '.') return s;
        return yaml_quote(s);
    }
    if (v.is_null()) return "null";
    return v.dump();
}

bool is_scalar_list(const json& v) {
    for (const json& i : v)
        if (i.is_object() || i.is_array()) return false;
    return true;
}

class Emitter {
public:
    Emitter(const Recipe& r, bool with_origins) : m_r(r), m_origins(with_origins) {}

    void map(const json& obj, int indent, const std::string& path, std::vector<std::string>& lines) {
        for (const auto& [k, v] : obj.items()) {
            std::string key_path = path.empty() ? k : fmt::format("{}.{}", path, k);
            std::string pad(static_cast<std::size_t>(indent), ' ');
            std::string key = scalar_text(json(k));
            if (v.is_object() && !v.empty()) {
                lines.push_back(fmt::format("{}{}:", pad, key));
                map(v, indent + 2, key_path, lines);
            } else if (v.is_array() && !v.empty() && !is_scalar_list(v)) {
                lines.push_back(fmt::format("{}{}:", pad, key));
                for (std::size_t i = 0; i < v.size(); ++i) {
                    std::vector<std::string> item;
                    std::string item_path = fmt::format("{}[{}]", key_path, i);
                    if (v[i].is_object() && !v[i].empty()) {
                        map(v[i], indent + 4, item_path, item);
                        item.front().replace(0, static_cast<std::size_t>(indent) + 4, pad + "  - ");
                    } else {
                        item.push_back(fmt::format("{}  - {}", pad, flow(v[i])));
                    }
                    lines.insert(lines.end(), item.begin(), item.end());
                }
            } else {
                lines.push_back(with_origin(fmt::format("{}{}: {}", pad, key, flow(v)), key_path));
            }
        }
    }

private:
    std::string flow(const json& v) {
        if (v.is_object()) {
            if (v.empty()) return "{}";
            std::string out = "{";
            bool first = true;
            for (const auto& [k, x] : v.items()) {
                out += fmt::format("{}{}: {}", first ? "" : ", ", scalar_text(json(k)), flow(x));
                first = false;
            }
            return out + "}";
        }
        if (v.is_array()) {
            std::string out = "[";
            for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + flow(v[i]);
            return out + "]";
        }
        return scalar_text(v);
    }

    std::string with_origin(std::string line, const std::string& key) {
        if (!m_origins) return line;
        const SourceLocation* where = find_origin(m_r, key);
        std::string origin = where ? where->to_string() : "default";
        std::size_t width = line.size() < 48 ? 48 - line.size() : 1;
        return line + std::string(width, ' ') + "# " + origin;
    }

    const Recipe& m_r;
    bool m_origins;
};

}  // namespace

std::string to_yaml(const Recipe& recipe, bool with_origins) {
    json resolved = recipe.resolved.is_null() ? to_json(recipe) : recipe.resolved;
    std::vector<std::string> lines;
    Emitter(recipe, with_origins).map(resolved, 0, {}, lines);
    std::string out;
    for (const std::string& l : lines) out += l + "\n";
    return out;
}

}  // namespace trainbench::recipe

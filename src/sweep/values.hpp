// Private to sweep: the helpers expand.cpp takes from values.cpp.
#pragma once

#include <trainbench/sweep.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace trainbench::sweep {

// Whether `actual` (a point's value of c.key) meets the exclusion condition `c`; numbers compare as numbers.
[[nodiscard]] bool condition_holds(const Condition& c, const std::string& actual);

// Checks that `key` names something in the resolved base recipe (or, with `allow_derived`, is one
// of the derived keys gpus, model_parallel, data_parallel); reports at `where` under `section`.
void check_recipe_key(const nlohmann::ordered_json& resolved, const std::string& key, const SourceLocation& where,
                      const std::string& section, Diagnostics& d, bool allow_derived);

// `s` lower-cased, with every character a recipe name cannot hold replaced by '-'.
[[nodiscard]] std::string sanitize_name(const std::string& s);

// The keys the name template names, in order.
[[nodiscard]] std::vector<std::string> template_keys(const std::string& t);

// The name template with each {key} replaced by lookup(key) ("{{" and "}}" are braces), sanitized.
template <class Lookup>
std::string render_name(const std::string& t, Lookup&& lookup) {
    std::string out;
    for (std::size_t i = 0; i < t.size(); ++i) {
        char c = t[i];
        if ((c == '{' || c == '}') && i + 1 < t.size() && t[i + 1] == c) {
            out += c;
            ++i;
            continue;
        }
        if (c == '{') {
            std::size_t close = t.find('}', i);
            if (close == std::string::npos) break;
            out += lookup(t.substr(i + 1, close - i - 1));
            i = close;
            continue;
        }
        out += c;
    }
    return sanitize_name(out);
}

// The errors of `d` as text, sorted; its warnings go to `warnings` when given.
[[nodiscard]] std::vector<std::string> format_diagnostics(const Diagnostics& d,
                                                          std::vector<std::string>* warnings = nullptr);

}  // namespace trainbench::sweep

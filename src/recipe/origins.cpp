// Origins: where each value of a loaded recipe was set (file:line:column or override).
#include "recipe/loading.hpp"

#include <fmt/format.h>

namespace trainbench::recipe {

using yaml::Node;

namespace {

void fill_from(const nlohmann::ordered_json& j, const std::string& key, const SourceLocation& where,
               std::map<std::string, SourceLocation>& out) {
    if (j.is_object() && !j.empty()) {
        for (const auto& [k, v] : j.items()) fill_from(v, yaml::join_key(key, k), where, out);
        return;
    }
    if (!out.count(key)) out[key] = where;
}

}  // namespace

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

void record_catalog_origins(Recipe& r) {
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
}

}  // namespace trainbench::recipe

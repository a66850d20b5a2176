// Private to recipe: the enumerations of the recipe language, the resolved
// JSON tree and origin lookups shared by load, validate and emit.
#pragma once

#include <trainbench/recipe.hpp>

#include <string>
#include <vector>

namespace trainbench::recipe {

const std::vector<std::string>& framework_names();
const std::vector<std::string>& metrics_source_names();
const std::vector<std::string>& flops_names();
const std::vector<std::string>& figure_names();
const std::vector<std::string>& stage_kind_names();
const std::vector<std::string>& log_format_names();

// The catalog's row of the recipe's framework (what validate and the memory estimate know of
// it); a row of defaults for a name the catalog lacks (validate reports the name).
const catalog::FrameworkKind& framework_kind(const Recipe& r);

// The resolved recipe in schema order (what `show` prints).
nlohmann::ordered_json to_json(const Recipe& r);

// Where `key` was set: the exact key, else its nearest parent (a value that
// came with its map or list), else the recipe file itself.
SourceLocation origin_of(const Recipe& r, const std::string& key);
// The origin, or nothing when the value is a default.
const SourceLocation* find_origin(const Recipe& r, const std::string& key);

}  // namespace trainbench::recipe

// Private to recipe: stage options (JSON) looked up by dotted path, shared by the schema
// check (stages.cpp) and the typed readers (stage_options.cpp).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace trainbench::recipe {

// The value at a dotted path ("nccl.build.path") of `o`, or null.
[[nodiscard]] const nlohmann::ordered_json* find_path(const nlohmann::ordered_json& o, std::string_view path);

// A string as itself, any other value as JSON.
[[nodiscard]] std::string value_text(const nlohmann::ordered_json& v);

}  // namespace trainbench::recipe

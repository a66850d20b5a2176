// Private: the run directory's JSON files as text. Invalid UTF-8 (a job name, a command's
// output) is replaced, never thrown on, so a record is always writable.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace trainbench::run {

// `j` as text, compact by default or indented by `indent` spaces.
[[nodiscard]] inline std::string dump(const nlohmann::ordered_json& j, int indent = -1) {
    return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace trainbench::run

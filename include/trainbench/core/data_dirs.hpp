// core/data_dirs.hpp: where the shipped data (recipes/, templates/,
// workloads/) lives, and the program's version. Part of core's public header:
// include <trainbench/core.hpp>.
#pragma once

#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

namespace trainbench {

// Where shipped data lives. Search order for each kind: the explicit flag,
// then the environment variable (TRAINBENCH_RECIPES, TRAINBENCH_TEMPLATES,
// TRAINBENCH_WORKLOADS), then ./<kind> next to the binary's source tree when
// run from a build directory, then the installed $prefix/share/trainbench/<kind>.
struct DataDirs {
    std::vector<std::filesystem::path> recipes;    // catalog (targets/, models/, gpus.yaml) + seed recipes
    std::vector<std::filesystem::path> templates;  // user directories first: they override shipped templates
    std::filesystem::path workloads;
};
[[nodiscard]] DataDirs default_data_dirs(const std::optional<std::filesystem::path>& recipes_flag = {},
                                         const std::optional<std::filesystem::path>& templates_flag = {});

[[nodiscard]] std::string_view version();

}  // namespace trainbench

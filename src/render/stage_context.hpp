// The context keys of the validate and prepare-data stages (docs/stages.md).
#pragma once

#include "render/shell_word.hpp"

#include <trainbench/recipe.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace trainbench::render {

// Whether a prepare-data stage runs a custom command (rendered like any command stage).
[[nodiscard]] bool prepare_is_custom(const recipe::Stage& stage);

// Adds "validate", "prepare", "has_array", "array_spec_sh" and "array_size" to the context `c`.
void add_stage_context(const recipe::Recipe& r, const recipe::Stage& stage, catalog::Scheduler scheduler,
                       int gpus_per_node, nlohmann::ordered_json& c);

// The "validate" context: DCGM and nccl-tests steps of a validate stage (src/render/validate_context.cpp).
[[nodiscard]] nlohmann::ordered_json validate_context(const recipe::Recipe& r, const recipe::ValidateOptions& v,
                                                      const std::string& log_dir, int gpus_per_node);

// Shared by the stage contexts.
[[nodiscard]] nlohmann::ordered_json plain_words(const std::vector<ShellWord>& words);
[[nodiscard]] std::string join_shell(const std::vector<ShellWord>& words);
// Shell words with each "--flag" (and its values) on a continued line of its own.
[[nodiscard]] std::string join_shell_lines(const std::vector<ShellWord>& words, const std::string& indent);
// pyxis flags for an srun in a container (empty when no image); the run directory is always mounted.
[[nodiscard]] std::vector<ShellWord> container_flags(const std::string& image, const std::vector<std::string>& mounts);
// [{name, value_sh}] with names checked.
[[nodiscard]] nlohmann::ordered_json env_json(const catalog::EnvList& env);

}  // namespace trainbench::render

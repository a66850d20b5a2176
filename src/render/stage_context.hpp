// The context keys of the validate and prepare-data stages (docs/stages.md).
#pragma once

#include <trainbench/recipe.hpp>

#include <nlohmann/json.hpp>

namespace trainbench::render {

// Whether a prepare-data stage runs a custom command (rendered like any command stage).
[[nodiscard]] bool prepare_is_custom(const recipe::Stage& stage);

// Adds "validate", "prepare", "has_array", "array_spec_sh" and "array_size" to the context `c`.
void add_stage_context(const recipe::Recipe& r, const recipe::Stage& stage, catalog::Scheduler scheduler,
                       int gpus_per_node, nlohmann::ordered_json& c);

}  // namespace trainbench::render

// Private to catalog and recipe: reading catalog entities from located YAML.
// The same functions read a catalog file and an inline edit in a recipe
// (`target: {base: aws-p4d-24xlarge, gpus_per_node: 4}`), so both get the same
// keys, types and messages.
#pragma once

#include "core/yaml_reader.hpp"

#include <trainbench/catalog.hpp>

#include <string>
#include <vector>

namespace trainbench::catalog::detail {

// Reads the Target fields present in the map into `t` (absent keys keep their
// value). `gpu_names` checks the gpu reference (did-you-mean on a near miss).
void read_target_fields(yaml::MapReader& r, Target& t, const std::vector<std::string>& gpu_names);
// Reads the Model fields present in the map into `m`.
void read_model_fields(yaml::MapReader& r, Model& m);
// Shape checks of a model (positive sizes, hidden divisible by heads, ...).
void check_model(const Model& m, const SourceLocation& where, const std::string& key, Diagnostics& d);

// Reads one framework profile file (frameworks.cpp); problems go to `d`.
FrameworkProfile read_framework(const std::filesystem::path& file, Diagnostics& d);

// The lists behind the enumerations (for messages and docs).
const std::vector<std::string>& scheduler_names();
const std::vector<std::string>& fabric_names();
const std::vector<std::string>& container_runtime_names();
const std::vector<std::string>& activation_names();
const std::vector<std::string>& position_names();

}  // namespace trainbench::catalog::detail

// Private to catalog: reading catalog files from located YAML (the entity
// readers that recipes share are public, in catalog.hpp).
#pragma once

#include <trainbench/catalog.hpp>
#include <trainbench/yaml.hpp>

#include <string>
#include <vector>

namespace trainbench::catalog::detail {

// Reads one framework profile file (frameworks.cpp); problems go to `d`.
FrameworkProfile read_framework(const std::filesystem::path& file, Diagnostics& d);
// Reads recipes/catalog/gpus.yaml into `cat` (gpus.cpp); problems go to `d`.
void load_gpus(const std::filesystem::path& file, Catalog& cat, Diagnostics& d);

// The lists behind the enumerations (for messages and docs).
const std::vector<std::string>& scheduler_names();
const std::vector<std::string>& fabric_names();
const std::vector<std::string>& activation_names();
const std::vector<std::string>& position_names();
const std::vector<std::string>& norm_names();            // models.cpp
const std::vector<std::string>& rope_scaling_names();    // models.cpp
const std::vector<std::string>& score_function_names();  // models.cpp
const std::vector<std::string>& attention_names();       // models.cpp

}  // namespace trainbench::catalog::detail

// The shipped catalog's GPUs, for tests that need a real GPU entry (peaks come from the catalog
// only: recipes/catalog/gpus.yaml).
#pragma once

#include <trainbench/catalog.hpp>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace trainbench::testing {

inline const catalog::Catalog& shipped_gpu_catalog() {
    static const catalog::Catalog cat = catalog::Catalog::load(
        {std::filesystem::path(TRAINBENCH_SOURCE_DIR) / "recipes"}, catalog::CatalogParts::without_targets);
    return cat;
}

inline const catalog::Gpu& shipped_gpu(std::string_view name) {
    const catalog::Gpu* g = shipped_gpu_catalog().find_gpu(name);
    if (!g) throw std::logic_error("no shipped GPU " + std::string(name));
    return *g;
}

}  // namespace trainbench::testing

// The shipped catalog's GPUs and models, for tests that need a real entry (peaks come from the
// catalog only: recipes/catalog/gpus.yaml; models from recipes/catalog/models/*.yaml).
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

inline const catalog::Model& shipped_model(std::string_view name) {
    const catalog::Model* m = shipped_gpu_catalog().find_model(name);
    if (!m) throw std::logic_error("no shipped model " + std::string(name));
    return *m;
}

}  // namespace trainbench::testing

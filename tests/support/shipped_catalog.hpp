// The catalog the project ships (recipes/catalog: targets, models, GPUs, framework profiles),
// loaded once per test binary from the source tree.
#pragma once

#include "support/source_dir.hpp"

#include <trainbench/catalog.hpp>

namespace trainbench::testing {

inline const catalog::Catalog& shipped_catalog() {
    static const catalog::Catalog cat = catalog::Catalog::load({source_dir() / "recipes"});
    return cat;
}

}  // namespace trainbench::testing

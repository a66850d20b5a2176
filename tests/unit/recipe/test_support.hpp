// Helpers shared by the recipe tests: the shipped catalog and the test data folders.
#pragma once

#include "support/shipped_catalog.hpp"
#include "support/source_dir.hpp"

#include <trainbench/recipe.hpp>

#include <filesystem>
#include <string>

namespace trainbench::recipe::test {

using ::trainbench::testing::source_dir;

inline std::filesystem::path data_dir() {
    return source_dir() / "tests" / "data" / "recipes";
}

using trainbench::testing::shipped_catalog;

// Loads a test recipe with overrides ("k=v" each).
inline Recipe load(const std::filesystem::path& file, const std::vector<std::string>& overrides = {}) {
    LoadOptions o;
    for (const std::string& s : overrides) o.overrides.push_back(parse_override(s));
    return load_recipe(file, shipped_catalog(), o);
}

// Every diagnostic (and the error message) of loading + validating, formatted; "" when valid.
inline std::string problems(const std::filesystem::path& file, const std::vector<std::string>& overrides = {}) {
    try {
        Recipe r = load(file, overrides);
        Diagnostics d;
        validate_recipe(r, d);
        return d.format();
    } catch (const InputError& e) {
        return e.diagnostics().format() + e.what();
    }
}

}  // namespace trainbench::recipe::test

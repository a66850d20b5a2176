// Shared by the sweep, plan and pipeline tests: the shipped catalog, a
// temporary directory, and a sweep expanded from text.
#pragma once

#include "support/shipped_catalog.hpp"
#include "support/source_dir.hpp"
#include "support/temp_dir.hpp"

#include <trainbench/sweep.hpp>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace sweep_test {

namespace fs = std::filesystem;
using namespace trainbench;
using trainbench::testing::TempDir;

inline const fs::path k_source = trainbench::testing::source_dir();

using trainbench::testing::shipped_catalog;

inline std::string p4d_5b() {
    return (k_source / "recipes/aws-p4d/gpt3-5b.yaml").string();
}

inline sweep::Expansion expand_text(const TempDir& dir, const std::string& text) {
    fs::path f = dir.write("s.yaml", text);
    return sweep::expand(sweep::load_sweep(f), shipped_catalog());
}

inline std::string all_diagnostics(const InputError& e) {
    std::string s = e.what();
    for (const Diagnostic& d : e.diagnostics().items()) s += "\n" + d.format();
    return s;
}

}  // namespace sweep_test

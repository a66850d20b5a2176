// Shared by the sweep, plan and pipeline tests: the shipped catalog, a
// temporary directory, and a sweep expanded from text.
#pragma once

#include <trainbench/sweep.hpp>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace sweep_test {

namespace fs = std::filesystem;
using namespace trainbench;

inline const fs::path k_source = TRAINBENCH_SOURCE_DIR;

inline const catalog::Catalog& shipped_catalog() {
    static const catalog::Catalog c = catalog::Catalog::load({k_source / "recipes"});
    return c;
}

class TempDir {
public:
    TempDir() {
        m_path = fs::temp_directory_path() / fmt::format("tb-sweep-test-{}-{}", ::getpid(), s_counter++);
        fs::create_directories(m_path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(m_path, ec);
    }
    [[nodiscard]] const fs::path& path() const { return m_path; }
    fs::path write(const std::string& name, const std::string& text) const {
        fs::path p = m_path / name;
        std::ofstream(p) << text;
        return p;
    }

private:
    fs::path m_path;
    static inline int s_counter = 0;
};

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

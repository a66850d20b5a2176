// The source tree the tests read their data from: $TRAINBENCH_SOURCE_DIR (which
// tests/unit/test_environment.cpp sets to this build's source tree unless it is set already),
// else the tree this binary was built from (TRAINBENCH_SOURCE_DIR, defined for every test binary
// in tests/CMakeLists.txt).
#pragma once

#include <cstdlib>
#include <filesystem>

namespace trainbench::testing {

inline std::filesystem::path source_dir() {
    const char* s = std::getenv("TRAINBENCH_SOURCE_DIR");
    return s && *s ? std::filesystem::path(s) : std::filesystem::path(TRAINBENCH_SOURCE_DIR);
}

}  // namespace trainbench::testing

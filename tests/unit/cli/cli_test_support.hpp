// The CLI driven in-process through cli::run(args, out, err), as main() drives it.
#pragma once

#include "support/source_dir.hpp"
#include "support/temp_dir.hpp"

#include <trainbench/cli.hpp>
#include <trainbench/core.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace cli_test {

using trainbench::testing::source_dir;
using trainbench::testing::TempDir;

struct Result {
    int code = 0;
    std::string out;
    std::string err;
};

inline Result run(const std::vector<std::string>& args) {
    std::ostringstream out, err;
    Result r;
    r.code = trainbench::cli::run(args, out, err);
    r.out = out.str();
    r.err = err.str();
    return r;
}

// Compares `actual` with the golden file, or writes it with TRAINBENCH_UPDATE_GOLDEN=1.
inline void expect_golden(const std::filesystem::path& file, const std::string& actual) {
    const char* update = std::getenv("TRAINBENCH_UPDATE_GOLDEN");
    if (update && std::string(update) == "1") {
        std::filesystem::create_directories(file.parent_path());
        trainbench::write_file_atomic(file, actual);
        return;
    }
    ASSERT_TRUE(std::filesystem::exists(file))
        << "missing golden " << file << " (regenerate with TRAINBENCH_UPDATE_GOLDEN=1)";
    EXPECT_EQ(actual, trainbench::read_file(file)) << "golden " << file;
}

}  // namespace cli_test

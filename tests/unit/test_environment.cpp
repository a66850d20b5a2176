// Linked into every unit-test binary: the environment the tests read
// (TRAINBENCH_BINARY, TRAINBENCH_SOURCE_DIR, TRAINBENCH_SHARED_DIR) defaults to
// this build's paths, so a test binary behaves the same under ctest and when run
// by hand. (gtest_discover_tests cannot carry a list-valued ENVIRONMENT property.)
#include <cstdlib>

namespace {
struct TestEnvironmentDefaults {
    TestEnvironmentDefaults() {
        ::setenv("TRAINBENCH_BINARY", TRAINBENCH_BINARY_PATH, 0);
        ::setenv("TRAINBENCH_SOURCE_DIR", TRAINBENCH_SOURCE_DIR, 0);
        ::setenv("TRAINBENCH_SHARED_DIR", TRAINBENCH_SHARED_DIR, 0);
    }
};
const TestEnvironmentDefaults g_defaults;
}  // namespace

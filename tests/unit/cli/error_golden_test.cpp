// Golden files of the error paths users hit (tests/golden/cli/errors/<case>.txt):
// the exit code and every byte of stderr, as cli::run prints them. Paths of the
// source tree and of the temporary run store are written as @SRC@ and @RUNS@.
// Regenerate with TRAINBENCH_UPDATE_GOLDEN=1 and review the diff.
#include "cli_test_support.hpp"

#include <trainbench/core.hpp>
#include <trainbench/pipeline.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace fs = std::filesystem;
using namespace trainbench;

namespace {

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
    if (from.empty()) return text;
    for (std::size_t pos = 0; (pos = text.find(from, pos)) != std::string::npos; pos += to.size())
        text.replace(pos, from.size(), to);
    return text;
}

class ErrorGolden : public ::testing::Test {
protected:
    [[nodiscard]] fs::path runs() const { return m_dir.path() / "runs"; }
    [[nodiscard]] static std::string src(const std::string& rel) { return (cli_test::source_dir() / rel).string(); }

    // Runs the CLI with an empty run store and compares the exit code, stdout and stderr with
    // the golden.
    void check(const std::string& name, std::vector<std::string> args, ExitCode want,
               const std::vector<std::pair<std::string, std::string>>& also_replace = {}) {
        args.insert(args.begin(), {"--runs", runs().string()});
        cli_test::Result r = cli_test::run(args);
        EXPECT_EQ(r.code, static_cast<int>(want)) << r.err;
        std::string text = fmt::format("exit {}\n--- stdout\n{}--- stderr\n{}", r.code, r.out, r.err);
        for (const auto& [from, to] : also_replace) text = replace_all(text, from, to);
        text = replace_all(replace_all(text, runs().string(), "@RUNS@"), cli_test::source_dir().string(), "@SRC@");
        cli_test::expect_golden(cli_test::source_dir() / "tests" / "golden" / "cli" / "errors" / (name + ".txt"), text);
    }

    cli_test::TempDir m_dir;
};

}  // namespace

TEST_F(ErrorGolden, UnknownCommandSaysDidYouMean) {
    check("unknown-command", {"sumbit", src("recipes/local/tinygpt.yaml")}, ExitCode::usage);
}

TEST_F(ErrorGolden, UnknownOption) {
    check("unknown-option", {"validate", src("recipes/local/tinygpt.yaml"), "--strictt"}, ExitCode::usage);
}

TEST_F(ErrorGolden, MissingRecipeFile) {
    check("missing-recipe", {"submit", src("recipes/local/no-such-recipe.yaml")}, ExitCode::invalid_input);
}

TEST_F(ErrorGolden, BadOverrideKeySaysDidYouMean) {
    check("bad-override-key", {"submit", src("recipes/local/tinygpt.yaml"), "-s", "nodez=2"}, ExitCode::invalid_input);
    EXPECT_FALSE(fs::exists(runs())) << "a refused submission created the run store";
}

TEST_F(ErrorGolden, ReportOnAMissingRun) {
    check("report-missing-run", {"report", "abc123"}, ExitCode::usage);
}

TEST_F(ErrorGolden, SweepNoWaitWhileAnotherSubmitsIsBusy) {
    const fs::path sweep_file = cli_test::source_dir() / "tests" / "data" / "cli" / "sweep-report" / "sweep.yaml";
    const fs::path lock_path = pipeline::state_lock_file(runs(), "report-fixture");
    fs::create_directories(lock_path.parent_path());
    std::optional<FileLock> held = FileLock::try_lock(lock_path);
    ASSERT_TRUE(held.has_value());
    check("sweep-busy", {"sweep", sweep_file.string(), "--no-wait"}, ExitCode::busy,
          {{FileLock::holder(lock_path), "@HOLDER@"}});
}

// Outputs written as they go rather than built whole: `parse --json` gives exactly the
// document nlohmann::json's dump(2) would, and `sweep --dry-run -o` makes each point
// appear whole (staged, synced once, renamed into place), replacing an earlier render.
#include "cli_test_support.hpp"

#include <trainbench/core.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <sys/stat.h>
#include <utility>
#include <vector>

namespace fs = std::filesystem;

namespace {

std::string sweep_file() {
    return (cli_test::source_dir() / "tests" / "data" / "cli" / "sweep-report" / "sweep.yaml").string();
}

// Every file under `dir` (relative path -> content), and whether a staging directory is left.
std::map<std::string, std::string> tree(const fs::path& dir, bool& staging_left) {
    std::map<std::string, std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
        const std::string rel = fs::relative(e.path(), dir).generic_string();
        if (rel.rfind(".trainbench-staging", 0) == 0) staging_left = true;
        if (e.is_regular_file()) files[rel] = trainbench::read_file(e.path());
    }
    return files;
}

}  // namespace

TEST(StreamedOutput, ParseJsonIsWhatDumpWouldWrite) {
    const std::vector<std::pair<std::string, std::string>> samples = {
        {"dllogger_example_resnet_log.json", "dllogger"},
        {"go-tensorboard_events.out.tfevents.1585499054.Jaakkos-Mac-mini.local.11684.5.v2", "tensorboard"}};
    for (const auto& [sample, format] : samples) {
        const fs::path log = fs::path(TRAINBENCH_SHARED_DIR) / "samples" / sample;
        if (!fs::exists(log)) GTEST_SKIP() << log << " is not here";
        cli_test::Result r = cli_test::run({"--json", "-q", "parse", "--format", format, log.string()});
        ASSERT_EQ(r.code, 0) << r.err;
        const nlohmann::json j = nlohmann::json::parse(r.out);
        ASSERT_FALSE(j.at("series").empty()) << sample;
        EXPECT_EQ(r.out, j.dump(2) + "\n") << sample;
    }
}

TEST(StreamedOutput, SweepPointsAppearWholeAndReplaceAnEarlierRender) {
    cli_test::TempDir tmp;
    const fs::path out = tmp.path() / "rendered";
    cli_test::Result first = cli_test::run({"sweep", sweep_file(), "--dry-run", "-o", out.string()});
    ASSERT_EQ(first.code, 0) << first.err;
    bool staging = false;
    const auto files = tree(out, staging);
    ASSERT_FALSE(files.empty());
    EXPECT_FALSE(staging);
    const std::string point = files.begin()->first.substr(0, files.begin()->first.find('/'));
    // A file left from an earlier render of a point goes with the point it belonged to.
    {
        std::ofstream stale(out / point / "stale.txt");
        stale << "old\n";
    }
    cli_test::Result second = cli_test::run({"sweep", sweep_file(), "--dry-run", "-o", out.string()});
    ASSERT_EQ(second.code, 0) << second.err;
    EXPECT_EQ(tree(out, staging), files);
    EXPECT_FALSE(staging);
    EXPECT_FALSE(fs::exists(out / point / "stale.txt"));
    for (const auto& [rel, content] : files) {
        if (rel.size() > 3 && rel.substr(rel.size() - 3) == ".sh") {
            EXPECT_NE(fs::status(out / rel).permissions() & fs::perms::owner_exec, fs::perms::none) << rel;
        }
    }
}

// Rendered files have the job files' modes whatever the caller's umask: 0644, or 0755 for scripts.
TEST(StreamedOutput, SweepPointFilesHaveTheirModesUnderAnyUmask) {
    std::map<std::string, fs::perms> first;
    for (mode_t mask : {mode_t{022}, mode_t{077}, mode_t{0}, mode_t{027}}) {
        cli_test::TempDir tmp;
        const fs::path out = tmp.path() / "rendered";
        const mode_t old = ::umask(mask);
        cli_test::Result r = cli_test::run({"sweep", sweep_file(), "--dry-run", "-o", out.string()});
        ::umask(old);
        ASSERT_EQ(r.code, 0) << r.err;
        bool staging = false;
        std::map<std::string, fs::perms> modes;
        for (const auto& [rel, content] : tree(out, staging)) modes[rel] = fs::status(out / rel).permissions();
        ASSERT_FALSE(modes.empty());
        for (const auto& [rel, mode] : modes) {
            EXPECT_TRUE(mode == fs::perms(0644) || mode == fs::perms(0755)) << rel << " umask " << mask;
            if (rel.size() > 3 && rel.substr(rel.size() - 3) == ".sh") {
                EXPECT_EQ(mode, fs::perms(0755)) << rel;
            }
        }
        if (first.empty())
            first = modes;
        else
            EXPECT_EQ(modes, first) << "umask " << mask;
    }
}

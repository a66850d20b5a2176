// Golden files of what the commands print (tests/golden/cli/<case>): the sweep
// dry run, status-free sweep report in every format, plan tables. They pin
// the bytes of the presentation wherever its code lives. Paths of the source
// tree and of the temporary run store are written as @SRC@ and @RUNS@.
// Regenerate with TRAINBENCH_UPDATE_GOLDEN=1 and review the diff.
#include "cli_test_support.hpp"

#include <trainbench/core.hpp>

#include <gtest/gtest.h>

#include <fstream>

namespace fs = std::filesystem;
using namespace trainbench;

namespace {

fs::path golden_dir() {
    return cli_test::source_dir() / "tests" / "golden" / "cli";
}
fs::path fixture_dir() {
    return cli_test::source_dir() / "tests" / "data" / "cli" / "sweep-report";
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
    for (std::size_t pos = 0; (pos = text.find(from, pos)) != std::string::npos; pos += to.size())
        text.replace(pos, from.size(), to);
    return text;
}

// The sweep-report fixture copied to a temporary run store, its state file
// pointing at the copies (the state records absolute run directories).
class SweepFixture {
public:
    SweepFixture() {
        fs::copy(fixture_dir() / "runs", runs(), fs::copy_options::recursive);
        fs::create_directories(runs() / "_sweeps" / "report-fixture");
        write_file_atomic(runs() / "_sweeps" / "report-fixture" / "state.jsonl",
                          replace_all(read_file(fixture_dir() / "state.jsonl.in"), "@RUNS@", runs().string()));
    }
    [[nodiscard]] fs::path runs() const { return m_dir.path() / "runs"; }
    [[nodiscard]] std::string normalise(const std::string& text) const {
        return replace_all(replace_all(text, runs().string(), "@RUNS@"), cli_test::source_dir().string(), "@SRC@");
    }

private:
    cli_test::TempDir m_dir;
};

void expect_golden(const std::string& name, const std::string& actual) {
    cli_test::expect_golden(golden_dir() / name, actual);
}

void check(const std::string& name, std::vector<std::string> args, int want_code = 0) {
    SweepFixture fixture;
    args.insert(args.begin(), {"--runs", fixture.runs().string()});
    cli_test::Result r = cli_test::run(args);
    EXPECT_EQ(r.code, want_code) << r.err;
    expect_golden(name, fixture.normalise(r.out));
}

std::string fixture(const std::string& file) {
    return (fixture_dir() / file).string();
}
std::string recipe(const std::string& file) {
    return (cli_test::source_dir() / "recipes" / file).string();
}

}  // namespace

TEST(CliGolden, SweepDryRunTable) {
    check("sweep-dry-run.txt", {"sweep", fixture("sweep.yaml"), "--dry-run"});
}
TEST(CliGolden, SweepDryRunJson) {
    check("sweep-dry-run.json", {"--json", "sweep", fixture("sweep.yaml"), "--dry-run"});
}
TEST(CliGolden, SweepDryRunWithPrunedPoints) {
    check("sweep-dry-run-pruned.txt", {"sweep", fixture("pruned.yaml"), "--dry-run"});
}
TEST(CliGolden, SweepReportTable) {
    check("sweep-report.txt", {"sweep", "report", fixture("sweep.yaml")});
}
TEST(CliGolden, SweepReportJson) {
    check("sweep-report.json", {"sweep", "report", fixture("sweep.yaml"), "--format", "json"});
}
TEST(CliGolden, SweepReportCsv) {
    check("sweep-report.csv", {"sweep", "report", fixture("sweep.yaml"), "--format", "csv"});
}
TEST(CliGolden, SweepReportMarkdown) {
    check("sweep-report.md", {"sweep", "report", fixture("sweep.yaml"), "--format", "markdown"});
}
TEST(CliGolden, SweepReportHtml) {
    check("sweep-report.html", {"sweep", "report", fixture("sweep.yaml"), "--format", "html"});
}
TEST(CliGolden, PlanTables) {
    check("plan-gpt3-5b.txt", {"plan", recipe("aws-p4d/gpt3-5b.yaml")});
}
TEST(CliGolden, PlanWithFilesystemBandwidth) {
    check("plan-gpt3-126m-fs.txt",
          {"plan", recipe("aws-p4d/gpt3-126m.yaml"), "--fs-bandwidth", "10", "--tokens", "1e9"});
}
TEST(CliGolden, PlanSearchTable) {
    check("plan-search-gpt3-5b.txt", {"plan", recipe("aws-p4d/gpt3-5b.yaml"), "--search", "--top", "5"});
}
TEST(CliGolden, PlanJson) {
    check("plan-gpt3-5b.json", {"--json", "plan", recipe("aws-p4d/gpt3-5b.yaml")});
}
TEST(CliGolden, ParseText) {
    check("parse-megatron.txt", {"parse", (cli_test::source_dir() / "tests" / "data" / "cli" / "sweep-report" / "runs" /
                                           "gpt3-126m-1n" / "20261123T185526Z-6d3652" / "logs" / "train" / "stdout.log")
                                              .string()});
}
TEST(CliGolden, ListTargets) {
    check("list-targets.txt", {"list", "targets"});
}

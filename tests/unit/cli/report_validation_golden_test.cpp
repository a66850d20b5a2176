// Golden files of `trainbench report` for runs with a validate stage (tests/golden/report/validation-*):
// every format report offers (table, --json, --csv, --markdown on stdout; --html and --junit
// files) for a run whose only results are its validation (PASS, and FAIL with bad and suspect
// nodes) and for a run with a train stage beside a failed validate stage. The runs are put
// together in a temporary run store from tests/data/cli/validation/ (the validate stage's logs,
// the resolved recipe) and the train log of the sweep-report fixture. Paths of the store are
// written as @RUNS@. Regenerate with TRAINBENCH_UPDATE_GOLDEN=1 and review the diff.
#include "cli_test_support.hpp"

#include <trainbench/core.hpp>

#include <gtest/gtest.h>

namespace fs = std::filesystem;
using namespace trainbench;

namespace {

fs::path data_dir() {
    return cli_test::source_dir() / "tests" / "data" / "cli" / "validation";
}

fs::path golden_dir() {
    return cli_test::source_dir() / "tests" / "golden" / "report";
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
    for (std::size_t pos = 0; (pos = text.find(from, pos)) != std::string::npos; pos += to.size())
        text.replace(pos, from.size(), to);
    return text;
}

// One run of the recipe with a validate and a train stage: the validate stage's logs from
// `validate_logs` (logs-pass, logs-fail), the train stage's log only `with_training`.
class ValidatedRun {
public:
    ValidatedRun(const std::string& validate_logs, const std::string& short_id, bool with_training) {
        const std::string id = "20261124T100000Z-" + short_id;
        m_run = m_dir.path() / "runs" / "cv-gpt3-126m-1n" / id;
        fs::create_directories(m_run / "logs");
        fs::copy(data_dir() / validate_logs, m_run / "logs" / "validate", fs::copy_options::recursive);
        fs::copy_file(data_dir() / "recipe.resolved.yaml", m_run / "recipe.resolved.yaml");
        write_file_atomic(
            m_run / "run.json",
            replace_all(replace_all(read_file(data_dir() / "run.json.in"), "@RUN_ID@", id), "@SHORT_ID@", short_id));
        if (with_training) {
            fs::create_directories(m_run / "logs" / "train");
            fs::copy_file(cli_test::source_dir() /
                              "tests/data/cli/sweep-report/runs/gpt3-126m-1n/20261123T185526Z-6d3652/"
                              "logs/train/stdout.log",
                          m_run / "logs" / "train" / "stdout.log");
        }
    }
    [[nodiscard]] fs::path runs() const { return m_dir.path() / "runs"; }
    [[nodiscard]] fs::path file(const std::string& name) const { return m_dir.path() / name; }
    [[nodiscard]] std::string normalise(const std::string& text) const {
        return replace_all(text, runs().string(), "@RUNS@");
    }

    // `[global] report RUN [flags]`: stdout against the golden `name`, and the exit code.
    void check(const std::string& name, const std::vector<std::string>& global, const std::vector<std::string>& flags,
               int want_code) const {
        std::vector<std::string> args = {"--runs", runs().string()};
        args.insert(args.end(), global.begin(), global.end());
        args.insert(args.end(), {"report", m_run.string()});
        args.insert(args.end(), flags.begin(), flags.end());
        const cli_test::Result r = cli_test::run(args);
        EXPECT_EQ(r.code, want_code) << name << ": " << r.err;
        cli_test::expect_golden(golden_dir() / name, normalise(r.out));
    }
    // `report RUN --html FILE --junit FILE`: both files against their goldens.
    void check_files(const std::string& stem, int want_code) const {
        check(stem + ".files.txt", {}, {"--html", file("report.html").string(), "--junit", file("report.xml").string()},
              want_code);
        cli_test::expect_golden(golden_dir() / (stem + ".html"), normalise(read_file(file("report.html"))));
        cli_test::expect_golden(golden_dir() / (stem + ".junit.xml"), normalise(read_file(file("report.xml"))));
    }

private:
    cli_test::TempDir m_dir;
    fs::path m_run;
};

// Every format of one run: stdout of the table, JSON, CSV and Markdown, and the two files.
void check_every_format(const std::string& stem, const std::string& validate_logs, const std::string& short_id,
                        bool with_training, int want_code) {
    const ValidatedRun run(validate_logs, short_id, with_training);
    run.check(stem + ".txt", {}, {}, want_code);
    run.check(stem + ".json", {"--json"}, {}, want_code);
    run.check(stem + ".csv", {}, {"--csv"}, want_code);
    run.check(stem + ".md", {}, {"--markdown"}, want_code);
    run.check_files(stem, want_code);
}

}  // namespace

TEST(ReportValidationGolden, ValidationOnlyPass) {
    check_every_format("validation-pass", "logs-pass", "a11a55", false, 0);
}
TEST(ReportValidationGolden, ValidationOnlyFailWithBadAndSuspectNodes) {
    check_every_format("validation-fail", "logs-fail", "fa11ed", false, 5);
}
TEST(ReportValidationGolden, TrainingBesideAFailedValidation) {
    check_every_format("train-validation", "logs-fail", "c0ffee", true, 5);
}

// What a command reads of the catalog: a report of bare logs reads GPUs and models only, so a
// broken target file (a catalog being edited) does not stop it; commands that resolve a
// recipe read every part and refuse the same file.
#include "cli_test_support.hpp"

#include <trainbench/core.hpp>

#include <gtest/gtest.h>

#include <fstream>

namespace fs = std::filesystem;

namespace {

std::string nemo_log() {
    return (cli_test::source_dir() / "tests" / "data" / "logs" / "dllogger_nemo.json").string();
}

// A recipes directory (--recipes) holding one catalog file `rel` with `text`.
void write_catalog_file(const fs::path& dir, const std::string& rel, const std::string& text) {
    fs::create_directories((dir / rel).parent_path());
    std::ofstream(dir / rel) << text;
}

}  // namespace

TEST(CatalogUse, AReportOfBareLogsReadsNoTargetFile) {
    cli_test::TempDir extra;
    write_catalog_file(extra.path(), "catalog/targets/broken.yaml", "scheduler: slurm\ngpu: no-such-gpu\n");
    const std::vector<std::string> report = {"--recipes", extra.path().string(),
                                             "report",    nemo_log(),
                                             "--model",   "gpt3-5b",
                                             "--gpus",    "8",
                                             "--gpu",     "h100",
                                             "--window",  "0:1"};
    cli_test::Result r = cli_test::run(report);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("MFU"), std::string::npos) << r.out;

    // a command that resolves a recipe reads the targets, and says what is wrong with the file
    cli_test::Result v = cli_test::run({"--recipes", extra.path().string(), "validate",
                                        (cli_test::source_dir() / "recipes" / "local" / "tinygpt.yaml").string()});
    EXPECT_EQ(v.code, static_cast<int>(trainbench::ExitCode::invalid_input)) << v.err;
    EXPECT_NE(v.err.find("broken.yaml:2:6"), std::string::npos) << v.err;
    EXPECT_NE(v.err.find("unknown GPU 'no-such-gpu'"), std::string::npos) << v.err;
}

TEST(CatalogUse, AReportOfBareLogsStillChecksTheModelsAndGpusItReads) {
    cli_test::TempDir extra;
    write_catalog_file(extra.path(), "catalog/models/gpt3-5b.yaml", "layers: two\n");
    cli_test::Result r = cli_test::run({"--recipes", extra.path().string(), "report", nemo_log(), "--model", "gpt3-5b",
                                        "--gpus", "8", "--gpu", "h100", "--window", "0:1"});
    EXPECT_EQ(r.code, static_cast<int>(trainbench::ExitCode::invalid_input)) << r.err;
    EXPECT_NE(r.err.find("gpt3-5b.yaml:1:9"), std::string::npos) << r.err;
}

TEST(CatalogUse, AReportOfBareLogsReadsOnlyTheModelItNames) {
    cli_test::TempDir extra;
    write_catalog_file(extra.path(), "catalog/models/broken-model.yaml", "layers: two\n");
    auto report = [&](const std::string& model) {
        return cli_test::run({"--recipes", extra.path().string(), "report", nemo_log(), "--model", model, "--gpus", "8",
                              "--gpu", "h100", "--window", "0:1"});
    };
    cli_test::Result r = report("gpt3-5b");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("MFU"), std::string::npos) << r.out;
    // a misspelt model is suggested from every model file, read or not
    cli_test::Result typo = report("gpt3-5c");
    EXPECT_EQ(typo.code, static_cast<int>(trainbench::ExitCode::usage)) << typo.err;
    EXPECT_NE(typo.err.find("unknown model 'gpt3-5c'"), std::string::npos) << typo.err;
    EXPECT_NE(typo.err.find("gpt3-5b"), std::string::npos) << typo.err;
    // the broken file is read, and refused, when it is the model named
    cli_test::Result broken = report("broken-model");
    EXPECT_EQ(broken.code, static_cast<int>(trainbench::ExitCode::invalid_input)) << broken.err;
    EXPECT_NE(broken.err.find("broken-model.yaml:1:9"), std::string::npos) << broken.err;
}

// A log of 64 MiB and more is parsed while the flags are checked against the catalog: the
// flags' errors still come first, and the parse's result is the report's.
TEST(CatalogUse, AReportOfALargeLogSaysTheFlagsErrorsFirst) {
    cli_test::TempDir dir;
    const fs::path zeros = dir.path() / "zeros.log";
    std::ofstream(zeros).close();
    fs::resize_file(zeros, 64u << 20);  // (sparse: no format can be detected in it)
    auto report = [&](const fs::path& log, const std::string& model) {
        return cli_test::run({"report", log.string(), "--model", model, "--gpus", "8", "--gpu", "h100",
                              "--global-batch", "16", "--window", "0:1"});
    };
    cli_test::Result typo = report(zeros, "gpt3-5c");
    EXPECT_EQ(typo.code, static_cast<int>(trainbench::ExitCode::usage)) << typo.err;
    EXPECT_NE(typo.err.find("unknown model 'gpt3-5c'"), std::string::npos) << typo.err;
    cli_test::Result unreadable = report(zeros, "gpt3-5b");
    EXPECT_NE(unreadable.code, 0);
    EXPECT_EQ(unreadable.err.find("unknown model"), std::string::npos) << unreadable.err;

    const fs::path big = dir.path() / "big.json";
    {
        std::ofstream out(big);
        std::string line;
        for (int step = 0; step % 4096 != 0 || fs::file_size(big) < (65u << 20); ++step) {
            line = "DLLL {\"type\": \"LOG\", \"step\": " + std::to_string(step) +
                   ", \"data\": {\"reduced_train_loss\": 2.5, \"train_step_timing in s\": " +
                   std::to_string(1 + step % 3) + ".0, \"pad\": \"" + std::string(300, 'x') + "\"}}\n";
            out << line;
            if (step % 4096 == 0) out.flush();
        }
    }
    cli_test::Result r = report(big, "gpt3-5b");
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("step time (window mean)    1.50000000 s"), std::string::npos) << r.out;
}

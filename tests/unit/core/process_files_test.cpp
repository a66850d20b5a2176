#include <trainbench/core.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

namespace fs = std::filesystem;
using namespace trainbench;

namespace {
ProcessRequest command(std::vector<std::string> argv) {
    ProcessRequest r;
    r.argv = std::move(argv);
    return r;
}
}  // namespace

TEST(SystemProcessRunner, CapturesStdoutStderrAndExitCode) {
    ProcessResult r = system_process_runner().run(command({"sh", "-c", "echo out; echo err >&2; exit 3"}));
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_EQ(r.out, "out\n");
    EXPECT_EQ(r.err, "err\n");
    EXPECT_FALSE(r.ok());
}

TEST(SystemProcessRunner, PassesStdinAndEnvironmentWithoutAShell) {
    ProcessRequest req = command({"sh", "-c", "cat; printf '%s' \"$TB_X\""});
    req.stdin_data = "hello\n";
    req.env_set["TB_X"] = "$(not expanded)";
    ProcessResult r = system_process_runner().run(req);
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.out, "hello\n$(not expanded)");
}

TEST(SystemProcessRunner, UnsetsVariablesAndRunsInTheGivenDirectory) {
    ::setenv("TB_SECRET_FOR_TEST", "s3cr3t", 1);
    ProcessRequest req = command({"sh", "-c", "printf '%s|' \"${TB_SECRET_FOR_TEST:-none}\"; pwd"});
    req.env_unset = {"TB_SECRET_FOR_TEST"};
    req.cwd = fs::temp_directory_path();
    ProcessResult r = system_process_runner().run(req);
    EXPECT_EQ(r.out, "none|" + fs::canonical(fs::temp_directory_path()).string() + "\n");
}

TEST(SystemProcessRunner, KillsTheWholeGroupOnTimeout) {
    ProcessRequest req = command({"sh", "-c", "sleep 30 & sleep 30"});
    req.timeout = std::chrono::milliseconds(300);
    auto start = std::chrono::steady_clock::now();
    ProcessResult r = system_process_runner().run(req);
    auto took = std::chrono::steady_clock::now() - start;
    EXPECT_TRUE(r.timed_out);
    EXPECT_LT(took, std::chrono::seconds(10));
}

TEST(SystemProcessRunner, ThrowsWhenTheProgramDoesNotExist) {
    EXPECT_THROW((void)system_process_runner().run(command({"trainbench-no-such-program"})), RuntimeError);
    EXPECT_FALSE(program_on_path("trainbench-no-such-program"));
    EXPECT_TRUE(program_on_path("sh"));
}

TEST(WriteFileAtomic, ReplacesContentAndLeavesNoTemporaryFiles) {
    fs::path dir = fs::temp_directory_path() / ("tb-atomic-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::path file = dir / "sub" / "x.txt";
    write_file_atomic(file, "one");
    write_file_atomic(file, "two");
    EXPECT_EQ(read_file(file), "two");
    int entries = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir / "sub")) ++entries;
    EXPECT_EQ(entries, 1);
    append_line(dir / "j.jsonl", "{\"a\":1}");
    append_line(dir / "j.jsonl", "{\"a\":2}");
    EXPECT_EQ(read_file(dir / "j.jsonl"), "{\"a\":1}\n{\"a\":2}\n");
    fs::remove_all(dir);
}

TEST(ReadFile, NamesThePathWhenItFails) {
    try {
        (void)read_file("/nonexistent/trainbench/file");
        FAIL();
    } catch (const RuntimeError& e) {
        EXPECT_NE(std::string(e.what()).find("/nonexistent/trainbench/file"), std::string::npos);
    }
}

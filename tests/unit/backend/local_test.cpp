// The local backend: real child process groups on this machine.
#include <trainbench/backend.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace trainbench;
using namespace trainbench::backend;

namespace {

struct LocalRun {
    fs::path dir;
    std::unique_ptr<Backend> backend = make_backend("local", system_process_runner());
    LocalRun() {
        dir = fs::temp_directory_path() / ("tb-local-test-" + std::to_string(::getpid()) + "-" +
                                           std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
        fs::create_directories(dir);
    }
    ~LocalRun() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
    SubmitRequest script(const std::string& stage, const std::string& body) {
        fs::path stage_dir = dir / "rendered" / stage;
        fs::create_directories(stage_dir);
        // Like the rendered local script: status files written by the job itself.
        std::ofstream(stage_dir / "run.sh")
            << "#!/bin/bash\nset -u\ncd \"$TRAINBENCH_RUN_DIR\"\nmkdir -p status\n"
            << "trap 'printf \"%s %s\\n\" $? now > status/" << stage << ".exit' EXIT\ntrap 'exit 143' TERM\n"
            << "echo \"now $(hostname) $$\" > status/" << stage << ".started\n"
            << body << "\n";
        fs::permissions(stage_dir / "run.sh", fs::perms::owner_all);
        SubmitRequest r;
        r.run_dir = dir;
        r.stage = stage;
        r.stage_dir = stage_dir;
        r.entrypoint = "run.sh";
        r.job_name = "tb-" + stage;
        r.env["TRAINBENCH_RUN_DIR"] = dir.string();
        return r;
    }
    JobStatus wait_final(const JobQuery& q, int seconds = 20) {
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
        JobStatus s;
        while (std::chrono::steady_clock::now() < deadline) {
            s = backend->status({q}).at(0);
            if (is_final(s.state)) return s;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        return s;
    }
};

// Non-zombie processes in a process group (a zombie is gone, only not yet reaped).
int live_members(long pgid) {
    int n = 0;
    for (const auto& e : fs::directory_iterator("/proc")) {
        std::string name = e.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::ifstream in(e.path() / "stat");
        std::string text;
        if (!std::getline(in, text)) continue;
        std::size_t close = text.rfind(')');
        if (close == std::string::npos) continue;
        std::istringstream rest(text.substr(close + 2));
        char state = '?';
        long ppid = 0, pgrp = 0;
        rest >> state >> ppid >> pgrp;
        if (pgrp == pgid && state != 'Z') ++n;
    }
    return n;
}

}  // namespace

TEST(LocalBackend, AScriptRunsInItsOwnProcessGroupWithItsOutputInTheRunDirectory) {
    LocalRun run;
    SubmitResult r =
        run.backend->submit(run.script("train", "echo hello from $TRAINBENCH_RUN_DIR; echo oops >&2; exit 0"));
    long pid = std::stol(r.job_id);
    EXPECT_EQ(::getpgid(static_cast<pid_t>(pid)) == pid || ::getpgid(static_cast<pid_t>(pid)) < 0, true);
    JobStatus s = run.wait_final({r.job_id, run.dir, "train"});
    EXPECT_EQ(s.state, JobState::completed);
    EXPECT_EQ(s.exit_code, 0);
    EXPECT_EQ(read_file(run.dir / "logs/train/stdout.log"), "hello from " + run.dir.string() + "\n");
    EXPECT_EQ(read_file(run.dir / "logs/train/stderr.log"), "oops\n");
    std::vector<fs::path> logs = run.backend->logs({r.job_id, run.dir, "train"});
    EXPECT_EQ(logs.size(), 2u);
}

TEST(LocalBackend, AFailingScriptReportsItsExitCode) {
    LocalRun run;
    SubmitResult r = run.backend->submit(run.script("train", "exit 7"));
    JobStatus s = run.wait_final({r.job_id, run.dir, "train"});
    EXPECT_EQ(s.state, JobState::failed);
    EXPECT_EQ(s.exit_code, 7);
}

TEST(LocalBackend, CancelEndsTheWholeGroup) {
    LocalRun run;
    SubmitResult r = run.backend->submit(run.script("train", "sleep 60 & sleep 60 & wait"));
    JobQuery q{r.job_id, run.dir, "train"};
    // Poll for the start marker against a deadline (a loaded machine may take seconds).
    auto started_by = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!fs::exists(run.dir / "status/train.started") && std::chrono::steady_clock::now() < started_by)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(run.backend->status({q}).at(0).state, JobState::running);
    auto t0 = std::chrono::steady_clock::now();
    run.backend->cancel({q});
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(6));
    JobStatus s = run.wait_final(q);
    EXPECT_EQ(s.state, JobState::failed) << "the run layer turns this into CANCELLED";
    EXPECT_EQ(s.exit_code, 143);
    EXPECT_EQ(live_members(std::stol(r.job_id)), 0) << "no process of the group is left";
}

TEST(LocalBackend, AChainedStageWaitsForItsDependencyAndIsCancelledWhenItFails) {
    LocalRun run;
    SubmitResult first = run.backend->submit(run.script("prepare", "sleep 1; exit 1"));
    SubmitRequest second = run.script("train", "exit 0");
    second.depends_on = first.job_id;
    second.previous_stage = "prepare";
    SubmitResult r2 = run.backend->submit(second);
    JobQuery q2{r2.job_id, run.dir, "train"};
    JobStatus waiting = run.backend->status({q2}).at(0);
    EXPECT_EQ(waiting.state, JobState::pending);

    JobStatus s = run.wait_final(q2);
    EXPECT_EQ(s.state, JobState::cancelled);
    EXPECT_EQ(s.reason, "DependencyNeverSatisfied");
    EXPECT_FALSE(fs::exists(run.dir / "status/train.started")) << "the dependent script never ran";
}

TEST(LocalBackend, AChainedStageRunsAfterASuccessfulDependency) {
    LocalRun run;
    SubmitResult first = run.backend->submit(run.script("prepare", "sleep 1; echo prepared > prepared.txt"));
    SubmitRequest second = run.script("train", "test -f prepared.txt");
    second.depends_on = first.job_id;
    second.previous_stage = "prepare";
    SubmitResult r2 = run.backend->submit(second);
    JobStatus s = run.wait_final({r2.job_id, run.dir, "train"});
    EXPECT_EQ(s.state, JobState::completed);
}

TEST(LocalBackend, AJobWhoseSubmitterDiedIsFoundThroughItsStartedFile) {
    LocalRun run;
    fs::create_directories(run.dir / "status");
    std::ofstream(run.dir / "status/train.started") << "2026-11-22T02:36:05Z host 4242\n";
    std::vector<FoundJob> found = run.backend->find_jobs("tb-train", {"", run.dir, "train"});
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].job_id, "4242");
}

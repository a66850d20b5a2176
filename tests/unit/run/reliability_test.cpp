// The run store under concurrency and failure: locks, journal versions, failed attempts,
// failed creation (docs/reliability.md).
#include "support/fake_process_runner.hpp"

#include <trainbench/run.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>

namespace fs = std::filesystem;
using namespace trainbench;
using trainbench::testing::FakeProcessRunner;
using trainbench::testing::ok;

namespace {

struct Root {
    fs::path path =
        fs::temp_directory_path() / ("tb-rel-test-" + std::to_string(::getpid()) + "-" +
                                     std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
    FakeProcessRunner runner;
    Root() { runner.on({"git"}, ok("0123456789abcdef0123456789abcdef01234567\n")); }
    ~Root() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    run::RunInfo create() {
        run::RunMetadata m;
        m.recipe_name = "gpt";
        m.backend = "slurm";
        m.resolved_yaml = "name: gpt\n";
        run::RunInfo r = run::RunStore(path).create(m, runner);
        render::RenderedJob j;
        j.stage = "train";
        j.entrypoint = "job.sbatch";
        j.files = {{"job.sbatch", "#!/bin/bash\n", true}};
        run::write_rendered(r, {j});
        return r;
    }
};

// A backend whose answer the test sets (a fake; no scheduler).
struct ScriptedBackend final : backend::Backend {
    backend::JobState* answer;
    std::string_view name() const override { return "slurm"; }
    backend::SubmitResult submit(const backend::SubmitRequest&) override { return {"42", ""}; }
    std::vector<backend::JobStatus> status(const std::vector<backend::JobQuery>& jobs) override {
        std::vector<backend::JobStatus> out;
        for (const auto& q : jobs) {
            backend::JobStatus s;
            s.job_id = q.job_id;
            s.state = *answer;
            out.push_back(s);
        }
        return out;
    }
    void cancel(const std::vector<backend::JobQuery>&) override {}
    std::vector<fs::path> logs(const backend::JobQuery&) override { return {}; }
    std::vector<backend::FoundJob> find_jobs(const std::string&, const backend::JobQuery&) override { return {}; }
};

std::vector<std::string> state_events(const fs::path& dir) {
    std::vector<std::string> out;
    std::ifstream in(dir / "journal.jsonl");
    for (std::string line; std::getline(in, line);) {
        nlohmann::json e = nlohmann::json::parse(line, nullptr, false);
        if (e.is_object() && e.value("event", "") == "state") out.push_back(e.value("state", ""));
    }
    return out;
}

}  // namespace

TEST(RunReliability, ARefreshThatLookedEarlierNeverJournalsAnOlderStateOverANewerOne) {
    Root root;
    run::RunInfo r = root.create();
    backend::JobState answer = backend::JobState::pending;
    run::BackendProvider provider = [&](const run::RunInfo&, ProcessRunner&) {
        auto b = std::make_unique<ScriptedBackend>();
        b->answer = &answer;
        return b;
    };
    run::SubmitOptions so;
    render::RenderedJob j;
    j.stage = "train";
    j.entrypoint = "job.sbatch";
    run::submit_stages(r, {j}, provider, root.runner, so);
    std::vector<run::RunInfo> stale{run::load_run(r.dir)};  // a `wait` that looked at PENDING
    std::vector<run::RunInfo> other{run::load_run(r.dir)};
    answer = backend::JobState::completed;  // another process (`status`) sees the job end
    run::refresh(other, provider, root.runner);
    ASSERT_EQ(other[0].state(), "COMPLETED");
    answer = backend::JobState::running;  // the stale process's slower answer arrives late
    run::refresh(stale, provider, root.runner);
    EXPECT_EQ(state_events(r.dir), std::vector<std::string>{"COMPLETED"}) << read_file(r.dir / "journal.jsonl");
    EXPECT_EQ(stale[0].state(), "COMPLETED") << "the stale process now shows the journal's newer state";
}

TEST(RunReliability, FailedSubmissionAttemptsAreJournaledBeforeTheSubmission) {
    Root root;
    run::RunInfo r = root.create();
    root.runner.on({"sbatch"}, {1, false, "", "sbatch: error: Socket timed out on send/recv operation\n"});
    root.runner.on({"sbatch"}, {1, false, "", "sbatch: error: Socket timed out on send/recv operation\n"});
    root.runner.on({"sbatch"}, ok("4242\n"));
    root.runner.on({"squeue"}, ok(""));
    root.runner.on({"scontrol"}, ok(""));  // the look-up by name before each retry finds nothing
    backend::BackendOptions base;
    base.sleep = [](std::chrono::milliseconds) {};
    run::SubmitOptions so;
    render::RenderedJob j;
    j.stage = "train";
    j.entrypoint = "job.sbatch";
    run::submit_stages(r, {j}, run::default_backend_provider(base), root.runner, so);
    std::vector<std::string> events;
    std::ifstream in(r.dir / "journal.jsonl");
    for (std::string line; std::getline(in, line);) {
        nlohmann::json e = nlohmann::json::parse(line);
        if (e.contains("event")) events.push_back(e["event"].get<std::string>() + ":" + e.value("command", ""));
    }
    EXPECT_EQ(events, (std::vector<std::string>{"created:", "submitting:", "attempt_failed:sbatch",
                                                "attempt_failed:sbatch", "submitted:"}));
    EXPECT_EQ(r.stages.at(0).job_id, "4242");
}

TEST(RunReliability, ARunThatCouldNotBeCreatedIsRemovedOrFailedNeverUnknown) {
    Root root;
    run::RunInfo r = root.create();
    run::discard_run(r.dir, "No space left on device");
    EXPECT_FALSE(fs::exists(r.dir));
    // When the directory cannot be removed, a "finished" event says FAILED with the reason.
    fs::create_directories(r.dir);
    append_line(r.dir / "journal.jsonl", R"({"format":"trainbench-journal","version":1})");
    append_line(r.dir / "journal.jsonl",
                R"({"event":"finished","state":"FAILED","detail":"run not created: No space left on device"})");
    run::RunInfo loaded = run::load_run(r.dir);
    EXPECT_EQ(loaded.state(), "FAILED");
    EXPECT_EQ(loaded.detail(), "run not created: No space left on device");
    EXPECT_TRUE(loaded.is_final());
}

TEST(RunReliability, RunJsonIsChangedUnderTheLockFromItsNewestContent) {
    Root root;
    run::RunInfo r = root.create();
    run::update_run_json(r.dir, [](nlohmann::ordered_json& j) { j["a"] = 1; });
    run::update_run_json(r.dir, [](nlohmann::ordered_json& j) { j["b"] = 2; });
    nlohmann::json meta = nlohmann::json::parse(read_file(r.dir / "run.json"));
    EXPECT_EQ(meta["a"], 1) << "the second change started from the first one's result";
    EXPECT_EQ(meta["b"], 2);
    EXPECT_EQ(meta["stages"], nlohmann::json::array({"train"}));
    std::optional<FileLock> held = run::lock_run_within(r.dir, std::chrono::milliseconds(0));
    ASSERT_TRUE(held);
    EXPECT_FALSE(run::lock_run_within(r.dir, std::chrono::milliseconds(20))) << "one writer at a time";
}

TEST(RunReliability, AHungQueryIsNotRetriedAndSaysSo) {
    Root root;
    run::RunInfo r = root.create();
    root.runner.on({"sbatch"}, ok("77\n"));
    root.runner.on({"squeue"}, {-1, true, "", ""});  // killed at its time limit
    backend::BackendOptions base;
    base.sleep = [](std::chrono::milliseconds) {};
    run::SubmitOptions so;
    render::RenderedJob j;
    j.stage = "train";
    j.entrypoint = "job.sbatch";
    run::submit_stages(r, {j}, run::default_backend_provider(base), root.runner, so);
    std::vector<run::RunInfo> runs{run::load_run(r.dir)};
    try {
        run::refresh(runs, run::default_backend_provider(base), root.runner);
        FAIL() << "a hung squeue must be an error";
    } catch (const RuntimeError& e) {
        EXPECT_NE(std::string(e.what()).find("timed out: no answer within the command time limit"), std::string::npos)
            << e.what();
    }
    EXPECT_EQ(root.runner.calls("squeue").size(), 1u) << "one try, not five times the time limit";
    EXPECT_EQ(runs[0].state(), "PENDING") << "the last known state stays";
}

// Issue #35 (weaker points): a run stopped by Ctrl-C before any stage reached the scheduler is
// INTERRUPTED, not FAILED. The interrupt flag is process-wide and never cleared, so the submission
// runs in a child process (a death test forks), which leaves the journal behind for the parent.
TEST(RunReliability, ARunStoppedByCtrlCBeforeAnyJobIsInterruptedNotFailed) {
    Root root;
    run::RunInfo r = root.create();
    backend::JobState answer = backend::JobState::pending;
    run::BackendProvider provider = [&](const run::RunInfo&, ProcessRunner&) {
        auto b = std::make_unique<ScriptedBackend>();
        b->answer = &answer;
        return b;
    };
    render::RenderedJob train, eval;
    train.stage = "train";
    train.entrypoint = eval.entrypoint = "job.sbatch";
    eval.stage = "eval";
    EXPECT_EXIT(
        {
            install_interrupt_handlers();
            std::raise(SIGINT);
            run::SubmitOptions so;
            try {
                run::submit_stages(r, {train, eval}, provider, root.runner, so);
            } catch (const InterruptedError&) {
                std::exit(7);
            }
            std::exit(0);
        },
        ::testing::ExitedWithCode(7), "");
    const run::RunInfo after = run::load_run(r.dir);
    EXPECT_EQ(after.state(), "INTERRUPTED") << read_file(r.dir / "journal.jsonl");
    EXPECT_TRUE(after.is_final());
    EXPECT_NE(after.detail().find("interrupted before submission"), std::string::npos) << after.detail();
}

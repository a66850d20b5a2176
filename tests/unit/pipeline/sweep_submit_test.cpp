// The sweep state file and resumable sweep submission.
#include "unit/sweep/sweep_test_support.hpp"

#include <trainbench/pipeline.hpp>

#include <gtest/gtest.h>

namespace fs = std::filesystem;
using namespace trainbench;
using namespace sweep_test;

TEST(SweepState, AppendedEntriesReadBackAndATornLastLineIsIgnored) {
    TempDir dir;
    fs::path f = pipeline::state_file(dir.path(), "s");
    EXPECT_EQ(f, dir.path() / "_sweeps" / "s" / "state.jsonl");
    pipeline::append_state(f, {"aaaa", 1, "p1", "run-1", "/r/1", "created"});
    pipeline::append_state(f, {"aaaa", 1, "p1", "run-1", "/r/1", "submitted"});
    pipeline::append_state(f, {"bbbb", 2, "p2", "run-2", "/r/2", "submitted"});
    { std::ofstream(f, std::ios::app) << R"({"hash": "cccc", "run_)"; }
    auto s = pipeline::read_state(f);
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s["aaaa"].event, "submitted");
    EXPECT_EQ(s["bbbb"].run_id, "run-2");
    EXPECT_TRUE(pipeline::has_run(s["aaaa"]));
    // "created" with a run directory that never reached the scheduler: resubmit.
    EXPECT_FALSE(pipeline::has_run({"dddd", 4, "p4", "x", (dir.path() / "missing").string(), "created"}));
}

TEST(SweepSubmit, ASecondInvocationSubmitsOnlyPointsWithoutARun) {
    TempDir dir;
    auto x = expand_text(dir, fmt::format(R"(base: {}
name: "p-{{nodes}}"
matrix:
  nodes: [2, 4, 8]
)",
                                          p4d_5b()));
    fs::path runs = dir.path() / "runs";
    int calls = 0;
    std::vector<std::string> submitted;
    auto fake = [&](const sweep::Point& p, const std::function<void(const run::RunInfo&)>& on_created) {
        ++calls;
        if (calls == 2) {
            // Ctrl-C arrives after the first submission: stop before this one reaches the scheduler.
            throw InterruptedError();
        }
        run::RunInfo info;
        info.run_id = fmt::format("run-{}", p.index);
        info.dir = runs / p.name / info.run_id;
        on_created(info);
        submitted.push_back(p.name);
        return info;
    };
    pipeline::SweepSubmitOptions o;
    EXPECT_THROW((void)pipeline::submit_sweep(x, runs, fake, o), InterruptedError);
    EXPECT_EQ(submitted, (std::vector<std::string>{"p-2"}));
    auto again = pipeline::submit_sweep(x, runs, fake, o);
    EXPECT_EQ(again.skipped, 1u);
    EXPECT_EQ(again.submitted, 2u);
    EXPECT_EQ(submitted, (std::vector<std::string>{"p-2", "p-4", "p-8"}));
    auto third = pipeline::submit_sweep(x, runs, fake, o);
    EXPECT_EQ(third.submitted, 0u);
    EXPECT_EQ(third.skipped, 3u);
    EXPECT_EQ(submitted.size(), 3u);
}

TEST(SweepSubmit, MaxActiveWaitsUntilARunFinishes) {
    TempDir dir;
    auto x = expand_text(dir, fmt::format(R"(base: {}
name: "p-{{nodes}}"
matrix:
  nodes: [2, 4, 8]
)",
                                          p4d_5b()));
    std::size_t active = 0;
    int sleeps = 0;
    pipeline::SweepSubmitOptions o;
    o.max_active = 2;
    o.count_active = [&](const std::vector<std::string>&) { return active; };
    o.sleep = [&](std::chrono::milliseconds) {
        ++sleeps;
        active = 1;  // one run finished while we waited
    };
    auto fake = [&](const sweep::Point& p, const std::function<void(const run::RunInfo&)>&) {
        ++active;
        run::RunInfo info;
        info.run_id = fmt::format("run-{}", p.index);
        info.dir = dir.path() / info.run_id;
        return info;
    };
    auto progress = pipeline::submit_sweep(x, dir.path() / "runs", fake, o);
    EXPECT_EQ(progress.submitted, 3u);
    EXPECT_EQ(sleeps, 1);  // the third point waited once
}

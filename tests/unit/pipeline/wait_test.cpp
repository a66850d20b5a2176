// pipeline::wait_run decides by the backend table, not by a backend's name: a Kubernetes
// run's logs go with its pods (the table's logs_go_with_jobs), so a wait collects them into
// the run directory when the run ends; a Slurm run's logs are on the shared file system
// already, so nothing is fetched. kubectl and squeue are a fake process runner.
#include "support/fake_process_runner.hpp"

#include <trainbench/pipeline.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace trainbench;

namespace {

class WaitRun : public ::testing::Test {
protected:
    void SetUp() override {
        m_root = fs::temp_directory_path() / ("tb-wait-test-" + std::to_string(::getpid()));
        fs::remove_all(m_root);
        fs::create_directories(m_root);
    }
    void TearDown() override { fs::remove_all(m_root); }

    pipeline::Services services() {
        pipeline::Services s;
        s.runs_root = m_root / "runs";
        s.runner = &fake;
        return s;
    }
    // A run of `backend` whose one stage, train, was submitted as job `job_id`.
    run::RunInfo submitted_run(const std::string& backend, const std::string& job_id) {
        run::RunMetadata meta;
        meta.recipe_name = "gpt3-done";
        meta.target = "test";
        meta.backend = backend;
        meta.kube_namespace = backend == "kubernetes" ? "llm" : "";
        run::RunInfo r = run::RunStore(m_root / "runs").create(meta, fake);
        run::append_event(r.dir, {{"event", "submitted"}, {"stage", "train"}, {"job_id", job_id}});
        return run::load_run(r.dir);
    }
    [[nodiscard]] std::size_t log_fetches() const {
        std::size_t n = 0;
        for (const ProcessRequest& r : fake.requests)
            if (std::find(r.argv.begin(), r.argv.end(), "logs") != r.argv.end()) ++n;
        return n;
    }

    trainbench::testing::FakeProcessRunner fake;
    fs::path m_root;
};

}  // namespace

TEST_F(WaitRun, AKubernetesRunsLogsAreCollectedWhenItEnds) {
    fake.on(
        {"kubectl", "--namespace", "llm", "get"},
        {0, false,
         read_file(fs::path(TRAINBENCH_SOURCE_DIR) / "tests/unit/backend/data/fake_kubectl_get_jobs_pods.json"), ""});
    fake.on({"kubectl", "--namespace", "llm", "logs"}, {0, false, "step 1 loss 10.5\n", ""});
    run::RunInfo r = submitted_run("kubernetes", "gpt3-done-aaaaaa-train");
    fake.requests.clear();
    std::size_t ticks = 0;
    pipeline::WaitOptions options;
    options.interval_s = 0.01;
    options.timeout_s = 10;
    const pipeline::WaitResult w =
        pipeline::wait_run(services(), r, options, [&](const pipeline::WaitTick&) { ++ticks; });
    EXPECT_FALSE(w.timed_out);
    EXPECT_EQ(w.run.state(), "COMPLETED");
    EXPECT_EQ(ticks, 1u);
    EXPECT_GE(log_fetches(), 1u) << "the pods' logs must be fetched before the cluster deletes them";
    EXPECT_TRUE(w.collect_error.empty()) << w.collect_error;
}

TEST_F(WaitRun, ASlurmRunsLogsAreNotFetched) {
    fake.on({"squeue"}, {0, false, "", ""});
    fake.on({"scontrol", "show", "config"}, {0, false, "AccountingStorageType   = accounting_storage/slurmdbd\n", ""});
    fake.on({"scontrol"}, {0, false, "JobId=77 JobState=COMPLETED Reason=None ExitCode=0:0\n", ""});
    fake.on({"sacct"}, {0, false, "77|COMPLETED|0:0|node1|2026-11-27T05:00:00|2026-11-27T05:01:00\n", ""});
    run::RunInfo r = submitted_run("slurm", "77");
    fake.requests.clear();
    pipeline::WaitOptions options;
    options.interval_s = 0.01;
    options.timeout_s = 10;
    const pipeline::WaitResult w = pipeline::wait_run(services(), r, options, {});
    EXPECT_EQ(w.run.state(), "COMPLETED");
    EXPECT_EQ(log_fetches(), 0u);
}

// The one submit path (pipeline::submit_recipe) as a sweep point takes it: the
// secrets of a target edit reach the scheduler's environment and no file, the
// files are rendered with the run's own id, and a render that fails is journaled.
// The scheduler is a fake process runner answering sbatch.
#include "support/fake_process_runner.hpp"
#include "unit/sweep/sweep_test_support.hpp"

#include <trainbench/pipeline.hpp>

#include <gtest/gtest.h>

#include <cstdlib>

namespace fs = std::filesystem;
using namespace trainbench;
using namespace sweep_test;

namespace {

// A Slurm recipe whose target edit takes a secret from the submitter's environment.
constexpr const char* k_base = R"(version: 1
name: secret-sweep
target:
  base: aws-p4d-24xlarge
  env: {TB_TARGET_TOKEN: "${env:TB_PIPELINE_TEST_SECRET}"}
model: gpt3-126m
framework: custom
nodes: 1
gpus_per_node: 8
batch: {micro: 1, global: 64}
precision: bf16
steps: 30
data: mock
launch: {command: [python3, train.py], log_format: megatron}
metrics: {window: [1, 20]}
slurm: {partition: p4d, time: "01:00:00"}
container: {image: "nvcr.io/nvidia/pytorch:24.01-py3"}
)";

constexpr const char* k_sweep = R"(version: 1
sweep: secret-sweep
base: base.yaml
name: "secret-{nodes}n"
matrix:
  nodes: [1]
)";

constexpr const char* k_secret = "s3cr3t-value-from-the-environment";

pipeline::Services services(const fs::path& runs, ProcessRunner& runner, const fs::path& templates) {
    pipeline::Services s;
    s.catalog = []() -> const catalog::Catalog& { return shipped_catalog(); };
    s.runs_root = runs;
    s.dirs.recipes = {k_source / "recipes"};
    s.dirs.templates = {templates};
    s.dirs.workloads = k_source / "workloads";
    s.runner = &runner;
    return s;
}

// Every file below `dir` whose content holds `needle`.
std::vector<std::string> files_holding(const fs::path& dir, const std::string& needle) {
    std::vector<std::string> found;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file() && read_file(e.path()).find(needle) != std::string::npos)
            found.push_back(e.path().string());
    return found;
}

class SweepPointSubmit : public ::testing::Test {
protected:
    void SetUp() override {
        ::setenv("TB_PIPELINE_TEST_SECRET", k_secret, 1);
        m_dir.write("base.yaml", k_base);
        m_expansion = sweep::expand(sweep::load_sweep(m_dir.write("sweep.yaml", k_sweep)), shipped_catalog());
        ASSERT_EQ(m_expansion.valid_count(), 1u);
        m_fake.on({"sbatch"}, trainbench::testing::ok("4242\n"));
    }
    void TearDown() override { ::unsetenv("TB_PIPELINE_TEST_SECRET"); }

    pipeline::SubmitProgress submit(const fs::path& templates) {
        pipeline::Services s = services(runs(), m_fake, templates);
        pipeline::SweepSubmitOptions o;
        o.count_active = [](const std::vector<std::string>&) { return std::size_t{0}; };
        return pipeline::submit_sweep(
            m_expansion, runs(),
            [&](const sweep::Point& p, const std::function<void(const run::RunInfo&)>& on_created) {
                return pipeline::submit_point(s, m_expansion, p, on_created);
            },
            o);
    }
    [[nodiscard]] fs::path runs() const { return m_dir.path() / "runs"; }
    [[nodiscard]] fs::path only_run() const {
        std::vector<fs::path> all = run::RunStore(runs()).list();
        EXPECT_EQ(all.size(), 1u);
        return all.empty() ? fs::path() : all.front();
    }

    TempDir m_dir;
    sweep::Expansion m_expansion;
    trainbench::testing::FakeProcessRunner m_fake;
};

}  // namespace

TEST_F(SweepPointSubmit, ATargetSecretReachesTheSchedulerAndNoFile) {
    pipeline::SubmitProgress p = submit(k_source / "templates");
    EXPECT_EQ(p.submitted, 1u);
    EXPECT_EQ(p.failed, 0u);
    std::vector<ProcessRequest> sbatch;
    for (const ProcessRequest& r : m_fake.requests)
        if (!r.argv.empty() && r.argv[0] == "sbatch") sbatch.push_back(r);
    ASSERT_FALSE(sbatch.empty());
    for (const ProcessRequest& r : sbatch) {
        auto it = r.env_set.find("TB_PIPELINE_TEST_SECRET");
        ASSERT_NE(it, r.env_set.end()) << "the secret of the target's env is not in sbatch's environment";
        EXPECT_EQ(it->second, k_secret);
    }
    EXPECT_EQ(files_holding(m_dir.path(), k_secret), std::vector<std::string>{}) << "a secret was written to disk";
}

TEST_F(SweepPointSubmit, FilesAreRenderedWithTheRunsOwnId) {
    (void)submit(k_source / "templates");
    fs::path dir = only_run();
    std::string run_id = dir.filename().string();
    EXPECT_FALSE(files_holding(dir / "rendered", run_id).empty()) << "no rendered file names the run id " << run_id;
    EXPECT_EQ(files_holding(dir / "rendered", "dryrun"), std::vector<std::string>{});
}

TEST_F(SweepPointSubmit, AFailedRenderIsJournaledAndThePointFails) {
    TempDir empty_templates;  // no template at all: rendering fails after the run exists
    pipeline::SubmitProgress p = submit(empty_templates.path());
    EXPECT_EQ(p.submitted, 0u);
    EXPECT_EQ(p.failed, 1u);
    fs::path dir = only_run();
    std::string journal = read_file(dir / "journal.jsonl");
    EXPECT_NE(journal.find("render failed: "), std::string::npos) << journal;
    EXPECT_TRUE(m_fake.calls("sbatch").empty());
    run::RunInfo info = run::load_run(dir);
    EXPECT_EQ(info.state(), "FAILED");
}

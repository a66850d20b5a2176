// The render use case with a fake process runner: sbatch --test-only is asked
// about every Slurm stage in a scratch copy of its files; its refusal makes
// the outcome rejected with sbatch's first line; compare finds differences.
#include "support/fake_process_runner.hpp"
#include "support/shipped_catalog.hpp"
#include "support/source_dir.hpp"
#include "support/temp_dir.hpp"

#include <trainbench/pipeline.hpp>

#include <gtest/gtest.h>

namespace fs = std::filesystem;
using namespace trainbench;
using trainbench::testing::shipped_catalog;

namespace {

const fs::path k_source = trainbench::testing::source_dir();

pipeline::RenderRequest request_for(const std::string& recipe) {
    pipeline::RenderRequest rq;
    rq.inputs.push_back({k_source / "recipes" / recipe, {}});
    rq.load.recipe_roots = {k_source / "recipes"};
    rq.render.template_dirs = {k_source / "templates"};
    return rq;
}

std::vector<pipeline::RenderOutcome> render_all(const pipeline::RenderRequest& rq, ProcessRunner& runner) {
    std::vector<pipeline::RenderOutcome> out;
    pipeline::render_recipes(rq, shipped_catalog(), runner,
                             [&](const pipeline::RenderOutcome& o) { out.push_back(o); });
    return out;
}

}  // namespace

TEST(PipelineRender, CheckAsksSbatchTestOnlyAboutEverySlurmStage) {
    trainbench::testing::FakeProcessRunner runner;
    runner.on({"sbatch", "--test-only"},
              trainbench::testing::ok("", "sbatch: Job 7 to start at 2026-11-23T20:00:00\n"));
    pipeline::RenderRequest rq = request_for("local-slurm/tinygpt-2n.yaml");
    rq.check = true;
    auto outcomes = render_all(rq, runner);
    ASSERT_EQ(outcomes.size(), 1u);
    const pipeline::RenderOutcome& o = outcomes.front();
    EXPECT_TRUE(o.ok()) << (o.error ? o.error->what() : "");
    ASSERT_FALSE(runner.calls("sbatch").empty());
    for (const ProcessRequest& r : runner.requests) {
        ASSERT_EQ(r.argv.size(), 3u);
        EXPECT_EQ(r.argv.at(1), "--test-only");
        EXPECT_TRUE(r.cwd.has_value()) << "sbatch runs in a scratch copy of the job's files";
    }
    ASSERT_EQ(o.checks.size(), runner.calls("sbatch").size());
    EXPECT_EQ(o.checks.front()["answer"], "sbatch: Job 7 to start at 2026-11-23T20:00:00");
}

TEST(PipelineRender, ARefusalMakesTheRecipeRejectedWithSbatchsAnswer) {
    trainbench::testing::FakeProcessRunner runner;
    runner.on({"sbatch", "--test-only"},
              trainbench::testing::fail(1, "sbatch: error: invalid partition specified: debug\n"));
    pipeline::RenderRequest rq = request_for("local-slurm/tinygpt-2n.yaml");
    rq.check = true;
    auto outcomes = render_all(rq, runner);
    ASSERT_EQ(outcomes.size(), 1u);
    EXPECT_TRUE(outcomes.front().rejected);
    EXPECT_FALSE(outcomes.front().ok());
    ASSERT_FALSE(outcomes.front().notes.empty());
    EXPECT_NE(outcomes.front().notes.front().find("rejected by sbatch --test-only (exit 1): sbatch: error: invalid "
                                                  "partition specified: debug"),
              std::string::npos);
}

TEST(PipelineRender, CompareReportsEveryDifferingAndMissingFile) {
    trainbench::testing::FakeProcessRunner runner;
    const trainbench::testing::TempDir tmp;
    const fs::path& dir = tmp.path();
    pipeline::RenderRequest rq = request_for("local/tinygpt.yaml");
    rq.output = dir;
    auto written = render_all(rq, runner);
    ASSERT_TRUE(written.front().ok());
    ASSERT_FALSE(written.front().written.empty());
    write_file_atomic(written.front().written.front(), "changed\n");
    write_file_atomic(dir / "train" / "extra.txt", "stale\n");
    rq.output.clear();
    rq.compare = dir;
    auto compared = render_all(rq, runner);
    EXPECT_TRUE(compared.front().compared);
    EXPECT_EQ(compared.front().differences.size(), 2u);
    EXPECT_FALSE(compared.front().ok());
    EXPECT_TRUE(runner.requests.empty()) << "render and compare run no process";
}

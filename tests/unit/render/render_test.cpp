// render(): files per scheduler, determinism, stages.
#include "render_test_support.hpp"

#include <trainbench/render.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

namespace fs = std::filesystem;
using namespace trainbench;
using namespace trainbench::render;
using ::testing::HasSubstr;

namespace {

RenderOptions shipped() {
    RenderOptions o;
    o.template_dirs = {render_test::shipped_templates()};
    return o;
}

const RenderedFile& file(const RenderedJob& job, const std::string& path) {
    for (const RenderedFile& f : job.files)
        if (f.path == path) return f;
    throw std::runtime_error("no file " + path);
}

}  // namespace

TEST(Render, SlurmJobHasDirectivesEnvironmentContainerAndLaunchLine) {
    recipe::Recipe r = render_test::base_recipe();
    r.slurm.use_gres = true;
    RenderedJob job = render::render(r, shipped()).at(0);
    EXPECT_EQ(job.entrypoint, "job.sbatch");
    const std::string& s = file(job, "job.sbatch").content;
    EXPECT_TRUE(file(job, "job.sbatch").executable);
    for (const char* line :
         {"#SBATCH --job-name=trainbench-test-recipe-dryrun\n", "#SBATCH --nodes=2\n", "#SBATCH --ntasks-per-node=8\n",
          "#SBATCH --gres=gpu:8\n", "#SBATCH --partition=gpu\n", "#SBATCH --exclusive\n", "#SBATCH --mem=0\n",
          "#SBATCH --time=01:00:00\n", "#SBATCH --output=logs/train/slurm-%j.out\n", "set -euo pipefail\n",
          "export NCCL_IB_TIMEOUT=22\n", "  --container-image=nvcr.io/nvidia/nemo:24.07 \\\n",
          "  --no-container-mount-home \\\n", "    --config-path=\"${TRAINBENCH_RUN_DIR}\"/rendered/train \\\n",
          "    --config-name=nemo-config \\\n"})
        EXPECT_THAT(s, HasSubstr(line));
    EXPECT_THAT(s, HasSubstr("--container-mounts=/opt/microsoft:/opt/microsoft,/fsx:/"
                             "fsx,\"${TRAINBENCH_RUN_DIR}\":\"${TRAINBENCH_RUN_DIR}\""));
    EXPECT_THAT(s, ::testing::Not(HasSubstr("--gpus-per-node")));
    EXPECT_THAT(s, ::testing::Not(HasSubstr("--dependency")));
    // The NeMo configuration travels with the job, next to job.sbatch (the run directory's rendered/train).
    EXPECT_THAT(file(job, "nemo-config.yaml").content, HasSubstr("\n  num_nodes: 2\n"));
}

TEST(Render, BareMetalSlurmJobHasNoContainerFlags) {
    recipe::Recipe r = render_test::base_recipe("metaseq");
    r.container.runtime = "none";
    const std::string s = file(render::render(r, shipped()).at(0), "job.sbatch").content;
    EXPECT_THAT(s, ::testing::Not(HasSubstr("--container")));
    EXPECT_THAT(s, HasSubstr("#SBATCH --gpus-per-node=8\n"));
}

TEST(Render, KubernetesRendersManifestsAndAChartThatParse) {
    recipe::Recipe r = render_test::base_recipe();
    r.target.scheduler = catalog::Scheduler::kubernetes;
    r.target.kubernetes.network_stack = "tcpxo";
    r.target.kubernetes.host_network = true;
    r.env = {{"SECRET", "${env:HF_TOKEN}"}};
    RenderedJob job = render::render(r, shipped()).at(0);
    EXPECT_EQ(job.entrypoint, "manifests.yaml");
    std::vector<YAML::Node> docs = YAML::LoadAll(file(job, "manifests.yaml").content);
    ASSERT_EQ(docs.size(), 3u);
    EXPECT_EQ(docs[0]["kind"].as<std::string>(), "ConfigMap");
    EXPECT_EQ(docs[0]["data"]["launch.sh"].as<std::string>(), file(job, "launch.sh").content);
    EXPECT_EQ(docs[1]["spec"]["clusterIP"].as<std::string>(), "None");
    YAML::Node spec = docs[2]["spec"];
    EXPECT_EQ(spec["completionMode"].as<std::string>(), "Indexed");
    EXPECT_EQ(spec["completions"].as<int>(), 2);
    EXPECT_EQ(spec["parallelism"].as<int>(), 2);
    YAML::Node pod = spec["template"]["spec"];
    EXPECT_TRUE(pod["hostNetwork"].as<bool>());
    EXPECT_EQ(pod["initContainers"][0]["name"].as<std::string>(), "nccl-plugin-installer");
    EXPECT_EQ(pod["containers"][0]["name"].as<std::string>(), "network-rx-daemon");
    YAML::Node training = pod["containers"][1];
    EXPECT_EQ(training["resources"]["limits"]["nvidia.com/gpu"].as<int>(), 8);
    bool secret = false;
    for (const auto& e : training["env"])
        if (e["name"].as<std::string>() == "SECRET")
            secret = e["valueFrom"]["secretKeyRef"]["key"].as<std::string>() == "HF_TOKEN";
    EXPECT_TRUE(secret);
    EXPECT_THAT(file(job, "launch.sh").content, HasSubstr("NODE_RANK=\"${JOB_COMPLETION_INDEX}\""));
    // The chart: Helm syntax survives, values parse.
    EXPECT_THAT(file(job, "chart/templates/job.yaml").content, HasSubstr("completions: {{ .Values.nodes }}"));
    YAML::Node values = YAML::Load(file(job, "chart/values.yaml").content);
    EXPECT_EQ(values["nodes"].as<int>(), 2);
    EXPECT_EQ(values["image"].as<std::string>(), "nvcr.io/nvidia/nemo:24.07");
    EXPECT_EQ(values["secretEnv"][0]["key"].as<std::string>(), "HF_TOKEN");
    EXPECT_EQ(file(job, "chart/files/launch.sh").content, file(job, "launch.sh").content);
}

TEST(Render, RenderingTwiceGivesTheSameBytes) {
    for (const char* fw : {"nemo", "megatron-lm", "metaseq", "tinygpt"}) {
        recipe::Recipe r = render_test::base_recipe(fw);
        std::vector<RenderedJob> a = render::render(r, shipped()), b = render::render(r, shipped());
        ASSERT_EQ(a.size(), b.size());
        for (std::size_t i = 0; i < a.size(); ++i) {
            ASSERT_EQ(a[i].files.size(), b[i].files.size());
            for (std::size_t k = 0; k < a[i].files.size(); ++k) {
                EXPECT_EQ(a[i].files[k].path, b[i].files[k].path);
                EXPECT_EQ(a[i].files[k].content, b[i].files[k].content);
            }
        }
    }
}

TEST(Render, StagesRenderInOrderWithTheirDependency) {
    recipe::Recipe r = render_test::base_recipe();
    recipe::Stage v;
    v.name = "validate";
    v.kind = "validate";
    recipe::Stage t;
    t.name = "train";
    t.kind = "train";
    t.dependency = "afterok";
    r.stages = {v, t};
    std::vector<RenderedJob> jobs = render::render(r, shipped());
    ASSERT_EQ(jobs.size(), 2u);
    EXPECT_EQ(jobs[0].stage, "validate");
    EXPECT_EQ(jobs[0].dependency, "");
    EXPECT_EQ(jobs[1].dependency, "afterok");
    EXPECT_THAT(file(jobs[0], "job.sbatch").content, HasSubstr("all_reduce_perf"));
    EXPECT_THAT(file(jobs[0], "job.sbatch").content, HasSubstr("#SBATCH --output=logs/validate/slurm-%j.out"));
    RenderOptions only = shipped();
    only.stage = "train";
    EXPECT_EQ(render::render(r, only).size(), 1u);
    only.stage = "trian";
    EXPECT_THROW((void)render::render(r, only), UsageError);
}

TEST(Render, UnifiedDiffShowsChangedLinesWithContext) {
    EXPECT_EQ(unified_diff("a\nb\n", "a\nb\n", "x", "y"), "");
    std::string d = unified_diff("1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\n4\nfive\n6\n7\n8\n", "old", "new");
    EXPECT_EQ(d, "--- old\n+++ new\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n");
}

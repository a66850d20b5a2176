// Rendering of the validate and prepare-data stages on Slurm: the seed
// recipes' array jobs and the validation job's DCGM and nccl-tests runs.
#include "render_test_support.hpp"

#include <trainbench/render.hpp>

#include <gtest/gtest.h>

namespace trainbench::render {
namespace {

namespace fs = std::filesystem;

std::vector<RenderedJob> render_seed(const std::string& file) {
    fs::path recipes = render_test::source_dir() / "recipes";
    catalog::Catalog cat = catalog::Catalog::load({recipes});
    recipe::Recipe r = recipe::load_recipe(recipes / file, cat);
    RenderOptions o;
    o.template_dirs = {render_test::shipped_templates()};
    return render(r, o);
}

std::string job_text(const RenderedJob& job) {
    for (const RenderedFile& f : job.files)
        if (f.path == job.entrypoint) return f.content;
    return {};
}

TEST(StagesRender, Seed002DataPreparationIsA72TaskArrayJob) {
    auto jobs = render_seed("azure-nd-h100-v5/gpt3-175b.yaml");
    ASSERT_EQ(jobs.size(), 2u);
    EXPECT_EQ(jobs[0].stage, "prepare-data");
    EXPECT_EQ(jobs[0].array_size, 72);
    std::string s = job_text(jobs[0]);
    EXPECT_NE(s.find("#SBATCH --array=0-71%24\n"), std::string::npos);
    EXPECT_NE(s.find("#SBATCH --partition=gpu\n"), std::string::npos);
    EXPECT_EQ(s.find("--gpus-per-node"), std::string::npos);  // CPU work
    EXPECT_NE(s.find("#SBATCH --output=logs/prepare-data/slurm-%A_%a.out"), std::string::npos);
    EXPECT_NE(s.find("TB_PREFIX=\"${OUT_DIR}/train_chunk_${TB_I}.jsonl\""), std::string::npos);
    EXPECT_NE(s.find("--workers 48"), std::string::npos);
    EXPECT_NE(s.find("export NVIDIA_VISIBLE_DEVICES=void"), std::string::npos);
    EXPECT_EQ(jobs[1].array_size, 0);
    EXPECT_EQ(jobs[1].dependency, "afterok");
}

TEST(StagesRender, Seed000ValidatesWithDcgmAllNodesAndPairsThenPreparesThePileShards) {
    auto jobs = render_seed("azure-ndm-a100-v4/gpt3-126m.yaml");
    ASSERT_EQ(jobs.size(), 3u);
    std::string v = job_text(jobs[0]);
    EXPECT_NE(v.find("scontrol show hostnames \"${SLURM_JOB_NODELIST}\""), std::string::npos);
    EXPECT_NE(v.find("--container-image=nvcr.io/nvidia/cloud-native/dcgm:2.3.5-1-ubi8"), std::string::npos);
    EXPECT_NE(v.find("dcgmi diag -r 3"), std::string::npos);
    EXPECT_NE(v.find("-N 2 -n 16 -w \"${tb_a},${tb_b}\" all_reduce_perf -b 8 -e 8G -f 2 -g 1"), std::string::npos);
    EXPECT_NE(v.find("tb_out=logs/validate/nccl-${tb_a}-${tb_b}.txt"), std::string::npos);
    EXPECT_NE(v.find("awk -v t=180"), std::string::npos);
    EXPECT_NE(v.find("export NCCL_TOPO_FILE=/microsoft/ndv4-topo.xml"), std::string::npos);
    std::string p = job_text(jobs[1]);
    EXPECT_EQ(jobs[1].array_size, 2);
    EXPECT_NE(p.find("#SBATCH --array=0-1%30\n"), std::string::npos);
    EXPECT_NE(p.find("TB_PREFIX=\"${OUT_DIR}/my-gpt3_${TB_NAME}\""), std::string::npos);
    EXPECT_NE(p.find("rm -f \"${DATA_DIR}/${TB_NAME}.jsonl.zst\""), std::string::npos);  // rm_downloaded
}

TEST(StagesRender, PreparedDataPointsTrainingAtThePreparedPrefixes) {
    recipe::Recipe r = render_test::base_recipe("megatron-lm");
    recipe::Stage prep;
    prep.name = "prepare-data";
    prep.kind = "prepare-data";
    prep.options = {{"dataset", "pile"}, {"data_dir", "/d"}, {"shards", "3"}};
    recipe::Stage train;
    train.name = "train";
    train.kind = "train";
    r.stages = {prep, train};
    r.data.kind = "prepared";
    RenderOptions o;
    o.template_dirs = {render_test::shipped_templates()};
    auto jobs = render(r, o);
    ASSERT_EQ(jobs.size(), 2u);
    EXPECT_EQ(jobs[0].array_size, 1);
    std::string t = job_text(jobs[1]);
    EXPECT_NE(t.find("--data-path 1 /d/my-gpt3_03_text_document"), std::string::npos) << t;
    EXPECT_NE(t.find("--vocab-file /d/bpe/vocab.json"), std::string::npos);
}

}  // namespace
}  // namespace trainbench::render

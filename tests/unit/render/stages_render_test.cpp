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
    // nccl-tests as MPI ranks: srun --mpi=pmix, HPC-X loaded, the binary the stage built.
    const std::string hpcx = "/opt/hpcx-v2.9.0-gcc-MLNX_OFED_LINUX-5.4-1.0.3.0-ubuntu20.04-x86_64";
    const std::string built = "/shared/ngc_scripts/bignlp-scripts/csp/azure/nccl-tests/build/all_reduce_perf";
    EXPECT_NE(v.find("-N 2 -n 16 -w \"${tb_a},${tb_b}\" bash -c 'source \"$1/hpcx-init.sh\" && hpcx_load && shift && "
                     "exec \"$@\"' tb-hpcx " +
                     hpcx + " " + built + " -b 8 -e 8G -f 2 -g 1"),
              std::string::npos)
        << v;
    EXPECT_NE(v.find("srun --ntasks-per-node=8 --mpi=pmix --time=00:20:00 --mem=440gb "
                     "--container-image=nvcr.io/nvidia/pytorch:22.06-py3"),
              std::string::npos)
        << v;
    EXPECT_NE(v.find(hpcx + ":" + hpcx), std::string::npos);  // the host's HPC-X, mounted
    EXPECT_NE(v.find("if [ ! -x " + built + " ]; then"), std::string::npos);
    EXPECT_NE(v.find("git clone --quiet --depth 1 --branch \"$ref\""), std::string::npos);
    EXPECT_NE(v.find("tb-build-nccl-tests /shared/ngc_scripts/bignlp-scripts/csp/azure/nccl-tests "
                     "https://github.com/NVIDIA/nccl-tests.git v2.19.6 " +
                     hpcx),
              std::string::npos);
    // The job's limit is the steps' sum: DCGM 1 h + 3 nccl-tests runs of 20 min.
    EXPECT_NE(v.find("#SBATCH --time=02:00:00\n"), std::string::npos);
    EXPECT_NE(v.find("--time=1:00:00 --container-image=nvcr.io/nvidia/cloud-native/dcgm"), std::string::npos);
    EXPECT_NE(v.find("tb_out=logs/validate/nccl-${tb_a}-${tb_b}.txt"), std::string::npos);
    EXPECT_NE(v.find("awk -v t=180"), std::string::npos);
    EXPECT_NE(v.find("export NCCL_TOPO_FILE=/microsoft/ndv4-topo.xml"), std::string::npos);
    std::string p = job_text(jobs[1]);
    EXPECT_EQ(jobs[1].array_size, 2);
    EXPECT_NE(p.find("#SBATCH --array=0-1%30\n"), std::string::npos);
    EXPECT_NE(p.find("TB_PREFIX=\"${OUT_DIR}/my-gpt3_${TB_NAME}\""), std::string::npos);
    EXPECT_NE(p.find("rm -f \"${DATA_DIR}/${TB_NAME}.jsonl.zst\""), std::string::npos);  // rm_downloaded
    // Today's source, in the 22.06 image with NeMo at /opt/bignlp/NeMo and the data mounted.
    EXPECT_NE(p.find("https://huggingface.co/datasets/monology/pile-uncopyrighted/resolve/main/train/"),
              std::string::npos);
    EXPECT_NE(p.find("--container-image=nvcr.io/ea-bignlp/bignlp-training:22.06-hotfix.01-py3"), std::string::npos);
    EXPECT_NE(p.find("/shared/data/NeMo:/shared/data/NeMo"), std::string::npos);
    EXPECT_NE(p.find("python3 /opt/bignlp/NeMo/scripts/nlp_language_modeling/preprocess_data_for_megatron.py"),
              std::string::npos);
    EXPECT_NE(p.find("tb_check_complete"), std::string::npos);
}

TEST(StagesRender, Seed002PreparationSeesItsDataAndNeverSkipsAFailedDownloadSilently) {
    auto jobs = render_seed("azure-nd-h100-v5/gpt3-175b.yaml");
    std::string s = job_text(jobs[0]);
    EXPECT_NE(s.find("--container-image=/data/stage/nemo+24.05.sqsh"), std::string::npos);
    EXPECT_NE(s.find("/data/stage/slimpajama:/data/stage/slimpajama"), std::string::npos) << s;
    EXPECT_NE(s.find("python3 /opt/NeMo/scripts/nlp_language_modeling/"), std::string::npos);
    EXPECT_EQ(s.find("|| rm -f"), std::string::npos);  // a failed download is never deleted and skipped
    EXPECT_NE(s.find("tb_missing+=(\"${DATA_DIR}/${tb_f}.jsonl.zst\")"), std::string::npos);
}

TEST(StagesRender, SlurmKnobsAreDirectivesAndQuotedWords) {
    fs::path recipes = render_test::source_dir() / "recipes";
    catalog::Catalog cat = catalog::Catalog::load({recipes});
    recipe::LoadOptions lo;
    for (const char* o : {"slurm.nodelist=gpu-[1-2]", "slurm.exclude=gpu-3", "slurm.reservation=bench",
                          "slurm.directives=[--gres-flags=enforce-binding, --comment=seed000]",
                          "slurm.srun_args=[--mpi=pmix]", "env.NCCL_TOPO_FILE=null"})
        lo.overrides.push_back(recipe::parse_override(o));
    recipe::Recipe r = recipe::load_recipe(recipes / "azure-ndm-a100-v4/gpt3-126m.yaml", cat, lo);
    RenderOptions o;
    o.template_dirs = {render_test::shipped_templates()};
    o.stage = "train";
    std::string s = job_text(render(r, o).front());
    for (const char* line : {"#SBATCH --nodelist=gpu-[1-2]\n", "#SBATCH --exclude=gpu-3\n",
                             "#SBATCH --reservation=bench\n", "#SBATCH --gres-flags=enforce-binding\n",
                             "#SBATCH --comment=seed000\n", "unset NCCL_TOPO_FILE\n", "  --mpi=pmix \\\n"})
        EXPECT_NE(s.find(line), std::string::npos) << line << "\n" << s;
    EXPECT_EQ(s.find("export NCCL_TOPO_FILE="), std::string::npos) << s;
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

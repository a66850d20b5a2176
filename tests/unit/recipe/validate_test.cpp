#include "test_support.hpp"

#include <gtest/gtest.h>

namespace trainbench::recipe {
namespace {

using test::data_dir;
using test::problems;

const auto k_minimal = data_dir() / "valid" / "minimal.yaml";
constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;

// Each rule: overrides on the minimal recipe (8x A100 80GB, gpt3-126m) and the message it must produce.
struct Rule {
    const char* what;
    std::vector<std::string> overrides;
    const char* expected;
};

class ValidationRule : public ::testing::TestWithParam<Rule> {};

TEST_P(ValidationRule, RejectsWithALocatedReason) {
    const Rule& rule = GetParam();
    std::string all = problems(k_minimal, rule.overrides);
    EXPECT_NE(all.find(rule.expected), std::string::npos) << rule.what << ":\n" << all;
}

INSTANTIATE_TEST_SUITE_P(
    Rules, ValidationRule,
    ::testing::Values(
        Rule{"model parallelism divides the GPUs",
             {"parallelism.tensor=3"},
             "-s parallelism.tensor=3: error: 'parallelism.tensor': tensor 3 x pipeline 1 x context 1 = 3 does not "
             "divide the 8 GPUs (1 node x 8)"},
        Rule{
            "context parallelism counts too", {"parallelism.context=16"}, "context 16 = 16 does not divide the 8 GPUs"},
        Rule{"heads divisible by tensor",
             {"parallelism.tensor=8"},
             "12 attention heads are not divisible by tensor parallel 8"},
        Rule{"kv heads divisible by tensor",
             {"model.kv_heads=2", "parallelism.tensor=4"},
             "2 kv heads are not divisible by tensor parallel 4"},
        Rule{"layers divisible by pipeline",
             {"parallelism.pipeline=8", "batch.global=64"},
             "12 layers are not divisible by pipeline parallel 8"},
        Rule{"layers divisible by pipeline x virtual",
             {"parallelism.pipeline=2", "parallelism.virtual_pipeline=4", "batch.global=64"},
             "12 layers are not divisible by pipeline 2 x virtual_pipeline 4 = 8 model chunks"},
        Rule{"virtual needs a pipeline",
             {"parallelism.virtual_pipeline=2"},
             "an interleaved (virtual) pipeline needs pipeline > 1"},
        Rule{"global batch divisible by micro x dp",
             {"batch.global=100"},
             "-s batch.global=100: error: 'batch.global': global batch 100 is not divisible by micro batch 4 x data "
             "parallel 8 = 32"},
        Rule{"sequence parallel needs tensor",
             {"parallelism.sequence_parallel=true"},
             "sequence parallelism needs tensor parallel > 1"},
        Rule{"fp8 needs a GPU with fp8",
             {"precision=fp8"},
             "GPU 'a100-sxm-80gb' of target 'azure-ndm-a100-v4' has no fp8 support (expected one of the GPU's "
             "precisions: 'bf16', 'fp16', 'tf32' or 'fp32')"},
        Rule{"nvfp4 needs Blackwell",
             {"target=azure-nd-h100-v5", "precision=nvfp4"},
             "GPU 'h100-sxm-80gb' of target 'azure-nd-h100-v5' has no nvfp4 support (expected one of the GPU's "
             "precisions: 'bf16', 'fp16', 'fp8', 'tf32' or 'fp32')"},
        Rule{"mxfp8 is a precision name", {"precision=mxfp9"}, "did you mean 'mxfp8'?"},
        Rule{"expert tensor parallel needs experts",
             {"parallelism.expert_tensor=2"},
             "-s parallelism.expert_tensor=2: error: 'parallelism.expert_tensor': expert tensor parallel 2 on a dense "
             "model"},
        Rule{"the expert layout divides the GPUs",
             {"model=mixtral-8x7b", "parallelism.expert=8", "parallelism.expert_tensor=2", "batch.micro=1",
              "batch.global=64"},
             "'parallelism.expert_tensor': expert 8 x expert_tensor 2 x pipeline 1 = 16 does not divide the 8 GPUs"},
        Rule{"the expert tensor size divides the expert FFN",
             {"model=qwen3-30b-a3b", "parallelism.expert_tensor=5", "batch.micro=1", "batch.global=64"},
             "the expert FFN size 768 is not divisible by expert tensor parallel 5"},
        Rule{"expert parallel divides the experts",
             {"model=mixtral-8x7b", "parallelism.expert=3", "batch.micro=1", "batch.global=64"},
             "8 experts are not divisible by expert parallel 3"},
        Rule{"gpus per node within the target",
             {"gpus_per_node=16"},
             "16 GPUs per node, but target 'azure-ndm-a100-v4' has 8"},
        Rule{"nodes at least one", {"nodes=0"}, "'nodes': value 0 is out of range"},
        Rule{"window inside the steps", {"steps=20"}, "window [10, 30] goes beyond the 20 steps"},
        Rule{"window ordered", {"metrics.window=[30,10]"}, "window [30, 10] starts after it ends"},
        Rule{"profiling inside the steps",
             {"profiling.nsys=true", "profiling.start_step=41", "profiling.end_step=60"},
             "profiling ends at step 60, after the last step 50"},
        Rule{"profiling ranks exist",
             {"profiling.nsys=true", "profiling.start_step=1", "profiling.end_step=2", "profiling.ranks=[9]"},
             "rank 9 does not exist (8 ranks)"},
        Rule{"custom needs a command", {"framework=custom"}, "framework 'custom' needs the training command"},
        Rule{"custom needs a log format",
             {"framework=custom", "launch.command=[python3, t.py]"},
             "framework 'custom' needs the format of its log"},
        Rule{"command only for custom",
             {"launch.command=[python3, t.py]"},
             "launch.command replaces the whole training command"},
        Rule{"metaseq has no pipeline",
             {"framework=metaseq", "parallelism.pipeline=2"},
             "metaseq has no pipeline parallelism"},
        Rule{"metaseq needs 2 GPUs per node",
             {"framework=metaseq", "gpus_per_node=1", "batch.global=4"},
             "metaseq's launcher needs at least 2 GPUs per node"},
        Rule{"pyxis needs slurm",
             {"target=gcp-a3-megagpu-8g", "container.runtime=pyxis"},
             "runtime 'pyxis' needs a Slurm target"},
        Rule{"containerd needs kubernetes",
             {"container.runtime=containerd"},
             "runtime 'containerd' is for Kubernetes targets"},
        Rule{"a container runtime needs an image", {"container.image="}, "container runtime 'pyxis' needs an image"},
        Rule{"expert parallel needs experts", {"parallelism.expert=2"}, "expert parallel 2 on a dense model"},
        Rule{"recompute layers within a stage",
             {"recompute.granularity=full", "recompute.num_layers=13"},
             "13 layers to recompute, but a pipeline stage has 12"},
        Rule{"context divides the sequence",
             {"model.seq_length=1000", "parallelism.context=8", "batch.global=32"},
             "sequence length 1000 is not divisible by 2 x context parallel 8"},
        Rule{"memory fit", {"model=gpt3-175b", "batch.micro=1", "batch.global=64"}, "error: 'memory': estimated"},
        Rule{"metrics.path stays inside the log directory",
             {"metrics.path=../../etc/x"},
             "-s metrics.path=../../etc/x: error: 'metrics.path': metrics.path '../../etc/x' must be a relative path "
             "inside the log directory"},
        Rule{"an env reference names a variable",
             {"env.TOKEN=${env:no-such name}"},
             "-s env.TOKEN=${env:no-such name}: error: 'env.TOKEN': '${env:no-such name}' does not name a variable"},
        Rule{"Kubernetes pods need an image",
             {"target=gcp-a3-megagpu-8g", "container.runtime=none", "container.image="},
             "error: 'container.image': target 'gcp-a3-megagpu-8g' runs on Kubernetes, whose pods need an image"}));

TEST(Validate, TheValidCorpusPasses) {
    int n = 0;
    for (const auto& file : find_recipe_files(data_dir() / "valid")) {
        EXPECT_EQ(problems(file), "") << file;
        ++n;
    }
    EXPECT_GE(n, 5);
}

TEST(Validate, ErrorsPointAtTheKeyThatSetTheValue) {
    Diagnostics d;
    Recipe r = test::load(data_dir() / "valid" / "extends_chain.yaml", {"batch.global=65"});
    validate_recipe(r, d);
    ASSERT_EQ(d.error_count(), 1u) << d.format();
    EXPECT_EQ(d.items()[0].location.to_string(), "-s batch.global=65");
    Diagnostics d2;
    Recipe r2 = test::load(data_dir() / "valid" / "extends_chain.yaml", {"model=gpt3-126m", "parallelism.tensor=8"});
    validate_recipe(r2, d2);
    std::string all = d2.format();
    // tensor 8 came from the override; the GPU count (2 nodes) from base_a.yaml
    EXPECT_NE(all.find("-s parallelism.tensor=8: error: 'parallelism.tensor': 12 attention heads"), std::string::npos)
        << all;
}

TEST(MemoryEstimate, CountsGpt3ParametersLikeTheLiterature) {
    Recipe r = test::load(k_minimal, {"model=gpt3-175b", "nodes=128", "parallelism.tensor=8", "parallelism.pipeline=8",
                                      "batch.micro=1", "batch.global=1536", "parallelism.sequence_parallel=true"});
    MemoryEstimate e = estimate_memory(r);
    EXPECT_NEAR(e.parameters / 1e9, 174.6, 1.0);  // 175B with a padded 50304-token vocabulary
    // 12 layers per stage of 1/8 each, plus the embedding on the first stage
    EXPECT_NEAR(e.parameters_per_gpu / 1e9, 174.6 / 64 + 0.08, 0.1);
    EXPECT_TRUE(e.fits());
    Recipe small = test::load(k_minimal);
    EXPECT_NEAR(estimate_memory(small).parameters / 1e6, 125.2, 1.5);  // gpt3-126m
}

TEST(MemoryEstimate, UsesMegatronBytesPerParameter) {
    Recipe with = test::load(k_minimal, {"distributed_optimizer=true"});
    Recipe without = test::load(k_minimal, {"distributed_optimizer=false"});
    MemoryEstimate a = estimate_memory(with), b = estimate_memory(without);
    const double P = a.parameters_per_gpu;
    EXPECT_DOUBLE_EQ(a.weights, 2 * P);
    EXPECT_DOUBLE_EQ(a.gradients, 4 * P);
    EXPECT_DOUBLE_EQ(a.optimizer, 12 * P / 8);  // sharded over the 8 data-parallel ranks
    EXPECT_DOUBLE_EQ(b.weights + b.gradients + b.optimizer, 18 * P);
    Recipe fp32 = test::load(k_minimal, {"precision=fp32", "distributed_optimizer=false"});
    MemoryEstimate c = estimate_memory(fp32);
    EXPECT_DOUBLE_EQ(c.weights + c.gradients + c.optimizer, 16 * c.parameters_per_gpu);
}

TEST(MemoryEstimate, ActivationsFollowKorthikanti2022) {
    // metaseq (no fused attention) keeps the 5as/h score term without recompute
    Recipe r = test::load(k_minimal, {"framework=metaseq", "batch.micro=1", "batch.global=8"});
    MemoryEstimate e = estimate_memory(r);
    const double s = 2048, b = 1, h = 768, a = 12, L = 12, V = 50304;
    const double per_layer = s * b * h * (34 + 5 * a * s / h);
    const double logits = 4 * s * b * V;
    EXPECT_NEAR(e.activations, L * per_layer + logits, 1.0);
    EXPECT_NEAR(e.activations_full_recompute, L * 2 * s * b * h + logits, 1.0);
    // NeMo/Megatron use fused attention: no score term
    Recipe nemo = test::load(k_minimal, {"batch.micro=1", "batch.global=8"});
    EXPECT_NEAR(estimate_memory(nemo).activations, L * s * b * h * 34 + logits, 1.0);
    // sequence parallel divides everything by t
    Recipe sp = test::load(k_minimal, {"batch.micro=1", "batch.global=8", "parallelism.tensor=4",
                                       "parallelism.sequence_parallel=true", "batch.global=2"});
    const double V4 = 50688;  // padded to a multiple of 128 x 4
    EXPECT_NEAR(estimate_memory(sp).activations, L * s * b * h * 34 / 4 + 4 * s * b * V4 / 4, 1.0);
    // selective recompute <= none; full < selective
    Recipe full = test::load(k_minimal, {"recompute.granularity=full"});
    Recipe sel = test::load(k_minimal, {"recompute.granularity=selective"});
    EXPECT_LT(estimate_memory(full).activations, estimate_memory(sel).activations);
}

TEST(MemoryEstimate, Gpt3175bDoesNotFitOnOneNodeOfA10040GB) {
    Recipe r = test::load(k_minimal, {"target=aws-p4d-24xlarge", "model=gpt3-175b", "parallelism.tensor=8",
                                      "batch.micro=1", "batch.global=8"});
    MemoryEstimate e = estimate_memory(r);
    EXPECT_FALSE(e.fits());
    EXPECT_DOUBLE_EQ(e.capacity, 40 * k_gib);
    EXPECT_GT(e.total / k_gib, 300.0);  // 21.8B parameters per GPU x 18 bytes alone is ~366 GiB
    Diagnostics d;
    validate_recipe(r, d);
    std::string all = d.format();
    EXPECT_NE(all.find("does not fit in the 40.0 GiB of 'a100-sxm-40gb'"), std::string::npos) << all;
}

TEST(MemoryEstimate, IsSkippedOnTheCpuOfLocalTargets) {
    Recipe r = test::load(data_dir() / "valid" / "local_tinygpt.yaml", {"model=gpt3-175b", "batch.global=8"});
    Diagnostics d;
    validate_recipe(r, d);
    EXPECT_EQ(d.format().find("memory"), std::string::npos) << d.format();
    EXPECT_DOUBLE_EQ(estimate_memory(r).capacity, 0);
}

}  // namespace
}  // namespace trainbench::recipe

// The memory estimate of today's workloads: parameter counts of the new models against their
// published sizes, experts sharded by expert (and expert-tensor) parallelism, activations by
// context parallelism, MLA's compressed KV, FP8 parameter copies, the distributed optimizer over
// data x context and expert data parallel groups, interleaving; the published configurations
// fit and obviously wrong ones do not.
#include "test_support.hpp"

#include <gtest/gtest.h>

namespace trainbench::recipe {
namespace {

constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;

std::filesystem::path shipped(const std::string& rel) {
    return test::source_dir() / "recipes" / rel;
}

MemoryEstimate estimate(const std::string& rel, const std::vector<std::string>& overrides = {}) {
    return estimate_memory(test::load(shipped(rel), overrides));
}

TEST(MemoryEstimate, CountsTodaysModelsAtTheirPublishedSizes) {
    // Megatron's padded vocabulary adds a little (128 x TP); DeepSeek-V3's 671B excludes its
    // MTP module (the Hugging Face card's 685B includes it, with the shared embedding and head).
    const std::vector<std::pair<std::string, double>> sizes = {{"aws-p5/llama3.1-8b-fp8.yaml", 8.03},
                                                               {"gcp-a3-ultra/llama3.1-70b-fp8.yaml", 70.6},
                                                               {"azure-nd-gb200-v6/llama3.1-405b-fp8.yaml", 405.9},
                                                               {"gcp-a4/mixtral-8x7b-fp8.yaml", 46.7},
                                                               {"aws-p5/mixtral-8x22b-fp8.yaml", 140.6},
                                                               {"gcp-a4/qwen3-30b-a3b-mxfp8.yaml", 30.5},
                                                               {"azure-nd-gb200-v6/qwen3-235b-a22b-mxfp8.yaml", 235.1}};
    for (const auto& [rel, billions] : sizes) EXPECT_NEAR(estimate(rel).parameters / 1e9, billions, 0.1) << rel;
    const std::string dsv3 = "azure-nd-gb200-v6/deepseek-v3-mxfp8.yaml";
    const double with_mtp = estimate(dsv3).parameters / 1e9;
    const double without =
        estimate(dsv3, {"model.mtp_layers=0", "parallelism.pipeline_layout=Et*4|(tttt|)*14tL"}).parameters / 1e9;
    EXPECT_NEAR(without, 671.0, 1.0);
    EXPECT_NEAR(with_mtp - without, 11.7, 0.3);  // one MoE layer and the [embedding; hidden] projection
}

TEST(MemoryEstimate, ShardsRoutedExpertsByExpertAndExpertTensorParallelism) {
    // Mixtral 8x7B on one node: EP8 holds 1 of 8 experts per GPU; TP2 + ETP2 splits each expert too.
    const std::string rel = "gcp-a4/mixtral-8x7b-fp8-smoke.yaml";  // 8 layers, 1 node
    const double h = 4096, f = 14336, L = 8;
    const double expert = 3 * h * f;
    const MemoryEstimate ep8 = estimate(rel), ep1 = estimate(rel, {"parallelism.expert=1"});
    EXPECT_NEAR(ep1.parameters_per_gpu - ep8.parameters_per_gpu, L * 8 * expert * 7 / 8, 1.0);
    const MemoryEstimate etp2 =
        estimate(rel, {"parallelism.tensor=2", "parallelism.sequence_parallel=true", "parallelism.expert=4"});
    const MemoryEstimate etp1 = estimate(rel, {"parallelism.tensor=2", "parallelism.sequence_parallel=true",
                                               "parallelism.expert=4", "parallelism.expert_tensor=1"});
    EXPECT_NEAR(etp1.parameters_per_gpu - etp2.parameters_per_gpu, L * 2 * expert / 2, 1.0);
    // Routed experts shard their optimizer state over expert data parallel (8 / (EP x ETP)), the
    // rest over data parallel: EP8 on 8 GPUs leaves the experts' state unsharded.
    EXPECT_NEAR(ep8.optimizer, 12 * (ep8.parameters_per_gpu - L * expert) / 8 + 12 * L * expert, 1e6);
}

TEST(MemoryEstimate, ContextParallelSplitsTheSequenceOfEveryActivation) {
    const std::string rel = "aws-p5/mixtral-8x22b-fp8-smoke.yaml";  // CP2 at 65,536 tokens
    const MemoryEstimate cp2 = estimate(rel);
    const MemoryEstimate cp1 = estimate(rel, {"parallelism.context=1", "nodes=1"});
    // full recompute keeps each layer's input: 2 s b h / t with sequence parallelism, s = 65536 / cp
    const MemoryEstimate full2 = estimate(rel, {"recompute.granularity=full"});
    const MemoryEstimate full1 = estimate(rel, {"recompute.granularity=full", "parallelism.context=1", "nodes=1"});
    EXPECT_NEAR(full1.activations / full2.activations, 2.0, 1e-9);
    EXPECT_GT(cp1.activations, 1.9 * cp2.activations);
}

TEST(MemoryEstimate, MlaUpProjectionRecomputeKeepsOnlyTheCompressedKv) {
    const std::string rel = "azure-nd-gb200-v6/deepseek-v3-mxfp8-smoke.yaml";
    const MemoryEstimate kept = estimate(rel, {"recompute.modules=[]", "recompute.granularity=none"});
    const MemoryEstimate up = estimate(rel);  // selective, mla_up_proj
    // Q, K (128 + 64 per head) and V (128 per head) of 128 heads at 4096 tokens, bf16, per layer:
    const double per_layer = 2.0 * 4096 * 128 * (2 * 192 + 128);
    // rank 0 of PP2 holds 2 layers; 2 micro-batches in flight (1F1B), no interleaving
    EXPECT_NEAR(kept.activations - up.activations, per_layer * 2 * 2, 1.0);
}

TEST(MemoryEstimate, Fp8ParametersReplaceTheBf16CopyInsteadOfAddingQuantizedOnes) {
    const std::string rel = "aws-p5/llama3.1-8b-fp8.yaml";
    Recipe r = test::load(shipped(rel));
    const MemoryEstimate gathered = estimate_memory(r);
    std::erase(r.launch.extra_args, std::string("--fp8-param-gather"));
    const MemoryEstimate cached = estimate_memory(r);
    // Transformer Engine's FP8 weight and its transpose: 2 bytes per GEMM weight (everything
    // but the embeddings, output layer and norms of Llama 3.1 8B: 32 x 218M)
    const double gemm = 32 * (4096.0 * 4096 * 2 + 2 * 4096.0 * 1024 + 3 * 4096.0 * 14336);
    EXPECT_NEAR(cached.weights - gathered.weights, 2 * gemm, 1.0);
    EXPECT_DOUBLE_EQ(gathered.weights, 2 * gathered.parameters_per_gpu);
    EXPECT_DOUBLE_EQ(gathered.gradients, 2 * gathered.parameters_per_gpu);  // --grad-reduce-in-bf16
}

TEST(MemoryEstimate, InterleavingAddsPMinusOneOverPvOfTheFirstStagesActivations) {
    const std::string rel = "gcp-a3-ultra/llama3.1-70b-fp8.yaml";  // PP4 VP5
    const MemoryEstimate v5 = estimate(rel);
    const MemoryEstimate v0 = estimate(rel, {"parallelism.virtual_pipeline=0"});
    EXPECT_NEAR(v5.activations / v0.activations, 1.0 + 3.0 / 20.0, 1e-9);
}

TEST(MemoryEstimate, ThePublishedConfigurationsFit) {
    for (const char* rel : {"aws-p5/llama3.1-8b-fp8.yaml", "gcp-a3-ultra/llama3.1-70b-fp8.yaml",
                            "azure-nd-gb200-v6/llama3.1-405b-fp8.yaml", "gcp-a4/mixtral-8x7b-fp8.yaml",
                            "aws-p5/mixtral-8x22b-fp8.yaml", "azure-nd-gb200-v6/deepseek-v3-mxfp8.yaml",
                            "gcp-a4/qwen3-30b-a3b-mxfp8.yaml", "azure-nd-gb200-v6/qwen3-235b-a22b-mxfp8.yaml"}) {
        const MemoryEstimate e = estimate(rel);
        EXPECT_TRUE(e.fits()) << rel << ": " << e.total / k_gib << " of " << e.capacity / k_gib << " GiB";
    }
    // Megatron-Bridge's H100 row of Llama 3.1 405B (1024 GPUs: TP8 PP8 VP8 CP2, GBS 1536) fits too
    EXPECT_TRUE(
        estimate("aws-p5/llama3.1-8b-fp8.yaml",
                 {"model=llama3.1-405b", "nodes=128", "parallelism.tensor=8", "parallelism.pipeline=8",
                  "parallelism.virtual_pipeline=8", "parallelism.context=2", "parallelism.sequence_parallel=true",
                  "parallelism.pipeline_layout=Et|(tt|)*62,tL", "batch.global=1536", "recompute.granularity=none"})
            .fits());
}

TEST(MemoryEstimate, Llama405bWithoutPipelineParallelismDoesNotFit64H100s) {
    // 8 p5 nodes, TP8 and no pipeline: 405.9B / 8 = 50.7B parameters per GPU, 101 GB of bf16
    // weights alone against 80 GB
    const std::vector<std::string> wrong = {"model=llama3.1-405b",
                                            "nodes=8",
                                            "parallelism.tensor=8",
                                            "parallelism.pipeline=1",
                                            "parallelism.sequence_parallel=true",
                                            "batch.global=64",
                                            "recompute.granularity=full",
                                            "recompute.num_layers=0"};
    const MemoryEstimate e = estimate("aws-p5/llama3.1-8b-fp8.yaml", wrong);
    EXPECT_FALSE(e.fits());
    EXPECT_NEAR(e.parameters_per_gpu / 1e9, 50.8, 0.2);
    EXPECT_GT(e.weights / k_gib, 80.0);
    const std::string all = test::problems(shipped("aws-p5/llama3.1-8b-fp8.yaml"), wrong);
    EXPECT_NE(all.find("does not fit in the 80.0 GiB of 'h100-sxm-80gb'"), std::string::npos) << all;
    // Mixtral 8x22B at 64K on one p5 node: no context parallelism, experts not sharded
    EXPECT_FALSE(estimate("aws-p5/mixtral-8x22b-fp8-smoke.yaml",
                          {"nodes=1", "parallelism.context=1", "parallelism.pipeline=1",
                           "parallelism.virtual_pipeline=0", "parallelism.expert=1", "model.layers=56"})
                     .fits());
}

TEST(MemoryEstimate, DeepSeekV3WithoutExpertParallelismDoesNotFit256Gb200s) {
    // The published GB200 row shards the 256 routed experts over EP 64; with EP 1 every rank of a
    // PP4 stage holds all of its layers' experts: about 184B parameters per GPU, 2 bytes each in
    // bf16 plus the MXFP8 copy, against 186 GiB.
    const MemoryEstimate ok = estimate("azure-nd-gb200-v6/deepseek-v3-mxfp8.yaml");
    const MemoryEstimate e = estimate("azure-nd-gb200-v6/deepseek-v3-mxfp8.yaml", {"parallelism.expert=1"});
    EXPECT_TRUE(ok.fits());
    EXPECT_FALSE(e.fits());
    EXPECT_GT(e.parameters_per_gpu, 20.0 * ok.parameters_per_gpu);  // 184B against 7.7B
    EXPECT_GT(e.weights / k_gib, 186.0);
    const std::string all =
        test::problems(shipped("azure-nd-gb200-v6/deepseek-v3-mxfp8.yaml"), {"parallelism.expert=1"});
    EXPECT_NE(all.find("does not fit in the 186.0 GiB of 'gb200-186gb'"), std::string::npos) << all;
}

TEST(MemoryEstimate, Llama70bAsPureDataParallelDoesNotFitAnH200) {
    // The A3 Ultra row is TP4 PP4 VP5; without model parallelism each H200 holds all 70.6B
    // parameters: 2 bytes of weights and 2 of gradients (the row reduces them in bf16) each are
    // 263 GiB before the optimizer and activations.
    const std::vector<std::string> wrong = {"parallelism.tensor=1", "parallelism.pipeline=1",
                                            "parallelism.virtual_pipeline=0", "parallelism.sequence_parallel=false"};
    const MemoryEstimate e = estimate("gcp-a3-ultra/llama3.1-70b-fp8.yaml", wrong);
    EXPECT_FALSE(e.fits());
    EXPECT_NEAR(e.parameters_per_gpu / 1e9, 70.55, 0.1);
    EXPECT_GT(e.weights + e.gradients, 1.8 * e.capacity);
}

}  // namespace
}  // namespace trainbench::recipe

// The dated FLOPs conventions: names, aliases, dates and sources; the shape the
// formulas read; what tells one convention from the next; published figures
// reproduced (the exact agreement with the upstream functions is checked by
// tests/integration/flops_oracle.test.sh, which runs them).
#include "analysis/flops_detail.hpp"
#include "unit/analysis/test_models.hpp"
#include "unit/shipped_gpus.hpp"

#include <trainbench/catalog.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

namespace trainbench::analysis {
namespace {

using testing::gpt3_175b;

// The shipped catalog's Llama 3.1 70B (recipes/catalog/models/llama3.1-70b.yaml).
const catalog::Model& llama31_70b() {
    return trainbench::testing::shipped_model("llama3.1-70b");
}

FlopsShape moe_shape() {
    FlopsShape s;
    s.name = "test-moe";
    s.family = "qwen3";
    s.layers = 8;
    s.hidden = 1024;
    s.heads = 16;
    s.kv_heads = 4;
    s.ffn = 4096;
    s.vocab = 32000;
    s.gated_mlp = true;
    s.rms_norm = true;
    s.experts = 16;
    s.top_k = 4;
    s.moe_ffn = 512;
    s.shared_ffn = 1024;
    s.dense_first = 2;
    return s;
}

double per_sample(std::string_view convention, const FlopsShape& shape, int seq, int tp = 1) {
    FlopsInput in;
    in.shape = shape;
    in.seq_length = seq;
    in.tensor_parallel = tp;
    return find_flops_convention(convention).per_sample(in).per_sample;
}

TEST(DatedConventions, EveryOneNamesItsSourceDatesAndVersions) {
    std::set<std::string_view> names;
    for (const FlopsConvention& c : flops_conventions()) {
        SCOPED_TRACE(std::string(c.name));
        EXPECT_TRUE(names.insert(c.name).second);
        EXPECT_FALSE(c.framework.empty());
        EXPECT_FALSE(c.versions.empty());
        EXPECT_FALSE(c.from.empty() && c.until.empty()) << "undated";
        ASSERT_FALSE(c.sources.empty());
        for (const ConventionSource& s : c.sources) {
            EXPECT_FALSE(s.repository.empty());
            EXPECT_EQ(s.date.size(), 10U) << s.date;
        }
    }
}

TEST(DatedConventions, UndatedNamesAreAliasesOfTheVersionsTrainbenchShips) {
    EXPECT_EQ(find_flops_convention("megatron").name, "megatron-2025-03");
    EXPECT_EQ(find_flops_convention("nemo").name, "nemo-2024");
    EXPECT_EQ(find_flops_convention("gpu-recipes").name, "gpu-recipes-2025-05");
    EXPECT_EQ(find_flops_convention("megatron-bridge").name, "megatron-bridge-2026");
    EXPECT_EQ(find_flops_convention("torchtitan").name, "torchtitan-2026-08");
    EXPECT_EQ(find_flops_convention("palm").name, "palm-2022");
    EXPECT_EQ(find_flops_alias("megatron-2024"), nullptr);
    for (const ConventionAlias& a : flops_convention_aliases()) EXPECT_NO_THROW((void)find_flops_convention(a.target));
    // The causal discount: Megatron-LM from 2025-03-06, NeMo's gpt3/llama formulas from 2025-08-09.
    EXPECT_TRUE(find_flops_convention("megatron-2025-03").causal);
    EXPECT_FALSE(find_flops_convention("megatron-2024").causal);
    EXPECT_TRUE(find_flops_convention("nemo-2025-08").causal);
    EXPECT_FALSE(find_flops_convention("nemo").causal);
    EXPECT_EQ(find_flops_convention("megatron-2024").until, "2025-03-05");
    EXPECT_EQ(find_flops_convention("nemo-2024").until, "2025-08-08");
}

TEST(DatedConventions, AFrameworkVersionDefaultsToTheConventionOfItsDate) {
    EXPECT_EQ(catalog::default_flops_convention("nemo", "24.07"), "nemo-2024");
    EXPECT_EQ(catalog::default_flops_convention("nemo", "22.06"), "nemo-2024");
    EXPECT_EQ(catalog::default_flops_convention("megatron-lm", "d98e8a64"), "megatron-2025-03");
    EXPECT_EQ(catalog::default_flops_convention("megatron-lm", "e958b2ca"), "megatron-2025-03");
    EXPECT_EQ(catalog::default_flops_convention("megatron-lm", "fdfcef87"), "megatron-2024");
    EXPECT_EQ(catalog::default_flops_convention("metaseq", "f7ffa5f"), "megatron");  // the kind's default
    for (const catalog::FrameworkKind& k : catalog::framework_kinds())
        EXPECT_NO_THROW((void)find_flops_convention(catalog::default_flops_convention(k.name, "")));
}

TEST(DatedConventions, GpuRecipesConventionsShareItsPeaksAndRecords) {
    EXPECT_TRUE(is_gpu_recipes_convention("gpu-recipes-2024-10"));
    EXPECT_FALSE(is_gpu_recipes_convention("megatron"));
    EXPECT_EQ(peak_convention("gpu-recipes-2025-05"), "gpu-recipes");
    EXPECT_EQ(peak_convention("gpu-recipes"), "gpu-recipes");
    EXPECT_EQ(peak_convention("megatron"), "megatron-2025-03");
    // The table only grew: every 2024 key has the same value today.
    for (const auto& [model, value] : gpu_recipes_model_flops_2024())
        EXPECT_DOUBLE_EQ(gpu_recipes_model_flops().at(model), value) << model;
    EXPECT_EQ(gpu_recipes_model_flops_2024().count("llama3.1-70b"), 0U);
}

TEST(FlopsShape, MoeLayersFollowDenseFirstAndMoeLayerFreq) {
    FlopsShape s = moe_shape();
    EXPECT_EQ(s.moe_pattern(), (std::vector<int>{0, 0, 1, 1, 1, 1, 1, 1}));
    s.moe_every = 2;
    EXPECT_EQ(s.moe_pattern(), (std::vector<int>{0, 0, 1, 0, 1, 0, 1, 0}));
    s.experts = 0;
    EXPECT_EQ(s.moe_pattern(), std::vector<int>(8, 0));
}

TEST(FlopsShape, TheCatalogModelMapsToIt) {
    const FlopsShape g = flops_shape(trainbench::testing::shipped_model("gpt3-175b"));
    EXPECT_EQ(g.ffn, 4 * 12288);
    EXPECT_FALSE(g.gated_mlp);
    EXPECT_TRUE(g.learned_positions && g.linear_bias && !g.rms_norm && g.tied_embeddings);
    EXPECT_EQ(g.max_positions, 2048);
    const FlopsShape l = flops_shape(llama31_70b());
    EXPECT_EQ(l.groups(), 8);
    EXPECT_EQ(l.kv_channels(), 128);
    EXPECT_TRUE(l.gated_mlp && l.rms_norm && !l.linear_bias && !l.tied_embeddings && !l.learned_positions);
    EXPECT_EQ(l.experts, 0);
    // Qwen3: head_dim 128 where hidden / heads is 64, QK-norm, every layer MoE.
    const FlopsShape q = flops_shape(trainbench::testing::shipped_model("qwen3-30b-a3b"));
    EXPECT_EQ(q.kv_channels(), 128);
    EXPECT_TRUE(q.qk_norm && !q.qkv_bias);
    EXPECT_EQ(q.experts, 128);
    EXPECT_EQ(q.top_k, 8);
    EXPECT_EQ(q.expert_ffn(), 768);
    EXPECT_EQ(q.shared_ffn, 0);
    const std::vector<int> qp = q.moe_pattern();
    EXPECT_EQ(std::accumulate(qp.begin(), qp.end(), 0), 48);
    // DeepSeek-V3: MLA (no query groups; its latent norms are part of MLA's own count), one
    // shared expert, three dense-first layers, MTP.
    const FlopsShape d = flops_shape(trainbench::testing::shipped_model("deepseek-v3"));
    EXPECT_TRUE(d.mla());
    EXPECT_EQ(d.kv_heads, 0);
    EXPECT_FALSE(d.qk_norm);
    EXPECT_EQ(d.q_lora_rank, 1536);
    EXPECT_EQ(d.kv_lora_rank, 512);
    EXPECT_EQ(d.qk_head_dim + d.qk_rope_head_dim + d.v_head_dim, 128 + 64 + 128);
    EXPECT_EQ(d.moe_ffn, 2048);
    EXPECT_EQ(d.shared_ffn, 2048);
    EXPECT_EQ(d.dense_first, 3);
    EXPECT_EQ(d.mtp_layers, 1);
    const std::vector<int> dp = d.moe_pattern();
    EXPECT_EQ(std::accumulate(dp.begin(), dp.end(), 0), 58);
    EXPECT_EQ(dp.front() + dp[2], 0);
}

TEST(MegatronConventions, The2024FormCountsEveryLayerAsMoeAndFullAttention) {
    FlopsShape s = moe_shape();
    const double seq = 2048;
    // Before 2025-03-06 dense-first layers are MoE too; after, they are dense.
    FlopsShape all_moe = s;
    all_moe.dense_first = 0;
    EXPECT_DOUBLE_EQ(detail::megatron_2024(s, seq, 32000), detail::megatron_2024(all_moe, seq, 32000));
    // (a dense layer's 4096-wide MLP costs more than 4 x 512 routed + 1024 shared)
    EXPECT_GT(detail::megatron_2025(s, seq, 32000), detail::megatron_2025(all_moe, seq, 32000));
    // Dense GPT-3: the two forms differ by exactly the causal half of the s^2 term.
    const FlopsShape g = flops_shape(gpt3_175b());
    const double h = 12288, L = 96;
    EXPECT_DOUBLE_EQ(detail::megatron_2024(g, seq, 51200) - detail::megatron_2025(g, seq, 51200),
                     seq * seq * 6 * h * L);
}

TEST(MegatronConventions, SharedExpertsMtpAndMlaEachAddTheirTerm) {
    FlopsShape s = moe_shape();
    const double base = per_sample("megatron-2025-03", s, 2048);
    FlopsShape no_shared = s;
    no_shared.shared_ffn = 0;
    EXPECT_DOUBLE_EQ(base - per_sample("megatron-2025-03", no_shared, 2048), 2048.0 * 6 * 1024 * 1024 * 3 * 6);
    FlopsShape mtp = s;
    mtp.mtp_layers = 1;
    EXPECT_GT(per_sample("megatron-2025-03", mtp, 2048), base);
    FlopsShape mla = s;
    mla.kv_heads = 0;
    mla.kv_lora_rank = 256;
    mla.qk_head_dim = 64;
    mla.qk_rope_head_dim = 32;
    mla.v_head_dim = 64;
    EXPECT_NE(per_sample("megatron-2025-03", mla, 2048), per_sample("megatron-2024", mla, 2048));
    EXPECT_DOUBLE_EQ(per_sample("megatron-bridge-2026", mla, 2048), per_sample("megatron-2025-03", mla, 2048));
}

TEST(TorchTitanConventions, DifferOnlyInHowATiedEmbeddingCounts) {
    FlopsShape s = moe_shape();
    EXPECT_DOUBLE_EQ(per_sample("torchtitan-2026-08", s, 2048), per_sample("torchtitan-2026-02", s, 2048));
    s.tied_embeddings = true;
    EXPECT_DOUBLE_EQ(per_sample("torchtitan-2026-08", s, 2048) - per_sample("torchtitan-2026-02", s, 2048),
                     2048.0 * 6 * 32000 * 1024);
}

TEST(PalmConvention, ReproducesPalm540bsModelFlopsUtilisation) {
    // PaLM 540B (Chowdhery et al. 2022, Table 1 and Appendix B): 118 layers, d_model 18432,
    // 48 heads of 256, SwiGLU d_ff 73728, multi-query attention, 256k shared vocabulary,
    // sequence 2048; 238.3k tokens/s on 6144 TPU v4 (275 TFLOPS bf16) = 46.2 % MFU.
    FlopsShape p;
    p.name = "palm-540b";
    p.family = "palm";
    p.layers = 118;
    p.hidden = 18432;
    p.heads = 48;
    p.head_dim = 256;
    p.kv_heads = 1;
    p.ffn = 73728;
    p.vocab = 256000;
    p.gated_mlp = true;
    p.rms_norm = true;
    p.tied_embeddings = true;
    const double per_token = per_sample("palm", p, 2048) / 2048;
    const double mfu = per_token * 238.3e3 / (6144 * 275e12);
    EXPECT_NEAR(mfu, 0.462, 0.0015);
}

TEST(MatchConventions, NameTheConventionsThatReproduceNemo2407sGpt3Row) {
    FlopsInput in;
    in.model = gpt3_175b();
    in.tensor_parallel = 4;
    std::set<std::string> within;
    for (const ConventionMatch& m : match_conventions(in, 782, 842))
        if (m.within) within.insert(std::string(m.convention->name));
    EXPECT_TRUE(within.count("nemo-2024"));
    EXPECT_TRUE(within.count("megatron-2024"));
    EXPECT_FALSE(within.count("nemo-2025-08"));      // -1.37 %
    EXPECT_FALSE(within.count("megatron-2025-03"));  // -1.38 %
    EXPECT_FALSE(within.count("narayanan2021"));
    EXPECT_THROW((void)match_conventions(in, 0, 842), UsageError);
}

catalog::Reference nemo2407_row(std::string model, int gpus, int gbs, int seq, int tp, double tokens, double tflops) {
    catalog::Reference r;
    r.id = "test-" + model;
    r.model = std::move(model);
    r.gpu = "h100";
    r.gpus = gpus;
    r.precision = "fp8";
    r.global_batch = gbs;
    r.seq_length = seq;
    r.tensor = tp;
    r.tokens_per_s_per_gpu = tokens;
    r.tflops_per_gpu = tflops;
    r.convention = "nemo";
    return r;
}

TEST(References, Nemo2407RowsAreReproducedUnderTheConventionOfTheirDate) {
    const ReferenceCheck gpt = check_reference(nemo2407_row("gpt3-175b", 512, 2048, 2048, 4, 782, 842), gpt3_175b());
    EXPECT_EQ(gpt.convention, "nemo-2024");
    ASSERT_TRUE(gpt.tflops_per_gpu);
    EXPECT_NEAR(*gpt.tflops_per_gpu, 841.78, 0.01);
    EXPECT_TRUE(gpt.within);
    const ReferenceCheck llama =
        check_reference(nemo2407_row("llama3.1-70b", 64, 128, 8192, 4, 1533, 738), llama31_70b());
    ASSERT_TRUE(llama.tflops_per_gpu);
    EXPECT_NEAR(*llama.tflops_per_gpu, 738.03, 0.01);
    EXPECT_TRUE(llama.within);
    catalog::Reference causal = nemo2407_row("gpt3-175b", 512, 2048, 2048, 4, 782, 842);
    causal.convention = "nemo-2025-08";
    EXPECT_FALSE(check_reference(causal, gpt3_175b()).within);
}

}  // namespace
}  // namespace trainbench::analysis

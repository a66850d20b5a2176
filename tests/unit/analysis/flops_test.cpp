// Test vectors of ../shared/facts/metrics.md §2, §3 and §6: every FLOPs
// convention reproduced to the digits stated there.
#include "analysis/flops_detail.hpp"
#include "unit/analysis/test_models.hpp"

#include <gtest/gtest.h>

namespace trainbench::analysis {
namespace {

using testing::gpt3_175b;
using testing::gpt_model;
using testing::k_seed_step;

detail::NemoConfig nemo_unit_config() {
    // tests/utils/test_flops_formulas.py: gbs=1, s=128, h=768, L=12, f=3072, n=12, g=12, k=2, vocab_size=50257.
    detail::NemoConfig c;
    c.gbs = 1;
    c.seq = 128;
    c.hidden = 768;
    c.layers = 12;
    c.ffn = 3072;
    c.heads = 12;
    c.groups = 12;
    c.topk = 2;
    c.vocab = 50257;
    return c;
}

TEST(NemoFormulas, ReproduceTheUnitVectorsAfterTheCausalDiscount) {
    const auto c = nemo_unit_config();
    EXPECT_DOUBLE_EQ(detail::nemo_gpt3(c, 0.5), 96334774272.0);
    EXPECT_DOUBLE_EQ(detail::nemo_llama(c, 0.5, 32000), 106753425408.0);
    EXPECT_DOUBLE_EQ(detail::nemo_llama(c, 0.5, 128256), 163527524352.0);
    EXPECT_DOUBLE_EQ(detail::nemo_nemotron(c, 0.5), 217130729472.0);
    EXPECT_DOUBLE_EQ(detail::nemo_mixtral(c, 0.5), 171983241216.0);
    EXPECT_NEAR(detail::nemo_bert(c), 84146651135.99998, 1e-3);
}

TEST(NemoFormulas, ReproduceTheUnitVectorsBeforeTheCausalDiscount) {
    const auto c = nemo_unit_config();
    EXPECT_DOUBLE_EQ(detail::nemo_gpt3(c, 1), 97240743936.0);
    EXPECT_DOUBLE_EQ(detail::nemo_llama(c, 1, 32000), 107659395072.0);
    EXPECT_DOUBLE_EQ(detail::nemo_llama(c, 1, 128256), 164433494016.0);
    EXPECT_DOUBLE_EQ(detail::nemo_nemotron(c, 1), 218036699136.0);
    EXPECT_DOUBLE_EQ(detail::nemo_mixtral(c, 1), 172889210880.0);
}

TEST(NemoFormulas, ReproduceTheGenericTransformerVectors) {
    auto c = nemo_unit_config();
    EXPECT_DOUBLE_EQ(detail::nemo_transformer(c, false), 118427811840.0);
    c.topk = 0;
    EXPECT_DOUBLE_EQ(detail::nemo_transformer(c, false), 96684539904.0);
}

TEST(NemoFormulas, ReproduceThePerfMetricsTflopsPerGpu) {
    // llama2-7B, GBS 128, s 4096, 8 GPUs, 8 s per step: 351.14 after, 377.53 before.
    detail::NemoConfig c;
    c.gbs = 128;
    c.seq = 4096;
    c.layers = 32;
    c.hidden = 4096;
    c.ffn = 11008;
    c.heads = 32;
    c.groups = 32;
    EXPECT_NEAR(detail::nemo_llama(c, 0.5, 32000) / 8 / 8 / 1e12, 351.14, 0.005);
    EXPECT_NEAR(detail::nemo_llama(c, 1, 32000) / 8 / 8 / 1e12, 377.53, 0.005);
    // Nemotron-8B, GBS 256, f 16384, 64 GPUs, 1.31 s: 602.42.
    c.gbs = 256;
    c.ffn = 16384;
    EXPECT_NEAR(detail::nemo_nemotron(c, 0.5) / 64 / 1.31 / 1e12, 602.42, 0.005);
}

TEST(PaddedVocabulary, PadsGpt2BpeToTheMegatronMultiples) {
    EXPECT_EQ(padded_vocab(50257, 128, 1), 50304);
    EXPECT_EQ(padded_vocab(50257, 128, 2), 50432);
    EXPECT_EQ(padded_vocab(50257, 128, 4), 50688);
    EXPECT_EQ(padded_vocab(50257, 128, 8), 51200);
    EXPECT_EQ(padded_vocab(51200, 128, 8), 51200);
}

FlopsResult flops_of(std::string_view convention, const catalog::Model& m, int tp = 4) {
    FlopsInput in;
    in.model = m;
    in.tensor_parallel = tp;
    return find_flops_convention(convention).per_sample(in);
}

double tflops_at_seed_step(double per_sample) {
    return per_sample * 2048 / k_seed_step / 256 / 1e12;
}

TEST(MegatronConvention, GivesTheHeadFormulaPerTokenForGpt3At175bWithTp4) {
    const FlopsResult r = flops_of("megatron", gpt3_175b());
    EXPECT_EQ(r.vocab_used, 50688);
    // Exact: 96*(72h^2 + 6sh) + 6h*50688. metrics.md prints 1,061,909,733,376 because its
    // 6hV_p term (3,737,165,824) slipped by 40,960; it agrees to 4e-8.
    EXPECT_DOUBLE_EQ(r.per_sample / 2048, 1061909692416.0);
    EXPECT_NEAR(r.per_sample / 2048 / 1061909733376.0, 1.0, 1e-7);
    EXPECT_NEAR(r.per_sample, 2.174791e15, 0.0000005e15);
    const double t = tflops_at_seed_step(r.per_sample);
    EXPECT_NEAR(t, 692.73, 0.005);
    EXPECT_NEAR(t / 989, 0.7004, 0.00005);
    EXPECT_NEAR(t / 1978, 0.3502, 0.00005);
    EXPECT_NEAR(t / 1979, 0.3500, 0.00005);
    EXPECT_NEAR(t / 1978.9, 0.3501, 0.00005);
}

TEST(Megatron2024Convention, IsTheNonCausalFormWithPaddedVocabulary) {
    const FlopsResult r = flops_of("megatron-2024", gpt3_175b());
    // Exact value; metrics.md's 1,076,405,248,000 carries the same 40,960 slip in 6hV_p.
    EXPECT_NEAR(r.per_sample / 2048, 1076405207040.0, 1e-3);
    EXPECT_NEAR(r.per_sample / 2048 / 1076405248000.0, 1.0, 1e-7);
    EXPECT_NEAR(r.per_sample, 2.204478e15, 0.0000005e15);
    const double t = tflops_at_seed_step(r.per_sample);
    EXPECT_NEAR(t, 702.19, 0.005);
    EXPECT_NEAR(t / 989, 0.7100, 0.00005);
    EXPECT_NEAR(t / 1978, 0.3550, 0.00005);
}

TEST(Megatron2024Convention, EqualsNemoGpt3BeforeAugust2025WhenTheVocabularyPadsTo51200) {
    const FlopsResult r = flops_of("megatron-2024", gpt3_175b(), 8);
    EXPECT_EQ(r.vocab_used, 51200);
    EXPECT_DOUBLE_EQ(r.per_sample, 2204555173429248.0);
    detail::NemoConfig c;
    c.seq = 2048;
    c.hidden = 12288;
    c.layers = 96;
    EXPECT_DOUBLE_EQ(detail::nemo_gpt3(c, 1), r.per_sample);
    EXPECT_NEAR(tflops_at_seed_step(r.per_sample), 702.21, 0.005);
    EXPECT_NEAR(tflops_at_seed_step(r.per_sample) / 1978, 0.35501, 0.000005);
}

TEST(NemoConvention, GivesTheCausalGpt3FormulaWithVocabulary51200) {
    const FlopsResult r = flops_of("nemo-2025-08", gpt3_175b());
    EXPECT_EQ(r.vocab_used, 51200);
    EXPECT_NEAR(r.per_sample, 2.174868e15, 0.0000005e15);
    EXPECT_NEAR(tflops_at_seed_step(r.per_sample), 692.76, 0.005);
    EXPECT_NEAR(tflops_at_seed_step(r.per_sample) / 1978, 0.35023, 0.000005);
}

TEST(NemoConvention, ReproducesTheOtherGpt3SizesPerSample) {
    struct Size {
        const char* name;
        int layers, hidden, heads;
        double non_causal, causal;
    };
    const Size sizes[] = {{"gpt3-126m", 12, 768, 12, 1.990717e12, 1.758789e12},
                          {"gpt3-5b", 24, 4096, 32, 6.689841e13, 6.442451e13},
                          {"gpt3-20b", 44, 6144, 48, 2.623881e14, 2.555849e14},
                          {"gpt3-40b", 48, 8192, 64, 4.999342e14, 4.900386e14}};
    for (const Size& s : sizes) {
        const auto m = gpt_model(s.name, s.layers, s.hidden, s.heads);
        EXPECT_NEAR(flops_of("nemo-2025-08", m).per_sample / s.causal, 1.0, 5e-7) << s.name;
        EXPECT_NEAR(flops_of("nemo-2024", m).per_sample / s.non_causal, 1.0, 5e-7) << s.name;
        EXPECT_NEAR(flops_of("megatron-2024", m, 8).per_sample / s.non_causal, 1.0, 5e-7) << s.name;
    }
    EXPECT_NEAR(flops_of("megatron-2024", gpt_model("gpt3-126m", 12, 768, 12), 8).per_sample / 2048, 9.720300e8, 50);
}

TEST(Narayanan2021Convention, CountsRecomputeAndIsLabelledHardwareFlopsLike) {
    const FlopsResult r = flops_of("narayanan2021", gpt3_175b());
    EXPECT_EQ(r.vocab_used, 51200);
    EXPECT_NEAR(r.per_sample, 2.936830e15, 0.0000005e15);
    EXPECT_NEAR(r.per_sample / 2048, 1.433999e12, 0.0000005e12);
    EXPECT_NEAR(tflops_at_seed_step(r.per_sample), 935.46, 0.005);
    EXPECT_NEAR(tflops_at_seed_step(r.per_sample) / 1978, 0.4729, 0.00005);
    EXPECT_TRUE(find_flops_convention("narayanan2021").hardware_flops_like);
    EXPECT_FALSE(find_flops_convention("megatron").hardware_flops_like);
    EXPECT_NE(r.note.find("hardware-FLOPs-like"), std::string::npos);
}

TEST(GpuRecipesConvention, UsesItsConstantsVerbatimAndIgnoresTheShape) {
    auto m = gpt3_175b();
    EXPECT_DOUBLE_EQ(flops_of("gpu-recipes", m).per_sample, 2.2e15);
    m.seq_length = 4096;
    EXPECT_DOUBLE_EQ(flops_of("gpu-recipes", m).per_sample, 2.2e15);
    m.name = "gpt3-5b";
    EXPECT_DOUBLE_EQ(flops_of("gpu-recipes", m).per_sample, 6.69e13);
    EXPECT_EQ(gpu_recipes_model_flops().size(), 10U);
    EXPECT_DOUBLE_EQ(gpu_recipes_model_flops().at("llama3.1-405b"), 2.16533e16);
}

TEST(GpuRecipesConvention, RejectsModelsOutsideItsTableNamingTheTable) {
    try {
        (void)flops_of("gpu-recipes", gpt_model("gpt3-126m", 12, 768, 12));
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("'gpt3-126m'"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("'gpt3-175b'"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("'mixtral-8x7b'"), std::string::npos);
    }
}

TEST(NemoConvention, ReDerivesTheGpuRecipesConstantsBeforeTheCausalDiscount) {
    // metrics.md §1.4: the constants are NeMo's non-causal formulas at standard lengths.
    detail::NemoConfig c;
    c.seq = 4096;
    c.hidden = 4096;
    c.layers = 32;
    c.ffn = 11008;
    c.heads = 32;
    c.groups = 32;
    EXPECT_NEAR(detail::nemo_llama(c, 1, 32000), 1.88764e14, 0.000005e14);  // llama2-7b
    c.seq = 8192;
    c.hidden = 8192;
    c.layers = 80;
    c.ffn = 28672;
    c.heads = 64;
    c.groups = 8;
    EXPECT_NEAR(detail::nemo_llama(c, 1, 128256), 3.94391e15, 0.000005e15);  // llama3-70b
    EXPECT_NEAR(detail::nemo_llama(c, 0.5, 128256), 3.6800e15, 0.00005e15);  // causal: -6.7%
    EXPECT_NEAR(detail::nemo_llama(c, 1, 51200), 3.91289e15, 0.000005e15);   // llama3.1-70b with V=51200
    c.seq = 4096;
    c.hidden = 4096;
    c.layers = 32;
    c.ffn = 14336;
    c.heads = 32;
    c.groups = 8;
    c.topk = 2;
    EXPECT_NEAR(detail::nemo_mixtral(c, 1, 32000), 3.39672e14, 0.000005e14);
}

TEST(Conventions, SupportTinygptAndOptWithTheGptStyleFormula) {
    auto tiny = gpt_model("tinygpt-small", 4, 256, 4, 256, "tinygpt");
    tiny.vocab = 512;
    auto opt = gpt_model("opt-175b", 96, 12288, 96, 2048, "opt");
    opt.vocab = 50272;
    for (const char* conv : {"megatron", "megatron-2024", "nemo", "nemo-2025-08", "narayanan2021", "torchtitan", "palm",
                             "megatron-bridge"}) {
        EXPECT_GT(flops_of(conv, tiny, 1).per_sample, 0) << conv;
        EXPECT_GT(flops_of(conv, opt, 8).per_sample, 0) << conv;
    }
    // nemo uses the gpt3 formula with the model's own vocabulary for them.
    const double s = 256, h = 256, L = 4, V = 512;
    EXPECT_DOUBLE_EQ(flops_of("nemo-2025-08", tiny, 1).per_sample, s * (L * (72 * h * h + 6 * s * h) + 6 * h * V));
    EXPECT_DOUBLE_EQ(flops_of("nemo", tiny, 1).per_sample, s * (L * (72 * h * h + 12 * s * h) + 6 * h * V));
    // megatron: GPT shape reduces to s*[L(72h^2 + 6sh) + 6hV_p], V_p = 512 at TP1.
    EXPECT_DOUBLE_EQ(flops_of("megatron", tiny, 1).per_sample, s * (L * (72 * h * h + 6 * s * h) + 6 * h * 512));
    EXPECT_THROW((void)flops_of("gpu-recipes", tiny, 1), InputError);
}

TEST(MegatronConvention, CountsGqaSwigluAndMoe) {
    catalog::Model m = gpt_model("llama-like", 32, 4096, 32, 4096, "llama");
    m.kv_heads = 8;
    m.ffn = 14336;
    m.activation = "swiglu";
    m.vocab = 128256;
    const double s = 4096, h = 4096, L = 32, f = 14336, d = 128, q = 4096, g = 8;
    const double vp = padded_vocab(128256, 128, 1);
    const double dense =
        s * (6 * h * f * 3 * L + L * 6 * (h * (q + 2 * d * g) + q * h) + 6 * h * vp) + s * s * 6 * q * L;
    EXPECT_DOUBLE_EQ(flops_of("megatron", m, 1).per_sample, dense);
    m.experts = 8;
    m.moe_top_k = 2;
    const double moe =
        s * (6 * h * 3 * (f * 2) * L + L * 6 * (h * (q + 2 * d * g) + q * h) + 6 * h * vp) + s * s * 6 * q * L;
    EXPECT_DOUBLE_EQ(flops_of("megatron", m, 1).per_sample, moe);
}

TEST(Conventions, UnknownNameIsAnInputErrorWithASuggestion) {
    try {
        (void)find_flops_convention("megatorn");
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("'megatorn'"), std::string::npos);
        EXPECT_EQ(e.hint(), "did you mean 'megatron'?");
    }
    EXPECT_EQ(flops_convention_names(),
              (std::vector<std::string>{"megatron-2025-03", "megatron-2024", "megatron-bridge-2026", "nemo-2025-08",
                                        "nemo-2024", "gpu-recipes-2025-05", "gpu-recipes-2024-10", "torchtitan-2026-08",
                                        "torchtitan-2026-02", "palm-2022", "narayanan2021", "megatron", "nemo",
                                        "gpu-recipes", "megatron-bridge", "torchtitan", "palm"}));
}

TEST(Conventions, MissingShapeIsAClearError) {
    catalog::Model m;
    m.name = "mystery";
    m.family = "gpt3";
    EXPECT_THROW((void)flops_of("megatron", m), InputError);
}

}  // namespace
}  // namespace trainbench::analysis

// Today's model keys in each framework's arguments, or refused (a located error naming the
// framework version) where that version cannot express them.
#include "render/frameworks/framework.hpp"
#include "render_test_support.hpp"

#include <trainbench/render.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

namespace fs = std::filesystem;
using namespace trainbench;
using namespace trainbench::render;
using ::testing::HasSubstr;

namespace {

fs::path shipped_recipe(const std::string& relative) {
    return render_test::source_dir() / "recipes" / relative;
}

recipe::Recipe load(const std::string& relative, const std::vector<std::string>& overrides = {}) {
    recipe::LoadOptions o;
    for (const std::string& s : overrides) o.overrides.push_back(recipe::parse_override(s));
    return recipe::load_recipe(shipped_recipe(relative), render_test::shipped_catalog(), o);
}

// A Megatron-LM recipe of the model tests (tests/data/recipes/models) at e958b2ca, another model.
recipe::Recipe megatron(const std::string& model, const std::vector<std::string>& overrides = {}) {
    std::vector<std::string> all{"model=" + model, "framework_version=e958b2ca", "parallelism.expert=1"};
    all.reserve(3 + overrides.size());
    for (const std::string& o : overrides) all.push_back(o);
    recipe::LoadOptions o;
    for (const std::string& s : all) o.overrides.push_back(recipe::parse_override(s));
    const fs::path file =
        render_test::source_dir() / "tests" / "data" / "recipes" / "models" / "deepseek-v3-megatron.yaml";
    return recipe::load_recipe(file, render_test::shipped_catalog(), o);
}

std::vector<std::string> train_argv(const recipe::Recipe& r) {
    for (const LaunchCommand& c : launch_commands(r, RenderOptions{}))
        if (c.kind == "train") return c.argv;
    return {};
}

std::string after(const std::vector<std::string>& v, const std::string& flag) {
    auto it = std::find(v.begin(), v.end(), flag);
    return it == v.end() || it + 1 == v.end() ? std::string("<absent>") : *(it + 1);
}

bool has(const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
}

// check_launch alone: what `validate` says about the launch (the recipe's other rules aside).
std::string launch_errors(const recipe::Recipe& r) {
    Diagnostics d;
    check_launch(r, render_test::shipped_catalog(), d);
    return d.format();
}

}  // namespace

TEST(ModelRender, MegatronGetsLlamaArchitecture) {
    const std::vector<std::string> a = train_argv(megatron("llama3.1-8b"));
    EXPECT_EQ(after(a, "--num-layers"), "32");
    EXPECT_EQ(after(a, "--ffn-hidden-size"), "14336");
    EXPECT_TRUE(has(a, "--group-query-attention"));
    EXPECT_EQ(after(a, "--num-query-groups"), "8");
    EXPECT_EQ(after(a, "--seq-length"), "8192");
    EXPECT_EQ(after(a, "--max-position-embeddings"), "131072");
    EXPECT_EQ(after(a, "--position-embedding-type"), "rope");
    EXPECT_EQ(after(a, "--rotary-base"), "500000");
    EXPECT_TRUE(has(a, "--use-rope-scaling"));
    EXPECT_EQ(after(a, "--rope-scaling-factor"), "8");
    EXPECT_TRUE(has(a, "--swiglu"));
    EXPECT_EQ(after(a, "--normalization"), "RMSNorm");
    EXPECT_EQ(after(a, "--norm-epsilon"), "1e-05");
    EXPECT_TRUE(has(a, "--disable-bias-linear"));
    EXPECT_TRUE(has(a, "--untie-embeddings-and-output-weights"));
    EXPECT_EQ(after(a, "--vocab-size"), "128256") << "mock data: the model's own vocabulary";
    for (const char* absent : {"--kv-channels", "--qk-layernorm", "--num-experts", "--multi-latent-attention",
                               "--mtp-num-layers", "--add-qkv-bias"})
        EXPECT_FALSE(has(a, absent)) << absent;
}

TEST(ModelRender, MegatronGetsDeepSeekV3MoeMlaAndMtp) {
    const std::vector<std::string> a = train_argv(megatron("deepseek-v3"));
    EXPECT_TRUE(has(a, "--multi-latent-attention"));
    EXPECT_EQ(after(a, "--q-lora-rank"), "1536");
    EXPECT_EQ(after(a, "--kv-lora-rank"), "512");
    EXPECT_EQ(after(a, "--qk-head-dim"), "128");
    EXPECT_EQ(after(a, "--qk-pos-emb-head-dim"), "64");
    EXPECT_EQ(after(a, "--v-head-dim"), "128");
    EXPECT_EQ(after(a, "--rotary-base"), "10000");
    EXPECT_EQ(after(a, "--rotary-scaling-factor"), "40");
    EXPECT_EQ(after(a, "--mscale"), "1");
    EXPECT_EQ(after(a, "--mscale-all-dim"), "1");
    EXPECT_TRUE(has(a, "--qk-layernorm"));
    EXPECT_EQ(after(a, "--num-experts"), "256");
    EXPECT_EQ(after(a, "--moe-router-topk"), "8");
    EXPECT_EQ(after(a, "--moe-ffn-hidden-size"), "2048");
    EXPECT_EQ(after(a, "--ffn-hidden-size"), "18432");
    EXPECT_EQ(after(a, "--moe-shared-expert-intermediate-size"), "2048");
    EXPECT_EQ(after(a, "--moe-layer-freq"), "[0]*3+[1]*58") << "as upstream's DeepSeek-V3 example writes it";
    EXPECT_EQ(after(a, "--moe-router-score-function"), "sigmoid");
    EXPECT_EQ(after(a, "--moe-router-topk-scaling-factor"), "2.5");
    EXPECT_EQ(after(a, "--moe-router-num-groups"), "8");
    EXPECT_EQ(after(a, "--moe-router-group-topk"), "4");
    EXPECT_TRUE(has(a, "--moe-router-enable-expert-bias"));
    EXPECT_EQ(after(a, "--mtp-num-layers"), "1");
    EXPECT_EQ(after(a, "--norm-epsilon"), "1e-06");
    EXPECT_FALSE(has(a, "--group-query-attention")) << "MLA has no key/value groups";
    EXPECT_FALSE(has(a, "--use-rope-scaling")) << "YaRN is MLA's --rotary-scaling-factor, not Llama 3 scaling";
}

TEST(ModelRender, MegatronGetsQwen3HeadSizeQkNormAndExpertLayout) {
    const std::vector<std::string> a =
        train_argv(megatron("qwen3-30b-a3b", {"parallelism.expert=8", "parallelism.expert_tensor=1",
                                              "parallelism.context=2", "parallelism.tensor=4"}));
    EXPECT_EQ(after(a, "--kv-channels"), "128");
    EXPECT_TRUE(has(a, "--qk-layernorm"));
    EXPECT_EQ(after(a, "--num-query-groups"), "4");
    EXPECT_EQ(after(a, "--num-experts"), "128");
    EXPECT_EQ(after(a, "--moe-ffn-hidden-size"), "768");
    EXPECT_FALSE(has(a, "--moe-layer-freq")) << "every layer has experts: Megatron's default 1";
    EXPECT_FALSE(has(a, "--moe-router-score-function")) << "softmax is the default";
    EXPECT_EQ(after(a, "--expert-model-parallel-size"), "8");
    EXPECT_EQ(after(a, "--expert-tensor-parallel-size"), "1");
    EXPECT_EQ(after(a, "--context-parallel-size"), "2");
    const std::vector<std::string> m = train_argv(megatron("mixtral-8x7b"));
    EXPECT_EQ(after(m, "--num-experts"), "8");
    EXPECT_EQ(after(m, "--moe-router-topk"), "2");
    EXPECT_EQ(after(m, "--rotary-base"), "1000000");
    EXPECT_FALSE(has(m, "--expert-model-parallel-size")) << "expert parallel 1 is the default";
    EXPECT_FALSE(has(m, "--moe-shared-expert-intermediate-size"));
}

TEST(ModelRender, DenseFirstLayersWithALayerFrequencyBecomeAnExplicitPattern) {
    catalog::Model m;
    m.layers = 6;
    m.hidden = 64;
    m.heads = 4;
    m.experts = 4;
    m.moe_top_k = 1;
    m.moe_dense_layers = 1;
    m.moe_layer_freq = 2;
    std::string freq;
    for (const ModelArgs& g : megatron_model_args(m))
        if (g.words.front().plain() == "--moe-layer-freq") freq = g.words.back().plain();
    EXPECT_EQ(freq, "[0,0,1,0,1,0]") << "layer i has experts when i >= 1 and i % 2 == 0";
    m.moe_dense_layers = 0;
    for (const ModelArgs& g : megatron_model_args(m))
        if (g.words.front().plain() == "--moe-layer-freq") freq = g.words.back().plain();
    EXPECT_EQ(freq, "2");
}

TEST(ModelRender, BlockScaledPrecisionsBecomeMegatronsFp8AndFp4Recipes) {
    recipe::Recipe r = megatron("llama3.1-8b", {"precision=mxfp8"});
    std::vector<std::string> a = train_argv(r);
    EXPECT_TRUE(has(a, "--bf16"));
    EXPECT_EQ(after(a, "--fp8-format"), "e4m3");
    EXPECT_EQ(after(a, "--fp8-recipe"), "mxfp8");
    // e958b2ca has no FP4: refused at the recipe's precision, naming the version
    r.precision = catalog::Precision::nvfp4;
    EXPECT_THAT(launch_errors(r), HasSubstr("error: 'precision': Megatron-LM e958b2ca has no nvfp4 training recipe: it "
                                            "has no '--fp4-format'"));
    EXPECT_THROW((void)train_argv(r), InputError) << "render never writes half a launch";
    // d98e8a64 has TransformerConfig's fp4 fields: the launch conforms
    r = megatron("llama3.1-8b", {"framework_version=d98e8a64", "precision=nvfp4"});
    EXPECT_EQ(launch_errors(r), "");
    a = train_argv(r);
    EXPECT_EQ(after(a, "--fp4-format"), "e2m1");
    EXPECT_EQ(after(a, "--fp4-recipe"), "nvfp4");
    EXPECT_EQ(after(a, "--fp8-format"), "<absent>");
}

TEST(ModelRender, MegatronRefusesWhatItsVersionCannotExpress) {
    recipe::Recipe r = megatron("deepseek-v3");
    EXPECT_EQ(launch_errors(r), "") << "e958b2ca has every flag DeepSeek-V3 needs";
    // A version without MTP (a profile missing the flag) refuses the key at the recipe's model
    auto older = std::make_shared<catalog::FrameworkProfile>(*r.profile);
    older->title = "Megatron-LM old";
    std::erase(older->keys, "--mtp-num-layers");
    r.profile = older;
    const std::string out = launch_errors(r);
    EXPECT_THAT(out, HasSubstr("error: 'model.mtp_layers': Megatron-LM old cannot express multi-token prediction (1 "
                               "module(s)) of model 'deepseek-v3': it has no '--mtp-num-layers'"));
    // Llama 3 scaling with other frequency factors than Megatron's built-in ones
    recipe::Recipe l = megatron("llama3.1-8b");
    l.model.rope_high_freq_factor = 2;
    EXPECT_THAT(launch_errors(l), HasSubstr("'model.rope_scaling': Megatron-LM e958b2ca applies Llama 3 RoPE scaling "
                                            "with low_freq_factor 1, high_freq_factor 4"));
    // YaRN without MLA: not rendered
    recipe::Recipe y = megatron("llama3.1-8b");
    y.model.rope_scaling = "yarn";
    EXPECT_THAT(launch_errors(y), HasSubstr("'model.rope_scaling': trainbench renders YaRN RoPE scaling for "
                                            "Megatron-LM e958b2ca with multi-latent attention only"));
}

TEST(ModelRender, NemoRendersWhatItsConfigHasAndRefusesExpertsLatentAttentionAndMtp) {
    recipe::Recipe moe = load("gcp-a3-mega/gpt3-175b-fp8.yaml", {"model=mixtral-8x7b"});
    std::string out = launch_errors(moe);
    EXPECT_THAT(out, HasSubstr("error: 'model.experts': NeMo 2.0.0rc1 (container nemo:24.07) cannot express mixture "
                               "of experts (8 experts) of model 'mixtral-8x7b': NeMo 1.x's megatron_gpt_config has no "
                               "key for it"));
    EXPECT_THROW((void)render::render(moe, RenderOptions{}), InputError);
    out = launch_errors(load("gcp-a3-mega/gpt3-175b-fp8.yaml", {"model=deepseek-v3"}));
    EXPECT_THAT(out, HasSubstr("'model.attention': NeMo 2.0.0rc1 (container nemo:24.07) cannot express multi-latent "
                               "attention"));
    EXPECT_THAT(out, HasSubstr("'model.mtp_layers'"));
    // NeMo 24.07 has RMSNorm, biases, untied embeddings, kv_channels and the rotary base; not Llama 3 scaling
    out = launch_errors(load("gcp-a3-mega/gpt3-175b-fp8.yaml", {"model=llama3.1-8b"}));
    EXPECT_THAT(out, HasSubstr("'model.rope_scaling': NeMo 2.0.0rc1 (container nemo:24.07) cannot express RoPE "
                               "scaling 'llama3'"));
    EXPECT_THAT(out, ::testing::Not(HasSubstr("'model.norm'")));
    recipe::Recipe qwen = load("gcp-a3-mega/gpt3-175b-fp8.yaml", {"model=llama3.1-8b"});
    qwen.model.rope_scaling = "none";
    qwen.model.rope_scaling_factor = qwen.model.rope_low_freq_factor = qwen.model.rope_high_freq_factor = 0;
    qwen.model.rope_original_max_positions = 0;
    EXPECT_EQ(launch_errors(qwen), "");
    std::string config;
    for (const RenderedJob& job : render::render(qwen, RenderOptions{}))
        for (const RenderedFile& f : job.files)
            if (f.path.string().find("nemo-config") != std::string::npos) config = f.content;
    EXPECT_THAT(config, HasSubstr("normalization: \"rmsnorm\""));
    EXPECT_THAT(config, HasSubstr("bias: false"));
    EXPECT_THAT(config, HasSubstr("share_embeddings_and_output_weights: false"));
    EXPECT_THAT(config, HasSubstr("rotary_base: 500000"));
    EXPECT_THAT(config, HasSubstr("max_position_embeddings: 131072"));
    // NeMo 1.11 (22.06) has no normalization key at all
    out = launch_errors(load("azure-ndm-a100-v4/gpt3-126m.yaml", {"model=llama3.1-8b"}));
    EXPECT_THAT(out, HasSubstr("'model.norm': NeMo 1.11 (container bignlp-training:22.06) cannot express RMSNorm of "
                               "model 'llama3.1-8b': it has no 'model.normalization'"));
}

TEST(ModelRender, MetaseqAndTheLocalWorkloadBuildGptStyleModelsOnly) {
    std::string out = launch_errors(load("azure-a100-metaseq/opt-125m-smoke.yaml", {"model=qwen3-30b-a3b"}));
    EXPECT_THAT(out, HasSubstr("'model.qk_norm': metaseq f7ffa5f builds GPT-style models only and cannot express "
                               "query/key normalization of model 'qwen3-30b-a3b'"));
    EXPECT_THAT(out, HasSubstr("'model.experts'"));
    recipe::Recipe gpt = load("azure-a100-metaseq/opt-125m-smoke.yaml");
    EXPECT_EQ(launch_errors(gpt), "") << "OPT is GPT-style";
    gpt.precision = catalog::Precision::nvfp4;
    EXPECT_THAT(launch_errors(gpt), HasSubstr("'precision': metaseq f7ffa5f has no nvfp4 training recipe"));
}

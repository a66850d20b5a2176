// Today's models in the catalog: the shipped entries (each fact from its published config) and
// every new model key read and checked with located errors.
#include <trainbench/catalog.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace trainbench::catalog {
namespace {

const Catalog& shipped() {
    static const Catalog cat = Catalog::load({fs::path(TRAINBENCH_SOURCE_DIR) / "recipes"});
    return cat;
}

const Model& model(const char* name) {
    const Model* m = shipped().find_model(name);
    if (!m) throw std::logic_error(std::string("no model ") + name);
    return *m;
}

TEST(TodaysModels, LlamaHasGqaRmsNormUntiedEmbeddingsAndLlama3RopeScaling) {
    struct Size {
        const char* name;
        int layers, hidden, heads, ffn;
    };
    for (const Size& s : {Size{"llama3.1-8b", 32, 4096, 32, 14336}, Size{"llama3.1-70b", 80, 8192, 64, 28672},
                          Size{"llama3.1-405b", 126, 16384, 128, 53248}}) {
        SCOPED_TRACE(s.name);
        const Model& m = model(s.name);
        EXPECT_EQ(m.layers, s.layers);
        EXPECT_EQ(m.hidden, s.hidden);
        EXPECT_EQ(m.heads, s.heads);
        EXPECT_EQ(m.ffn_size(), s.ffn);
        EXPECT_EQ(m.kv_head_count(), 8);
        EXPECT_EQ(m.vocab, 128256);
        EXPECT_EQ(m.seq_length, 8192);
        EXPECT_EQ(m.max_positions(), 131072);
        EXPECT_EQ(m.norm, "rmsnorm");
        EXPECT_DOUBLE_EQ(m.norm_epsilon, 1e-5);
        EXPECT_FALSE(m.tied_embeddings);
        EXPECT_FALSE(m.linear_bias);
        EXPECT_DOUBLE_EQ(m.rope_theta, 500000);
        EXPECT_EQ(m.rope_scaling, "llama3");
        EXPECT_DOUBLE_EQ(m.rope_scaling_factor, 8);
        EXPECT_DOUBLE_EQ(m.rope_low_freq_factor, 1);
        EXPECT_DOUBLE_EQ(m.rope_high_freq_factor, 4);
        EXPECT_EQ(m.rope_original_max_positions, 8192);
        EXPECT_FALSE(m.is_moe());
        EXPECT_THAT(m.source, HasSubstr("huggingface.co/meta-llama/Llama-3.1-"));
    }
}

TEST(TodaysModels, MixtralAndQwen3AreMixturesOfExperts) {
    const Model& x7 = model("mixtral-8x7b");
    EXPECT_EQ(x7.experts, 8);
    EXPECT_EQ(x7.moe_top_k, 2);
    EXPECT_EQ(x7.expert_ffn_size(), 14336);
    EXPECT_EQ(x7.moe_layer_count(), 32);
    EXPECT_EQ(x7.vocab, 32000);
    const Model& x22 = model("mixtral-8x22b");
    EXPECT_EQ(x22.layers, 56);
    EXPECT_EQ(x22.hidden, 6144);
    EXPECT_EQ(x22.heads, 48);
    EXPECT_EQ(x22.expert_ffn_size(), 16384);
    const Model& q30 = model("qwen3-30b-a3b");
    EXPECT_EQ(q30.head_size(), 128) << "Qwen3's head_dim is not hidden / heads (64)";
    EXPECT_EQ(q30.kv_head_count(), 4);
    EXPECT_TRUE(q30.qk_norm);
    EXPECT_EQ(q30.experts, 128);
    EXPECT_EQ(q30.moe_top_k, 8);
    EXPECT_EQ(q30.expert_ffn_size(), 768);
    EXPECT_EQ(q30.vocab, 151936);
    const Model& q235 = model("qwen3-235b-a22b");
    EXPECT_EQ(q235.layers, 94);
    EXPECT_EQ(q235.heads, 64);
    EXPECT_EQ(q235.expert_ffn_size(), 1536);
    EXPECT_EQ(q235.moe_layer_count(), 94);
}

TEST(TodaysModels, DeepSeekV3HasMlaSharedExpertsDenseFirstLayersGroupRoutingAndMtp) {
    const Model& m = model("deepseek-v3");
    EXPECT_EQ(m.layers, 61);
    EXPECT_EQ(m.hidden, 7168);
    EXPECT_EQ(m.heads, 128);
    EXPECT_TRUE(m.is_mla());
    EXPECT_EQ(m.q_lora_rank, 1536);
    EXPECT_EQ(m.kv_lora_rank, 512);
    EXPECT_EQ(m.qk_head_dim, 128);
    EXPECT_EQ(m.qk_rope_head_dim, 64);
    EXPECT_EQ(m.v_head_dim, 128);
    EXPECT_EQ(m.experts, 256);
    EXPECT_EQ(m.moe_top_k, 8);
    EXPECT_EQ(m.expert_ffn_size(), 2048);
    EXPECT_EQ(m.moe_shared_experts, 1);
    EXPECT_EQ(m.shared_expert_ffn_size(), 2048);
    EXPECT_EQ(m.ffn_size(), 18432) << "the FFN of the three dense layers";
    EXPECT_FALSE(m.is_moe_layer(2));
    EXPECT_TRUE(m.is_moe_layer(3));
    EXPECT_EQ(m.moe_layer_count(), 58);
    EXPECT_EQ(m.moe_score_function, "sigmoid");
    EXPECT_DOUBLE_EQ(m.moe_top_k_scaling, 2.5);
    EXPECT_EQ(m.moe_groups, 8);
    EXPECT_EQ(m.moe_group_top_k, 4);
    EXPECT_TRUE(m.moe_expert_bias);
    EXPECT_EQ(m.mtp_layers, 1);
    EXPECT_EQ(m.rope_scaling, "yarn");
    EXPECT_EQ(m.vocab, 129280);
    EXPECT_THAT(m.source, HasSubstr("deepseek-ai/DeepSeek-V3"));
}

TEST(TodaysModels, EveryNewModelCitesItsPublishedConfigAndGpt3KeepsItsDefaults) {
    for (const char* name : {"llama3.1-8b", "llama3.1-70b", "llama3.1-405b", "mixtral-8x7b", "mixtral-8x22b",
                             "deepseek-v3", "qwen3-30b-a3b", "qwen3-235b-a22b"})
        EXPECT_THAT(model(name).source, HasSubstr("https://huggingface.co/")) << name;
    const Model& g = model("gpt3-175b");
    EXPECT_EQ(g.norm, "layernorm");
    EXPECT_TRUE(g.linear_bias);
    EXPECT_TRUE(g.tied_embeddings);
    EXPECT_EQ(g.attention, "mha");
    EXPECT_EQ(g.max_positions(), 2048);
    EXPECT_EQ(g.head_size(), 128);
    EXPECT_EQ(g.moe_layer_count(), 0);
}

class ModelFile : public ::testing::Test {
protected:
    void SetUp() override {
        m_dir = fs::temp_directory_path() /
                ("tb-models-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        fs::remove_all(m_dir);
        fs::create_directories(m_dir / "catalog" / "models");
        std::ofstream(m_dir / "catalog" / "gpus.yaml") << "g1:\n  family: x\n  peak_tflops: {bf16: 100}\n";
    }
    void TearDown() override { fs::remove_all(m_dir); }
    // The formatted errors of loading one model file with `body` after a valid base shape.
    std::string errors(const std::string& body) {
        std::ofstream(m_dir / "catalog" / "models" / "m.yaml")
            << "layers: 4\nhidden: 256\nheads: 8\nvocab: 1000\nseq_length: 128\n"
            << body;
        try {
            (void)Catalog::load({m_dir}, CatalogParts::without_targets);
        } catch (const InputError& e) {
            return e.diagnostics().format();
        }
        return "";
    }
    fs::path m_dir;
};

TEST_F(ModelFile, TodaysKeysReadBack) {
    EXPECT_EQ(errors("kv_heads: 2\nhead_dim: 64\nnorm: rmsnorm\nnorm_epsilon: 1.0e-6\nlinear_bias: false\n"
                     "qkv_bias: true\nqk_norm: true\ntied_embeddings: false\nposition: rope\nrope_theta: 1000000\n"
                     "max_position_embeddings: 4096\nexperts: 16\nmoe_top_k: 4\nmoe_ffn: 64\n"
                     "moe_shared_experts: 2\nmoe_shared_ffn: 32\nmoe_dense_layers: 1\nmoe_layer_freq: 1\n"
                     "moe_score_function: sigmoid\nmoe_top_k_scaling: 2.5\nmoe_groups: 4\nmoe_group_top_k: 2\n"
                     "moe_expert_bias: true\nmtp_layers: 1\n"),
              "");
    const Catalog cat = Catalog::load({m_dir}, CatalogParts::without_targets);
    const Model& m = *cat.find_model("m");
    EXPECT_EQ(m.head_size(), 64);
    EXPECT_DOUBLE_EQ(m.norm_epsilon, 1e-6);
    EXPECT_TRUE(m.qkv_bias);
    EXPECT_EQ(m.max_positions(), 4096);
    EXPECT_EQ(m.shared_expert_ffn_size(), 32);
    EXPECT_EQ(m.moe_layer_count(), 3);
    EXPECT_EQ(m.mtp_layers, 1);
    // where each key was read (located shape errors use it)
    EXPECT_EQ(m.location_of("moe_groups").line, 26);
}

TEST_F(ModelFile, UnknownKeysAndWrongValuesAreLocatedWithWhatWasExpected) {
    std::string out = errors("moe_topk: 2\nnorm: batchnorm\nnorm_epsilon: tiny\nattention: mqa\n");
    EXPECT_THAT(out, HasSubstr("m.yaml:6:1: error: 'moe_topk': unknown key"));
    EXPECT_THAT(out, HasSubstr("did you mean 'moe_top_k'?"));
    EXPECT_THAT(out, HasSubstr("m.yaml:7:7: error: 'norm'"));
    EXPECT_THAT(out, HasSubstr("'layernorm' or 'rmsnorm'"));
    EXPECT_THAT(out, HasSubstr("m.yaml:8:15: error: 'norm_epsilon': wrong type"));
    EXPECT_THAT(out, HasSubstr("m.yaml:9:12: error: 'attention'"));
}

TEST_F(ModelFile, MixtureOfExpertsShapesAreChecked) {
    EXPECT_THAT(errors("experts: 8\nmoe_top_k: 9\n"),
                HasSubstr("m.yaml:7:12: error: 'moe_top_k': moe_top_k 9 with 8 experts (expected 1 <= moe_top_k <= "
                          "experts)"));
    EXPECT_THAT(errors("moe_ffn: 64\n"),
                HasSubstr("m.yaml:6:10: error: 'moe_ffn': 'moe_ffn' is set on a model without experts"));
    EXPECT_THAT(errors("experts: 10\nmoe_top_k: 2\nmoe_groups: 4\nmoe_group_top_k: 2\n"),
                HasSubstr("'moe_groups': 10 experts are not divisible into 4 groups"));
    EXPECT_THAT(errors("experts: 8\nmoe_top_k: 2\nmoe_groups: 4\n"),
                HasSubstr("'moe_group_top_k': group-limited routing needs both moe_groups and moe_group_top_k"));
    EXPECT_THAT(errors("experts: 8\nmoe_top_k: 6\nmoe_groups: 4\nmoe_group_top_k: 2\n"),
                HasSubstr("'moe_top_k': moe_top_k 6 is more than the 4 experts of 2 groups"));
    EXPECT_THAT(errors("experts: 8\nmoe_top_k: 2\nmoe_expert_bias: true\n"),
                HasSubstr("'moe_expert_bias': the aux-loss-free expert bias needs sigmoid router scores"));
    EXPECT_THAT(errors("experts: 8\nmoe_top_k: 2\nmoe_dense_layers: 4\n"),
                HasSubstr("'moe_dense_layers': 4 dense layers leave none of the 4 layers with experts"));
    EXPECT_THAT(errors("experts: 8\nmoe_top_k: 2\nmoe_shared_ffn: 32\n"),
                HasSubstr("'moe_shared_ffn': 'moe_shared_ffn' is set on a model without shared experts"));
    EXPECT_THAT(errors("experts: 8\nmoe_top_k: 2\nmoe_layer_freq: 0\n"),
                HasSubstr("'moe_layer_freq': value 0 is out of range"));
}

TEST_F(ModelFile, AttentionAndRopeShapesAreChecked) {
    EXPECT_THAT(errors("kv_heads: 3\n"), HasSubstr("'kv_heads': 8 heads are not divisible by 3 kv_heads"));
    EXPECT_THAT(errors("attention: mla\nposition: rope\nkv_lora_rank: 64\n"),
                HasSubstr("error: 'qk_head_dim': multi-latent attention needs 'qk_head_dim'"));
    EXPECT_THAT(errors("attention: mla\nkv_lora_rank: 64\nqk_head_dim: 32\nqk_rope_head_dim: 16\nv_head_dim: 32\n"),
                HasSubstr("'attention': multi-latent attention carries its positions in RoPE dimensions"));
    EXPECT_THAT(errors("q_lora_rank: 64\n"),
                HasSubstr("'q_lora_rank': 'q_lora_rank' is set on a model without multi-latent attention"));
    EXPECT_THAT(errors("rope_theta: 10000\n"),
                HasSubstr("'rope_theta': 'rope_theta' is set on a model without rotary positions"));
    EXPECT_THAT(errors("position: rope\nrope_scaling: llama3\nrope_scaling_factor: 8\n"),
                HasSubstr("'rope_low_freq_factor': rope_scaling 'llama3' needs 'rope_low_freq_factor'"));
    EXPECT_THAT(errors("position: rope\nrope_beta_fast: 32\n"),
                HasSubstr("'rope_beta_fast': 'rope_beta_fast' is set on a model without YaRN"));
    EXPECT_THAT(errors("max_position_embeddings: 64\n"),
                HasSubstr("'max_position_embeddings': max_position_embeddings 64 is below seq_length 128"));
    EXPECT_THAT(errors("qkv_bias: true\n"), HasSubstr("'qkv_bias': qkv_bias on a model whose linear layers"));
    EXPECT_THAT(errors("norm_epsilon: 2\n"), HasSubstr("'norm_epsilon': norm_epsilon 2 is not a small positive"));
}

}  // namespace
}  // namespace trainbench::catalog

// parallelism.pipeline_layout: Megatron-Core's --pipeline-model-parallel-layout, expanded,
// validated against the model and the pipeline, and the stages each pipeline rank holds.
#include "test_support.hpp"

#include <gtest/gtest.h>

namespace trainbench::recipe {
namespace {

using test::data_dir;
using test::problems;

const auto k_minimal = data_dir() / "valid" / "minimal.yaml";

std::vector<std::string> expand(const std::string& layout) {
    std::string problem;
    auto stages = expand_pipeline_layout(layout, problem);
    EXPECT_TRUE(stages) << layout << ": " << problem;
    return stages ? *stages : std::vector<std::string>{};
}

TEST(PipelineLayout, ExpandsRepeatsGroupsAndCosmeticCommas) {
    // Megatron-Bridge's DeepSeek-V3 layout for PP4 x VP4 (recipes/deepseek/h100/deepseek_v3.py)
    std::vector<std::string> dsv3 = expand("Et*4|(tttt|)*14tmL");
    ASSERT_EQ(dsv3.size(), 16u);
    EXPECT_EQ(dsv3.front(), "Etttt");
    EXPECT_EQ(dsv3[7], "tttt");
    EXPECT_EQ(dsv3.back(), "tmL");
    // Megatron-Bridge's Llama 3 70B H100 FP8 layout (perf_recipes/llama/h100/llama3.py): 80 layers, 40 stages
    std::vector<std::string> llama = expand("Et*2|(t*2|)*34,t*3|(t*2|)*3,tL");
    ASSERT_EQ(llama.size(), 40u);
    int layers = 0;
    for (const std::string& s : llama) layers += static_cast<int>(std::count(s.begin(), s.end(), 't'));
    EXPECT_EQ(layers, 80);
    EXPECT_EQ(llama[35], "ttt");
    EXPECT_EQ(expand("E|(t|)*3,m|m||L"), (std::vector<std::string>{"E", "t", "t", "t", "m", "m", "", "L"}));
}

TEST(PipelineLayout, RefusesWhatDoesNotParse) {
    for (auto [layout, why] :
         std::vector<std::pair<std::string, std::string>>{{"Et|tx|L", "'x' at character 5 is not one of E, L, t, m"},
                                                          {"E(t|L", "a '(' without its ')'"},
                                                          {"Et*|L", "'*' without a count at character 3"},
                                                          {"E(t*65536|)*65536L", "expands beyond 65536 symbols"},
                                                          {"t)", "unexpected ')' at character 2"}}) {
        std::string problem;
        EXPECT_FALSE(expand_pipeline_layout(layout, problem)) << layout;
        EXPECT_NE(problem.find(why), std::string::npos) << layout << ": " << problem;
    }
}

TEST(PipelineLayout, StagesOfARankAreItsVirtualChunks) {
    Recipe r =
        test::load(k_minimal, {"framework=megatron-lm", "parallelism.pipeline=2", "parallelism.virtual_pipeline=2",
                               "batch.global=32", "parallelism.pipeline_layout=Et*2|t*3|t*3|t*4L"});
    std::vector<PipelineStage> st = pipeline_stages(r);
    ASSERT_EQ(st.size(), 4u);
    EXPECT_TRUE(st[0].embedding);
    EXPECT_EQ(st[1].first_layer, 2);
    EXPECT_EQ(st[3].first_layer, 8);
    EXPECT_EQ(st[3].layers, 4);
    EXPECT_TRUE(st[3].loss);
    // rank 0 holds stages 0 and 2 (5 layers), rank 1 stages 1 and 3 (7 layers)
    EXPECT_EQ(Diagnostics().has_errors(), false);
    std::string all =
        problems(k_minimal, {"framework=megatron-lm", "parallelism.pipeline=2", "parallelism.virtual_pipeline=2",
                             "batch.global=32", "parallelism.pipeline_layout=Et*2|t*3|t*3|t*4L"});
    EXPECT_EQ(all.find("pipeline"), std::string::npos) << all;
    // Without a layout the layers split evenly, the embedding first, the loss last.
    Recipe even = test::load(k_minimal, {"parallelism.pipeline=4", "batch.global=32"});
    std::vector<PipelineStage> ev = pipeline_stages(even);
    ASSERT_EQ(ev.size(), 4u);
    for (const PipelineStage& s : ev) EXPECT_EQ(s.layers, 3);
    EXPECT_TRUE(ev[0].embedding && ev[3].loss && !ev[1].embedding && !ev[0].loss);
}

TEST(PipelineLayout, ValidatesAgainstTheModelAndThePipeline) {
    const std::vector<std::string> base{"framework=megatron-lm", "parallelism.pipeline=2", "batch.global=32"};
    auto with = [&](std::vector<std::string> extra) {
        std::vector<std::string> o = base;
        o.insert(o.end(), extra.begin(), extra.end());
        return problems(k_minimal, o);
    };
    // 12 layers split 5 + 7: the layout lifts the even-split rule (13 layers would not divide by 2 either)
    EXPECT_EQ(with({"parallelism.pipeline_layout=Et*5|t*7L"}), "");
    EXPECT_NE(
        with({"parallelism.pipeline_layout=Et*5|t*6L"})
            .find("'parallelism.pipeline_layout': the layout places 11 decoder layers (t), model 'gpt3-126m' has 12"),
        std::string::npos);
    EXPECT_NE(with({"parallelism.pipeline_layout=Et*4|t*4|t*4L"})
                  .find("the layout has 3 stages, pipeline 2 x virtual_pipeline 1 needs 2"),
              std::string::npos);
    EXPECT_NE(with({"parallelism.pipeline_layout=t*5|Et*7L"}).find("stage 1 holds the embedding (E)"),
              std::string::npos);
    EXPECT_NE(with({"parallelism.pipeline_layout=Et*5|t*7"}).find("the layout has 1 embedding(s) and 0 loss(es)"),
              std::string::npos);
    EXPECT_NE(with({"parallelism.pipeline_layout=Et*5|tz"}).find("is not a pipeline layout: 'z' at character 7"),
              std::string::npos);
    EXPECT_NE(
        problems(k_minimal, {"parallelism.pipeline=2", "batch.global=32", "parallelism.pipeline_layout=Et*5|t*7L"})
            .find("framework 'nemo' has no pipeline layout"),
        std::string::npos);
}

}  // namespace
}  // namespace trainbench::recipe

namespace trainbench::recipe {
namespace {

TEST(RecomputeModules, AreMegatronsNamesWithSelectiveRecomputeOnly) {
    const auto minimal = test::data_dir() / "valid" / "minimal.yaml";
    EXPECT_EQ(test::problems(minimal, {"framework=megatron-lm", "recompute.granularity=selective",
                                       "recompute.modules=[mla_up_proj, mlp]"}),
              "");
    std::string all = test::problems(
        minimal, {"framework=megatron-lm", "recompute.granularity=selective", "recompute.modules=[mla_up_projj]"});
    EXPECT_NE(all.find("'recompute.modules': unknown recompute module 'mla_up_projj'"), std::string::npos) << all;
    EXPECT_NE(all.find("did you mean 'mla_up_proj'?"), std::string::npos) << all;
    all = test::problems(minimal, {"framework=megatron-lm", "recompute.modules=[mlp]"});
    EXPECT_NE(all.find("recompute modules with granularity 'none'"), std::string::npos) << all;
    all = test::problems(minimal, {"recompute.granularity=selective", "recompute.modules=[mlp]"});
    EXPECT_NE(all.find("framework 'nemo' takes no recompute modules"), std::string::npos) << all;
}

}  // namespace
}  // namespace trainbench::recipe

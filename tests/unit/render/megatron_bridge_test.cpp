// Megatron-Bridge: the run_script.py command of the shipped recipes, and what validate refuses
// in it (flags, config override keys and values, a GPU or precision the release cannot name).
#include "render_test_support.hpp"

#include <trainbench/render.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace trainbench;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

recipe::Recipe shipped(const std::string& relative) {
    return recipe::load_recipe(render_test::source_dir() / "recipes" / relative, render_test::shipped_catalog());
}

std::string problems(const recipe::Recipe& r) {
    Diagnostics d;
    render::check_launch(r, render_test::shipped_catalog(), d);
    return d.format();
}

std::vector<std::string> argv_of(const recipe::Recipe& r) {
    std::vector<render::LaunchCommand> cmds = render::launch_commands(r, {});
    EXPECT_EQ(cmds.size(), 1u);
    return cmds.empty() ? std::vector<std::string>{} : cmds[0].argv;
}

// The value after `flag` in argv ("" when absent), and how often the flag occurs.
std::pair<std::string, int> value_of(const std::vector<std::string>& argv, const std::string& flag) {
    std::string value;
    int count = 0;
    for (std::size_t i = 0; i + 1 < argv.size(); ++i)
        if (argv[i] == flag) {
            value = argv[i + 1];
            ++count;
        }
    return {value, count};
}

recipe::Recipe llama8b() {
    recipe::Recipe r = shipped("azure-nd-gb200-v6/llama3.1-8b-bridge-fp8.yaml");
    r.origins["launch.extra_args"] = SourceLocation{"r.yaml", 30, 14, {}};
    return r;
}

}  // namespace

TEST(MegatronBridge, TheShippedRecipesRenderRunScriptWithTheirShapeAndPassTheProfile) {
    recipe::Recipe r = llama8b();
    EXPECT_EQ(problems(r), "");
    std::vector<std::string> argv = argv_of(r);
    ASSERT_FALSE(argv.empty());
    EXPECT_EQ(argv[0], "/opt/Megatron-Bridge/scripts/performance/run_script.py");
    EXPECT_EQ(value_of(argv, "--model_recipe_name").first, "llama3_8b");
    EXPECT_EQ(value_of(argv, "--gpu").first, "gb200");
    EXPECT_EQ(value_of(argv, "--compute_dtype").first, "fp8_cs");
    EXPECT_EQ(value_of(argv, "--num_gpus").first, "8");
    EXPECT_EQ(value_of(argv, "--gpus_per_node").first, "4");
    EXPECT_EQ(value_of(argv, "--micro_batch_size").first, "2");
    EXPECT_EQ(value_of(argv, "--virtual_pipeline_model_parallel_size").first, "None");
    EXPECT_NE(std::find(argv.begin(), argv.end(), "model.seq_length=8192"), argv.end());
    EXPECT_NE(std::find(argv.begin(), argv.end(), "logger.log_interval=1"), argv.end());

    recipe::Recipe q = shipped("gcp-a4/qwen3-30b-a3b-bridge-mxfp8.yaml");
    EXPECT_EQ(problems(q), "");
    std::vector<std::string> qa = argv_of(q);
    EXPECT_EQ(value_of(qa, "--compute_dtype").first, "fp8_mx");
    EXPECT_EQ(value_of(qa, "--expert_model_parallel_size").first, "8");
    EXPECT_EQ(value_of(qa, "--expert_tensor_parallel_size").first, "1");
}

TEST(MegatronBridge, TheA3UltraRecipeRunsTheH100ConfigurationAsThePublishedRecipeDoes) {
    recipe::Recipe r = shipped("gcp-a3-ultra/llama3.1-70b-bridge-fp8.yaml");
    EXPECT_EQ(problems(r), "");
    std::vector<std::string> argv = argv_of(r);
    EXPECT_EQ(value_of(argv, "--gpu"), std::make_pair(std::string("h100"), 1));  // the recipe's, once
    // Without it the H200 is refused at the target, saying what the published recipe does.
    r.launch.extra_args.clear();
    r.origins["target"] = SourceLocation{"a3u.yaml", 14, 9, {}};
    std::string out = problems(r);
    EXPECT_THAT(out, HasSubstr("a3u.yaml:14:9: error: 'target':"));
    EXPECT_THAT(out, HasSubstr("--gpu takes h100, b200, b300, gb200, gb300"));
    EXPECT_THAT(out, HasSubstr("passes --gpu h100"));
    EXPECT_THROW((void)render::launch_commands(r, {}), InputError);
}

TEST(MegatronBridge, ABadFlagOverrideKeyOrValueIsALocatedErrorWithDidYouMean) {
    recipe::Recipe r = llama8b();
    r.launch.extra_args = {"--tensor_model_paralel_size", "2"};
    std::string out = problems(r);
    EXPECT_THAT(out, HasSubstr("r.yaml:30:14: error: 'launch.extra_args[0]': '--tensor_model_paralel_size' is not an "
                               "argument of Megatron-Bridge 0.4.2 (06f25c22) scripts/performance/run_script.py"));
    EXPECT_THAT(out, HasSubstr("did you mean '--tensor_model_parallel_size'?"));

    r.launch.extra_args = {"model.seq_lenght=4096"};
    out = problems(r);
    EXPECT_THAT(out, HasSubstr("'launch.extra_args[0]': 'model.seq_lenght' is not a config key"));
    EXPECT_THAT(out, HasSubstr("did you mean 'model.seq_length'?"));

    r.launch.extra_args = {"train.train_iters=fifty"};
    EXPECT_THAT(problems(r), HasSubstr("'train.train_iters=fifty': 'fifty' is not an integer"));

    r.launch.extra_args = {"--compute_dtype", "fp8_cx"};
    out = problems(r);
    EXPECT_THAT(out, HasSubstr("'fp8_cx' is not one of --compute_dtype's choices"));
    EXPECT_THAT(out, HasSubstr("did you mean 'fp8_cs'?"));

    r.launch.extra_args = {"--gpu", "h200"};
    EXPECT_THAT(problems(r), HasSubstr("'h200' is not one of --gpu's choices"));
}

TEST(MegatronBridge, ShortOptionsOfSeveralLettersAreOneName) {
    recipe::Recipe r = llama8b();
    r.launch.extra_args = {"-gb", "256", "-mr", "llama3_8b"};  // not -g with "b"
    EXPECT_EQ(problems(r), "");
    r.launch.extra_args = {"-gb", "many"};
    EXPECT_THAT(problems(r), HasSubstr("'many' is not an int"));
}

TEST(MegatronBridge, AModelOrPrecisionTheReleaseCannotNameIsRefusedAtItsKey) {
    recipe::Recipe r = llama8b();
    r.origins["precision"] = SourceLocation{"p.yaml", 5, 12, {}};
    r.precision = catalog::Precision::fp16;
    std::string out = problems(r);
    EXPECT_THAT(out, HasSubstr("p.yaml:5:12: error: 'precision':"));
    EXPECT_THAT(out, HasSubstr("--compute_dtype takes bf16, fp8_cs, fp8_mx, fp8_sc, nvfp4, not precision 'fp16'"));
    r.precision = catalog::Precision::bf16;
    r.model.name = "gpt3-5b";
    EXPECT_THAT(problems(r), HasSubstr("has no performance recipe (scripts/performance/configs) for model 'gpt3-5b'"));
    r.launch.extra_args = {"--model_recipe_name", "llama3_8b"};  // the recipe names one itself
    EXPECT_THAT(problems(r), Not(HasSubstr("performance recipe")));
}

TEST(MegatronBridge, WhatRunScriptsFlagsCannotStateIsRefused) {
    recipe::Recipe r = llama8b();
    r.parallelism.tensor = 2;  // -tp 2 turns sequence parallelism on; the recipe says off
    EXPECT_THAT(problems(r), HasSubstr("--tensor_model_parallel_size 2 sets sequence parallelism on"));
    r = llama8b();
    r.recompute = {"full", "uniform", 2, {}};
    EXPECT_THAT(problems(r), HasSubstr("recomputes with the block method, not 'uniform'"));
    r.recompute.method = "block";
    EXPECT_EQ(problems(r), "");
    EXPECT_EQ(value_of(argv_of(r), "--recompute_num_layers").first, "2");
}

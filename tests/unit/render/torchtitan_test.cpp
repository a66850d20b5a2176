// TorchTitan 0.2.2: the TOML job config rendered from the shipped recipes, the launch line, and
// what validate refuses (a key, a value, a section, a shape that is not the flavour's, what the
// version cannot express), each located at the recipe key.
#include "render_test_support.hpp"

#include <trainbench/render.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

namespace fs = std::filesystem;
using namespace trainbench;
using namespace trainbench::render;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

const fs::path k_8b = render_test::source_dir() / "recipes/aws-p5/llama3.1-8b-torchtitan.yaml";
const fs::path k_qwen_mx = render_test::source_dir() / "recipes/gcp-a4/qwen3-30b-a3b-torchtitan-mxfp8.yaml";

recipe::Recipe load(const fs::path& file, const std::vector<std::string>& overrides = {}) {
    recipe::LoadOptions o;
    for (const std::string& s : overrides) o.overrides.push_back(recipe::parse_override(s));
    return recipe::load_recipe(file, render_test::shipped_catalog(), o);
}

std::string validate(const recipe::Recipe& r) {
    Diagnostics d;
    recipe::validate_recipe(r, d);
    if (!d.has_errors()) check_launch(r, render_test::shipped_catalog(), d);
    return d.format();
}

// The delivered TOML of the train stage.
std::string toml_of(const recipe::Recipe& r) {
    RenderOptions options;
    options.template_dirs = {render_test::shipped_templates()};
    for (const RenderedJob& job : trainbench::render::render(r, options))
        for (const RenderedFile& f : job.files)
            if (f.path.filename() == "torchtitan.toml") return f.content;
    return "<none>";
}

fs::path write_recipe(const render_test::TempDir& dir, const std::string& body) {
    fs::path file = dir.path() / "t.yaml";
    std::ofstream(file) << "version: 1\nname: t\nextends: [" << k_8b.string() << "]\n" << body;
    return file;
}

}  // namespace

TEST(Torchtitan, TheShippedRecipesValidate) {
    EXPECT_EQ(validate(load(k_8b)), "");
    EXPECT_EQ(validate(load(k_qwen_mx)), "");
}

TEST(Torchtitan, TheTomlSaysWhatTheRecipeSays) {
    std::string toml = toml_of(load(k_8b));
    EXPECT_THAT(toml, HasSubstr("[model]\nname = \"llama3\"\nflavor = \"8B\"\n"));
    EXPECT_THAT(toml, HasSubstr("converters = [\"quantize.linear.float8\"]\n"));
    EXPECT_THAT(toml, HasSubstr("local_batch_size = 1\nglobal_batch_size = 16\nseq_len = 8192\nsteps = 50\n"));
    EXPECT_THAT(toml, HasSubstr("data_parallel_shard_degree = 8\n"));
    EXPECT_THAT(toml, HasSubstr("[metrics]\nlog_freq = 1\n"));
    EXPECT_THAT(toml, HasSubstr("[checkpoint]\nenable = false\n"));
    EXPECT_THAT(toml, HasSubstr("[activation_checkpoint]\nmode = \"selective\"\nselective_ac_option = \"op\"\n"));
    EXPECT_THAT(toml, HasSubstr("[compile]\nenable = true\ncomponents = [\"model\", \"loss\"]\n"));
    EXPECT_THAT(toml, HasSubstr("[quantize.linear.float8]\nrecipe_name = \"tensorwise\"\n"));
    std::string mx = toml_of(load(k_qwen_mx));
    EXPECT_THAT(mx, HasSubstr("converters = [\"quantize.linear.mx\", \"quantize.grouped_mm.mx\"]\n"));
    EXPECT_THAT(mx, HasSubstr("expert_parallel_degree = 8\n"));
    EXPECT_THAT(mx, HasSubstr("[quantize.grouped_mm.mx]\nrecipe_name = \"mxfp8\"\nfqns = [\"experts\"]\n"));
    // the same recipe renders the same bytes
    EXPECT_EQ(toml, toml_of(load(k_8b)));
}

TEST(Torchtitan, TheLaunchLineNamesTheDeliveredConfig) {
    std::vector<LaunchCommand> cmds = launch_commands(load(k_8b), RenderOptions{});
    ASSERT_EQ(cmds.size(), 1u);
    EXPECT_EQ(cmds[0].program, "torchtitan");
    EXPECT_EQ(cmds[0].version, "0.2.2");
    ASSERT_GE(cmds[0].argv.size(), 6u);
    EXPECT_EQ(cmds[0].argv[0], "-m");
    EXPECT_EQ(cmds[0].argv[1], "torchtitan.train");
    EXPECT_EQ(cmds[0].argv[2], "--job.config_file");
    EXPECT_THAT(cmds[0].argv[3], HasSubstr("torchtitan.toml"));
    EXPECT_EQ(cmds[0].argv[4], "--job.dump_folder");
    EXPECT_EQ(cmds[0].config_values.at("training.steps"), 50);
}

TEST(Torchtitan, ABadOverrideKeyValueOrSectionIsALocatedError) {
    render_test::TempDir dir;
    auto out = [&](const std::string& body) { return validate(load(write_recipe(dir, body))); };
    std::string key = out("launch:\n  extra_args: [--training.stepz, '5']\n");
    EXPECT_THAT(key, HasSubstr("t.yaml:5:"));
    EXPECT_THAT(key, HasSubstr("'--training.stepz' is not an option of TorchTitan 0.2.2 JobConfig"));
    EXPECT_THAT(key, HasSubstr("did you mean 'training.steps'?"));
    EXPECT_THAT(out("launch:\n  extra_args: [--training.max_norm, big]\n"),
                HasSubstr("--training.max_norm big: 'big' is not a float"));
    EXPECT_THAT(out("launch:\n  extra_args: ['--compile.enable=true']\n"), HasSubstr("is a flag and takes no value"));
    EXPECT_THAT(out("launch:\n  extra_args: [--trainin.gc_freq, '5']\n"),
                HasSubstr("'--trainin.gc_freq' is not an option"));
    EXPECT_EQ(out("launch:\n  extra_args: [--training.gc_freq, '5', --compile.no_enable]\n"), "");
}

TEST(Torchtitan, ABadFrameworkConfigKeyValueOrSectionIsALocatedError) {
    render_test::TempDir dir;
    auto out = [&](const std::string& body) { return validate(load(write_recipe(dir, body))); };
    std::string key = out("framework_config:\n  training.stepz: 5\n");
    EXPECT_THAT(key, HasSubstr("t.yaml:5:19: error"));
    EXPECT_THAT(key, HasSubstr("'training.stepz' is not a key of TorchTitan 0.2.2 JobConfig"));
    EXPECT_THAT(out("framework_config:\n  training.max_norm: big\n"), HasSubstr("'big' is not a number"));
    EXPECT_THAT(out("framework_config:\n  lr_scheduler.decay_type: cosin\n"), HasSubstr("did you mean 'cosine'?"));
    EXPECT_THAT(out("framework_config:\n  trainin:\n    gc_freq: 5\n"), HasSubstr("'trainin.gc_freq' is not a key"));
    // a key trainbench takes from the recipe's own keys
    EXPECT_THAT(out("framework_config:\n  training.steps: 5\n"),
                HasSubstr("'training.steps' comes from the recipe: steps"));
    EXPECT_EQ(out("framework_config:\n  training.max_norm: 0.5\n  debug.moe_force_load_balance: true\n"), "");
}

TEST(Torchtitan, TheModelShapeMustBeTheFlavours) {
    std::string out = validate(load(k_8b, {"model.layers=40"}));
    EXPECT_THAT(out, HasSubstr("'model.layers'"));
    EXPECT_THAT(out, HasSubstr("flavour llama3 '8B' has n_layers 32"));
    EXPECT_THAT(validate(load(k_8b, {"model.ffn=14000"})), HasSubstr("has the FFN size 14336"));
    EXPECT_THAT(validate(load(k_8b, {"framework_config.model.flavor=70B"})), HasSubstr("has dim 8192"));
    EXPECT_THAT(validate(load(k_8b, {"framework_config.model.flavor=7B"})), HasSubstr("defines no flavour '7B'"));
    EXPECT_THAT(validate(load(k_8b, {"model=gpt3-126m"})), HasSubstr("defines no flavour trainbench knows"));
}

TEST(Torchtitan, WhatTheVersionCannotExpressIsRefused) {
    EXPECT_THAT(validate(load(k_8b, {"precision=fp16"})), HasSubstr("has no fp16 training"));
    EXPECT_THAT(validate(load(k_8b, {"parallelism.tensor=2"})), HasSubstr("always shards the sequence"));
    EXPECT_THAT(validate(load(k_qwen_mx, {"nodes=2", "parallelism.pipeline=2"})),
                HasSubstr("no pipeline parallelism for qwen3"));
    EXPECT_THAT(validate(load(k_8b, {"launch.extra_args=[--training.steps, '5']"})),
                HasSubstr("comes from the recipe: steps"));
    EXPECT_THAT(validate(load(k_8b)), Not(HasSubstr("error")));
}

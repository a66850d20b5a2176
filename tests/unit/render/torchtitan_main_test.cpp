// TorchTitan main (b5bcd76c): the launch line (registry function and --section.option flags)
// rendered from the shipped recipes, the row the version picks, and what validate refuses (a flag,
// a framework_config key, a value, a model or precision with no registry function, what no flag
// sets), each located at the recipe key.
#include "render/frameworks/framework.hpp"
#include "render_test_support.hpp"

#include <trainbench/render.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

namespace fs = std::filesystem;
using namespace trainbench;
using namespace trainbench::render;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

const fs::path k_8b = render_test::source_dir() / "recipes/aws-p5/llama3.1-8b-torchtitan-main.yaml";
const fs::path k_70b = render_test::source_dir() / "recipes/aws-p5/llama3.1-70b-torchtitan-main.yaml";
const fs::path k_8b_mx = render_test::source_dir() / "recipes/gcp-a4/llama3.1-8b-torchtitan-main-mxfp8.yaml";

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

// check_launch alone (a recipe the memory estimate would stop first)
std::string check(const recipe::Recipe& r) {
    Diagnostics d;
    check_launch(r, render_test::shipped_catalog(), d);
    return d.format();
}

std::vector<std::string> argv_of(const recipe::Recipe& r) {
    std::vector<LaunchCommand> cmds = launch_commands(r, RenderOptions{});
    return cmds.size() == 1 ? cmds[0].argv : std::vector<std::string>{};
}

// The value after `flag` in argv ("<absent>" when the flag is not there).
std::string value_of(const std::vector<std::string>& argv, const std::string& flag) {
    for (std::size_t i = 0; i + 1 < argv.size(); ++i)
        if (argv[i] == flag) return argv[i + 1];
    return "<absent>";
}

bool has(const std::vector<std::string>& argv, const std::string& word) {
    return std::find(argv.begin(), argv.end(), word) != argv.end();
}

fs::path write_recipe(const render_test::TempDir& dir, const std::string& body) {
    fs::path file = dir.path() / "t.yaml";
    std::ofstream(file) << "version: 1\nname: t\nextends: [" << k_8b.string() << "]\n" << body;
    return file;
}

}  // namespace

TEST(TorchtitanMain, TheVersionPicksItsRowAndNoOtherVersionDoes) {
    const Framework* main = find_framework("torchtitan", "b5bcd76c");
    const Framework* release = find_framework("torchtitan", "0.2.2");
    ASSERT_NE(main, nullptr);
    ASSERT_NE(release, nullptr);
    EXPECT_NE(main, release);
    EXPECT_EQ(main->launch, &torchtitan_main_launch);
    EXPECT_EQ(release->launch, &torchtitan_launch);
    EXPECT_EQ(find_framework("torchtitan", ""), release);  // a recipe that names no version
    EXPECT_EQ(find_framework("nemo", "b5bcd76c"), find_framework("nemo", "24.07"));
    EXPECT_EQ(find_framework("torchtitanx", "b5bcd76c"), nullptr);
    // a name is listed once, however many rows it has
    std::vector<std::string> names = framework_names();
    EXPECT_EQ(std::count(names.begin(), names.end(), "torchtitan"), 1);
}

TEST(TorchtitanMain, TheShippedRecipesValidate) {
    EXPECT_EQ(validate(load(k_8b)), "");
    EXPECT_EQ(validate(load(k_70b)), "");
    EXPECT_EQ(validate(load(k_8b_mx)), "");
}

TEST(TorchtitanMain, TheLaunchIsTheRegistryFunctionThenTheRecipesFlags) {
    std::vector<std::string> a = argv_of(load(k_8b));
    ASSERT_GE(a.size(), 6u);
    EXPECT_THAT(std::vector<std::string>(a.begin(), a.begin() + 6),
                ElementsAre("-m", "torchtitan.train", "--module", "llama3", "--config", "llama3_8b"));
    EXPECT_EQ(value_of(a, "--training.num-tokens-per-microbatch-per-dp-rank"), "8192");  // 1 x 8192
    EXPECT_EQ(value_of(a, "--training.num-tokens-per-train-step"), "65536");             // 8 x 8192
    EXPECT_EQ(value_of(a, "--training.max-context-length"), "8192");
    EXPECT_EQ(value_of(a, "--training.steps"), "50");
    EXPECT_EQ(value_of(a, "--parallelism.data-parallel-shard-degree"), "8");
    EXPECT_EQ(value_of(a, "--hf-assets-path"), "/workspace/torchtitan/assets/hf/Llama-3.1-8B");
    EXPECT_EQ(value_of(a, "--metrics.log-freq"), "1");
    EXPECT_TRUE(has(a, "--metrics.disable-color-printing"));
    EXPECT_TRUE(has(a, "--metrics.no-enable-tensorboard"));
    EXPECT_FALSE(has(a, "--job.config_file"));
    std::vector<std::string> b = argv_of(load(k_70b));
    EXPECT_EQ(value_of(b, "--config"), "llama3_70b");
    EXPECT_EQ(value_of(b, "--parallelism.tensor-parallel-degree"), "8");
    EXPECT_EQ(value_of(b, "--parallelism.data-parallel-shard-degree"), "32");
    EXPECT_TRUE(has(b, "--parallelism.enable-sequence-parallel"));
    // the precision picks the function (its converters are the function's model_spec)
    EXPECT_EQ(value_of(argv_of(load(k_8b_mx)), "--config"), "llama3_8b_mxfp8");
    // framework_config keys are flags as tyro reads them: a bool a flag, a list one A,B word
    std::vector<std::string> c =
        argv_of(load(k_8b, {"framework_config.compile.enable=true", "framework_config.compile.components=[model]",
                            "framework_config.training.max_norm=0.5"}));
    EXPECT_TRUE(has(c, "--compile.enable"));
    EXPECT_EQ(value_of(c, "--compile.components"), "model");
    EXPECT_EQ(value_of(c, "--training.max-norm"), "0.5");
    EXPECT_EQ(argv_of(load(k_8b)), argv_of(load(k_8b)));
}

TEST(TorchtitanMain, ABadFlagKeyOrValueIsALocatedErrorWithADidYouMean) {
    render_test::TempDir dir;
    auto out = [&](const std::string& body) { return validate(load(write_recipe(dir, body))); };
    std::string flag = out("launch:\n  extra_args: [--training.max-nrom, '0.5']\n");
    EXPECT_THAT(flag, HasSubstr("t.yaml:5:"));
    EXPECT_THAT(flag, HasSubstr("'--training.max-nrom' is not an option of TorchTitan b5bcd76c Trainer.Config"));
    EXPECT_THAT(flag, HasSubstr("did you mean 'training.max_norm'?"));
    // a section whose dataclass the reference lacks is no option trainbench can check
    EXPECT_THAT(out("launch:\n  extra_args: [--checkpoint.interval, '5']\n"), HasSubstr("is not an option"));
    EXPECT_THAT(out("launch:\n  extra_args: [--training.max-norm, big]\n"), HasSubstr("'big' is not a float"));
    EXPECT_THAT(out("launch:\n  extra_args: [--comm.mode, fake]\n"), HasSubstr("fake_backend"));
    EXPECT_THAT(out("launch:\n  extra_args: ['--compile.enable=true']\n"), HasSubstr("is a flag and takes no value"));
    std::string key = out("framework_config:\n  training.max_nrom: 0.5\n");
    EXPECT_THAT(key, HasSubstr("t.yaml:5:"));
    EXPECT_THAT(key, HasSubstr("did you mean 'training.max_norm'?"));
    EXPECT_THAT(out("framework_config:\n  training.max_norm: big\n"), HasSubstr("'big' is not a number"));
    EXPECT_THAT(out("framework_config:\n  parallelism.fsdp_reshard_after_forward: allways\n"),
                HasSubstr("did you mean 'always'?"));
    EXPECT_THAT(out("framework_config:\n  training.steps: 5\n"),
                HasSubstr("'training.steps' comes from the recipe: steps"));
    EXPECT_EQ(out("framework_config:\n  training.max_norm: 0.5\n  debug.seed: null\n"
                  "launch:\n  extra_args: [--training.gc_freq, '5', --compile.no-enable, --debug.seed, None]\n"),
              "");
}

TEST(TorchtitanMain, AModelOrPrecisionWithoutARegistryFunctionIsRefusedAtItsKey) {
    std::string fp8 = validate(load(k_70b, {"precision=fp8"}));
    EXPECT_THAT(fp8, HasSubstr("'precision'"));
    EXPECT_THAT(fp8, HasSubstr("has no fp8 function for model 'llama3.1-70b'"));
    EXPECT_THAT(fp8, HasSubstr("did you mean bf16?"));
    std::string model = check(load(k_8b, {"model=qwen3-30b-a3b"}));
    EXPECT_THAT(model, HasSubstr("has no function for model 'qwen3-30b-a3b'"));
    EXPECT_THAT(check(load(k_70b, {"recompute.granularity=selective"})),
                HasSubstr("llama3_70b checkpoints activations 'full'"));
    EXPECT_THAT(validate(load(k_8b, {"model.layers=40"})), HasSubstr("flavour llama3 '8B' has n_layers 32"));
    // tensor parallelism without sequence parallelism is a flag at this version, not a refusal
    std::vector<std::string> a = argv_of(load(k_70b, {"parallelism.sequence_parallel=false"}));
    EXPECT_TRUE(has(a, "--parallelism.no-enable-sequence-parallel"));
}

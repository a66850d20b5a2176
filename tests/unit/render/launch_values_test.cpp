// Values against the framework profiles: `validate` refuses a value the framework's own parser
// or config reader would not take (argparse types, choices, flags that take no value; NeMo types
// and enumerations), located at the recipe item that wrote it.
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

fs::path shipped_recipe(const std::string& relative) {
    return render_test::source_dir() / "recipes" / relative;
}

// What `trainbench validate` reports: the recipe's own rules, then the launch check.
std::string validate(const fs::path& file) {
    recipe::Recipe r = recipe::load_recipe(file, render_test::shipped_catalog(), recipe::LoadOptions{});
    Diagnostics d;
    recipe::validate_recipe(r, d);
    if (!d.has_errors()) check_launch(r, render_test::shipped_catalog(), d);
    return d.format();
}

// A recipe file that extends a shipped one with more YAML (its body starts on line 4).
fs::path write_recipe(const render_test::TempDir& dir, const std::string& base, const std::string& body) {
    fs::path file = dir.path() / "t.yaml";
    std::ofstream(file) << "version: 1\nname: t\nextends: [" << shipped_recipe(base).string() << "]\n" << body;
    return file;
}

}  // namespace

TEST(LaunchValues, MegatronIntegerArgumentGivenAWordIsLocatedAtTheItem) {
    render_test::TempDir dir;
    fs::path f =
        write_recipe(dir, "azure-nd-h100-v5/gpt3-175b-smoke.yaml", "launch:\n  extra_args: [--num-layers, banana]\n");
    std::string out = validate(f);
    EXPECT_THAT(out, HasSubstr(f.string() + ":5:30: error: 'launch.extra_args[1]': --num-layers banana: 'banana' is "
                                            "not an int (expected an int, argparse type=int)"));
    fs::path ok = write_recipe(dir, "azure-nd-h100-v5/gpt3-175b-smoke.yaml",
                               "launch:\n  extra_args: [--num-layers, '96', --lr, 1e-4, --eval-iters=0]\n");
    EXPECT_EQ(validate(ok), "");
}

TEST(LaunchValues, AStoreTrueFlagTakesNoValue) {
    render_test::TempDir dir;
    fs::path f = write_recipe(dir, "azure-nd-h100-v5/gpt3-175b-smoke.yaml",
                              "launch:\n  extra_args: [--use-flash-attn, 'yes']\n");
    EXPECT_THAT(validate(f), HasSubstr("'launch.extra_args[1]': --use-flash-attn takes no value: 'yes' after it is an "
                                       "unrecognized argument"));
    fs::path attached =
        write_recipe(dir, "azure-nd-h100-v5/gpt3-175b-smoke.yaml", "launch:\n  extra_args: [--use-flash-attn=true]\n");
    EXPECT_THAT(validate(attached), HasSubstr("'--use-flash-attn=true': --use-flash-attn takes no value"));
}

TEST(LaunchValues, ChoicesWithADidYouMean) {
    render_test::TempDir dir;
    fs::path f = write_recipe(dir, "azure-nd-h100-v5/gpt3-175b-smoke.yaml",
                              "launch:\n  extra_args: [--lr-decay-style, cosin]\n");
    std::string out = validate(f);
    EXPECT_THAT(out, HasSubstr("'cosin' is not one of --lr-decay-style's choices"));
    EXPECT_THAT(out, HasSubstr("did you mean 'cosine'"));
}

TEST(LaunchValues, NemoFrameworkConfigValuesHaveTheUpstreamDefaultsType) {
    render_test::TempDir dir;
    fs::path f =
        write_recipe(dir, "azure-ndm-a100-v4/gpt3-126m.yaml",
                     "framework_config:\n  model: {micro_batch_size: banana}\n  trainer:\n    precision: bf17\n");
    std::string out = validate(f);
    EXPECT_THAT(out, HasSubstr(f.string() + ":5:29: error: 'framework_config.model.micro_batch_size': "
                                            "model.micro_batch_size: 'banana' is not an integer"));
    EXPECT_THAT(out, HasSubstr(":7:16: error: 'framework_config.trainer.precision': trainer.precision: 'bf17' is not "
                               "one of trainer.precision's choices"));
    EXPECT_THAT(out, HasSubstr("did you mean 'bf16'"));
    fs::path ok = write_recipe(dir, "aws-p4d/gpt3-126m.yaml",
                               "framework_config:\n  trainer: {precision: bf16-mixed}\n  model: {optim: {lr: 3}}\n");
    EXPECT_EQ(validate(ok), "") << "Lightning 2.0 (23.07) takes bf16-mixed; an int is a number";
    fs::path lightning1 = write_recipe(dir, "azure-ndm-a100-v4/gpt3-126m.yaml",
                                       "framework_config:\n  trainer: {precision: bf16-mixed}\n");
    EXPECT_THAT(validate(lightning1), HasSubstr("'bf16-mixed' is not one of"))
        << "Lightning 1.x (22.06) has no bf16-mixed";
}

TEST(LaunchValues, NemoHydraOverrideValuesAndKeysUnderANullDefault) {
    render_test::TempDir dir;
    fs::path f =
        write_recipe(dir, "aws-p4d/gpt3-126m.yaml",
                     "launch:\n  extra_args: [model.micro_batch_size=banana, '+model.normalization=RMSNorm']\n");
    std::string out = validate(f);
    EXPECT_THAT(out, HasSubstr("'model.micro_batch_size=banana': 'banana' is not an integer"));
    EXPECT_THAT(out, HasSubstr("did you mean 'rmsnorm'"));
    fs::path leaf =
        write_recipe(dir, "aws-p4d/gpt3-126m.yaml", "launch:\n  extra_args: ['+model.tokenizer.vocab_file.bogus=1']\n");
    EXPECT_THAT(validate(leaf), HasSubstr("'model.tokenizer.vocab_file.bogus' is not a key of NeMo 1.20"));
}

TEST(LaunchValues, ShellVariablesAreRunTimeValues) {
    render_test::TempDir dir;
    fs::path f = write_recipe(dir, "azure-nd-h100-v5/gpt3-175b-smoke.yaml",
                              "launch:\n  extra_args: [--num-layers, '${LAYERS}']\n");
    EXPECT_EQ(validate(f), "");
}

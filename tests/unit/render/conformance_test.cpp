// check_launch and launch_commands: what each framework receives, against its version's profile.
#include "render_test_support.hpp"

#include <trainbench/render.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace trainbench;
using ::testing::HasSubstr;

namespace {

std::string problems(const recipe::Recipe& r) {
    Diagnostics d;
    render::check_launch(r, render_test::shipped_catalog(), d);
    return d.format();
}

recipe::Recipe nemo_recipe() {
    recipe::Recipe r = render_test::base_recipe("nemo");
    r.origins["launch.extra_args"] = SourceLocation{"r.yaml", 30, 14, {}};
    r.origins["framework_version"] = SourceLocation{"base.yaml", 3, 20, {}};
    return r;
}

}  // namespace

TEST(CheckLaunch, AShippedConfigurationPassesAndEveryCommandIsListed) {
    recipe::Recipe r = nemo_recipe();
    EXPECT_EQ(problems(r), "");
    std::vector<render::LaunchCommand> cmds = render::launch_commands(r, {});
    ASSERT_EQ(cmds.size(), 1u);
    EXPECT_EQ(cmds[0].program, "nemo");
    EXPECT_EQ(cmds[0].version, "24.07");
    EXPECT_EQ(cmds[0].config_file, "nemo-config.yaml");
    EXPECT_EQ(cmds[0].argv.at(0), "/opt/NeMo/examples/nlp/language_modeling/megatron_gpt_pretraining.py");
    EXPECT_NE(std::find(cmds[0].config_keys.begin(), cmds[0].config_keys.end(), "model.fp8"),
              cmds[0].config_keys.end());
}

TEST(CheckLaunch, AnUnknownNemoKeyIsALocatedErrorWithDidYouMean) {
    recipe::Recipe r = nemo_recipe();
    r.launch.extra_args = {"model.optim.lrr=1"};
    std::string out = problems(r);
    EXPECT_THAT(out, HasSubstr("r.yaml:30:14: error: 'launch.extra_args[0]': 'model.optim.lrr' is not a key of NeMo "
                               "2.0.0rc1's megatron_gpt_config (container nemo:24.07)"));
    EXPECT_THAT(out, HasSubstr("did you mean 'model.optim.lr'?"));
}

TEST(CheckLaunch, HydraOverridesMustHaveTheFormTheDeliveredConfigTakes) {
    recipe::Recipe r = nemo_recipe();
    r.launch.extra_args = {"+model.fp8=True"};  // the delivered config has model.fp8: '+' is refused
    EXPECT_THAT(problems(r),
                HasSubstr("Hydra refuses '+model.fp8=True': the delivered config already has 'model.fp8'"));
    r.launch.extra_args = {"model.gc_interval=3"};  // a key of 24.07 that the delivered config lacks: needs '+'
    std::string out = problems(r);
    EXPECT_THAT(out, HasSubstr("Hydra refuses 'model.gc_interval=3': the delivered config has no 'model.gc_interval'"));
    EXPECT_THAT(out, HasSubstr("append it: '+model.gc_interval=3'"));
    r.launch.extra_args = {"+model.gc_interval=3", "++model.fp8=True", "model.fp8=False"};
    EXPECT_EQ(problems(r), "");
}

TEST(CheckLaunch, ASettingTheVersionLacksIsRefusedAtFrameworkVersion) {
    recipe::Recipe r = nemo_recipe();
    r.framework_version = "22.06";
    r.profile = render_test::shipped_catalog().find_framework("nemo", "22.06");
    r.metrics.source = "tensorboard";
    r.parallelism = {1, 2, 2, 1, 1, false};
    std::string out = problems(r);
    EXPECT_THAT(out, HasSubstr("base.yaml:3:20: error:"));
    EXPECT_THAT(out, HasSubstr("has no 'model.virtual_pipeline_model_parallel_size'"));
}

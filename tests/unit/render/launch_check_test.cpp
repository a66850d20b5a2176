// check_launch and the framework outputs: every rendered command against the profile of its
// framework version (recipes/catalog/frameworks/), and checkpoints/TensorBoard in the run directory.
#include "render_test_support.hpp"

#include <trainbench/render.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <set>

namespace fs = std::filesystem;
using namespace trainbench;
using namespace trainbench::render;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

fs::path shipped_recipe(const std::string& relative) {
    return render_test::source_dir() / "recipes" / relative;
}

recipe::Recipe load(const fs::path& file, const std::vector<std::string>& overrides = {}) {
    recipe::LoadOptions o;
    for (const std::string& s : overrides) o.overrides.push_back(recipe::parse_override(s));
    return recipe::load_recipe(file, render_test::shipped_catalog(), o);
}

// What `trainbench validate` reports: the recipe's own rules, then the launch check.
std::string validate(const recipe::Recipe& r) {
    Diagnostics d;
    recipe::validate_recipe(r, d);
    if (!d.has_errors()) check_launch(r, render_test::shipped_catalog(), d);
    return d.format();
}

// A recipe file that extends a shipped one (absolute path) with more YAML.
fs::path write_recipe(const render_test::TempDir& dir, const std::string& base, const std::string& body) {
    fs::path file = dir.path() / "t.yaml";
    std::ofstream(file) << "version: 1\nname: t\nextends: [" << shipped_recipe(base).string() << "]\n" << body;
    return file;
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

}  // namespace

TEST(LaunchCheck, EveryShippedRecipeConformsToItsFrameworkVersion) {
    int checked = 0;
    for (const fs::path& f : recipe::find_recipe_files(render_test::source_dir() / "recipes")) {
        SCOPED_TRACE(f.string());
        recipe::Recipe r = load(f);
        EXPECT_EQ(validate(r), "");
        ++checked;
    }
    EXPECT_GE(checked, 25);
}

TEST(LaunchCheck, MetaseqRejectsSampleBreakModeWithDummyLmWhereTheRecipeWroteIt) {
    render_test::TempDir dir;
    fs::path file = write_recipe(dir, "azure-a100-metaseq/opt-125m-smoke.yaml",
                                 "launch:\n  extra_args: [--task, dummy_lm, --sample-break-mode, none]\n");
    std::string out = validate(load(file));
    EXPECT_THAT(out, HasSubstr(file.string() + ":5:34: error: 'launch.extra_args[2]': '--sample-break-mode' is not an "
                                               "argument of metaseq f7ffa5f's metaseq/cli/train.py with "));
    EXPECT_THAT(out, HasSubstr("--task dummy_lm"));
    // the streaming task has it
    fs::path streaming = write_recipe(dir, "azure-a100-metaseq/opt-125m-smoke.yaml",
                                      "launch:\n  extra_args: [--task, streaming_language_modeling, "
                                      "--sample-break-mode, none]\n");
    EXPECT_THAT(validate(load(streaming)), Not(HasSubstr("--sample-break-mode")));
}

TEST(LaunchCheck, MetaseqProfileKnowsArgumentsPerChoiceAndDefault) {
    auto p = render_test::shipped_catalog().find_framework("metaseq", "f7ffa5f");
    ASSERT_TRUE(p);
    EXPECT_EQ(p->schema, "metaseq f7ffa5f's metaseq/cli/train.py");
    EXPECT_TRUE(p->knows("--dict-size", {{"--task", "dummy_lm"}}));
    EXPECT_FALSE(p->knows("--sample-break-mode", {{"--task", "dummy_lm"}}));
    EXPECT_TRUE(p->knows("--sample-break-mode", {{"--task", "streaming_language_modeling"}}));
    EXPECT_TRUE(p->knows("--end-learning-rate", {{"--lr-scheduler", "polynomial_decay"}}));
    // without --lr-scheduler metaseq uses inverse_sqrt, whose arguments the profile does not list
    EXPECT_EQ(p->choice_defaults.at("--lr-scheduler"), "inverse_sqrt");
    EXPECT_FALSE(p->knows("--end-learning-rate"));
    EXPECT_TRUE(p->knows("--save-last-checkpoint"));
    EXPECT_FALSE(p->knows("--no-save")) << "fairseq's flag; metaseq has none";
}

TEST(LaunchCheck, UseSharpExistsOnlyInMegatron878d65f) {
    recipe::Recipe sharp = load(shipped_recipe("azure-nd-h100-v5/gpt3-175b-sharp.yaml"));
    EXPECT_EQ(sharp.framework_version, "878d65f");
    EXPECT_EQ(validate(sharp), "");
    std::string out =
        validate(load(shipped_recipe("azure-nd-h100-v5/gpt3-175b-sharp.yaml"), {"framework_version=e958b2ca"}));
    EXPECT_THAT(out, HasSubstr("gpt3-175b-sharp.yaml:67:7: error: 'launch.extra_args[24]': '--use-sharp' is not an "
                               "argument of Megatron-LM "
                               "e958b2ca's pretrain_gpt.py"));
}

TEST(LaunchCheck, NcclTestsCommandsUseTheOnlyNcclTestsProfile) {
    const catalog::Catalog& cat = render_test::shipped_catalog();
    ASSERT_EQ(cat.framework_versions("nccl-tests"), std::vector<std::string>{"2.19.6"});
    auto p = cat.find_framework("nccl-tests", "2.19.6");
    for (const char* o : {"-b", "-e", "-f", "-g", "-n", "--minbytes", "--stepfactor"}) EXPECT_TRUE(p->knows(o)) << o;
    EXPECT_FALSE(p->knows("--min-bytes"));
    recipe::Recipe r = load(shipped_recipe("azure-ndm-a100-v4/gpt3-126m.yaml"));
    bool nccl = false;
    for (const LaunchCommand& c : launch_commands(r, RenderOptions{})) nccl |= c.program == "nccl-tests";
    EXPECT_TRUE(nccl);
    EXPECT_EQ(validate(r), "");
}

TEST(LaunchCheck, ExtraArgumentsMayNotMoveOutputsOutOfTheRunDirectory) {
    render_test::TempDir dir;
    fs::path m = write_recipe(dir, "azure-nd-h100-v5/gpt3-175b-smoke.yaml",
                              "launch:\n  extra_args: [--save-interval, '100', --save, /data/stage/checkpoints, "
                              "--tensorboard-dir, /data/stage/logs]\n");
    std::string out = validate(load(m));
    EXPECT_THAT(out, HasSubstr("'launch.extra_args': '--save' would make runs share a directory"));
    EXPECT_THAT(out, HasSubstr("'launch.extra_args': '--tensorboard-dir' would make runs share a directory"));
    fs::path s = write_recipe(dir, "azure-a100-metaseq/opt-125m-smoke.yaml",
                              "launch:\n  extra_args: [--save-dir, /shared/checkpoints]\n");
    EXPECT_THAT(validate(load(s)), HasSubstr("'--save-dir' would make runs share a directory"));
}

// The output directories of every Megatron-LM and metaseq recipe are under the run directory,
// so two runs (and two recipes, whose runs live under runs/<recipe>/) never share one.
TEST(LaunchCheck, CheckpointsAndTensorboardAreInTheRunDirectory) {
    const std::set<std::string> output_flags = {"--save", "--tensorboard-dir", "--save-dir", "--tensorboard-logdir"};
    std::set<std::string> seen;
    int recipes = 0;
    for (const fs::path& f : recipe::find_recipe_files(render_test::source_dir() / "recipes")) {
        recipe::Recipe r = load(f);
        if (r.framework != "megatron-lm" && r.framework != "metaseq") continue;
        SCOPED_TRACE(f.string());
        ++recipes;
        std::vector<std::string> a = train_argv(r);
        EXPECT_FALSE(has(a, "--load")) << "no recipe asks to resume";
        int outputs = 0;
        for (std::size_t i = 0; i + 1 < a.size(); ++i) {
            if (!output_flags.count(a[i])) continue;
            ++outputs;
            EXPECT_EQ(a[i + 1].rfind("${TRAINBENCH_RUN_DIR}/logs/train/", 0), 0u) << a[i] << " " << a[i + 1];
            // two runs of each recipe: runs/<recipe>/<run id>
            for (const char* run : {"run-a", "run-b"}) {
                std::string path =
                    "runs/" + r.name + "/" + run + a[i + 1].substr(std::string("${TRAINBENCH_RUN_DIR}").size());
                EXPECT_TRUE(seen.insert(path).second) << path << " is shared";
            }
        }
        // TensorBoard always; checkpoints where the recipe saves them (the seed recipes every 100
        // iterations; today's benchmarks, like Megatron-Bridge's performance recipes, save none)
        EXPECT_GE(outputs, has(a, "--save-interval") ? 2 : 1);
    }
    EXPECT_GE(recipes, 7);
}

TEST(LaunchCheck, MegatronSavesCheckpointsOnlyWithASaveInterval) {
    recipe::Recipe r = render_test::base_recipe("megatron-lm");
    std::vector<std::string> a = train_argv(r);
    EXPECT_EQ(after(a, "--tensorboard-dir"), "${TRAINBENCH_RUN_DIR}/logs/train/tensorboard");
    EXPECT_FALSE(has(a, "--save"));
    EXPECT_FALSE(has(a, "--load"));
    r.launch.extra_args = {"--save-interval", "100"};
    a = train_argv(r);
    EXPECT_EQ(after(a, "--save"), "${TRAINBENCH_RUN_DIR}/logs/train/checkpoints");
    EXPECT_FALSE(has(a, "--load"));
    r.launch.extra_args = {"--persistent-save-interval=50", "--load", "/ckpt/from-an-earlier-run"};
    a = train_argv(r);
    EXPECT_EQ(after(a, "--save"), "${TRAINBENCH_RUN_DIR}/logs/train/checkpoints");
    EXPECT_EQ(after(a, "--load"), "/ckpt/from-an-earlier-run");  // resuming is the recipe's choice
}

TEST(LaunchCheck, MetaseqBenchmarkCommandIsTheSeedsWithoutCheckpoints) {
    recipe::Recipe r = load(shipped_recipe("azure-a100-metaseq/opt-175b.yaml"));
    std::vector<std::string> a = train_argv(r);
    EXPECT_EQ(after(a, "--task"), "dummy_lm");
    EXPECT_FALSE(has(a, "--sample-break-mode"));
    EXPECT_FALSE(has(a, "--no-save"));
    EXPECT_FALSE(has(a, "--fp16")) << "the seed passes only --memory-efficient-fp16";
    EXPECT_TRUE(has(a, "--memory-efficient-fp16"));
    EXPECT_TRUE(has(a, "--save-last-checkpoint"));
    EXPECT_EQ(after(a, "--save-interval-updates"), "0");
    EXPECT_EQ(after(a, "--save-interval-epochs"), "0");
    EXPECT_EQ(after(a, "--save-dir"), "${TRAINBENCH_RUN_DIR}/logs/train/checkpoints");
    EXPECT_EQ(after(a, "--tensorboard-logdir"), "${TRAINBENCH_RUN_DIR}/logs/train/tb");
    for (const char* flag : {"--task", "--arch", "--optimizer", "--lr-scheduler", "--criterion",
                             "--save-interval-updates", "--batch-size", "--max-update"})
        EXPECT_EQ(std::count(a.begin(), a.end(), flag), 1) << flag;
    // Real data: the streaming task, with its break mode and tokenizer files.
    recipe::Recipe s = render_test::base_recipe("metaseq");
    s.data.kind = "prefixes";
    s.data.prefixes = {{1.0, "/data/corpus"}};
    s.data.vocab_file = "/data/gpt2-vocab.json";
    std::vector<std::string> b = train_argv(s);
    EXPECT_EQ(after(b, "--task"), "streaming_language_modeling");
    EXPECT_EQ(after(b, "--sample-break-mode"), "none");
    EXPECT_EQ(after(b, "--vocab-filename"), "/data/gpt2-vocab.json");
    EXPECT_TRUE(has(b, "/data/corpus"));  // metaseq's data directory is a positional argument
    EXPECT_FALSE(has(b, "--data"));
}

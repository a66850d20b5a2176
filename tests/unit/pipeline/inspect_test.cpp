// The use cases of plan, show, parse and list (pipeline::plan_recipe, show_recipe, parse_logs,
// list_catalog) given a Services value alone: what the catalog function hands out is what they
// read (it counts its calls, so a use case that needs no catalog is seen not to load one), and
// the data directories Services names are where they look for recipes.
#include "unit/sweep/sweep_test_support.hpp"

#include <trainbench/pipeline.hpp>

#include <gtest/gtest.h>

namespace fs = std::filesystem;
using namespace trainbench;
using namespace sweep_test;

namespace {

const std::string k_recipe = (k_source / "recipes/aws-p4d/gpt3-126m.yaml").string();

struct CountingServices {
    int catalog_loads = 0;
    pipeline::Services services;
    CountingServices() {
        services.catalog = [this]() -> const catalog::Catalog& {
            ++catalog_loads;
            return shipped_catalog();
        };
        services.dirs.recipes = {k_source / "recipes"};
    }
};

}  // namespace

TEST(InspectUseCases, PlanChecksItsOptionsBeforeLoadingAndCarriesTheValidation) {
    CountingServices s;
    pipeline::PlanRequest q;
    q.recipe = k_recipe;
    q.assume_mfu = 1.5;
    EXPECT_THROW((void)pipeline::plan_recipe(s.services, q), UsageError);
    EXPECT_EQ(s.catalog_loads, 0);

    q.assume_mfu = 0.4;
    q.overrides = {"nodes=2"};
    const pipeline::PlanResult p = pipeline::plan_recipe(s.services, q);
    ASSERT_TRUE(p.plan.has_value());
    EXPECT_EQ(p.plan->gpus, 16);
    EXPECT_TRUE(p.candidates.empty());
    EXPECT_TRUE(p.json.at("validation").is_array());
    EXPECT_EQ(p.json.at("validation").size(), p.diagnostics.sorted().size());
    EXPECT_EQ(s.catalog_loads, 1);

    q.search = true;
    q.top = 3;
    const pipeline::PlanResult ranked = pipeline::plan_recipe(s.services, q);
    EXPECT_FALSE(ranked.plan.has_value());
    ASSERT_FALSE(ranked.candidates.empty());
    EXPECT_FALSE(ranked.json.contains("validation"));
}

TEST(InspectUseCases, ShowLoadsWithoutCheckingAndSaysWhereEachValueCameFrom) {
    CountingServices s;
    // An invalid value is shown, not refused (show loads only).
    const pipeline::ShownRecipe shown = pipeline::show_recipe(s.services, k_recipe, {"batch.global=7"}, true);
    EXPECT_EQ(shown.json.at("recipe").at("batch").at("global"), 7);
    EXPECT_EQ(shown.json.at("origins").at("batch.global"), "-s batch.global=7");
    EXPECT_NE(shown.json.at("origins").at("model").get<std::string>().find("gpt3-126m.yaml:"), std::string::npos);
    EXPECT_NE(shown.yaml.find("# -s batch.global=7"), std::string::npos) << shown.yaml;
    const pipeline::ShownRecipe plain = pipeline::show_recipe(s.services, k_recipe, {}, false);
    EXPECT_FALSE(plain.json.contains("origins"));
    EXPECT_EQ(plain.json.at("model").at("name"), "gpt3-126m");
}

TEST(InspectUseCases, ParseSplitsTagsAndWarnsWhenNothingMatched) {
    pipeline::ParseRequest q;
    q.files = {(k_source / "tests/data/logs/dllogger_nemo.json").string()};
    q.tags = {"reduced_train_loss,lr", ""};
    const pipeline::ParsedLogs kept = pipeline::parse_logs(q);
    EXPECT_EQ(kept.data.format, "dllogger");
    EXPECT_EQ(kept.data.series.size(), 2u);
    EXPECT_TRUE(kept.warnings.empty());
    // A log of steps alone (no PARAMETER record) of which no series is kept.
    TempDir dir;
    q.files = {dir.write("steps.json",
                         "DLLL {\"timestamp\": \"1\", \"type\": \"LOG\", \"step\": 0, \"data\": {\"lr\": 0.1}}\n")
                   .string()};
    q.tags = {"no-such-series"};
    const pipeline::ParsedLogs none = pipeline::parse_logs(q);
    EXPECT_TRUE(none.data.series.empty());
    ASSERT_FALSE(none.warnings.empty());
    EXPECT_EQ(none.warnings.back(), "no metrics found (check --tags)");
    q.tags = {};
    EXPECT_TRUE(pipeline::parse_logs(q).warnings.empty());
}

TEST(InspectUseCases, ListReadsTheCatalogOnlyWhenItNeedsOne) {
    CountingServices s;
    const report::Listing conventions = pipeline::list_catalog(s.services, "conventions");
    EXPECT_FALSE(conventions.rows.empty());
    EXPECT_EQ(s.catalog_loads, 0);
    const report::Listing gpus = pipeline::list_catalog(s.services, "gpus");
    EXPECT_EQ(gpus.rows.size(), shipped_catalog().gpus().size());
    EXPECT_EQ(s.catalog_loads, 1);
    // The recipes below the directories Services names, and only those.
    TempDir dir;
    fs::create_directories(dir.path() / "mine");
    fs::copy_file(k_recipe, dir.path() / "mine/only.yaml");
    s.services.dirs.recipes = {dir.path()};
    const report::Listing recipes = pipeline::list_catalog(s.services, "recipes");
    ASSERT_EQ(recipes.rows.size(), 1u);
    EXPECT_NE(recipes.rows.front().front().find("only"), std::string::npos);
    try {
        (void)pipeline::list_catalog(s.services, "model");
        FAIL() << "no UsageError";
    } catch (const UsageError& e) {
        EXPECT_NE(e.hint().find("models"), std::string::npos) << e.hint();
    }
}

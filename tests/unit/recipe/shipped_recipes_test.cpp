// Every recipe shipped under recipes/ validates (files under catalog/ and common/ are
// catalog data and partial bases, not recipes).
#include "test_support.hpp"

#include <trainbench/yaml.hpp>

#include <gtest/gtest.h>

namespace fs = std::filesystem;

namespace trainbench::recipe {
namespace {

TEST(ShippedRecipes, EveryRecipeUnderRecipesValidates) {
    std::vector<fs::path> files = find_recipe_files(test::source_dir() / "recipes");
    EXPECT_GE(files.size(), 10u);
    for (const fs::path& f : files) {
        EXPECT_EQ(f.string().find("/catalog/"), std::string::npos) << f;
        EXPECT_EQ(f.string().find("/common/"), std::string::npos) << f;
        EXPECT_EQ(test::problems(f), "") << f;
    }
}

TEST(ShippedRecipes, CommonBasesAreWellFormedYaml) {
    fs::path common = test::source_dir() / "recipes" / "common";
    if (!fs::exists(common)) GTEST_SKIP() << "no recipes/common";
    for (const auto& e : fs::directory_iterator(common)) {
        if (e.path().extension() != ".yaml") continue;
        Diagnostics d;
        yaml::Node n = yaml::parse_file(e.path(), e.path().string(), d);
        EXPECT_FALSE(d.has_errors()) << d.format();
        EXPECT_TRUE(n.is_map()) << e.path();
    }
}

}  // namespace
}  // namespace trainbench::recipe

namespace trainbench::recipe {
namespace {

// A run keeps its recipe as recipe.resolved.yaml and reports from it later, so
// the resolved form of every shipped recipe must load again to the same recipe.
TEST(ShippedRecipes, ResolvedYamlLoadsBackToTheSameRecipe) {
    fs::path dir = fs::temp_directory_path() / ("tb-roundtrip-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    for (const fs::path& f : find_recipe_files(test::source_dir() / "recipes")) {
        Recipe original = load_valid_recipe(f, test::shipped_catalog());
        fs::path copy = dir / "recipe.resolved.yaml";
        write_file_atomic(copy, to_yaml(original));
        Recipe again = load_valid_recipe(copy, test::shipped_catalog());
        EXPECT_EQ(again.resolved.dump(2), original.resolved.dump(2)) << f;
        EXPECT_EQ(again.total_gpus(), original.total_gpus()) << f;
    }
    fs::remove_all(dir);
}

}  // namespace
}  // namespace trainbench::recipe

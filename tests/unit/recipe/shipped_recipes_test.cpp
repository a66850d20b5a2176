// Every recipe shipped under recipes/ validates (files under catalog/ and common/ are
// catalog data and partial bases, not recipes).
#include "test_support.hpp"

#include "core/yaml_reader.hpp"

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

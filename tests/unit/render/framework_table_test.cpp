// The render framework table has one row per framework the catalog lets recipes name.
#include "render/frameworks/framework.hpp"

#include <trainbench/catalog.hpp>

#include <gtest/gtest.h>

#include <algorithm>

namespace trainbench::render {
namespace {

TEST(FrameworkTable, HasOneRowPerFrameworkOfTheCatalog) {
    EXPECT_EQ(framework_names(), catalog::framework_kind_names());
}

TEST(FrameworkTable, TemplateKeysAreDistinctIdentifiers) {
    std::vector<std::string> keys;
    for (const std::string& name : framework_names()) {
        const Framework* fw = find_framework(name, "");
        ASSERT_NE(fw, nullptr) << name;
        std::string key(fw->template_key);
        EXPECT_EQ(key.find_first_not_of("abcdefghijklmnopqrstuvwxyz_"), std::string::npos) << key;
        EXPECT_EQ(std::count(keys.begin(), keys.end(), key), 0) << key;
        keys.push_back(key);
    }
}

}  // namespace
}  // namespace trainbench::render

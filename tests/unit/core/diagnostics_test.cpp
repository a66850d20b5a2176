#include <trainbench/core.hpp>

#include <gtest/gtest.h>

using namespace trainbench;

TEST(SourceLocation, PrintsFileLineColumnOrTheOverride) {
    EXPECT_EQ((SourceLocation{"r.yaml", 3, 7, ""}).to_string(), "r.yaml:3:7");
    EXPECT_EQ((SourceLocation{"r.yaml", 3, 0, ""}).to_string(), "r.yaml:3");
    EXPECT_EQ((SourceLocation{"", 0, 0, "nodes=4"}).to_string(), "-s nodes=4");
    EXPECT_FALSE(SourceLocation{}.known());
}

TEST(Diagnostic, FormatsLocationKeyMessageExpectationAndHint) {
    Diagnostic d{Severity::error,         {"r.yaml", 7, 3, ""}, "parallelism.tensor_paralel", "unknown key", "",
                 "did you mean 'tensor'?"};
    EXPECT_EQ(d.format(),
              "r.yaml:7:3: error: 'parallelism.tensor_paralel': unknown key\n  hint: did you mean 'tensor'?");
    Diagnostic e{Severity::error, {"r.yaml", 2, 8, ""}, "nodes", "wrong type", "an integer >= 1", ""};
    EXPECT_EQ(e.format(), "r.yaml:2:8: error: 'nodes': wrong type (expected an integer >= 1)");
}

TEST(Diagnostics, SortsByPositionAndThrowsOnlyWithErrors) {
    Diagnostics diags;
    diags.warning({"b.yaml", 1, 1, ""}, "", "just a warning");
    EXPECT_NO_THROW(diags.throw_if_errors("recipe"));
    diags.error({"b.yaml", 9, 1, ""}, "x", "second");
    diags.error({"a.yaml", 2, 1, ""}, "y", "first");
    std::vector<Diagnostic> s = diags.sorted();
    ASSERT_EQ(s.size(), 3u);
    EXPECT_EQ(s[0].message, "first");
    EXPECT_EQ(s[2].message, "second");
    EXPECT_EQ(diags.error_count(), 2u);
    try {
        diags.throw_if_errors("recipe 'b.yaml'");
        FAIL() << "expected InputError";
    } catch (const InputError& e) {
        EXPECT_STREQ(e.what(), "recipe 'b.yaml': 2 errors");
        EXPECT_EQ(e.diagnostics().items().size(), 3u);
        EXPECT_EQ(e.exit_code(), ExitCode::invalid_input);
    }
}

// The catalog lists the log formats and FLOPs conventions recipes may name; metrics and
// analysis implement them. The names must agree, or a recipe could name a format no parser reads.
#include <trainbench/analysis.hpp>
#include <trainbench/catalog.hpp>
#include <trainbench/metrics.hpp>

#include <gtest/gtest.h>

namespace trainbench {
namespace {

TEST(CatalogNames, LogFormatsAreTheFormatsMetricsParses) {
    std::vector<std::string> parsed;
    for (const metrics::FormatInfo& f : metrics::formats()) parsed.emplace_back(f.name);
    EXPECT_EQ(catalog::log_format_names(), parsed);
}

TEST(CatalogNames, FlopsConventionsAreTheConventionsAnalysisImplements) {
    EXPECT_EQ(catalog::flops_convention_names(), analysis::flops_convention_names());
}

TEST(CatalogNames, EveryFrameworkDefaultNamesAKnownFormatAndConvention) {
    for (const catalog::FrameworkKind& k : catalog::framework_kinds()) {
        SCOPED_TRACE(std::string(k.name));
        if (!k.log_format.empty()) {
            EXPECT_NE(catalog::find_log_format(k.log_format), nullptr);
        }
        EXPECT_NO_THROW((void)analysis::find_flops_convention(k.flops));
    }
}

}  // namespace
}  // namespace trainbench

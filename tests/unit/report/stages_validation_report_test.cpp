// The validate stage's section of `trainbench report`: text and JSON.
#include <trainbench/report.hpp>

#include <gtest/gtest.h>

namespace trainbench::report {
namespace {

analysis::ClusterValidation sample_validation() {
    analysis::ClusterValidation v;
    v.threshold_gbs = 180;
    v.nodes = {"node-a", "node-b", "node-c", "node-d"};
    analysis::NcclRunCheck all;
    all.all_nodes = true;
    all.test = "all_reduce_perf";
    metrics::NcclRow small, big;
    small.size_bytes = 8;
    big.size_bytes = 8589934592ULL;
    big.oop_busbw = 338.82;
    all.rows = {small, big};
    all.largest_size = big.size_bytes;
    all.largest_busbw = 338.82;
    all.passed = true;
    analysis::NcclRunCheck pair;
    pair.test = "all_reduce_perf";
    pair.nodes = {"node-c", "node-d"};
    pair.largest_size = big.size_bytes;
    pair.largest_busbw = 90.1;
    pair.problem = "bus bandwidth 90.10 GB/s at 8589934592 bytes is below the threshold of 180 GB/s";
    v.runs = {all, pair};
    analysis::DcgmNodeResult d;
    d.node = "node-b";
    d.parsed = true;
    d.checks = {{"GPU Memory", "Fail", "GPU: 3"}};
    v.dcgm = {d};
    v.bad_nodes = {"node-b", "node-c"};
    v.suspect_nodes = {"node-d"};
    return v;
}

TEST(ValidationReport, TheTextShowsSizesPairsThresholdAndBadNodes) {
    std::string text = render_cluster_validation(sample_validation());
    EXPECT_NE(text.find("Cluster validation: FAIL (bus bandwidth threshold 180 GB/s, 4 nodes)"), std::string::npos)
        << text;
    EXPECT_NE(text.find("8 GiB     338.82"), std::string::npos) << text;
    EXPECT_NE(text.find("node-c + node-d"), std::string::npos) << text;
    EXPECT_NE(text.find("90.10  FAIL: bus bandwidth"), std::string::npos) << text;
    EXPECT_NE(text.find("node-b                   FAIL: GPU Memory (GPU: 3)"), std::string::npos) << text;
    EXPECT_NE(text.find("bad nodes: node-b node-c"), std::string::npos) << text;
    EXPECT_NE(text.find("suspect nodes (in a failing and a passing pair): node-d"), std::string::npos) << text;
}

TEST(ValidationReport, TheJsonCarriesEveryRunAndSize) {
    auto j = cluster_validation_json(sample_validation());
    EXPECT_FALSE(j["passed"].get<bool>());
    EXPECT_EQ(j["bad_nodes"].size(), 2u);
    ASSERT_EQ(j["runs"].size(), 2u);
    EXPECT_EQ(j["runs"][0]["sizes"].size(), 2u);
    EXPECT_DOUBLE_EQ(j["runs"][1]["largest_busbw_gbs"].get<double>(), 90.1);
    EXPECT_EQ(j["runs"][1]["nodes"][0], "node-c");
    EXPECT_EQ(j["dcgm"][0]["checks"][0]["result"], "Fail");
}

}  // namespace
}  // namespace trainbench::report

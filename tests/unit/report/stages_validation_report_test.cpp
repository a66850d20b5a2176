// The validate stage's result as parts of a document (the blocks each format shows, the JSON,
// the JUnit suite, the CSV records of a validation alone), and added after a run's report.
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

template <typename T>
std::vector<const T*> blocks_of(const Document& d, Show show) {
    std::vector<const T*> out;
    for (const Block& b : d.blocks)
        if (const T* t = std::get_if<T>(&b.content); t && b.show == show) out.push_back(t);
    return out;
}

TEST(ValidationReport, TheBlocksHoldTheVerdictTheBadNodesAndATableOfEveryCheck) {
    const Document d = cluster_validation_document(sample_validation());
    const auto terminal = blocks_of<Heading>(d, Show::terminal);
    ASSERT_EQ(terminal.size(), 1U);
    EXPECT_EQ(terminal[0]->text, "Cluster validation: FAIL (bus bandwidth threshold 180 GB/s, 4 nodes)");
    const auto html = blocks_of<Heading>(d, Show::html);
    ASSERT_EQ(html.size(), 1U);
    EXPECT_EQ(html[0]->text, "Cluster validation: FAIL");
    EXPECT_EQ(html[0]->id, "cluster-validation");
    const auto nodes = blocks_of<Definitions>(d, Show::html);
    ASSERT_EQ(nodes.size(), 2U);
    EXPECT_EQ(nodes[0]->callout, "bad-nodes");
    ASSERT_EQ(nodes[0]->items.size(), 1U);
    EXPECT_EQ(nodes[0]->items[0].first, "Bad nodes");
    EXPECT_EQ(nodes[0]->items[0].second.text, "node-b node-c");
    EXPECT_EQ(nodes[1]->callout, "suspect-nodes");
    EXPECT_EQ(nodes[1]->items.at(0).second.text, "node-d");
    const auto tables = blocks_of<Table>(d, Show::markup);
    ASSERT_EQ(tables.size(), 1U);
    const std::vector<std::vector<std::string>> rows = {
        {"DCGM node-b", "FAIL", "", "GPU Memory: GPU: 3"},
        {"all_reduce_perf over all nodes", "PASS", "338.82", ""},
        {"all_reduce_perf node-c + node-d", "FAIL", "90.10", sample_validation().runs[1].problem}};
    EXPECT_EQ(tables[0]->rows, rows);
}

TEST(ValidationReport, TheTerminalShowsSizesPairsThresholdAndBadNodes) {
    const std::string text = render(cluster_validation_document(sample_validation()), "table");
    EXPECT_EQ(text.rfind("Cluster validation: FAIL (bus bandwidth threshold 180 GB/s, 4 nodes)\n", 0), 0U) << text;
    EXPECT_NE(text.find("8 GiB     338.82"), std::string::npos) << text;
    EXPECT_NE(text.find("node-c + node-d"), std::string::npos) << text;
    EXPECT_NE(text.find("90.10  FAIL: bus bandwidth"), std::string::npos) << text;
    EXPECT_NE(text.find("node-b                   FAIL: GPU Memory (GPU: 3)"), std::string::npos) << text;
    EXPECT_NE(text.find("bad nodes: node-b node-c"), std::string::npos) << text;
    EXPECT_NE(text.find("suspect nodes (in a failing and a passing pair): node-d"), std::string::npos) << text;
    EXPECT_EQ(text.find("| check |"), std::string::npos) << "the table of checks is Markdown's and HTML's";
}

TEST(ValidationReport, TheJsonCarriesEveryRunAndSize) {
    const Document d = cluster_validation_document(sample_validation());
    ASSERT_EQ(d.data.size(), 1U);
    const auto& j = d.data.at("validation");
    EXPECT_FALSE(j["passed"].get<bool>());
    EXPECT_EQ(j["bad_nodes"].size(), 2u);
    ASSERT_EQ(j["runs"].size(), 2u);
    EXPECT_EQ(j["runs"][0]["sizes"].size(), 2u);
    EXPECT_DOUBLE_EQ(j["runs"][1]["largest_busbw_gbs"].get<double>(), 90.1);
    EXPECT_EQ(j["runs"][1]["nodes"][0], "node-c");
    EXPECT_EQ(j["dcgm"][0]["checks"][0]["result"], "Fail");
}

TEST(ValidationReport, EveryCheckIsAJUnitCaseAndACsvRecord) {
    const Document d = cluster_validation_document(sample_validation());
    EXPECT_EQ(d.tests_name, "trainbench cluster validation");
    ASSERT_EQ(d.tests.size(), 1U);
    const TestSuite& suite = d.tests[0];
    EXPECT_EQ(suite.name, "cluster-validation");
    ASSERT_EQ(suite.cases.size(), 4U);  // bad nodes, DCGM node-b, the two runs
    EXPECT_FALSE(suite.cases[0].passed);
    EXPECT_EQ(suite.cases[0].message, "bad nodes: node-b node-c");
    EXPECT_EQ(suite.cases[1].name, "DCGM node-b");
    EXPECT_TRUE(suite.cases[2].passed);
    EXPECT_FALSE(suite.cases[3].passed);
    EXPECT_EQ(d.records.keys, (std::vector<std::string>{"check", "result", "busbw_gbs", "detail"}));
    ASSERT_EQ(d.records.rows.size(), 3U);
    EXPECT_EQ(d.records.rows[2][0], "all_reduce_perf node-c + node-d");
    EXPECT_EQ(d.records.rows[2][2], "90.1");
}

// Beside a run's report: after its blocks (its findings first), "validation" after its data,
// the suite after its suites, and only the parts asked for.
TEST(ValidationReport, IsAddedAfterARunsReport) {
    Document d;
    d.blocks.push_back({Heading{"report: run", {}}, Show::terminal, Side::none});
    d.findings = {{Severity::warning, "a finding of the run"}};
    d.data = {{"format", "trainbench-report"}};
    d.tests_name = "trainbench expectations";
    d.tests = {{"run", {}, {{"mfu", "expectations", true, "", "", ""}}}};
    add_cluster_validation(d, sample_validation());
    EXPECT_EQ(std::get<Heading>(d.blocks.front().content).text, "report: run");
    EXPECT_EQ(d.data.begin().key(), "format");
    EXPECT_TRUE(d.data.contains("validation"));
    EXPECT_EQ(d.tests_name, "trainbench expectations");
    ASSERT_EQ(d.tests.size(), 2U);
    EXPECT_EQ(d.tests[1].name, "cluster-validation");
    EXPECT_TRUE(d.records.keys.empty()) << "a run's CSV is one row per run";
    const std::string text = render(d, "table");
    EXPECT_LT(text.find("a finding of the run"), text.find("Cluster validation: FAIL")) << text;
    const std::string junit = render(d, "junit");
    EXPECT_NE(junit.find("<testsuites name=\"trainbench expectations\" tests=\"5\" failures=\"3\">"), std::string::npos)
        << junit;

    Document data_only;
    add_cluster_validation(data_only, sample_validation(), reporter_info("json").parts);
    EXPECT_TRUE(data_only.blocks.empty());
    EXPECT_TRUE(data_only.tests.empty());
    EXPECT_TRUE(data_only.data.contains("validation"));
}

}  // namespace
}  // namespace trainbench::report

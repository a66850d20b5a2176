// Report formats: golden files for every format (tests/golden/report/), and
// the properties every format must have (convention and peak stated, escaping,
// colour only when asked).
#include "unit/shipped_gpus.hpp"

#include <trainbench/report.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace trainbench::report {
namespace {

namespace fs = std::filesystem;

catalog::Model gpt3_175b() {
    catalog::Model m;
    m.name = "gpt3-175b";
    m.family = "gpt3";
    m.layers = 96;
    m.hidden = 12288;
    m.heads = 96;
    m.seq_length = 2048;
    m.vocab = 50257;
    return m;
}

// A fixed run: 12 steps (two warm-up), GPT-3 175B on 256 H100, FP8, gpu-recipes.
analysis::RunSummary sample_summary(std::string label = "gpt3-175b-a3mega") {
    static metrics::LogData log;
    log = {};
    log.format = "dllogger";
    log.files = {"logs/train/dllogger.json"};
    log.parameters = {{"cfg/global_batch_size", "2048"}, {"cfg/tensor_model_parallel_size", "4"}, {"cfg/fp8", "true"}};
    const double times[] = {60.5, 31.25, 25.1, 25.2, 25.125, 25.3, 25.0, 25.15, 25.05, 25.2, 25.1, 25.25};
    for (int s = 0; s < 12; ++s) {
        log.add_point("step_time_s", "train_step_timing in s", {s, times[s], 0});
        log.add_point("loss", "reduced_train_loss", {s, 11.0 - 0.125 * s, 0});
    }
    log.stats.records = 13;
    analysis::AnalysisRequest req;
    req.inputs.label = std::move(label);
    req.inputs.model = gpt3_175b();
    req.inputs.model_origin = "recipe";
    req.inputs.gpus = 256;
    req.inputs.gpus_origin = "recipe";
    req.inputs.gpu_family = "h100";
    req.inputs.gpu_name = "h100-sxm-80gb";
    req.inputs.catalog_gpu = trainbench::testing::shipped_gpu("h100-sxm-80gb");
    req.inputs.precision = catalog::Precision::fp8;
    req.inputs.precision_origin = "recipe";
    req.inputs.global_batch = 2048;
    req.inputs.global_batch_origin = "recipe";
    req.inputs.window = {3, 10};
    req.inputs.window_origin = "recipe";
    req.inputs.convention = "gpu-recipes";
    req.inputs.convention_origin = "recipe";
    req.log = &log;
    req.step_records = analysis::step_samples(log);
    recipe::Expectation step;
    step.figure = "step_time_s";
    step.value = 25.1;
    step.tolerance = 0.05;
    step.tolerance_is_relative = true;
    recipe::Expectation mfu;
    mfu.figure = "mfu";
    mfu.min = 0.36;
    req.expectations = {step, mfu};
    req.provenance.tool_version = "<version>";
    req.provenance.log_format = "dllogger";
    req.provenance.log_files = {"logs/train/dllogger.json"};
    req.provenance.records = 13;
    req.provenance.step_source = "parsed series step_time_s (one value per step)";
    req.provenance.run_id = "20261122T020000Z-a1b2c3";
    req.provenance.recipe_name = "gpt3-175b-a3mega-fp8";
    req.provenance.created = "2026-11-22T02:00:00Z";
    req.resolved_recipe = "version: 1\nname: gpt3-175b-a3mega-fp8\nmodel: gpt3-175b\n# <script>alert(1)</script>\n";
    return analysis::analyse(std::move(req));
}

void check_golden(const std::string& name, const std::string& actual) {
    const fs::path path = fs::path(TRAINBENCH_SOURCE_DIR) / "tests" / "golden" / "report" / name;
    if (const char* update = std::getenv("TRAINBENCH_UPDATE_GOLDEN"); update && std::string(update) == "1") {
        std::ofstream(path, std::ios::binary) << actual;
        GTEST_SKIP() << "updated " << path;
    }
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(in) << "missing golden file " << path << " (run with TRAINBENCH_UPDATE_GOLDEN=1)";
    std::stringstream expected;
    expected << in.rdbuf();
    EXPECT_EQ(actual, expected.str()) << "golden " << name << " differs (TRAINBENCH_UPDATE_GOLDEN=1 regenerates)";
}

TEST(Golden, TableMatches) {
    check_golden("summary.txt", render_run(sample_summary(), "table"));
}
TEST(Golden, JsonMatches) {
    check_golden("summary.json", render_run(sample_summary(), "json"));
}
// Per-step series only on demand: the JSON of a long log is the figures, not every step.
TEST(Json, CarriesTheSeriesOnlyWhenAsked) {
    const analysis::RunSummary s = sample_summary();
    ASSERT_FALSE(s.step_times.empty());
    EXPECT_FALSE(to_json(s).contains("series"));
    const auto with = nlohmann::json::parse(render_run(s, "json", {.series = true}));
    ASSERT_TRUE(with.contains("series"));
    EXPECT_EQ(with["series"]["step_time_s"].size(), s.step_times.size());
    EXPECT_EQ(with["series"]["loss"].size(), s.loss.size());
    EXPECT_EQ(with["series"]["step_time_s"][0], nlohmann::json({s.step_times[0].step, s.step_times[0].value}));
}
TEST(Golden, CsvMatches) {
    check_golden("summary.csv", render_run(sample_summary(), "csv"));
}
TEST(Golden, MarkdownMatches) {
    check_golden("summary.md", render_run(sample_summary(), "markdown"));
}
TEST(Golden, HtmlMatches) {
    check_golden("summary.html", render_run(sample_summary(), "html"));
}
TEST(Golden, JunitMatches) {
    check_golden("junit.xml", render_run(sample_summary(), "junit"));
}
TEST(Golden, CompareTableMatches) {
    auto b = sample_summary("second");
    b.stats.mean *= 1.1;
    b.derived.tflops_per_gpu /= 1.1;
    b.derived.mfu /= 1.1;
    check_golden("compare.txt", render_compare({sample_summary(), b}, "table"));
}

TEST(EveryFormat, StatesTheConventionAndThePeak) {
    const auto s = sample_summary();
    for (const std::string& name : reporter_names()) {
        const std::string text = render_run(s, name);
        EXPECT_NE(text.find("gpu-recipes"), std::string::npos) << name;
        EXPECT_NE(text.find("1978"), std::string::npos) << name;
        EXPECT_NE(text.find("h100"), std::string::npos) << name;
        EXPECT_NE(text.find("fp8"), std::string::npos) << name;
        const std::string cmp = render_compare({s, s}, name);
        EXPECT_NE(cmp.find("gpu-recipes"), std::string::npos) << name;
        EXPECT_NE(cmp.find("1978"), std::string::npos) << name;
    }
}

std::vector<const Plot*> plots(const Document& d) {
    std::vector<const Plot*> out;
    for (const Block& b : d.blocks)
        if (const auto* p = std::get_if<Plot>(&b.content)) out.push_back(p);
    return out;
}

// A run's document holds only what its format shows: the terminal's no JSON, records, tests
// or plots (a large log's series are copied for the HTML page only).
TEST(RunDocument, BuildsOnlyThePartsTheFormatShows) {
    const analysis::RunSummary s = sample_summary();
    const Document table = run_document(s, {}, reporter_info("table").parts);
    EXPECT_FALSE(table.blocks.empty());
    EXPECT_TRUE(table.data.is_null());
    EXPECT_TRUE(table.records.keys.empty());
    EXPECT_TRUE(table.tests.empty());
    EXPECT_TRUE(plots(table).empty());
    const Document html = run_document(s, {}, reporter_info("html").parts);
    ASSERT_EQ(plots(html).size(), 2U);
    EXPECT_EQ(plots(html)[0]->series.at(0).points.size(), s.step_times.size());
    EXPECT_TRUE(html.data.is_null());
    const Document json = run_document(s, {.series = true}, reporter_info("json").parts);
    EXPECT_TRUE(json.blocks.empty());
    EXPECT_TRUE(json.data.contains("series"));
    EXPECT_EQ(render_run(s, "markdown"), render(run_document(s), "markdown"));
}

TEST(Json, HasTheContractFields) {
    const auto j = to_json(sample_summary());
    for (const char* key : {"step_time_s",
                            "step_time_median_s",
                            "steps_used",
                            "tokens_per_s",
                            "tokens_per_s_per_gpu",
                            "tflops_per_gpu",
                            "mfu",
                            "flops_convention",
                            "peak_tflops",
                            "gpus",
                            "global_batch",
                            "seq_len",
                            "model",
                            "expectations",
                            "step_time_stddev_s",
                            "step_time_p10_s",
                            "step_time_p90_s",
                            "warmup_steps",
                            "samples_per_s",
                            "flops_per_step",
                            "days_to_train"})
        EXPECT_TRUE(j.contains(key)) << key;
    EXPECT_EQ(j["flops_convention"], "gpu-recipes-2025-05");
    EXPECT_EQ(j["flops_convention_given"], "gpu-recipes");
    EXPECT_EQ(j["peak_tflops"], 1978);
    EXPECT_EQ(j["steps_used"], nlohmann::json({3, 4, 5, 6, 7, 8, 9, 10}));
    EXPECT_EQ(j["warmup_steps"], nlohmann::json({0, 1}));
    EXPECT_EQ(j["expectations"].size(), 2U);
    EXPECT_EQ(j["expectations"][0]["passed"], true);
    EXPECT_EQ(j["expectations"][1]["passed"], false);
    EXPECT_EQ(j["expectations_passed"], false);
}

TEST(Table, UsesColourOnlyWhenAsked) {
    const auto s = sample_summary();
    EXPECT_EQ(render_run(s, "table").find('\033'), std::string::npos);
    EXPECT_NE(render_run(s, "table", {true}).find("\033[1;31mFAIL"), std::string::npos);
}

TEST(Html, IsSelfContainedAndEscapesWhatItShows) {
    const std::string html = render_run(sample_summary(), "html");
    EXPECT_EQ(html.find("<script"), std::string::npos);
    EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
    EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));  // only the SVG namespace
    EXPECT_EQ(html.find("https://"), std::string::npos);
    EXPECT_NE(html.find("class=\"window\""), std::string::npos);
    EXPECT_NE(html.find("class=\"warmup\""), std::string::npos);
    EXPECT_NE(html.find("Resolved recipe"), std::string::npos);
    EXPECT_NE(html.find("Provenance"), std::string::npos);
}

TEST(Csv, QuotesFieldsThatNeedIt) {
    auto s = sample_summary("a,\"b\"");
    const std::string csv = render_run(s, "csv");
    EXPECT_NE(csv.find("\"a,\"\"b\"\"\""), std::string::npos);
}

TEST(Junit, HasOneTestCasePerExpectationAndCountsFailures) {
    const std::string xml = render_run(sample_summary(), "junit");
    EXPECT_NE(xml.find("tests=\"2\" failures=\"1\""), std::string::npos);
    EXPECT_NE(xml.find("<testcase name=\"mfu\""), std::string::npos);
    EXPECT_NE(xml.find("<failure message="), std::string::npos);
}

TEST(Reporters, UnknownFormatIsAUsageErrorWithASuggestion) {
    try {
        (void)make_reporter("markdwn");
        FAIL();
    } catch (const UsageError& e) {
        EXPECT_EQ(e.hint(), "did you mean 'markdown'?");
    }
}

TEST(RelativeDifference, IsSignedPercentOfTheFirst) {
    EXPECT_EQ(relative_difference(2.0, 2.5), "+25.00%");
    EXPECT_EQ(relative_difference(2.0, 1.5), "-25.00%");
    EXPECT_EQ(relative_difference(0.0, 1.0), "-");
    EXPECT_EQ(relative_difference(std::nullopt, 1.0), "-");
}

}  // namespace
}  // namespace trainbench::report

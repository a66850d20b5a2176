// The presentation model: one Document rendered by every reporter, the one SVG plot
// helper, the one JUnit writer, and the results views built from plain JSON records.
#include <trainbench/core.hpp>
#include <trainbench/report.hpp>

#include <gtest/gtest.h>

using namespace trainbench;
using namespace trainbench::report;
using nlohmann::ordered_json;

namespace {

// GCC 12 sees Plot's members "maybe uninitialized" when a Block holding a Table is moved
// into the vector (a false positive of its variant move; the library builds blocks the same way
// without it, as separate statements).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
Document sample_document() {
    Document d;
    d.title = "sample";
    d.blocks.push_back({Table{"fixed",
                              {{"#", Align::right, 3}, {"name", Align::left, 6}, {"note", Align::left, 0}},
                              {{"1", "a|b", "x"}, {"22", "c", ""}}}});
    d.blocks.push_back({Table{"fitted", {{"KEY"}, {"VALUE"}}, {{"k", "v\x1b[31m"}, {"long-key", ""}}}, Show::terminal});
    d.blocks.push_back({Text{"only in markup\n"}, Show::markup});
    d.records = {{"name", "value"}, {true, false}, {{"=1+1", "-"}, {"plain, text", "2"}}};
    d.data = {{"answer", 42}};
    d.tests_name = "suite of suites";
    d.tests = {{"first", {{"k", "v<"}}, {{"ok", "c", true, {}, {}, {}}, {"bad", "c", false, "why & how", "t", "body"}}},
               {"second", {}, {{"fine", "c", true, {}, {}, "said"}}}};
    return d;
}
#pragma GCC diagnostic pop

ordered_json record(const std::string& run_id, const std::string& target, double step, double mfu) {
    return {{"run_id", run_id},
            {"ran_at", "2026-03-01T00:00:00Z"},
            {"recipe_name", "tiny"},
            {"target", target},
            {"container", ""},
            {"model", "gpt3-126m"},
            {"gpus", 8},
            {"precision", "bf16"},
            {"convention", "megatron-2025-03"},
            {"window_start", 10},
            {"window_end", 30},
            {"step_time_mean", step},
            {"step_time_median", step},
            {"step_time_p10", step},
            {"step_time_p90", step},
            {"step_time_stddev", 0.0},
            {"tokens_per_s", 1000.0},
            {"tflops_per_gpu", 100.0},
            {"mfu", mfu},
            {"final_loss", nullptr},
            {"tags", {"good"}}};
}

}  // namespace

TEST(Document, TerminalShowsTablesAndTextButNoMarkupOnlyBlocks) {
    const std::string out = render(sample_document(), "table");
    EXPECT_EQ(out,
              "  #  name    note\n"
              "  1  a|b     x\n"
              " 22  c       \n"
              "KEY       VALUE\n"
              "k         v\\x1b[31m\n"
              "long-key\n");
}

TEST(Document, MarkdownShowsTitlesEscapesCellsAndLeavesTerminalBlocksOut) {
    const std::string out = render(sample_document(), "markdown");
    EXPECT_EQ(out,
              "# sample\n\n## fixed\n\n| # | name | note |\n|---:|---|---|\n| 1 | a\\|b | x |\n| 22 | c |  |\n"
              "\nonly in markup\n");
}

TEST(Document, HtmlIsOnePageWithEscapedCellsAndNumbersRightAligned) {
    const std::string out = render(sample_document(), "html");
    EXPECT_EQ(out.rfind("<!DOCTYPE html>", 0), 0U);
    EXPECT_NE(out.find("<h1>sample</h1>"), std::string::npos);
    EXPECT_NE(out.find("<td class=\"num\">22</td><td>c</td>"), std::string::npos);
    EXPECT_EQ(out.find("KEY"), std::string::npos);  // a terminal-only block
    EXPECT_NE(out.find("<p>only in markup</p>"), std::string::npos);
    EXPECT_EQ(out.substr(out.size() - 16), "</body>\n</html>\n");
}

TEST(Document, CsvNeutralisesTextColumnsOnly) {
    EXPECT_EQ(render(sample_document(), "csv"), "name,value\n\"'=1+1\",-\n\"plain, text\",2\n");
}

TEST(Document, JsonIsTheData) {
    EXPECT_EQ(render(sample_document(), "json"), "{\n  \"answer\": 42\n}\n");
}

TEST(Document, UnknownFormatIsAUsageError) {
    EXPECT_THROW((void)render(sample_document(), "yaml"), UsageError);
}

TEST(Junit, OneWriterCountsEverySuiteAndEscapes) {
    const std::string xml = render(sample_document(), "junit");
    EXPECT_NE(xml.find("<testsuites name=\"suite of suites\" tests=\"3\" failures=\"1\">"), std::string::npos) << xml;
    EXPECT_NE(xml.find("<testsuite name=\"first\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\">"),
              std::string::npos);
    EXPECT_NE(xml.find("<property name=\"k\" value=\"v&lt;\"/>"), std::string::npos);
    EXPECT_NE(xml.find("<testcase name=\"ok\" classname=\"c\"/>"), std::string::npos);
    EXPECT_NE(xml.find("<failure message=\"why &amp; how\" type=\"t\">body</failure>"), std::string::npos);
    EXPECT_NE(xml.find("<system-out>said</system-out>"), std::string::npos);
}

TEST(SvgPlot, LinePlotShadesTheWindowAndClipsOutliers) {
    Plot p{PlotKind::line, "step time", "step", "seconds", {{"", {{1, 1.0, "a"}, {2, 1.1, "b"}, {3, 9.0, "c"}}}},
           {2, 3},         {1},         2.0};
    const std::string svg = svg_plot(p);
    EXPECT_NE(svg.find("class=\"window\""), std::string::npos);
    EXPECT_NE(svg.find("class=\"warmup\""), std::string::npos);
    EXPECT_NE(svg.find("class=\"clipped\""), std::string::npos);
    EXPECT_NE(svg.find("<circle class=\"pt warm\""), std::string::npos);
    EXPECT_EQ(svg.find("polyline"), std::string::npos);
}

TEST(SvgPlot, ScatterOnLogXTicksAtThePointsAndDrawsTheIdealLine) {
    Plot p{PlotKind::scatter,
           "scaling",
           "nodes",
           "tokens/s per GPU",
           {{"m", {{1, 100, "one"}, {4, 90, "four"}, {2, 95, "two"}}, true}},
           {},
           {},
           0,
           true,
           0};
    const std::string svg = svg_plot(p);
    EXPECT_NE(svg.find(">4</text>"), std::string::npos);
    EXPECT_EQ(svg.find(">3</text>"), std::string::npos);  // no tick between the node counts
    EXPECT_NE(svg.find("stroke-dasharray"), std::string::npos);
    EXPECT_NE(svg.find("m (dashed: ideal)"), std::string::npos);
    EXPECT_EQ(svg.find("class=\"window\""), std::string::npos);
}

TEST(SvgPlot, NothingToPlotSaysSo) {
    EXPECT_NE(svg_plot({PlotKind::trend, "t", "x", "y", {}, {}, {}, 0, false, 0}).find("nothing measured yet"),
              std::string::npos);
}

TEST(HistoryView, TableCsvJsonAndHtmlComeFromTheRecords) {
    const ordered_json history = {{"format", "trainbench-history"},
                                  {"results",
                                   {record("20260301T000000Z-abc123", "a3", 1.5, 0.4),
                                    record("20260302T000000Z-def456", "=evil\x1b", 1.25, 0.5)}}};
    const Document d = history_document(history, "trainbench history: tiny");
    const std::string table = render(d, "table");
    EXPECT_EQ(table.substr(0, table.find('\n')),
              "RUN     RAN                   RECIPE  TARGET     CONTAINER  GPUS  WINDOW  STEP_S  MEDIAN_S  TOKENS/S  "
              "TFLOPS/GPU  MFU     TAGS");
    EXPECT_NE(table.find("abc123  2026-03-01T00:00:00Z  tiny    a3         -          8     10:30   1.5000"),
              std::string::npos)
        << table;
    EXPECT_NE(table.find("=evil\\x1b"), std::string::npos);
    const std::string csv = render(d, "csv");
    EXPECT_NE(csv.find(",\"'=evil\\x1b\","), std::string::npos) << csv;
    EXPECT_EQ(render(d, "json"), history.dump(2) + "\n");
    const std::string html = render(d, "html");
    EXPECT_EQ(html.find('\x1b'), std::string::npos);
    EXPECT_NE(html.find("<title>trainbench history: tiny</title>"), std::string::npos);
    EXPECT_NE(html.find("oldest → newest (2 results)"), std::string::npos);
    const std::size_t first = html.find("<svg"), second = html.find("<svg", first + 1);
    ASSERT_NE(second, std::string::npos);  // step time and MFU
    EXPECT_EQ(html.find("<svg", second + 1), std::string::npos);
    EXPECT_NE(html.find("a3 / -"), std::string::npos);  // one series per target / container
}

TEST(RegressionView, TextJsonAndJunitOfASlowerRun) {
    ordered_json run = record("20260302T000000Z-def456", "a3", 1.6, 0.4);
    ordered_json base = record("20260301T000000Z-abc123", "a3", 1.5, 0.4);
    const ordered_json comparison = {{"run", "20260302T000000Z-def456"},
                                     {"run_steps", 21},
                                     {"baseline_steps", 21},
                                     {"run_median_s", 1.6},
                                     {"baseline_median_s", 1.5},
                                     {"shift_s", 0.1},
                                     {"relative", 0.0667},
                                     {"relative_low", 0.05},
                                     {"relative_high", 0.08},
                                     {"confidence", 0.95},
                                     {"threshold", 0.05},
                                     {"verdict", "slower"}};
    const Document d =
        regression_document({{"run", run}, {"baseline", base}, {"comparison", comparison}, {"verdict_text", "slower"}});
    const std::string text = render(d, "table");
    EXPECT_NE(text.find("run       20260302T000000Z-def456 (2026-03-01T00:00:00Z, 21 steps 10:30, median 1.600000 s)"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find(" tags good\n"), std::string::npos);
    EXPECT_NE(text.find("verdict   slower\n"), std::string::npos);
    EXPECT_EQ(render(d, "json"), comparison.dump(2) + "\n");
    const std::string xml = render(d, "junit");
    EXPECT_NE(xml.find("<testsuites name=\"trainbench regress\" tests=\"1\" failures=\"1\">"), std::string::npos);
    EXPECT_NE(xml.find("<failure message=\"slower by +6.67%\">run       "), std::string::npos) << xml;
}

namespace {

// A grid of marked cells under a heading: what the run report is made of.
Document grid_document() {
    Document d;
    d.title = "grid";
    Cell value("1");
    value.note = "from here";
    Cell reason("x|y");
    reason.note = "why";
    reason.note_style = NoteStyle::detail;
    Grid g{{{"", Align::left, 4}, {"key"}, {"value"}}, {}, false};
    g.rows = {{Cell("ok", Tone::pass), Cell("a"), value}, {Cell("FAIL", Tone::fail), Cell("long-key"), reason}};
    d.blocks.push_back({Heading{"checks", "note"}});
    d.blocks.push_back({std::move(g)});
    return d;
}

}  // namespace

TEST(Grid, TerminalPadsEveryColumnButTheLastAndMarksCellsOnlyInColour) {
    EXPECT_EQ(render(grid_document(), "table"),
              "checks  note\n"
              "  ok    a         1  (from here)\n"
              "  FAIL  long-key  x|y  why\n");
    EXPECT_EQ(render(grid_document(), "table", {.color = true}),
              "\033[1mchecks\033[0m  \033[2mnote\033[0m\n"
              "  \033[32mok  \033[0m  a         1  \033[2m(from here)\033[0m\n"
              "  \033[1;31mFAIL\033[0m  long-key  x|y  why\n");
}

TEST(Grid, MarkdownAndHtmlCarryTheToneAndTheNote) {
    EXPECT_EQ(render(grid_document(), "markdown"),
              "# grid\n\nchecks (note)\n\n| | key | value |\n|---|---|---|\n| ok | a | 1 (from here) |\n"
              "| **FAIL** | long-key | x\\|y why |\n");
    const std::string html = render(grid_document(), "html");
    EXPECT_NE(html.find("<h2>checks</h2>\n<table>\n<tr><td class=\"pass\">ok</td><td>a</td><td>1 <span "
                        "class=\"origin\">(from here)</span></td></tr>\n<tr><td class=\"fail\">FAIL</td><td>long-key</"
                        "td><td>x|y &mdash; why</td></tr>\n</table>\n</body>"),
              std::string::npos)
        << html;
}

TEST(Document, HtmlSidesMakeTwoColumnsAndFindingsShowWhereTheyArePut) {
    Document d;
    d.title = "sides";
    d.blocks.push_back({Text{"a\n"}, Show::everywhere, Side::left});
    d.blocks.push_back({Text{"b\n"}, Show::everywhere, Side::right});
    d.blocks.push_back({FindingsHere{}});
    d.blocks.push_back({Text{"c\n"}});
    d.findings.push_back({Severity::warning, "w"});
    const std::string html = render(d, "html");
    EXPECT_NE(html.find("<h1>sides</h1>\n<div class=\"grid2\">\n<div>\n<p>a</p>\n</div>\n<div>\n<p>b</p>\n</div>\n"
                        "</div>\n<h2>Findings</h2>\n<ul>\n<li class=\"warning\">warning: w</li>\n</ul>\n<p>c</p>\n"
                        "</body>"),
              std::string::npos)
        << html;
    EXPECT_EQ(render(d, "table"), "a\nb\n\nwarning: w\nc\n");
    EXPECT_EQ(render(d, "markdown"), "# sides\n\na\n\nb\n\n- warning: w\n\nc\n");
}

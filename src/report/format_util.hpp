// Private to report: small helpers shared by the formats.
#pragma once

#include <trainbench/report.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace trainbench::report::detail {

// The label/value rows that describe a run's inputs (model, GPUs, batch,
// convention, peak, window...), each with where the value came from.
struct InputRow {
    std::string label;
    std::string value;
    std::string origin;
};
[[nodiscard]] std::vector<InputRow> input_rows(const analysis::RunSummary& s);

[[nodiscard]] std::string steps_text(const std::vector<std::int64_t>& steps);  // "0-2, 5"
[[nodiscard]] std::string figure_label(const analysis::RunSummary& s, const FigureInfo& f);
// The figures one run's table and markdown show: summary_figures(), and right after MFU the
// MFU against the measured peak when the run has one (a GPU run's calibration).
[[nodiscard]] std::vector<FigureInfo> report_figures(const analysis::RunSummary& s);

// A series over steps as a line plot's one series (tooltips "step N: V").
[[nodiscard]] PlotSeries step_series(const std::vector<analysis::SeriesPoint>& points);

// report --conventions and --reference sections (conventions.cpp): rows with a header row first.
[[nodiscard]] std::vector<std::vector<std::string>> conventions_rows(const analysis::RunSummary& s);
[[nodiscard]] std::vector<std::vector<std::string>> reference_rows(const analysis::RunSummary& s);  // s.reference set
[[nodiscard]] std::string differences_text(const analysis::ReferenceComparison& c);
[[nodiscard]] nlohmann::ordered_json conventions_json(const analysis::RunSummary& s);
[[nodiscard]] nlohmann::ordered_json reference_json(const analysis::ReferenceComparison& c);

// A Document in each format (document_text.cpp, document_markup.cpp).
[[nodiscard]] std::string document_terminal(const Document& d);
[[nodiscard]] std::string document_csv(const Document& d);
[[nodiscard]] std::string document_json(const Document& d);
[[nodiscard]] std::string document_markdown(const Document& d);
[[nodiscard]] std::string document_html(const Document& d);
// The head of every HTML page (<!DOCTYPE> .. <body>): its title and the one style sheet (html.cpp).
[[nodiscard]] std::string html_head(const std::string& title);
// One <testsuite> element (junit.cpp: the one JUnit writer).
[[nodiscard]] std::string junit_suite(const TestSuite& suite);

std::unique_ptr<Reporter> make_table(const ReportOptions& o);
std::unique_ptr<Reporter> make_json(const ReportOptions& o);
std::unique_ptr<Reporter> make_csv(const ReportOptions& o);
std::unique_ptr<Reporter> make_markdown(const ReportOptions& o);
std::unique_ptr<Reporter> make_html(const ReportOptions& o);
std::unique_ptr<Reporter> make_junit(const ReportOptions& o);

}  // namespace trainbench::report::detail

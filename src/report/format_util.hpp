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

// The SVG plot of a series over steps, the step window shaded and the
// warm-up steps marked.
[[nodiscard]] std::string svg_plot(const std::vector<analysis::SeriesPoint>& points, const std::string& title,
                                   const std::string& unit, const analysis::StepWindow& window,
                                   const std::vector<std::int64_t>& warmup_steps, double clip_above = 0);

// report --conventions and --reference sections (conventions.cpp): rows with a header row first.
[[nodiscard]] std::vector<std::vector<std::string>> conventions_rows(const analysis::RunSummary& s);
[[nodiscard]] std::vector<std::vector<std::string>> reference_rows(const analysis::RunSummary& s);  // s.reference set
[[nodiscard]] std::string differences_text(const analysis::ReferenceComparison& c);
[[nodiscard]] nlohmann::ordered_json conventions_json(const analysis::RunSummary& s);
[[nodiscard]] nlohmann::ordered_json reference_json(const analysis::ReferenceComparison& c);

std::unique_ptr<Reporter> make_table(const ReportOptions& o);
std::unique_ptr<Reporter> make_json(const ReportOptions& o);
std::unique_ptr<Reporter> make_csv(const ReportOptions& o);
std::unique_ptr<Reporter> make_markdown(const ReportOptions& o);
std::unique_ptr<Reporter> make_html(const ReportOptions& o);
std::unique_ptr<Reporter> make_junit(const ReportOptions& o);

}  // namespace trainbench::report::detail

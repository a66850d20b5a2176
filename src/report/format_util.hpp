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

// A series over steps as a line plot's one series (no tips: a line plot's are "step N: V").
[[nodiscard]] PlotSeries step_series(const std::vector<analysis::SeriesPoint>& points);

// report --conventions and --reference sections (conventions.cpp): rows with a header row first.
[[nodiscard]] std::vector<std::vector<std::string>> conventions_rows(const analysis::RunSummary& s);
[[nodiscard]] std::vector<std::vector<std::string>> reference_rows(const analysis::RunSummary& s);  // s.reference set
[[nodiscard]] std::string differences_text(const analysis::ReferenceComparison& c);
[[nodiscard]] nlohmann::ordered_json conventions_json(const analysis::RunSummary& s);
[[nodiscard]] nlohmann::ordered_json reference_json(const analysis::ReferenceComparison& c);

// ANSI styling that is a no-op without colour.
struct Style {
    bool on = false;
    [[nodiscard]] std::string wrap(std::string_view code, std::string_view text) const;
    [[nodiscard]] std::string bold(std::string_view t) const { return wrap("1", t); }
    [[nodiscard]] std::string dim(std::string_view t) const { return wrap("2", t); }
    [[nodiscard]] std::string tone(Tone tone, std::string_view t) const;  // pass green, fail red, warn yellow, note dim
};
// Display width (UTF-8 code points) and padding to it.
[[nodiscard]] std::size_t display_width(std::string_view s);
[[nodiscard]] std::string pad(std::string_view s, std::size_t width);

// Where a block shows.
[[nodiscard]] bool shown(const Block& b, Show format);
// A figure of a run for people: with its unit, MFU with its percentage ("0.3539 (35.39%)").
[[nodiscard]] std::string figure_with_unit(const analysis::RunSummary& s, const FigureInfo& f);
// The CSV records of runs (one row each) and their JUnit suites (one per run: its expectations).
[[nodiscard]] Records summary_records(const std::vector<const analysis::RunSummary*>& runs);
[[nodiscard]] TestSuite expectation_suite(const analysis::RunSummary& r);

// A Grid in each format (document_grid.cpp); the terminal's with colour when `style` is on.
[[nodiscard]] std::string grid_terminal(const Grid& g, const Style& style);
[[nodiscard]] std::string grid_markdown(const Grid& g);
[[nodiscard]] std::string grid_html(const Grid& g);
// A cell's content in Markdown and HTML (no <td>), a definition list in HTML.
[[nodiscard]] std::string cell_markdown(const Cell& c);
[[nodiscard]] std::string cell_html(const Cell& c);
[[nodiscard]] std::string definitions_html(const Definitions& d);
[[nodiscard]] Grid definitions_grid(const Definitions& d);  // terminal and Markdown: a two-column grid

// A Document in each format (document_text.cpp, document_markup.cpp).
[[nodiscard]] std::string document_terminal(const Document& d, bool colour = false);
[[nodiscard]] std::string document_csv(const Document& d);
[[nodiscard]] std::string document_json(const Document& d);
[[nodiscard]] std::string document_markdown(const Document& d);
[[nodiscard]] std::string document_html(const Document& d);
// The head of every HTML page (<!DOCTYPE> .. <body>): its title and the one style sheet (html.cpp).
[[nodiscard]] std::string html_head(const std::string& title);
// One <testsuite> element (junit.cpp: the one JUnit writer).
[[nodiscard]] std::string junit_suite(const TestSuite& suite);

}  // namespace trainbench::report::detail

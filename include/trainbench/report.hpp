// report: formatting analysed runs for people and programs. One Reporter
// interface, chosen by name from a table (table, json, csv, markdown, html,
// junit). Every format states the FLOPs convention and the peak (GPU,
// precision, TFLOPS, source) it used. A compare view puts several runs side
// by side with relative differences to the first.
//
// report never prints and never decides exit codes: it returns text.
#pragma once

#include <trainbench/analysis.hpp>

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace trainbench::report {

struct ReportOptions {
    bool color = false;  // ANSI colour (table only); the CLI decides: a TTY and no NO_COLOR
};

class Reporter {
public:
    virtual ~Reporter() = default;
    // One run.
    [[nodiscard]] virtual std::string render(const analysis::RunSummary& summary) const = 0;
    // Several runs side by side; relative differences are to the first.
    [[nodiscard]] virtual std::string render_compare(const std::vector<analysis::RunSummary>& runs) const = 0;
};

using ReporterFactory = std::unique_ptr<Reporter> (*)(const ReportOptions&);

struct ReporterInfo {
    std::string_view name;  // "table", "json", "csv", "markdown", "html", "junit"
    std::string_view description;
    ReporterFactory make;
};

[[nodiscard]] const std::vector<ReporterInfo>& reporters();
[[nodiscard]] std::vector<std::string> reporter_names();
// Throws UsageError for an unknown name (with did-you-mean).
[[nodiscard]] std::unique_ptr<Reporter> make_reporter(std::string_view name, const ReportOptions& options = {});

// The JSON report of one run (what --json prints and report/summary.json holds).
[[nodiscard]] nlohmann::ordered_json to_json(const analysis::RunSummary& summary);
// Several runs: {"format": ..., "runs": [...], "differences": [...]}.
[[nodiscard]] nlohmann::ordered_json compare_json(const std::vector<analysis::RunSummary>& runs);

// The figures every view shows, in order: key (as in JSON), label, unit.
struct FigureInfo {
    std::string_view key;
    std::string_view label;
    std::string_view unit;
};
[[nodiscard]] const std::vector<FigureInfo>& summary_figures();
// The figure formatted for people ("25.10377273", "35.44%"); "-" when absent.
[[nodiscard]] std::string format_figure(std::string_view key, std::optional<double> value);
// (b - a) / a as "+1.23%" ("-" when a is zero or a value is missing).
[[nodiscard]] std::string relative_difference(std::optional<double> a, std::optional<double> b);

// "h100 fp8 1978 TFLOPS (gpu-recipes data_defs.py MAX_TFLOPS)".
[[nodiscard]] std::string describe_peak(const analysis::Peak& peak);

// The validate stage's result (src/report/cluster_validation.cpp): a text
// section (DCGM per node, bus bandwidth per size and per node pair against
// the threshold, bad nodes) and its JSON form ("validation" in summary.json).
[[nodiscard]] std::string render_cluster_validation(const analysis::ClusterValidation& validation);
[[nodiscard]] nlohmann::ordered_json cluster_validation_json(const analysis::ClusterValidation& validation);
// The same result as a Markdown section, an HTML <section> and a JUnit <testsuite>
// (src/report/cluster_validation_formats.cpp): every check, and the bad nodes by name.
[[nodiscard]] std::string cluster_validation_markdown(const analysis::ClusterValidation& validation);
[[nodiscard]] std::string cluster_validation_html(const analysis::ClusterValidation& validation);
[[nodiscard]] std::string cluster_validation_junit(const analysis::ClusterValidation& validation);
// A report rendered in `format` ("markdown", "html", "junit"; others unchanged) with the
// validation section added where that format keeps it (appended, before </body>, before </testsuites>).
[[nodiscard]] std::string with_cluster_validation(std::string_view format, std::string rendered,
                                                  const analysis::ClusterValidation& validation);

}  // namespace trainbench::report

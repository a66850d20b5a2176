// report: formatting analysed runs for people and programs. One Reporter
// interface, chosen by name from a table (table, json, csv, markdown, html,
// junit). Every format states the FLOPs convention and the peak (GPU,
// precision, TFLOPS, source) it used. A compare view puts several runs side
// by side with relative differences to the first. Everything else the
// commands show is here too: plan tables, the sweep preview, status and
// report, through one text-table helper and one colour decision.
//
// report never prints and never decides exit codes: it returns text.
#pragma once

#include <trainbench/analysis.hpp>
#include <trainbench/plan.hpp>
#include <trainbench/sweep.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <optional>
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

// ---------------------------------------------------------------- text tables
// The one text-table helper: a header line and one line per row, each cell
// padded to its column's width (left or right aligned) and preceded by the
// column's gap; a column of width 0 is not padded (the last, free-text one).
enum class Align { left, right };
struct TextColumn {
    std::string header;
    std::size_t width = 0;
    Align align = Align::left;
    std::string gap = "  ";  // before the column (not before the first)
};
struct TextTable {
    std::vector<TextColumn> columns;
    std::string indent = {};  // before every line
    [[nodiscard]] std::string render(const std::vector<std::vector<std::string>>& rows) const;
};
// A table whose columns are as wide as their widest cell (header included),
// two spaces apart, the last column unpadded: `list` and `parse`.
[[nodiscard]] std::string fitted_table(const std::vector<std::string>& header,
                                       const std::vector<std::vector<std::string>>& rows);
// `value` through `format` ("{:.3f}"), or "-" when there is none.
[[nodiscard]] std::string optional_cell(const std::optional<double>& value, std::string_view format);

// The one colour decision: colour on a terminal, unless NO_COLOR is set (no-color.org).
[[nodiscard]] bool use_colour(bool is_tty);

// ---------------------------------------------------------------- catalog listings
// `trainbench list`: one row per entry (header names the columns; the first
// cell is the entry's name) and the same entries as a JSON array.
struct Listing {
    nlohmann::ordered_json json = nlohmann::ordered_json::array();
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> notes;  // lines printed under the table (not with --names or --json)
};
[[nodiscard]] Listing gpu_listing(const catalog::Catalog& catalog);
[[nodiscard]] Listing target_listing(const catalog::Catalog& catalog);
[[nodiscard]] Listing model_listing(const catalog::Catalog& catalog);
[[nodiscard]] Listing framework_listing(const catalog::Catalog& catalog);
// `list conventions`: every dated FLOPs convention with its aliases, dates and sources.
[[nodiscard]] Listing convention_listing();
// `flops`: one model under every convention; with `matches`, the TFLOPS/GPU each gives at a
// published tokens/s/GPU and whether it reproduces the published TFLOPS/GPU.
[[nodiscard]] Listing flops_listing(const analysis::FlopsInput& input,
                                    const std::vector<analysis::ConventionMatch>* matches);
// `list references`: the published rows, each reproduced under its convention (checks[i] of rows[i]).
[[nodiscard]] Listing reference_listing(const std::vector<catalog::Reference>& rows,
                                        const std::vector<analysis::ReferenceCheck>& checks);
// Every recipe file below the directories, loaded (an invalid one is a row that says so).
[[nodiscard]] Listing recipe_listing(const catalog::Catalog& catalog,
                                     const std::vector<std::filesystem::path>& recipe_dirs);

// ---------------------------------------------------------------- parsed logs
// `trainbench parse`: what the parsers decoded. JSON: one document (the series
// written point by point, never held twice); CSV: one row per point (nccl-tests:
// one per size); text: a table per series (with `points`, one row per step).
void write_log_data_json(std::ostream& out, const metrics::LogData& data);
void write_log_data_csv(std::ostream& out, const metrics::LogData& data);
void write_log_data_text(std::ostream& out, const metrics::LogData& data, bool points);

// ---------------------------------------------------------------- plans
// `trainbench plan`: the plan of one recipe, and the configurations of --search.
[[nodiscard]] std::string plan_text(const plan::Plan& plan);
[[nodiscard]] std::string search_text(const recipe::Recipe& recipe, const std::vector<plan::Candidate>& all,
                                      std::size_t top);
[[nodiscard]] nlohmann::ordered_json search_json(const recipe::Recipe& recipe, const std::vector<plan::Candidate>& all,
                                                 std::size_t top, double assume_mfu);

// ---------------------------------------------------------------- sweeps
// `sweep --dry-run`: every point with its estimate (estimates[i] belongs to
// expansion.points[i]), the pruned points with their reasons, the totals.
struct SweepPreview {
    const sweep::Expansion& expansion;
    const std::vector<plan::RunEstimate>& estimates;
    double assume_mfu = 0.4;
    std::string output_dir;  // -o: where the points were rendered ("" = not rendered)
    std::size_t rendered_files = 0;
};
[[nodiscard]] std::string sweep_preview_text(const SweepPreview& preview);
[[nodiscard]] nlohmann::ordered_json sweep_preview_json(const SweepPreview& preview);

// `sweep status`: one row per valid point.
struct SweepStatusRow {
    std::size_t index = 0;
    std::string name;
    std::string hash;
    std::string run_id = "-";
    std::string state = "NOT SUBMITTED";
    std::string detail;
};
[[nodiscard]] std::string sweep_status_text(const std::string& sweep_name, const std::vector<SweepStatusRow>& rows);
[[nodiscard]] nlohmann::ordered_json sweep_status_json(const std::string& sweep_name,
                                                       const std::vector<SweepStatusRow>& rows);

// `sweep report`: one row per valid point with what its run measured.
struct SweepReportRow {
    std::size_t index = 0;
    std::string name;
    std::string model;
    std::string run_id;
    int nodes = 0;
    int gpus = 0;
    std::optional<double> step_time_s, tokens_per_s, tflops_per_gpu, mfu;
    std::optional<double> scaling;  // filled by sweep_report
    std::string note;
};
[[nodiscard]] const std::vector<std::string>& sweep_report_formats();
// Scaling efficiency: tokens/s per GPU against the same model's point with the
// fewest nodes (1.0 = linear). `format` is one of sweep_report_formats().
[[nodiscard]] std::string sweep_report(const std::string& sweep_name, std::vector<SweepReportRow> rows,
                                       const std::string& format);

}  // namespace trainbench::report

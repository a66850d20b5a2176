// report: formatting analysed runs for people and programs. What a command shows is a
// Document (tables, series plots, findings, test cases, and its JSON data); one set of
// reporters (table, json, csv, markdown, html, junit) renders any document, with one SVG
// plot helper and one JUnit writer. Every format of a run's report states the FLOPs
// convention and the peak (GPU, precision, TFLOPS, source) it used. A compare view puts
// several runs side by side with relative differences to the first. Everything else the
// commands show is here too: plan tables, the sweep preview, status and report, history and
// regression views, through one text-table helper and one colour decision.
//
// report never prints and never decides exit codes: it returns text.
#pragma once

#include <trainbench/analysis.hpp>
#include <trainbench/plan.hpp>
#include <trainbench/sweep.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace trainbench::report {

struct ReportOptions {
    bool color = false;   // ANSI colour (table only); the CLI decides: a TTY and no NO_COLOR
    bool series = false;  // JSON: add the per-step series (every step's time and loss); HTML always plots them
};

struct Document;

// One reporter per format; each renders any Document.
class Reporter {
public:
    virtual ~Reporter() = default;
    [[nodiscard]] virtual std::string render(const Document& document) const = 0;
};

using ReporterFactory = std::unique_ptr<Reporter> (*)(const ReportOptions&);

// The parts of a Document a format renders: a view builds only those (a run's document
// for the terminal holds no JSON, plots or test suites).
struct Parts {
    bool blocks = true;   // the blocks and findings, for people
    bool plots = true;    // the Plot blocks (the per-step series drawn)
    bool data = true;     // JSON
    bool records = true;  // CSV
    bool tests = true;    // JUnit
};

struct ReporterInfo {
    std::string_view name;  // "table", "json", "csv", "markdown", "html", "junit"
    std::string_view description;
    ReporterFactory make;
    Parts parts;  // what it renders of a document
};

[[nodiscard]] const std::vector<ReporterInfo>& reporters();
[[nodiscard]] std::vector<std::string> reporter_names();
// Throws UsageError for an unknown name (with did-you-mean).
[[nodiscard]] std::unique_ptr<Reporter> make_reporter(std::string_view name, const ReportOptions& options = {});
[[nodiscard]] const ReporterInfo& reporter_info(std::string_view name);

// The JSON report of one run (what --json prints and report/summary.json holds); the
// per-step series ("series": step_time_s and loss as [step, value] pairs) only with `series`.
[[nodiscard]] nlohmann::ordered_json to_json(const analysis::RunSummary& summary, bool series = false);
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

// ---------------------------------------------------------------- documents
// What a view shows, whatever the format: blocks for people (tables, plots, paragraphs),
// findings, and the forms programs read: `data` (JSON), `records` (CSV) and `tests`
// (JUnit). A reporter renders each part its own way (src/report/document_*.cpp).
struct Column {
    std::string header;
    Align align = Align::left;
    std::size_t width = 0;  // terminal: a fixed width (0: as wide as its widest cell, the last one unpadded)
};
struct Table {
    std::string title;  // a heading in Markdown and HTML ("" = none); the terminal shows none
    std::vector<Column> columns;
    std::vector<std::vector<std::string>> rows;  // cells as people read them
};
// How a piece of text is marked: terminal colour, HTML class, Markdown emphasis (fail).
enum class Tone {
    plain,
    note,  // secondary: dim, class "origin"
    pass,  // green, class "pass"
    fail,  // red and bold, class "fail", **strong** in Markdown
    warn,  // yellow, class "warning"
};
struct Text {
    std::string text;  // a paragraph; the terminal prints it as it is (lines end with '\n')
    Tone tone = Tone::plain;
    bool verbatim = false;  // shown character for character: HTML <pre> as it is, Markdown escaped
};
// A heading line: terminal bold (a blank line before, unless first) with its note dim after it;
// Markdown a line of its own, "text (note)"; HTML <h2> (<h2 id="..."> with an `id`).
struct Heading {
    std::string text;
    std::string note;
    std::string id = {};  // HTML: the anchor ("" = none)
};
// A cell of a Grid (or a Definitions value) with how it is marked, and a note.
enum class NoteStyle {
    origin,  // "(note)": terminal dim after two spaces, HTML <span class="origin">, Markdown after a space
    detail,  // the reason: terminal and Markdown after the text, HTML after an em dash
    below,   // HTML on its own line (<div class="origin">), elsewhere as `detail`
};
struct Cell {
    std::string text;
    Tone tone = Tone::plain;
    std::string note;  // "" = none
    NoteStyle note_style = NoteStyle::origin;
    bool number = false;  // HTML: class "num" (right-aligned figures)
    Cell() = default;
    Cell(std::string t) : text(std::move(t)) {}  // implicit: rows of plain strings
    Cell(std::string t, Tone k) : text(std::move(t)), tone(k) {}
};
// A table of marked cells. Terminal: no title, each row indented, cells two spaces apart,
// every column but the last padded (to `width`, or its widest cell), trailing spaces dropped;
// the header row (bold) only with `header`. Markdown: always a header row ("" headers are
// empty). HTML: <table>, a header row only with `header`.
struct Grid {
    std::vector<Column> columns;  // header, align (terminal padding, Markdown rule), width (terminal)
    std::vector<std::vector<Cell>> rows;
    bool header = true;
    std::string indent = "  ";  // terminal
};
// Terms and their values. HTML: a <dl> (or, as a callout, one <p class="CALLOUT"> of
// "<b>term:</b> value" lines); terminal: "  term  value" lines; Markdown: "- **term:** value".
struct Definitions {
    std::vector<std::pair<std::string, Cell>> items;
    std::string callout = {};  // "" = a <dl>; else the callout's class ("conv": the run's convention and peak)
};
// Where the document's findings show (without one: after the last block).
struct FindingsHere {};

// ---- the one SVG plot helper (src/report/svg_plot.cpp)
struct PlotPoint {
    double x = 0;
    double y = 0;
    std::string tip;  // the point's tooltip ("" = "step X: Y" for lines)
};
struct PlotSeries {
    std::string name;  // legend ("" = no legend)
    std::vector<PlotPoint> points;
    bool ideal = false;  // a dashed flat line from the series' first point (scaling: linear)
};
enum class PlotKind {
    line,     // y over steps: one series, the step window shaded, warm-up steps marked, clipping
    scatter,  // several series of (x, y) points joined in x order; `log_x` for node counts
    trend,    // several series over one shared order (x = position, oldest to newest)
};
struct Plot {
    PlotKind kind = PlotKind::line;
    std::string title;
    std::string x_label;
    std::string y_label;
    std::vector<PlotSeries> series;
    analysis::StepWindow window{};           // line: the shaded window
    std::vector<std::int64_t> warmup_steps;  // line: the marked warm-up steps
    double clip_above = 0;                   // line: points above are drawn at the top edge (0 = none)
    bool log_x = false;                      // scatter: x on a log2 scale
    std::size_t positions = 0;               // trend: how many positions x spans
};
[[nodiscard]] std::string svg_plot(const Plot& plot);

// ---- the one JUnit writer (src/report/junit.cpp)
struct TestCase {
    std::string name;
    std::string classname;
    bool passed = true;
    std::string message;  // failure message
    std::string type;     // failure type ("" = none)
    std::string text;     // system-out of a pass, body of a failure ("" = none)
};
struct TestSuite {
    std::string name;
    std::vector<std::pair<std::string, std::string>> properties;
    std::vector<TestCase> cases;
};
// A whole file: <testsuites name=...> with the totals of every suite.
[[nodiscard]] std::string junit_xml(const std::string& name, const std::vector<TestSuite>& suites);

// Where a block shows: everywhere, only in the terminal table, only in Markdown and HTML, or
// only in one of them (a view laid out differently for each).
enum class Show { everywhere, terminal, markup, markdown, html };
// HTML: a block that starts a column of a two-column row (<div class="grid2">; the row ends
// with the first block that is in neither).
enum class Side { none, left, right };
struct Block {
    using Content = std::variant<Table, Plot, Text, Heading, Grid, Definitions, FindingsHere>;
    Content content;
    Show show = Show::everywhere;
    Side side = Side::none;
};
// CSV: one header line of keys, then the rows; `text[i]` marks a column of free text
// (neutralised and quoted by csv_field); other cells are written as they are.
struct Records {
    std::vector<std::string> keys;
    std::vector<bool> text;
    std::vector<std::vector<std::string>> rows;
};
struct Document {
    std::string title;    // Markdown heading, HTML <title> and <h1>
    int title_level = 1;  // Markdown: "#" (1) or "##" (2); 0 = none (the title is the HTML page's only)
    std::vector<Block> blocks;
    std::vector<analysis::Finding> findings;
    Records records;
    std::string tests_name;  // <testsuites name=...>
    std::vector<TestSuite> tests;
    nlohmann::ordered_json data;  // what JSON prints (dump(2))
};
// `document` in one of reporter_names(). Throws UsageError for an unknown format.
[[nodiscard]] std::string render(const Document& document, std::string_view format, const ReportOptions& options = {});

// ---- a run's report and the comparison of runs, as documents (src/report/run_document.cpp,
// compare_document.cpp): every format renders them through the reporters above.
// One run: inputs with their origins, figures, the conventions and the reference (when the
// summary has them), expectations, the cross-check, findings; HTML adds the step-time and loss
// plots, the resolved recipe and the provenance. `data` is to_json(summary, options.series).
// Only the `parts` asked for are built (the plots copy every step).
[[nodiscard]] Document run_document(const analysis::RunSummary& summary, const ReportOptions& options = {},
                                    const Parts& parts = {});
// Several runs side by side, relative differences to the first; `data` is compare_json(runs).
[[nodiscard]] Document compare_document(const std::vector<analysis::RunSummary>& runs, const Parts& parts = {});
// The validate stage's result (src/report/cluster_validation.cpp: DCGM per node, bus bandwidth
// per size and per run against the threshold, bad and suspect nodes) added to a document, after
// its blocks (a run's findings before it): the `parts` asked for of lines (terminal), a section
// with a table of every check (Markdown, HTML), "validation" in `data` and a JUnit suite.
void add_cluster_validation(Document& document, const analysis::ClusterValidation& validation, const Parts& parts = {});
// A run without training figures: its validation alone, and one CSV record per check.
[[nodiscard]] Document cluster_validation_document(const analysis::ClusterValidation& validation,
                                                   const Parts& parts = {});
// run_document / compare_document with the parts `format` renders, rendered in it.
[[nodiscard]] std::string render_run(const analysis::RunSummary& summary, std::string_view format,
                                     const ReportOptions& options = {});
[[nodiscard]] std::string render_compare(const std::vector<analysis::RunSummary>& runs, std::string_view format,
                                         const ReportOptions& options = {});

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
// The sweep views are Documents (src/report/sweep_views.cpp); the *_text and *_json
// functions are render(document, "table") and the document's data.
[[nodiscard]] Document sweep_preview_document(const SweepPreview& preview);
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
[[nodiscard]] Document sweep_status_document(const std::string& sweep_name, const std::vector<SweepStatusRow>& rows);
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
// Scaling efficiency: tokens/s per GPU against the same model's point with the fewest
// nodes (1.0 = linear), and a plot of tokens/s per GPU against nodes (HTML).
[[nodiscard]] Document sweep_report_document(const std::string& sweep_name, std::vector<SweepReportRow> rows);
// render(sweep_report_document(...), format); `format` is one of sweep_report_formats().
[[nodiscard]] std::string sweep_report(const std::string& sweep_name, std::vector<SweepReportRow> rows,
                                       const std::string& format);

// ---------------------------------------------------------------- results views
// (src/report/history_views.cpp) They take the records as JSON, as the results module gives
// them, so that report comes before results in the layers.
// `history` as results::history_json gives it ({"format": "trainbench-history", "results":
// [...]}): a table (terminal), one CSV row per result, the JSON as given, and an HTML page
// with trend plots of step time and MFU, one series per target / container.
[[nodiscard]] Document history_document(const nlohmann::ordered_json& history,
                                        const std::string& title = "trainbench history");
// `record` as results::regression_record gives it ({"run", "baseline": results' records,
// "comparison": the verdict's JSON, "verdict_text"}): the verdict as text, its JSON
// (the comparison) and a JUnit test case that fails when the run is slower.
[[nodiscard]] Document regression_document(const nlohmann::ordered_json& record);

}  // namespace trainbench::report

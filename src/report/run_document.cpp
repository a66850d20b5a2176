// A run's report as a Document: what `report` shows in every format. The terminal, Markdown
// and HTML lay the same sections out in their own order and words (the goldens hold them byte
// for byte), so most sections are a block per format; the renderers are the documents' own.
#include "report/format_util.hpp"

#include <fmt/format.h>

namespace trainbench::report {

using analysis::RunSummary;

namespace {

void add(Document& d, Block::Content content, Show show, Side side = Side::none) {
    d.blocks.push_back({std::move(content), show, side});
}

// The inputs with where each came from, and the figures: terminal and Markdown.
void add_inputs_and_figures(Document& d, const RunSummary& s) {
    Grid inputs{{{"input"}, {"value"}}, {}, false};
    Grid inputs_md{{{"input"}, {"value"}, {"from"}}, {}, true};
    for (const detail::InputRow& r : detail::input_rows(s)) {
        Cell value(r.value);
        value.note = r.origin;
        inputs.rows.push_back({Cell(r.label), std::move(value)});
        inputs_md.rows.push_back({Cell(r.label), Cell(r.value), Cell(r.origin)});
    }
    Grid figures{{{"figure"}, {"value", Align::right}}, {}, false};
    for (const FigureInfo& f : detail::report_figures(s))
        figures.rows.push_back({Cell(detail::figure_label(s, f)), Cell(detail::figure_with_unit(s, f))});
    Grid figures_md = figures;
    figures_md.header = true;
    add(d, Heading{"report: " + s.inputs.label, {}}, Show::terminal);
    add(d, std::move(inputs), Show::terminal);
    add(d, std::move(inputs_md), Show::markdown);
    add(d, Heading{"figures", {}}, Show::terminal);
    add(d, std::move(figures), Show::terminal);
    add(d, std::move(figures_md), Show::markdown);
}

Grid rows_grid(const std::vector<std::vector<std::string>>& table) {
    Grid g;
    for (const std::string& h : table.front()) g.columns.push_back({h});
    for (auto row = table.begin() + 1; row != table.end(); ++row) {
        std::vector<Cell>& cells = g.rows.emplace_back();
        for (const std::string& c : *row) cells.emplace_back(c);
    }
    return g;
}

// --conventions and --reference: terminal and Markdown.
void add_conventions_and_reference(Document& d, const RunSummary& s) {
    if (!s.conventions.empty()) {
        add(d, Heading{"under every convention (* = the report's)", {}}, Show::terminal);
        const Grid conventions = rows_grid(detail::conventions_rows(s));
        add(d, conventions, Show::terminal);
        add(d, conventions, Show::markdown);
    }
    if (s.reference) {
        const Heading heading{"against " + s.reference->row.id, s.reference->row.source};
        const Grid rows = rows_grid(detail::reference_rows(s));
        const std::string differences = detail::differences_text(*s.reference);
        add(d, heading, Show::terminal);
        add(d, rows, Show::terminal);
        add(d, Text{"  " + differences}, Show::terminal);
        add(d, heading, Show::markdown);
        add(d, rows, Show::markdown);
        add(d, Text{differences, Tone::plain, true}, Show::markdown);
    }
}

Cell with_note(std::string text, Tone tone, std::string note, NoteStyle style) {
    Cell c(std::move(text), tone);
    c.note = std::move(note);
    c.note_style = style;
    return c;
}

Cell number(std::string text) {
    Cell c(std::move(text));
    c.number = true;
    return c;
}

// A section shown as lines on a terminal and as a table in Markdown and HTML (HTML names the
// first column `html_key`).
struct LinesAndTable {
    std::string_view terminal_heading, html_heading, html_key;
};
void add_lines_and_table(Document& d, const LinesAndTable& names, Grid lines, Grid table) {
    Grid markdown = table;
    table.columns[0].header = std::string(names.html_key);
    add(d, Heading{std::string(names.terminal_heading), {}}, Show::terminal);
    add(d, std::move(lines), Show::terminal);
    add(d, std::move(markdown), Show::markdown);
    add(d, Heading{std::string(names.html_heading), {}}, Show::html);
    add(d, std::move(table), Show::html);
}

// Expectations: terminal PASS/FAIL lines; Markdown and HTML a table.
void add_expectations(Document& d, const RunSummary& s) {
    if (s.expectations.empty()) return;
    Grid lines{{{"", Align::left, 4}, {"figure"}, {"actual", Align::left, 14}, {"rule"}}, {}, false};
    Grid table{{{"expectation"}, {"result"}, {"actual", Align::right}, {"rule"}}, {}, true};
    for (const analysis::ExpectationResult& e : s.expectations) {
        const Tone tone = e.passed ? Tone::pass : Tone::fail;
        const std::string actual = format_figure(e.figure, e.actual);
        lines.rows.push_back({Cell(e.passed ? "PASS" : "FAIL", tone), Cell(e.figure), Cell(actual),
                              with_note(e.rule, Tone::plain, e.message, NoteStyle::detail)});
        table.rows.push_back({Cell(e.figure), with_note(e.passed ? "pass" : "FAIL", tone, e.message, NoteStyle::detail),
                              number(actual), Cell(e.rule)});
    }
    add_lines_and_table(d, {"expectations", "Expectations", "figure"}, std::move(lines), std::move(table));
}

// What the log declares against what was given: terminal lines; Markdown and HTML a table.
void add_cross_checks(Document& d, const RunSummary& s) {
    if (s.cross_checks.empty()) return;
    Grid lines{{{"", Align::left, 4}, {"key"}, {"logged"}, {"given"}}, {}, false};
    Grid table{{{"declared by the log"}, {"logged", Align::right}, {"given", Align::right}, {"from"}, {""}}, {}, true};
    for (const analysis::CrossCheck& c : s.cross_checks) {
        const Tone tone = c.match ? Tone::pass : Tone::fail;
        lines.rows.push_back({Cell(c.match ? "ok" : "DIFF", tone), Cell(c.key), Cell(c.logged),
                              with_note(c.given, Tone::plain, c.log_key + " / " + c.origin, NoteStyle::origin)});
        table.rows.push_back({Cell(c.log_key), number(c.logged), number(c.given), Cell(c.origin),
                              Cell(c.match ? "ok" : "mismatch", tone)});
    }
    add_lines_and_table(d, {"cross-check (log declares / given)", "Cross-check: what the log declares", "log key"},
                        std::move(lines), std::move(table));
}

// The HTML page's top: the convention and peak, then figures and inputs side by side.
void add_html_summary(Document& d, const RunSummary& s) {
    Cell convention = with_note(s.convention + (s.hardware_flops_like ? " (hardware-FLOPs-like)" : ""), Tone::plain,
                                s.convention_description, NoteStyle::detail);
    add(d, Definitions{{{"FLOPs convention", std::move(convention)}, {"Peak", Cell(describe_peak(s.peak))}}, "conv"},
        Show::html);
    Grid figures{{{"figure"}, {"value", Align::right}}, {}, false};
    for (const FigureInfo& f : summary_figures()) {
        std::string v = format_figure(f.key, s.figure(f.key));
        if (f.key == "mfu" && s.figure("mfu"))
            v += fmt::format(" ({:.2f}%)", *s.figure("mfu") * 100);
        else if (!f.unit.empty() && v != "-")
            v += " " + std::string(f.unit);
        figures.rows.push_back({Cell(detail::figure_label(s, f)), number(std::move(v))});
    }
    Grid inputs{{{"input"}, {"value"}}, {}, false};
    for (const detail::InputRow& r : detail::input_rows(s)) {
        if (r.label == "FLOPs per sample")
            inputs.rows.push_back({Cell(r.label), with_note(fmt::format("{:.6e}", s.flops.per_sample), Tone::plain,
                                                            s.flops.formula, NoteStyle::below)});
        else
            inputs.rows.push_back({Cell(r.label), with_note(r.value, Tone::plain, r.origin, NoteStyle::origin)});
    }
    add(d, Heading{"Figures", {}}, Show::html, Side::left);
    add(d, std::move(figures), Show::html, Side::left);
    add(d, Heading{"Inputs", {}}, Show::html, Side::right);
    add(d, std::move(inputs), Show::html, Side::right);
    if (!s.flops.note.empty()) add(d, Text{s.flops.note, Tone::note}, Show::html, Side::right);
}

// Step time and loss over steps, through the one plot helper (only when the plots are asked for).
void add_plots(Document& d, const RunSummary& s, bool plots) {
    add(d, Heading{"Step time and loss over steps", {}}, Show::html);
    if (!plots) return;
    const double clip = s.stats.steady_state_median > 0 ? s.stats.steady_state_median * 1.6 : 0;
    auto plot = [&s](const std::vector<analysis::SeriesPoint>& points, std::string title, std::string unit,
                     double clip_above) {
        return Plot{PlotKind::line, std::move(title),     "step",    std::move(unit), {detail::step_series(points)},
                    s.stats.window, s.stats.warmup_steps, clip_above};
    };
    add(d, plot(s.step_times, "step time (s)", "seconds", clip), Show::html);
    add(d, plot(s.loss, "loss", "loss", 0), Show::html);
}

// The resolved recipe and where the numbers come from (HTML).
void add_recipe_and_provenance(Document& d, const RunSummary& s) {
    if (!s.resolved_recipe.empty()) {
        add(d, Heading{"Resolved recipe", {}}, Show::html);
        add(d, Text{s.resolved_recipe, Tone::plain, true}, Show::html);
    }
    const analysis::Provenance& p = s.provenance;
    Definitions items;
    auto item = [&items](const char* term, const std::string& value) {
        if (!value.empty()) items.items.emplace_back(term, Cell(value));
    };
    item("tool", "trainbench " + p.tool_version);
    item("run", p.run_id);
    item("run directory", p.run_dir);
    item("recipe", p.recipe_name);
    item("recipe file", p.recipe_file);
    item("git commit", p.git_commit);
    item("created", p.created);
    item("log format", p.log_format);
    std::string files;
    for (const auto& f : p.log_files) files += (files.empty() ? "" : ", ") + f;
    item("log files", files);
    item("records", fmt::format("{} read, {} skipped, {} corrupt; step times from {}", p.records, p.skipped, p.corrupt,
                                p.step_source));
    add(d, Heading{"Provenance", {}}, Show::html);
    add(d, std::move(items), Show::html);
}

}  // namespace

Document run_document(const RunSummary& s, const ReportOptions& options, const Parts& parts) {
    Document d;
    d.title = "trainbench report: " + s.inputs.label;
    d.title_level = 2;
    if (parts.blocks) {
        add_html_summary(d, s);
        add_inputs_and_figures(d, s);
        add_conventions_and_reference(d, s);
        add_expectations(d, s);
        add(d, FindingsHere{}, Show::html);
        add_plots(d, s, parts.plots);
        add_cross_checks(d, s);
        add_recipe_and_provenance(d, s);
        d.findings = s.findings;
    }
    if (parts.data) d.data = to_json(s, options.series);
    if (parts.records) d.records = detail::summary_records({&s});
    if (parts.tests) {
        d.tests_name = "trainbench expectations";
        d.tests = {detail::expectation_suite(s)};
    }
    return d;
}

std::string render_run(const RunSummary& summary, std::string_view format, const ReportOptions& options) {
    const ReporterInfo& info = reporter_info(format);
    return info.make(options)->render(run_document(summary, options, info.parts));
}

}  // namespace trainbench::report

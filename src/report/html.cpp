// The HTML report: one self-contained file (inline CSS and SVG, no scripts,
// nothing fetched), summary, plots over steps, recipe, provenance.
#include "report/format_util.hpp"

#include <fmt/format.h>

namespace trainbench::report::detail {

using analysis::RunSummary;

namespace {

constexpr const char* k_css =
    R"(body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px auto;max-width:1000px;color:#1d2330;line-height:1.4}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:26px 0 8px;border-bottom:1px solid #d8dde6;padding-bottom:3px}
.conv{background:#f1f5fb;border-left:4px solid #3a6ea5;padding:8px 12px;margin:10px 0}
table{border-collapse:collapse;margin:6px 0;font-size:14px}td,th{padding:3px 10px;border-bottom:1px solid #e6e9ef;text-align:left;vertical-align:top}
th{background:#f6f7f9}td.num{text-align:right;font-variant-numeric:tabular-nums;font-family:ui-monospace,Menlo,Consolas,monospace}
.origin{color:#6b7280;font-size:12px}.grid2{display:flex;gap:28px;flex-wrap:wrap}
.pass{color:#11803c;font-weight:600}.fail{color:#c21f1f;font-weight:700}.warning{color:#a15c00}.note{color:#555}
pre{background:#f6f7f9;border:1px solid #e0e3e8;padding:10px;overflow-x:auto;font-size:12px}
svg{display:block;margin:8px 0;max-width:100%;height:auto}svg .title{font-size:14px;font-weight:600;fill:#1d2330}
svg .window{fill:#3a6ea5;fill-opacity:.12}svg .warmup{fill:#e08a00;fill-opacity:.18}svg .band{font-size:11px;fill:#444}
svg .grid{stroke:#e5e7eb}svg .axis{stroke:#6b7280}svg .tick{font-size:11px;fill:#4b5563}svg .label{font-size:12px;fill:#374151}
svg .line{fill:none;stroke:#3a6ea5;stroke-width:1.5}svg .pt{fill:#3a6ea5}svg .pt.warm{fill:#e08a00}svg .clipped{fill:#e08a00}
svg .empty{font-size:13px;fill:#6b7280}dl{display:grid;grid-template-columns:max-content auto;gap:2px 14px;font-size:14px}dt{color:#4b5563}dd{margin:0})";

}  // namespace

std::string html_head(const std::string& title) {
    return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" "
           "content=\"width=device-width, initial-scale=1\">\n<title>" +
           html_escape(title) + "</title>\n<style>\n" + k_css + "\n</style>\n</head>\n<body>\n";
}

namespace {

std::string conv_box(const RunSummary& s) {
    return fmt::format("<p class=\"conv\"><b>FLOPs convention:</b> {}{} &mdash; {}<br><b>Peak:</b> {}</p>\n",
                       html_escape(s.convention), s.hardware_flops_like ? " (hardware-FLOPs-like)" : "",
                       html_escape(s.convention_description), html_escape(describe_peak(s.peak)));
}

std::string figure_cell(const RunSummary& s, const FigureInfo& f) {
    std::string v = format_figure(f.key, s.figure(f.key));
    if (f.key == "mfu" && s.figure("mfu"))
        v += fmt::format(" ({:.2f}%)", *s.figure("mfu") * 100);
    else if (!f.unit.empty() && v != "-")
        v += " " + std::string(f.unit);
    return html_escape(v);
}

// Step time and loss over steps, through the one plot helper.
std::string plots_html(const RunSummary& s) {
    const double clip = s.stats.steady_state_median > 0 ? s.stats.steady_state_median * 1.6 : 0;
    auto plot = [&s](const std::vector<analysis::SeriesPoint>& points, std::string title, std::string unit,
                     double clip_above) {
        return svg_plot({PlotKind::line,
                         std::move(title),
                         "step",
                         std::move(unit),
                         {step_series(points)},
                         s.stats.window,
                         s.stats.warmup_steps,
                         clip_above});
    };
    return "<h2>Step time and loss over steps</h2>\n" + plot(s.step_times, "step time (s)", "seconds", clip) +
           plot(s.loss, "loss", "loss", 0);
}

// Where the numbers come from, as a definition list (its closing tag is the caller's).
std::string provenance_html(const analysis::Provenance& p) {
    std::string out = "<h2>Provenance</h2>\n<dl>\n";
    auto item = [&](const char* k, const std::string& v) {
        if (!v.empty()) out += fmt::format("<dt>{}</dt><dd>{}</dd>\n", k, html_escape(v));
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
    return out;
}

class HtmlReporter final : public Reporter {
public:
    std::string render(const Document& d) const override { return document_html(d); }
    std::string render(const RunSummary& s) const override {
        std::string out = html_head("trainbench report: " + s.inputs.label);
        out += "<h1>trainbench report: " + html_escape(s.inputs.label) + "</h1>\n";
        out += conv_box(s);
        out += "<div class=\"grid2\">\n<div>\n<h2>Figures</h2>\n<table>\n";
        for (const auto& f : summary_figures())
            out += "<tr><td>" + html_escape(figure_label(s, f)) + "</td><td class=\"num\">" + figure_cell(s, f) +
                   "</td></tr>\n";
        out += "</table>\n</div>\n<div>\n<h2>Inputs</h2>\n<table>\n";
        for (const auto& r : input_rows(s)) {
            if (r.label == "FLOPs per sample") {
                out += "<tr><td>FLOPs per sample</td><td>" + html_escape(fmt::format("{:.6e}", s.flops.per_sample)) +
                       "<div class=\"origin\">" + html_escape(s.flops.formula) + "</div></td></tr>\n";
                continue;
            }
            out += "<tr><td>" + html_escape(r.label) + "</td><td>" + html_escape(r.value);
            if (!r.origin.empty()) out += " <span class=\"origin\">(" + html_escape(r.origin) + ")</span>";
            out += "</td></tr>\n";
        }
        out += "</table>\n";
        if (!s.flops.note.empty()) out += "<p class=\"origin\">" + html_escape(s.flops.note) + "</p>\n";
        out += "</div>\n</div>\n";

        if (!s.expectations.empty()) {
            out +=
                "<h2>Expectations</h2>\n<table>\n<tr><th>figure</th><th>result</th><th>actual</th><th>rule</th></tr>\n";
            for (const auto& e : s.expectations)
                out += "<tr><td>" + html_escape(e.figure) + "</td><td class=\"" +
                       (e.passed ? "pass\">pass" : "fail\">FAIL") +
                       (e.message.empty() ? "" : " &mdash; " + html_escape(e.message)) + "</td><td class=\"num\">" +
                       html_escape(format_figure(e.figure, e.actual)) + "</td><td>" + html_escape(e.rule) +
                       "</td></tr>\n";
            out += "</table>\n";
        }
        if (!s.findings.empty()) {
            out += "<h2>Findings</h2>\n<ul>\n";
            for (const auto& f : s.findings)
                out +=
                    fmt::format("<li class=\"{0}\">{0}: {1}</li>\n", severity_name(f.severity), html_escape(f.message));
            out += "</ul>\n";
        }
        out += plots_html(s);
        if (!s.cross_checks.empty()) {
            out +=
                "<h2>Cross-check: what the log declares</h2>\n<table>\n<tr><th>log "
                "key</th><th>logged</th><th>given</th>"
                "<th>from</th><th></th></tr>\n";
            for (const auto& c : s.cross_checks)
                out += "<tr><td>" + html_escape(c.log_key) + "</td><td class=\"num\">" + html_escape(c.logged) +
                       "</td><td class=\"num\">" + html_escape(c.given) + "</td><td>" + html_escape(c.origin) +
                       "</td><td class=\"" + (c.match ? "pass\">ok" : "fail\">mismatch") + "</td></tr>\n";
            out += "</table>\n";
        }
        if (!s.resolved_recipe.empty())
            out += "<h2>Resolved recipe</h2>\n<pre>" + html_escape(s.resolved_recipe) + "</pre>\n";
        out += provenance_html(s.provenance);
        out += "</dl>\n</body>\n</html>\n";
        return out;
    }

    std::string render_compare(const std::vector<RunSummary>& runs) const override {
        std::string out = html_head("trainbench compare");
        out += "<h1>trainbench compare</h1>\n<table>\n<tr><th>figure</th>";
        for (std::size_t i = 0; i < runs.size(); ++i) {
            out += "<th>" + html_escape(runs[i].inputs.label) + "</th>";
            if (i > 0) out += "<th>vs first</th>";
        }
        out += "</tr>\n<tr><td>FLOPs convention</td>";
        for (std::size_t i = 0; i < runs.size(); ++i)
            out += "<td>" + html_escape(runs[i].convention) + "</td>" + (i ? "<td></td>" : "");
        out += "</tr>\n<tr><td>peak</td>";
        for (std::size_t i = 0; i < runs.size(); ++i)
            out += "<td>" + html_escape(describe_peak(runs[i].peak)) + "</td>" + (i ? "<td></td>" : "");
        out += "</tr>\n";
        for (const auto& f : summary_figures()) {
            out += "<tr><td>" + html_escape(f.label) + "</td>";
            for (std::size_t i = 0; i < runs.size(); ++i) {
                out += "<td class=\"num\">" + figure_cell(runs[i], f) + "</td>";
                if (i > 0)
                    out += "<td class=\"num\">" + relative_difference(runs[0].figure(f.key), runs[i].figure(f.key)) +
                           "</td>";
            }
            out += "</tr>\n";
        }
        out += "</table>\n</body>\n</html>\n";
        return out;
    }
};

}  // namespace

std::unique_ptr<Reporter> make_html(const ReportOptions&) {
    return std::make_unique<HtmlReporter>();
}

}  // namespace trainbench::report::detail

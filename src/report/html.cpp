// The HTML report: one self-contained file (inline CSS and SVG, no scripts,
// nothing fetched), summary, plots over steps, recipe, provenance.
#include "report/format_util.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace trainbench::report::detail {

using analysis::RunSummary;

namespace {

constexpr double k_width = 960, k_height = 300;
constexpr double k_left = 72, k_right = 24, k_top = 34, k_bottom = 44;

// Roughly ten round tick values between lo and hi.
std::vector<double> ticks(double lo, double hi, int target) {
    std::vector<double> out;
    if (!(hi > lo)) return {lo};
    const double raw = (hi - lo) / target;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    double step = mag;
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (raw <= m * mag) {
            step = m * mag;
            break;
        }
    for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push_back(v);
    return out;
}

}  // namespace

std::string svg_plot(const std::vector<analysis::SeriesPoint>& points, const std::string& title,
                     const std::string& unit, const analysis::StepWindow& window,
                     const std::vector<std::int64_t>& warmup_steps, double clip_above) {
    std::string svg = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" role=\"img\" "
        "aria-label=\"{2}\">\n<title>{2}</title>\n",
        k_width, k_height, html_escape(title));
    svg += fmt::format("<text x=\"{}\" y=\"20\" class=\"title\">{}</text>\n", k_left, html_escape(title));
    if (points.empty()) {
        svg += fmt::format("<text x=\"{}\" y=\"{}\" class=\"empty\">no data in the log</text>\n</svg>\n",
                           k_width / 2 - 60, k_height / 2);
        return svg;
    }
    double x0 = static_cast<double>(points.front().step), x1 = x0;
    double y0 = points.front().value, y1 = y0;
    for (const auto& p : points) {
        x0 = std::min(x0, static_cast<double>(p.step));
        x1 = std::max(x1, static_cast<double>(p.step));
        y0 = std::min(y0, p.value);
        y1 = std::max(y1, p.value);
    }
    if (clip_above > 0 && y1 > clip_above) y1 = clip_above;
    if (x1 == x0) {
        x0 -= 1;
        x1 += 1;
    }
    const double span = y1 - y0;
    const double pad = span > 0 ? span * 0.08 : std::max(std::fabs(y0) * 0.05, 1e-9);
    y0 -= pad;
    y1 += pad;
    const double pw = k_width - k_left - k_right, ph = k_height - k_top - k_bottom;
    auto px = [&](double step) { return k_left + (step - x0) / (x1 - x0) * pw; };
    auto py = [&](double v) { return k_top + (1 - (std::min(v, y1) - y0) / (y1 - y0)) * ph; };

    // Step window and warm-up bands.
    const double ws = static_cast<double>(window.start), we = static_cast<double>(window.end);
    const double wx0 = px(std::max(ws, x0) - 0.5);
    const double wx1 = px(std::min(we, x1) + 0.5);
    if (wx1 > wx0 && we >= x0 && ws <= x1) {
        svg += fmt::format("<rect class=\"window\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\"/>\n",
                           std::max(wx0, k_left), k_top, std::min(wx1, k_left + pw) - std::max(wx0, k_left), ph);
        svg += fmt::format("<text class=\"band\" x=\"{:.1f}\" y=\"{}\">window {}..{}</text>\n",
                           std::max(wx0, k_left) + 4, k_top + 14, window.start, window.end);
    }
    if (!warmup_steps.empty()) {
        const double ux0 = std::max(px(static_cast<double>(warmup_steps.front()) - 0.5), k_left);
        const double ux1 = std::min(px(static_cast<double>(warmup_steps.back()) + 0.5), k_left + pw);
        svg += fmt::format("<rect class=\"warmup\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\"/>\n", ux0,
                           k_top, std::max(ux1 - ux0, 2.0), ph);
        svg += fmt::format("<text class=\"band\" x=\"{:.1f}\" y=\"{}\">warm-up</text>\n", ux0 + 3, k_top + ph - 6);
    }
    // Axes and grid.
    for (double t : ticks(y0, y1, 5)) {
        svg += fmt::format("<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\"/>\n", k_left,
                           k_left + pw, py(t), py(t));
        svg += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{:.4g}</text>\n", k_left - 6,
                           py(t) + 4, t);
    }
    for (double t : ticks(x0, x1, 10)) {
        if (t != std::floor(t)) continue;
        svg += fmt::format("<text class=\"tick\" x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{:g}</text>\n", px(t),
                           k_top + ph + 16, t);
    }
    svg +=
        fmt::format("<line class=\"axis\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/>\n", k_left, k_top, k_top + ph);
    svg += fmt::format("<line class=\"axis\" x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\"/>\n", k_left, k_left + pw,
                       k_top + ph);
    svg += fmt::format("<text class=\"label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">step</text>\n", k_left + pw / 2,
                       k_height - 6);
    svg += fmt::format(
        "<text class=\"label\" x=\"14\" y=\"{0}\" transform=\"rotate(-90 14 {0})\" "
        "text-anchor=\"middle\">{1}</text>\n",
        k_top + ph / 2, html_escape(unit));
    // The series.
    std::string path;
    for (const auto& p : points)
        path += fmt::format("{}{:.1f},{:.1f}", path.empty() ? "M" : " L", px(static_cast<double>(p.step)), py(p.value));
    svg += "<path class=\"line\" d=\"" + path + "\"/>\n";
    double last_label_x = -1e9;
    int label_row = 0;
    for (const auto& p : points) {
        const bool warm = std::find(warmup_steps.begin(), warmup_steps.end(), p.step) != warmup_steps.end();
        const bool clipped = clip_above > 0 && p.value > y1;
        const double x = px(static_cast<double>(p.step));
        if (clipped) {
            svg += fmt::format(
                "<path class=\"clipped\" d=\"M{0:.1f},{1:.1f} l-5,9 h10 z\"><title>step {2}: {3:.6g} "
                "(off the scale)</title></path>\n",
                x, k_top, p.step, p.value);
            // Labels of neighbouring clipped points are stacked so they never overlap.
            label_row = (x - last_label_x < 48) ? label_row + 1 : 0;
            last_label_x = x;
            svg += fmt::format("<text class=\"tick\" x=\"{:.1f}\" y=\"{:.1f}\">{:.4g}</text>\n", x + 7,
                               k_top + 10 + 12 * label_row, p.value);
        } else {
            svg += fmt::format(
                "<circle class=\"{}\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.5\"><title>step {}: {:.6g}</title>"
                "</circle>\n",
                warm ? "pt warm" : "pt", x, py(p.value), p.step, p.value);
        }
    }
    svg += "</svg>\n";
    return svg;
}

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

std::string head(const std::string& title) {
    return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" "
           "content=\"width=device-width, initial-scale=1\">\n<title>" +
           html_escape(title) + "</title>\n<style>\n" + k_css + "\n</style>\n</head>\n<body>\n";
}

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

class HtmlReporter final : public Reporter {
public:
    std::string render(const RunSummary& s) const override {
        std::string out = head("trainbench report: " + s.inputs.label);
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
        out += "<h2>Step time and loss over steps</h2>\n";
        const double clip = s.stats.steady_state_median > 0 ? s.stats.steady_state_median * 1.6 : 0;
        out += svg_plot(s.step_times, "step time (s)", "seconds", s.stats.window, s.stats.warmup_steps, clip);
        out += svg_plot(s.loss, "loss", "loss", s.stats.window, s.stats.warmup_steps);
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
        const auto& p = s.provenance;
        out += "<h2>Provenance</h2>\n<dl>\n";
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
        item("records", fmt::format("{} read, {} skipped, {} corrupt; step times from {}", p.records, p.skipped,
                                    p.corrupt, p.step_source));
        out += "</dl>\n</body>\n</html>\n";
        return out;
    }

    std::string render_compare(const std::vector<RunSummary>& runs) const override {
        std::string out = head("trainbench compare");
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

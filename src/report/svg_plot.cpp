// The one SVG plot helper: a frame with round ticks, axis labels and a title, and
// the series drawn by kind: a line over steps (the step window shaded, warm-up steps
// marked, outliers clipped to the top edge: the run report), points joined in x
// order (scaling over nodes, log2 x: the sweep report), or series over one shared
// order (the history trend). Styled by the page's CSS classes; no scripts.
#include "report/format_util.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace trainbench::report {

namespace {

constexpr double k_width = 960, k_height = 300;
constexpr double k_left = 72, k_right = 24, k_top = 34, k_bottom = 44;
constexpr std::array<const char*, 6> k_colours = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf"};

// Roughly `target` round tick values between lo and hi.
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

// The plotting area and its scales.
struct Frame {
    double x0 = 0, x1 = 0, y0 = 0, y1 = 0;
    bool log_x = false;
    double pw = k_width - k_left - k_right, ph = k_height - k_top - k_bottom;
    [[nodiscard]] double fx(double x) const { return log_x ? std::log2(std::max(x, 1e-300)) : x; }
    [[nodiscard]] double px(double x) const { return k_left + (fx(x) - x0) / (x1 - x0) * pw; }
    [[nodiscard]] double py(double v) const { return k_top + (1 - (std::min(v, y1) - y0) / (y1 - y0)) * ph; }
};

Frame frame_of(const Plot& plot) {
    Frame f;
    f.log_x = plot.kind == PlotKind::scatter && plot.log_x;
    bool first = true;
    for (const PlotSeries& s : plot.series)
        for (const PlotPoint& p : s.points) {
            const double x = f.fx(p.x);
            if (first) f.x0 = f.x1 = x, f.y0 = f.y1 = p.y, first = false;
            f.x0 = std::min(f.x0, x), f.x1 = std::max(f.x1, x);
            f.y0 = std::min(f.y0, p.y), f.y1 = std::max(f.y1, p.y);
        }
    if (plot.kind == PlotKind::trend && plot.positions > 0) f.x0 = 1, f.x1 = static_cast<double>(plot.positions);
    if (plot.clip_above > 0 && f.y1 > plot.clip_above) f.y1 = plot.clip_above;
    if (f.x1 == f.x0) {
        f.x0 -= 1;
        f.x1 += 1;
    }
    const double span = f.y1 - f.y0;
    const double pad = span > 0 ? span * 0.08 : std::max(std::fabs(f.y0) * 0.05, 1e-9);
    f.y0 -= pad;
    f.y1 += pad;
    return f;
}

// The step window and warm-up bands of a line plot.
std::string bands(const Frame& f, const Plot& plot) {
    std::string svg;
    const analysis::StepWindow& window = plot.window;
    const double ws = static_cast<double>(window.start), we = static_cast<double>(window.end);
    const double wx0 = f.px(std::max(ws, f.x0) - 0.5);
    const double wx1 = f.px(std::min(we, f.x1) + 0.5);
    if (wx1 > wx0 && we >= f.x0 && ws <= f.x1) {
        svg += fmt::format("<rect class=\"window\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\"/>\n",
                           std::max(wx0, k_left), k_top, std::min(wx1, k_left + f.pw) - std::max(wx0, k_left), f.ph);
        svg += fmt::format("<text class=\"band\" x=\"{:.1f}\" y=\"{}\">window {}..{}</text>\n",
                           std::max(wx0, k_left) + 4, k_top + 14, window.start, window.end);
    }
    const std::vector<std::int64_t>& warm = plot.warmup_steps;
    if (!warm.empty()) {
        const double ux0 = std::max(f.px(static_cast<double>(warm.front()) - 0.5), k_left);
        const double ux1 = std::min(f.px(static_cast<double>(warm.back()) + 0.5), k_left + f.pw);
        svg += fmt::format("<rect class=\"warmup\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\"/>\n", ux0,
                           k_top, std::max(ux1 - ux0, 2.0), f.ph);
        svg += fmt::format("<text class=\"band\" x=\"{:.1f}\" y=\"{}\">warm-up</text>\n", ux0 + 3, k_top + f.ph - 6);
    }
    return svg;
}

// The x tick values: round steps, or on a log scale the x values of the points.
std::vector<double> x_ticks(const Frame& f, const Plot& plot) {
    if (!f.log_x) return ticks(f.x0, f.x1, 10);
    std::vector<double> out;
    for (const PlotSeries& s : plot.series)
        for (const PlotPoint& p : s.points) out.push_back(p.x);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::string axes(const Frame& f, const Plot& plot) {
    std::string svg;
    for (double t : ticks(f.y0, f.y1, 5)) {
        svg += fmt::format("<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\"/>\n", k_left,
                           k_left + f.pw, f.py(t), f.py(t));
        // (large values in full: "50000", not "5e+04")
        const std::string label = std::fabs(t) >= 1e4 ? fmt::format("{:.0f}", t) : fmt::format("{:.4g}", t);
        svg += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", k_left - 6,
                           f.py(t) + 4, label);
    }
    for (double t : x_ticks(f, plot)) {
        if (t != std::floor(t)) continue;
        svg += fmt::format("<text class=\"tick\" x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{:g}</text>\n", f.px(t),
                           k_top + f.ph + 16, t);
    }
    svg += fmt::format("<line class=\"axis\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/>\n", k_left, k_top,
                       k_top + f.ph);
    svg += fmt::format("<line class=\"axis\" x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\"/>\n", k_left, k_left + f.pw,
                       k_top + f.ph);
    svg += fmt::format("<text class=\"label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", k_left + f.pw / 2,
                       k_height - 6, html_escape(plot.x_label));
    svg += fmt::format(
        "<text class=\"label\" x=\"14\" y=\"{0}\" transform=\"rotate(-90 14 {0})\" "
        "text-anchor=\"middle\">{1}</text>\n",
        k_top + f.ph / 2, html_escape(plot.y_label));
    return svg;
}

// A line plot's one series: the path, a point per step (warm-up steps marked), and the
// points above the clip drawn at the top edge with their values stacked beside them.
std::string line_series(const Frame& f, const Plot& plot, const PlotSeries& series) {
    std::string path;
    for (const PlotPoint& p : series.points)
        path += fmt::format("{}{:.1f},{:.1f}", path.empty() ? "M" : " L", f.px(p.x), f.py(p.y));
    std::string svg = "<path class=\"line\" d=\"" + path + "\"/>\n";
    double last_label_x = -1e9;
    int label_row = 0;
    const std::vector<std::int64_t>& warm = plot.warmup_steps;
    for (const PlotPoint& p : series.points) {
        const auto step = static_cast<std::int64_t>(p.x);
        const bool warmup = std::find(warm.begin(), warm.end(), step) != warm.end();
        const double x = f.px(p.x);
        if (plot.clip_above > 0 && p.y > f.y1) {
            svg += fmt::format(
                "<path class=\"clipped\" d=\"M{0:.1f},{1:.1f} l-5,9 h10 z\"><title>step {2}: {3:.6g} "
                "(off the scale)</title></path>\n",
                x, k_top, step, p.y);
            // Labels of neighbouring clipped points are stacked so they never overlap.
            label_row = (x - last_label_x < 48) ? label_row + 1 : 0;
            last_label_x = x;
            svg += fmt::format("<text class=\"tick\" x=\"{:.1f}\" y=\"{:.1f}\">{:.4g}</text>\n", x + 7,
                               k_top + 10 + 12 * label_row, p.y);
        } else {
            svg +=
                fmt::format("<circle class=\"{}\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.5\"><title>{}</title></circle>\n",
                            warmup ? "pt warm" : "pt", x, f.py(p.y),
                            p.tip.empty() ? fmt::format("step {}: {:.6g}", step, p.y) : html_escape(p.tip));
        }
    }
    return svg;
}

// Several coloured series, each joined in x order, with its legend entry and, for an
// `ideal` series, a dashed flat line from its first point.
std::string many_series(const Frame& f, const Plot& plot) {
    std::string svg;
    for (std::size_t k = 0; k < plot.series.size(); ++k) {
        const PlotSeries& s = plot.series[k];
        const char* colour = k_colours[k % k_colours.size()];
        std::vector<PlotPoint> pts = s.points;
        std::stable_sort(pts.begin(), pts.end(), [](const PlotPoint& a, const PlotPoint& b) { return a.x < b.x; });
        std::string line;
        for (const PlotPoint& p : pts)
            line += fmt::format("{}{:.1f},{:.1f}", line.empty() ? "" : " ", f.px(p.x), f.py(p.y));
        svg += fmt::format(
            "<polyline class=\"series\" data-series=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" "
            "points=\"{}\"/>\n",
            html_escape(s.name), colour, line);
        for (const PlotPoint& p : pts)
            svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\"><title>{}</title></circle>\n",
                               f.px(p.x), f.py(p.y), colour, html_escape(p.tip));
        if (s.ideal && !pts.empty())
            svg += fmt::format(
                "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-dasharray=\"4 "
                "4\"/>\n",
                f.px(pts.front().x), f.py(pts.front().y), k_left + f.pw, f.py(pts.front().y), colour);
        if (!s.name.empty())
            svg += fmt::format("<text class=\"band\" x=\"{:.1f}\" y=\"{:.1f}\" fill=\"{}\">{}{}</text>\n", k_left + 8,
                               k_top + 14.0 * static_cast<double>(k + 1), colour, html_escape(s.name),
                               s.ideal ? " (dashed: ideal)" : "");
    }
    return svg;
}

}  // namespace

std::string svg_plot(const Plot& plot) {
    std::string svg = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" role=\"img\" "
        "aria-label=\"{2}\">\n<title>{2}</title>\n",
        k_width, k_height, html_escape(plot.title));
    svg += fmt::format("<text x=\"{}\" y=\"20\" class=\"title\">{}</text>\n", k_left, html_escape(plot.title));
    const bool empty =
        std::all_of(plot.series.begin(), plot.series.end(), [](const PlotSeries& s) { return s.points.empty(); });
    if (empty) {
        svg += fmt::format("<text x=\"{}\" y=\"{}\" class=\"empty\">{}</text>\n</svg>\n", k_width / 2 - 60,
                           k_height / 2, plot.kind == PlotKind::line ? "no data in the log" : "nothing measured yet");
        return svg;
    }
    const Frame f = frame_of(plot);
    if (plot.kind == PlotKind::line) svg += bands(f, plot);
    svg += axes(f, plot);
    if (plot.kind == PlotKind::line)
        svg += line_series(f, plot, plot.series.front());
    else
        svg += many_series(f, plot);
    return svg + "</svg>\n";
}

namespace detail {

PlotSeries step_series(const std::vector<analysis::SeriesPoint>& points) {
    PlotSeries s;
    s.points.reserve(points.size());
    for (const analysis::SeriesPoint& p : points)
        s.points.push_back({static_cast<double>(p.step), p.value, {}});  // (the tip: "step N: V", drawn then)
    return s;
}

}  // namespace detail
}  // namespace trainbench::report

// History and regression views: aligned text, CSV, JSON, JUnit, and a
// self-contained HTML page with SVG trend plots (no scripts, nothing fetched).
#include <trainbench/report.hpp>
#include <trainbench/results.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace trainbench::results {

namespace {

struct HistoryColumn {
    const char* header;
    std::string (*cell)(const Result&);
};

std::string container_of(const Result& r) {
    return r.container.empty() ? "-" : r.container;
}

const std::vector<HistoryColumn>& history_columns() {
    static const std::vector<HistoryColumn> columns = {
        {"RUN", [](const Result& r) { return r.short_id(); }},
        {"RAN", [](const Result& r) { return r.ran_at; }},
        {"RECIPE", [](const Result& r) { return r.recipe_name; }},
        {"TARGET", [](const Result& r) { return r.target.empty() ? std::string("-") : r.target; }},
        {"CONTAINER", container_of},
        {"GPUS", [](const Result& r) { return std::to_string(r.gpus); }},
        {"WINDOW", [](const Result& r) { return fmt::format("{}:{}", r.window_start, r.window_end); }},
        {"STEP_S", [](const Result& r) { return fmt::format("{:.4f}", r.step_time_mean); }},
        {"MEDIAN_S", [](const Result& r) { return fmt::format("{:.4f}", r.step_time_median); }},
        {"TOKENS/S", [](const Result& r) { return fmt::format("{:.0f}", r.tokens_per_s); }},
        {"TFLOPS/GPU", [](const Result& r) { return fmt::format("{:.3f}", r.tflops_per_gpu); }},
        {"MFU", [](const Result& r) { return fmt::format("{:.2f}%", r.mfu * 100); }},
        {"TAGS", [](const Result& r) { return fmt::format("{}", fmt::join(r.tags, ",")); }},
    };
    return columns;
}

std::string series_key(const Result& r) {
    return (r.target.empty() ? std::string("-") : r.target) + " / " + container_of(r);
}

constexpr double k_w = 900, k_h = 280, k_left = 70, k_right = 220, k_top = 30, k_bottom = 40;
constexpr std::array<const char*, 6> k_colours = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf"};

// One trend plot: x = position in time order, y = the figure; one polyline per target/container.
std::string trend_svg(const std::vector<Result>& rs, const std::string& title, double (*value)(const Result&),
                      const std::string& unit) {
    std::string svg = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" "
        "role=\"img\" aria-label=\"{2}\"><title>{2}</title>\n<text x=\"{3}\" y=\"18\" class=\"title\">{2} "
        "({4})</text>\n",
        k_w, k_h, html_escape(title), k_left, html_escape(unit));
    if (rs.empty()) return svg + "<text x=\"300\" y=\"140\">no results</text></svg>\n";
    double lo = value(rs.front()), hi = lo;
    for (const Result& r : rs) lo = std::min(lo, value(r)), hi = std::max(hi, value(r));
    const double pad = hi > lo ? (hi - lo) * 0.1 : (hi != 0 ? std::abs(hi) * 0.05 : 1);
    lo -= pad, hi += pad;
    const double plot_w = k_w - k_left - k_right, plot_h = k_h - k_top - k_bottom;
    auto x = [&](std::size_t i) {
        return k_left + (rs.size() == 1 ? plot_w / 2 : plot_w * double(i) / double(rs.size() - 1));
    };
    auto y = [&](double v) { return k_top + plot_h * (hi - v) / (hi - lo); };
    svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" class=\"frame\"/>\n", k_left, k_top, plot_w,
                       plot_h);
    for (int t = 0; t <= 4; ++t) {
        const double v = lo + (hi - lo) * t / 4;
        svg += fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"tick\" text-anchor=\"end\">{:.4g}</text>\n", k_left - 6,
                           y(v) + 4, v);
    }
    std::map<std::string, std::vector<std::size_t>> series;
    for (std::size_t i = 0; i < rs.size(); ++i) series[series_key(rs[i])].push_back(i);
    std::size_t s = 0;
    for (const auto& [key, idx] : series) {
        const char* colour = k_colours[s % k_colours.size()];
        std::string points;
        for (std::size_t i : idx) points += fmt::format("{:.1f},{:.1f} ", x(i), y(value(rs[i])));
        svg += fmt::format(
            "<polyline class=\"series\" data-series=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" "
            "points=\"{}\"/>\n",
            html_escape(key), colour, points);
        for (std::size_t i : idx)
            svg += fmt::format(
                "<circle class=\"point\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\"><title>{} {} "
                "{:.6g}</title></circle>\n",
                x(i), y(value(rs[i])), colour, html_escape(rs[i].short_id()), html_escape(rs[i].ran_at), value(rs[i]));
        svg += fmt::format("<text x=\"{}\" y=\"{}\" class=\"legend\" fill=\"{}\">{}</text>\n", k_w - k_right + 12,
                           k_top + 16 + 18 * double(s), colour, html_escape(key));
        ++s;
    }
    svg += fmt::format("<text x=\"{}\" y=\"{}\" class=\"tick\">oldest → newest ({} results)</text>\n</svg>\n", k_left,
                       k_h - 10, rs.size());
    return svg;
}

}  // namespace

std::string history_table(const std::vector<Result>& results) {
    std::vector<std::vector<std::string>> rows(1);
    for (const HistoryColumn& c : history_columns()) rows[0].emplace_back(c.header);
    for (const Result& r : results) {
        rows.emplace_back();
        // (one line per row whatever the database holds: a newline or an escape sequence is shown, not obeyed)
        for (const HistoryColumn& c : history_columns()) rows.back().push_back(terminal_safe(c.cell(r)));
    }
    std::vector<std::size_t> width(rows[0].size(), 0);
    for (const auto& row : rows)
        for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
    std::string out;
    for (const auto& row : rows) {
        std::string line;
        for (std::size_t i = 0; i < row.size(); ++i) line += fmt::format("{:<{}}  ", row[i], width[i]);
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out += line + "\n";
    }
    return out;
}

std::string history_csv(const std::vector<Result>& results) {
    std::string out;
    const std::vector<std::string> keys = {"run_id",
                                           "ran_at",
                                           "recipe_name",
                                           "target",
                                           "container",
                                           "model",
                                           "gpus",
                                           "precision",
                                           "convention",
                                           "window_start",
                                           "window_end",
                                           "step_time_mean",
                                           "step_time_median",
                                           "step_time_p10",
                                           "step_time_p90",
                                           "step_time_stddev",
                                           "tokens_per_s",
                                           "tflops_per_gpu",
                                           "mfu",
                                           "final_loss",
                                           "tags"};
    out += fmt::format("{}\n", fmt::join(keys, ","));
    for (const Result& r : results) {
        const nlohmann::ordered_json j = r.to_json();
        std::vector<std::string> cells;
        for (const std::string& k : keys) {
            const auto& v = k == "tags" ? nlohmann::ordered_json(fmt::format("{}", fmt::join(r.tags, " "))) : j[k];
            // (stored text, shown as the table shows it: CSV on stdout often lands on a terminal)
            cells.push_back(csv_field(v.is_string() ? terminal_safe(v.get<std::string>())
                                      : v.is_null() ? ""
                                                    : v.dump()));
        }
        out += fmt::format("{}\n", fmt::join(cells, ","));
    }
    return out;
}

nlohmann::ordered_json history_json(const std::vector<Result>& results) {
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    for (const Result& r : results) arr.push_back(r.to_json());
    return {{"format", "trainbench-history"}, {"results", arr}};
}

std::string history_html(const std::vector<Result>& results, const std::string& title) {
    std::string html = fmt::format(R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{0}</title>
<style>
body {{ font-family: sans-serif; margin: 2em; color: #222; }}
table {{ border-collapse: collapse; font-size: 13px; }} td, th {{ border: 1px solid #ccc; padding: 3px 8px; text-align: right; }}
th {{ background: #f0f0f0; }} .frame {{ fill: none; stroke: #999; }} .tick, .legend {{ font-size: 12px; }}
.title {{ font-size: 14px; font-weight: bold; }}
</style></head><body>
<h1>{0}</h1>
<p>{1} results, oldest first. One series per target / container.</p>
<section id="plots">
)",
                                   html_escape(title), results.size());
    html += trend_svg(
        results, "Step time (window mean)", [](const Result& r) { return r.step_time_mean; }, "s");
    html += trend_svg(
        results, "MFU", [](const Result& r) { return r.mfu * 100; }, "%");
    html += "</section>\n<table id=\"history\"><tr>";
    for (const HistoryColumn& c : history_columns()) html += fmt::format("<th>{}</th>", html_escape(c.header));
    html += "</tr>\n";
    for (const Result& r : results) {
        html += "<tr>";
        for (const HistoryColumn& c : history_columns()) html += fmt::format("<td>{}</td>", html_escape(c.cell(r)));
        html += "</tr>\n";
    }
    return html + "</table>\n</body></html>\n";
}

std::string regression_text(const Regression& g) {
    const Comparison& c = g.comparison;
    const auto safe = [](const std::string& text) { return terminal_safe(text); };  // (stored text)
    return fmt::format(
        "run       {} ({}, {} steps {}:{}, median {:.6f} s)\n"
        "baseline  {} ({}, {} steps {}:{}, median {:.6f} s){}\n"
        "shift     {:+.6f} s per step ({:+.2f}%), {:.0f}% interval [{:+.2f}%, {:+.2f}%]\n"
        "          (Hodges-Lehmann shift, Mann-Whitney interval; threshold {:.2f}%)\n"
        "verdict   {}\n",
        safe(g.run.run_id), safe(g.run.ran_at), c.run_count, g.run.window_start, g.run.window_end, c.run_median,
        safe(g.baseline.run_id), safe(g.baseline.ran_at), c.baseline_count, g.baseline.window_start,
        g.baseline.window_end, c.baseline_median,
        g.baseline.tags.empty() ? "" : safe(fmt::format(" tags {}", fmt::join(g.baseline.tags, ","))), c.shift_s,
        c.relative * 100, c.confidence * 100, c.relative_low * 100, c.relative_high * 100, c.threshold * 100,
        to_string(c.verdict));
}

nlohmann::ordered_json regression_json(const Regression& g) {
    const Comparison& c = g.comparison;
    return {{"run", g.run.run_id},
            {"baseline", g.baseline.run_id},
            {"method", "hodges-lehmann shift, mann-whitney interval"},
            {"run_steps", c.run_count},
            {"baseline_steps", c.baseline_count},
            {"run_median_s", c.run_median},
            {"baseline_median_s", c.baseline_median},
            {"shift_s", c.shift_s},
            {"ci_low_s", c.ci_low_s},
            {"ci_high_s", c.ci_high_s},
            {"relative", c.relative},
            {"relative_low", c.relative_low},
            {"relative_high", c.relative_high},
            {"confidence", c.confidence},
            {"threshold", c.threshold},
            {"verdict", c.verdict == Verdict::no_change ? "no-change" : std::string(to_string(c.verdict))}};
}

std::string regression_junit(const Regression& g) {
    const bool failed = g.comparison.verdict == Verdict::slower;
    std::string name = fmt::format("step time of {} against {}", g.run.run_id, g.baseline.run_id);
    std::string out = fmt::format(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"trainbench regress\" tests=\"1\" "
        "failures=\"{0}\">\n"
        "  <testsuite name=\"{1}\" tests=\"1\" failures=\"{0}\">\n    <testcase classname=\"trainbench.regress\" "
        "name=\"{2}\">\n",
        failed ? 1 : 0, html_escape(g.run.recipe_name), html_escape(name));
    if (failed)
        out += fmt::format("      <failure message=\"{}\">{}</failure>\n",
                           html_escape(fmt::format("slower by {:+.2f}%", g.comparison.relative * 100)),
                           html_escape(regression_text(g)));
    else
        out += fmt::format("      <system-out>{}</system-out>\n", html_escape(regression_text(g)));
    return out + "    </testcase>\n  </testsuite>\n</testsuites>\n";
}

}  // namespace trainbench::results

// The sweep report: one row per valid point of a sweep with its run's step
// time, tokens/s, TFLOPS/GPU, MFU and scaling efficiency, in five formats.
#include <trainbench/report.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace trainbench::report {

using nlohmann::ordered_json;

namespace {

std::string cell(const std::optional<double>& v, const char* f) {
    return v ? fmt::format(fmt::runtime(f), *v) : std::string("-");
}

// A fraction as a percentage ("12.34%"): fmt has no '%' presentation type (unlike Python),
// so "{:.2%}" throws at run time.
std::string percent_cell(const std::optional<double>& v, int decimals) {
    return v ? fmt::format("{:.{}f}%", *v * 100.0, decimals) : std::string("-");
}

// Scaling efficiency: tokens/s per GPU against the point of the same model
// with the fewest nodes (1.0 = perfect linear scaling).
void add_scaling(std::vector<SweepReportRow>& rows) {
    std::map<std::string, const SweepReportRow*> base;
    for (const SweepReportRow& r : rows) {
        if (!r.tokens_per_s || r.gpus <= 0) continue;
        auto it = base.find(r.model);
        if (it == base.end() || r.nodes < it->second->nodes) base[r.model] = &r;
    }
    std::map<std::string, double> per_gpu;
    for (const auto& [m, r] : base) per_gpu[m] = *r->tokens_per_s / r->gpus;
    for (SweepReportRow& r : rows)
        if (r.tokens_per_s && r.gpus > 0 && per_gpu.count(r.model) && per_gpu[r.model] > 0)
            r.scaling = (*r.tokens_per_s / r.gpus) / per_gpu[r.model];
}

// An SVG plot: tokens/s per GPU against nodes, one polyline per model, with
// the ideal (flat) line of each model's smallest point dashed.
std::string scaling_svg(const std::vector<SweepReportRow>& rows) {
    const double w = 640, h = 360, l = 70, r = 20, t = 20, b = 50;
    double max_nodes = 1, max_y = 0;
    std::map<std::string, std::vector<std::pair<int, double>>> series;
    for (const SweepReportRow& x : rows) {
        if (!x.tokens_per_s || x.gpus <= 0) continue;
        double y = *x.tokens_per_s / x.gpus;
        series[x.model].emplace_back(x.nodes, y);
        max_nodes = std::max(max_nodes, static_cast<double>(x.nodes));
        max_y = std::max(max_y, y);
    }
    if (series.empty()) return "<p>no measured points to plot yet</p>\n";
    max_y *= 1.15;
    auto px = [&](double n) { return l + (w - l - r) * (max_nodes > 1 ? std::log2(n) / std::log2(max_nodes) : 0.5); };
    auto py = [&](double y) { return h - b - (h - t - b) * (max_y > 0 ? y / max_y : 0); };
    std::string svg = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" role=\"img\" "
        "aria-label=\"tokens per second per GPU against nodes\">\n",
        w, h);
    svg += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#333\"/>\n", l, h - b, w - r, h - b);
    svg += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#333\"/>\n", l, t, l, h - b);
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"12\">nodes (log scale)</text>\n",
                       (l + w - r) / 2, h - 10);
    svg += fmt::format(
        "<text x=\"14\" y=\"{}\" font-size=\"12\" transform=\"rotate(-90 14 {})\" text-anchor=\"middle\">"
        "tokens/s per GPU</text>\n",
        (t + h - b) / 2, (t + h - b) / 2);
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" font-size=\"11\">{:.0f}</text>\n", l - 4, t + 4,
                       max_y);
    static const char* colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};
    std::size_t k = 0;
    for (auto& [model, pts] : series) {
        std::sort(pts.begin(), pts.end());
        const char* c = colours[k++ % 6];
        std::string poly;
        for (const auto& [n, y] : pts) {
            poly += fmt::format("{:.1f},{:.1f} ", px(n), py(y));
            svg += fmt::format(
                "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\"><title>{} {} nodes: {:.1f} "
                "tokens/s/GPU</title></circle>\n",
                px(n), py(y), c, html_escape(model), n, y);
            svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\" font-size=\"11\">{}</text>\n", px(n),
                               h - b + 15, n);
        }
        svg += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>\n", poly, c);
        svg += fmt::format(
            "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-dasharray=\"4 4\"/>\n",
            px(pts.front().first), py(pts.front().second), px(max_nodes), py(pts.front().second), c);
        svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" fill=\"{}\">{} (dashed: ideal)</text>\n",
                           l + 8, t + 14.0 * static_cast<double>(k), c, html_escape(model));
    }
    return svg + "</svg>\n";
}

// The cells of one row as the table, Markdown and HTML show them.
std::vector<std::string> display_cells(const SweepReportRow& r) {
    return {std::to_string(r.index),          r.name,
            std::to_string(r.nodes),          std::to_string(r.gpus),
            cell(r.step_time_s, "{:.3f}"),    cell(r.tokens_per_s, "{:.0f}"),
            cell(r.tflops_per_gpu, "{:.1f}"), percent_cell(r.mfu, 2),
            percent_cell(r.scaling, 1),       r.note};
}

std::string json_report(const std::string& sweep_name, const std::vector<SweepReportRow>& rows) {
    auto num = [](const std::optional<double>& v) { return v ? ordered_json(*v) : ordered_json(nullptr); };
    ordered_json a = ordered_json::array();
    for (const SweepReportRow& r : rows)
        a.push_back({{"index", r.index},
                     {"name", r.name},
                     {"model", r.model},
                     {"run_id", r.run_id},
                     {"nodes", r.nodes},
                     {"gpus", r.gpus},
                     {"step_time_s", num(r.step_time_s)},
                     {"tokens_per_s", num(r.tokens_per_s)},
                     {"tflops_per_gpu", num(r.tflops_per_gpu)},
                     {"mfu", num(r.mfu)},
                     {"scaling_efficiency", num(r.scaling)},
                     {"note", r.note}});
    return ordered_json{{"sweep", sweep_name},
                        {"scaling_baseline", "tokens/s per GPU of the same model's point with the fewest nodes"},
                        {"points", a}}
               .dump(2) +
           "\n";
}

std::string csv_report(const std::vector<SweepReportRow>& rows) {
    std::string out =
        "index,name,model,run_id,nodes,gpus,step_time_s,tokens_per_s,tflops_per_gpu,mfu,scaling_efficiency,note\n";
    for (const SweepReportRow& r : rows)
        out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}\n", r.index, csv_field(r.name), csv_field(r.model),
                           r.run_id, r.nodes, r.gpus, cell(r.step_time_s, "{:.6g}"), cell(r.tokens_per_s, "{:.6g}"),
                           cell(r.tflops_per_gpu, "{:.6g}"), cell(r.mfu, "{:.6g}"), cell(r.scaling, "{:.6g}"),
                           csv_field(r.note));
    return out;
}

std::string markdown_report(const std::string& sweep_name, const std::vector<SweepReportRow>& rows) {
    std::string table =
        "| # | point | nodes | GPUs | step time (s) | tokens/s | TFLOPS/GPU | MFU | scaling eff. | note |\n"
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
    for (const SweepReportRow& r : rows) table += "| " + fmt::format("{}", fmt::join(display_cells(r), " | ")) + " |\n";
    return fmt::format(
        "# Sweep {}\n\n{}\nScaling efficiency: tokens/s per GPU against the same model's point with the fewest "
        "nodes.\n",
        sweep_name, table);
}

std::string html_report(const std::string& sweep_name, const std::vector<SweepReportRow>& rows) {
    std::string html_rows;
    for (const SweepReportRow& r : rows) {
        html_rows += "<tr>";
        for (const std::string& v : display_cells(r)) html_rows += "<td>" + html_escape(v) + "</td>";
        html_rows += "</tr>\n";
    }
    return fmt::format(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Sweep {0}</title>\n"
        "<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}"
        "td,th{{border:1px solid #ccc;padding:4px "
        "8px;text-align:right}}td:nth-child(2),td:last-child{{text-align:left}}</style>"
        "</head><body>\n<h1>Sweep {0}</h1>\n<table>\n<tr><th>#</th><th>point</th><th>nodes</th><th>GPUs</th>"
        "<th>step time (s)</th><th>tokens/s</th><th>TFLOPS/GPU</th><th>MFU</th><th>scaling "
        "eff.</th><th>note</th></tr>\n"
        "{1}</table>\n<h2>Scaling</h2>\n{2}<p>Scaling efficiency: tokens/s per GPU against the same model's "
        "point with "
        "the fewest nodes.</p>\n</body></html>\n",
        html_escape(sweep_name), html_rows, scaling_svg(rows));
}

std::string table_report(const std::vector<SweepReportRow>& rows) {
    TextTable t{{{"#", 5, Align::right, ""},
                 {"point", 40, Align::left},
                 {"nodes", 5, Align::right},
                 {"gpus", 5, Align::right},
                 {"step (s)", 10, Align::right},
                 {"tokens/s", 12, Align::right},
                 {"TFLOPS/GPU", 10, Align::right},
                 {"MFU", 7, Align::right},
                 {"scaling", 8, Align::right},
                 {"note", 0, Align::left}}};
    std::vector<std::vector<std::string>> cells;
    for (const SweepReportRow& r : rows) cells.push_back(display_cells(r));
    return t.render(cells);
}

}  // namespace

const std::vector<std::string>& sweep_report_formats() {
    static const std::vector<std::string> formats = {"table", "json", "csv", "markdown", "html"};
    return formats;
}

std::string sweep_report(const std::string& sweep_name, std::vector<SweepReportRow> rows, const std::string& format) {
    add_scaling(rows);
    if (format == "json") return json_report(sweep_name, rows);
    if (format == "csv") return csv_report(rows);
    if (format == "markdown") return markdown_report(sweep_name, rows);
    if (format == "html") return html_report(sweep_name, rows);
    return table_report(rows);
}

}  // namespace trainbench::report

// The sweep views, each a Document the reporters render: the dry-run preview of the
// points with their estimates, the status of every point's run, and the sweep report
// (what each point's run measured, with scaling efficiency and a scaling plot).
#include "report/format_util.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace trainbench::report {

using nlohmann::ordered_json;

namespace {

std::string values_text(const sweep::Point& p) {
    std::string out;
    for (const sweep::PointValue& v : p.values) {
        if (!out.empty()) out += ' ';
        out += v.key + "=" + v.display;
    }
    return out;
}

ordered_json values_json(const sweep::Point& p) {
    ordered_json j = ordered_json::object();
    for (const sweep::PointValue& v : p.values) j[v.key] = v.display;
    return j;
}

ordered_json optional_json(const std::optional<double>& v) {
    return v ? ordered_json(*v) : ordered_json(nullptr);
}

// The GPU-hours of the valid points, and whether every one of them had an estimate.
std::pair<double, bool> total_gpu_hours(const SweepPreview& s) {
    double total = 0;
    bool all = true;
    for (std::size_t i = 0; i < s.expansion.points.size(); ++i) {
        if (!s.expansion.points[i].valid) continue;
        if (s.estimates[i].gpu_hours)
            total += *s.estimates[i].gpu_hours;
        else
            all = false;
    }
    return {total, all};
}

ordered_json point_json(const sweep::Point& p, const plan::RunEstimate& e) {
    ordered_json j = {{"index", p.index}, {"name", p.name}, {"values", values_json(p)}};
    if (!p.valid) {
        j["reasons"] = p.reasons;
        return j;
    }
    j["hash"] = p.hash;
    j["gpus"] = e.gpus;
    j["nodes"] = p.nodes;
    j["memory_per_gpu_gib"] = e.memory / k_gib;
    j["capacity_gib"] = e.capacity / k_gib;
    j["est_step_time_s"] = optional_json(e.step_time_s);
    j["est_gpu_hours"] = optional_json(e.gpu_hours);
    j["warnings"] = p.warnings;
    return j;
}

std::string pruned_text(const sweep::Expansion& x) {
    std::string out =
        fmt::format("\npruned ({} invalid point{}):\n", x.pruned_count(), x.pruned_count() == 1 ? "" : "s");
    for (const sweep::Point& p : x.points) {
        if (p.valid) continue;
        out += fmt::format("{:>5}  {}  {}\n", p.index, p.name, values_text(p));
        for (const std::string& r : p.reasons) {
            std::string indented = r;
            for (std::size_t pos = 0; (pos = indented.find('\n', pos)) != std::string::npos; pos += 8)
                indented.replace(pos, 1, "\n       ");
            out += "       " + indented + '\n';
        }
    }
    return out;
}

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

// The cells of one row as people read them (terminal, Markdown, HTML).
std::vector<std::string> display_cells(const SweepReportRow& r) {
    return {std::to_string(r.index),          r.name,
            std::to_string(r.nodes),          std::to_string(r.gpus),
            cell(r.step_time_s, "{:.3f}"),    cell(r.tokens_per_s, "{:.0f}"),
            cell(r.tflops_per_gpu, "{:.1f}"), percent_cell(r.mfu, 2),
            percent_cell(r.scaling, 1),       r.note};
}

ordered_json report_json(const std::string& sweep_name, const std::vector<SweepReportRow>& rows) {
    ordered_json a = ordered_json::array();
    for (const SweepReportRow& r : rows)
        a.push_back({{"index", r.index},
                     {"name", r.name},
                     {"model", r.model},
                     {"run_id", r.run_id},
                     {"nodes", r.nodes},
                     {"gpus", r.gpus},
                     {"step_time_s", optional_json(r.step_time_s)},
                     {"tokens_per_s", optional_json(r.tokens_per_s)},
                     {"tflops_per_gpu", optional_json(r.tflops_per_gpu)},
                     {"mfu", optional_json(r.mfu)},
                     {"scaling_efficiency", optional_json(r.scaling)},
                     {"note", r.note}});
    return {{"sweep", sweep_name},
            {"scaling_baseline", "tokens/s per GPU of the same model's point with the fewest nodes"},
            {"points", a}};
}

Records report_records(const std::vector<SweepReportRow>& rows) {
    Records out{{"index", "name", "model", "run_id", "nodes", "gpus", "step_time_s", "tokens_per_s", "tflops_per_gpu",
                 "mfu", "scaling_efficiency", "note"},
                {false, true, true, true, false, false, false, false, false, false, false, true},
                {}};
    for (const SweepReportRow& r : rows)
        out.rows.push_back({std::to_string(r.index), r.name, r.model, r.run_id, std::to_string(r.nodes),
                            std::to_string(r.gpus), cell(r.step_time_s, "{:.6g}"), cell(r.tokens_per_s, "{:.6g}"),
                            cell(r.tflops_per_gpu, "{:.6g}"), cell(r.mfu, "{:.6g}"), cell(r.scaling, "{:.6g}"),
                            r.note});
    return out;
}

// Tokens/s per GPU against nodes (log scale), one series per model, each with its ideal (flat) line.
Plot scaling_plot(const std::vector<SweepReportRow>& rows) {
    Plot plot{PlotKind::scatter,
              "tokens/s per GPU against nodes",
              "nodes (log scale)",
              "tokens/s per GPU",
              {},
              {},
              {},
              0,
              true,
              0};
    std::map<std::string, PlotSeries> by_model;
    for (const SweepReportRow& x : rows) {
        if (!x.tokens_per_s || x.gpus <= 0) continue;
        const double y = *x.tokens_per_s / x.gpus;
        PlotSeries& s = by_model[x.model];
        s.name = x.model;
        s.ideal = true;
        s.points.push_back(
            {static_cast<double>(x.nodes), y, fmt::format("{} {} nodes: {:.1f} tokens/s/GPU", x.model, x.nodes, y)});
    }
    for (auto& [model, s] : by_model) plot.series.push_back(std::move(s));
    return plot;
}

}  // namespace

ordered_json sweep_preview_json(const SweepPreview& s) {
    const sweep::Expansion& x = s.expansion;
    ordered_json points = ordered_json::array();
    ordered_json pruned = ordered_json::array();
    for (std::size_t i = 0; i < x.points.size(); ++i)
        (x.points[i].valid ? points : pruned).push_back(point_json(x.points[i], s.estimates[i]));
    ordered_json excluded = ordered_json::array();
    for (const sweep::Point& p : x.excluded) excluded.push_back({{"index", p.index}, {"values", values_json(p)}});
    auto [total_hours, all_hours] = total_gpu_hours(s);
    ordered_json out = {{"sweep", x.spec.name},
                        {"file", x.spec.file.string()},
                        {"base", x.spec.base.string()},
                        {"assume_mfu", s.assume_mfu},
                        {"total", x.points.size() + x.excluded.size()},
                        {"valid", x.valid_count()},
                        {"pruned_count", x.pruned_count()},
                        {"excluded_count", x.excluded.size()},
                        {"est_gpu_hours", all_hours ? ordered_json(total_hours) : ordered_json(nullptr)},
                        {"points", points},
                        {"pruned", pruned},
                        {"excluded", excluded}};
    if (!s.output_dir.empty()) out["rendered_files"] = s.rendered_files;
    return out;
}

Document sweep_preview_document(const SweepPreview& s) {
    const sweep::Expansion& x = s.expansion;
    std::size_t name_w = 4, values_w = 6;
    for (const sweep::Point& p : x.points) {
        name_w = std::max(name_w, p.name.size());
        values_w = std::max(values_w, values_text(p).size());
    }
    Table t{"points",
            {{"#", Align::right, 5},
             {"name", Align::left, std::min<std::size_t>(name_w, 60)},
             {"values", Align::left, std::min<std::size_t>(values_w, 80)},
             {"gpus", Align::right, 5},
             {"mem/GPU (GiB)", Align::right, 17},
             {"step (s)", Align::right, 10},
             {"GPU-hours", Align::right, 10}},
            {}};
    for (std::size_t i = 0; i < x.points.size(); ++i) {
        const sweep::Point& p = x.points[i];
        if (!p.valid) continue;
        const plan::RunEstimate& e = s.estimates[i];
        t.rows.push_back({std::to_string(p.index), p.name, values_text(p), std::to_string(e.gpus),
                          e.capacity > 0 ? fmt::format("{:.1f} of {:.0f}", e.memory / k_gib, e.capacity / k_gib)
                                         : fmt::format("{:.1f}", e.memory / k_gib),
                          optional_cell(e.step_time_s, "{:.3f}"), optional_cell(e.gpu_hours, "{:.2f}")});
    }
    Document d;
    d.title = "sweep " + x.spec.name;
    d.blocks.push_back({std::move(t)});
    if (x.pruned_count() > 0) d.blocks.push_back({Text{pruned_text(x)}});
    auto [total_hours, all_hours] = total_gpu_hours(s);
    const std::size_t total = x.points.size() + x.excluded.size();
    std::string summary = fmt::format(
        "\nsweep '{}': {} point{}: {} valid, {} pruned, {} excluded; estimated {}{:.1f} GPU-hours at MFU {:g}\n",
        x.spec.name, total, total == 1 ? "" : "s", x.valid_count(), x.pruned_count(), x.excluded.size(),
        all_hours ? "" : ">= ", total_hours, s.assume_mfu);
    if (!s.output_dir.empty())
        summary +=
            fmt::format("rendered {} files of {} points under {}\n", s.rendered_files, x.valid_count(), s.output_dir);
    d.blocks.push_back({Text{std::move(summary)}});
    d.data = sweep_preview_json(s);
    return d;
}

std::string sweep_preview_text(const SweepPreview& s) {
    return render(sweep_preview_document(s), "table");
}

Document sweep_status_document(const std::string& sweep_name, const std::vector<SweepStatusRow>& rows) {
    Table t{"points",
            {{"#", Align::right, 5},
             {"name", Align::left, 40},
             {"run", Align::left, 28},
             {"state", Align::left, 11},
             {"detail", Align::left, 0}},
            {}};
    ordered_json points = ordered_json::array();
    std::map<std::string, std::size_t> counts;
    for (const SweepStatusRow& r : rows) {
        t.rows.push_back({std::to_string(r.index), r.name, r.run_id, r.state, r.detail});
        points.push_back({{"index", r.index},
                          {"name", r.name},
                          {"hash", r.hash},
                          {"run_id", r.run_id},
                          {"state", r.state},
                          {"detail", r.detail}});
        ++counts[r.state];
    }
    std::string summary;
    ordered_json c = ordered_json::object();
    for (const auto& [k, n] : counts) {
        summary += fmt::format("{}{} {}", summary.empty() ? "" : ", ", n, k);
        c[k] = n;
    }
    Document d;
    d.title = "sweep " + sweep_name;
    d.blocks.push_back({std::move(t)});
    d.blocks.push_back(
        {Text{fmt::format("\nsweep '{}': {}\n", sweep_name, summary.empty() ? "no valid points" : summary)}});
    d.data = {{"sweep", sweep_name}, {"points", points}, {"counts", c}};
    return d;
}

std::string sweep_status_text(const std::string& sweep_name, const std::vector<SweepStatusRow>& rows) {
    return render(sweep_status_document(sweep_name, rows), "table");
}

ordered_json sweep_status_json(const std::string& sweep_name, const std::vector<SweepStatusRow>& rows) {
    return sweep_status_document(sweep_name, rows).data;
}

const std::vector<std::string>& sweep_report_formats() {
    static const std::vector<std::string> formats = {"table", "json", "csv", "markdown", "html"};
    return formats;
}

Document sweep_report_document(const std::string& sweep_name, std::vector<SweepReportRow> rows) {
    add_scaling(rows);
    Table table{"",
                {{"#", Align::right, 5},
                 {"point", Align::left, 40},
                 {"nodes", Align::right, 5},
                 {"gpus", Align::right, 5},
                 {"step (s)", Align::right, 10},
                 {"tokens/s", Align::right, 12},
                 {"TFLOPS/GPU", Align::right, 10},
                 {"MFU", Align::right, 7},
                 {"scaling", Align::right, 8},
                 {"note", Align::left, 0}},
                {}};
    for (const SweepReportRow& r : rows) table.rows.push_back(display_cells(r));
    // (Markdown and HTML name the columns in full)
    Table markup = table;
    const char* long_names[] = {"#",        "point",      "nodes", "GPUs",         "step time (s)",
                                "tokens/s", "TFLOPS/GPU", "MFU",   "scaling eff.", "note"};
    for (std::size_t i = 0; i < markup.columns.size(); ++i) markup.columns[i].header = long_names[i];
    Document d;
    d.title = "Sweep " + sweep_name;
    d.blocks.push_back({std::move(table), Show::terminal});
    d.blocks.push_back({std::move(markup), Show::markup});
    d.blocks.push_back({scaling_plot(rows), Show::markup});
    d.blocks.push_back(
        {Text{"Scaling efficiency: tokens/s per GPU against the same model's point with the fewest nodes.\n"},
         Show::markup});
    d.records = report_records(rows);
    d.data = report_json(sweep_name, rows);
    return d;
}

std::string sweep_report(const std::string& sweep_name, std::vector<SweepReportRow> rows, const std::string& format) {
    return render(sweep_report_document(sweep_name, std::move(rows)), format);
}

}  // namespace trainbench::report

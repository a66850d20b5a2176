// trainbench sweep FILE: expand a sweep (base recipe + axes) into points,
// show them with estimates (--dry-run, -o renders every point), submit the
// valid ones resumably (--max-active), and `sweep status FILE`.
#include "cli/app.hpp"
#include "cli/report_support.hpp"
#include "cli/sweep_render.hpp"

#include <trainbench/pipeline.hpp>
#include <trainbench/plan.hpp>
#include <trainbench/recipe.hpp>
#include <trainbench/run.hpp>
#include <trainbench/sweep.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace trainbench::cli {

namespace {

struct SweepOptions {
    std::string file;
    bool dry_run = false;
    std::string output;
    double assume_mfu = 0.4;
    int max_active = 0;
    double poll_seconds = 10;
    bool no_wait = false;
    std::string status_file;
    std::string report_file;
    std::string format = "table";
    std::string html;
};

constexpr double k_gib = 1024.0 * 1024.0 * 1024.0;

struct Estimate {
    int gpus = 0;
    double memory = 0;
    double capacity = 0;
    std::optional<double> step_time_s;
    std::optional<double> gpu_hours;
};

Estimate estimate(const sweep::Point& p, double mfu) {
    Estimate e;
    if (!p.recipe) return e;
    const recipe::Recipe& r = *p.recipe;
    e.gpus = r.total_gpus();
    recipe::MemoryEstimate m = recipe::estimate_memory(r);
    e.memory = m.total;
    e.capacity = m.capacity;
    e.step_time_s = plan::estimate_step_time(r, mfu);
    if (e.step_time_s) e.gpu_hours = static_cast<double>(e.gpus) * r.steps * *e.step_time_s / 3600.0;
    return e;
}

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

sweep::Expansion load_expansion(const std::string& file, Context& ctx) {
    sweep::SweepSpec spec = sweep::load_sweep(file);
    return sweep::expand(spec, ctx.catalog());
}

int run_dry(const SweepOptions& opts, Context& ctx, const sweep::Expansion& x) {
    std::vector<Estimate> est;
    est.reserve(x.points.size());
    double total_hours = 0;
    bool all_hours = true;
    for (const sweep::Point& p : x.points) {
        est.push_back(estimate(p, opts.assume_mfu));
        if (p.valid) {
            if (est.back().gpu_hours)
                total_hours += *est.back().gpu_hours;
            else
                all_hours = false;
        }
    }

    std::size_t rendered_files = 0;
    if (!opts.output.empty()) rendered_files = render_points(x, opts.output, ctx.data_dirs().templates);

    if (ctx.options.json) {
        ordered_json points = ordered_json::array();
        ordered_json pruned = ordered_json::array();
        for (std::size_t i = 0; i < x.points.size(); ++i) {
            const sweep::Point& p = x.points[i];
            const Estimate& e = est[i];
            ordered_json j = {{"index", p.index}, {"name", p.name}, {"values", values_json(p)}};
            if (p.valid) {
                j["hash"] = p.hash;
                j["gpus"] = e.gpus;
                j["nodes"] = p.recipe->nodes;
                j["memory_per_gpu_gib"] = e.memory / k_gib;
                j["capacity_gib"] = e.capacity / k_gib;
                j["est_step_time_s"] = e.step_time_s ? ordered_json(*e.step_time_s) : ordered_json(nullptr);
                j["est_gpu_hours"] = e.gpu_hours ? ordered_json(*e.gpu_hours) : ordered_json(nullptr);
                j["warnings"] = p.warnings;
                points.push_back(j);
            } else {
                j["reasons"] = p.reasons;
                pruned.push_back(j);
            }
        }
        ordered_json excluded = ordered_json::array();
        for (const sweep::Point& p : x.excluded) excluded.push_back({{"index", p.index}, {"values", values_json(p)}});
        ordered_json out = {{"sweep", x.spec.name},
                            {"file", x.spec.file.string()},
                            {"base", x.spec.base.string()},
                            {"assume_mfu", opts.assume_mfu},
                            {"total", x.points.size() + x.excluded.size()},
                            {"valid", x.valid_count()},
                            {"pruned_count", x.pruned_count()},
                            {"excluded_count", x.excluded.size()},
                            {"est_gpu_hours", all_hours ? ordered_json(total_hours) : ordered_json(nullptr)},
                            {"points", points},
                            {"pruned", pruned},
                            {"excluded", excluded}};
        if (!opts.output.empty()) out["rendered_files"] = rendered_files;
        print_json(ctx, out.dump(2));
        return 0;
    }

    std::size_t name_w = 4, values_w = 6;
    for (const sweep::Point& p : x.points) {
        name_w = std::max(name_w, p.name.size());
        values_w = std::max(values_w, values_text(p).size());
    }
    name_w = std::min<std::size_t>(name_w, 60);
    values_w = std::min<std::size_t>(values_w, 80);
    std::string out;
    out += fmt::format("{:>5}  {:<{}}  {:<{}}  {:>5}  {:>17}  {:>10}  {:>10}\n", "#", "name", name_w, "values",
                       values_w, "gpus", "mem/GPU (GiB)", "step (s)", "GPU-hours");
    for (std::size_t i = 0; i < x.points.size(); ++i) {
        const sweep::Point& p = x.points[i];
        if (!p.valid) continue;
        const Estimate& e = est[i];
        out += fmt::format("{:>5}  {:<{}}  {:<{}}  {:>5}  {:>17}  {:>10}  {:>10}\n", p.index, p.name, name_w,
                           values_text(p), values_w, e.gpus,
                           e.capacity > 0 ? fmt::format("{:.1f} of {:.0f}", e.memory / k_gib, e.capacity / k_gib)
                                          : fmt::format("{:.1f}", e.memory / k_gib),
                           e.step_time_s ? fmt::format("{:.3f}", *e.step_time_s) : "-",
                           e.gpu_hours ? fmt::format("{:.2f}", *e.gpu_hours) : "-");
    }
    if (x.pruned_count() > 0) {
        out += fmt::format("\npruned ({} invalid point{}):\n", x.pruned_count(), x.pruned_count() == 1 ? "" : "s");
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
    }
    out += fmt::format(
        "\nsweep '{}': {} point{}: {} valid, {} pruned, {} excluded; estimated {}{:.1f} GPU-hours at MFU {:g}\n",
        x.spec.name, x.points.size() + x.excluded.size(), x.points.size() + x.excluded.size() == 1 ? "" : "s",
        x.valid_count(), x.pruned_count(), x.excluded.size(), all_hours ? "" : ">= ", total_hours, opts.assume_mfu);
    if (!opts.output.empty())
        out += fmt::format("rendered {} files of {} points under {}\n", rendered_files, x.valid_count(), opts.output);
    ctx.out << out;
    return 0;
}

int run_submit(const SweepOptions& opts, Context& ctx, const sweep::Expansion& x) {
    if (opts.max_active < 0) throw UsageError("--max-active must be >= 0", "0 means no limit");
    if (!(opts.poll_seconds > 0)) throw UsageError("--poll must be positive");
    DataDirs dirs = ctx.data_dirs();
    pipeline::RunContext rc;
    rc.runs_root = ctx.runs_root();
    rc.template_dirs = dirs.templates;
    rc.workloads = dirs.workloads;
    rc.sweep_file = x.spec.file;
    pipeline::SweepSubmitOptions so;
    so.max_active = static_cast<std::size_t>(opts.max_active);
    so.poll_interval = std::chrono::milliseconds(static_cast<long>(opts.poll_seconds * 1000));
    so.no_wait = opts.no_wait;
    so.on_lock_wait = [&ctx](const std::string& message) { ctx.err << "trainbench: " << message << '\n'; };
    so.on_progress = [&ctx, &opts](const pipeline::SubmitProgress& p, const std::string& message) {
        if (ctx.options.quiet) return;
        ctx.err << fmt::format("[{}/{} submitted, {} skipped, {} failed] {}\n", p.submitted + p.skipped, p.total,
                               p.skipped, p.failed, message);
        (void)opts;
    };
    pipeline::SubmitProgress progress = pipeline::submit_sweep(
        x, rc.runs_root,
        [&rc](const sweep::Point& p, const std::function<void(const run::RunInfo&)>& on_created) {
            return pipeline::submit_point_default(p, rc, on_created);
        },
        so);
    fs::path state = pipeline::state_file(rc.runs_root, x.spec.name);
    if (ctx.options.json) {
        ordered_json out = {{"sweep", x.spec.name},        {"state_file", state.string()},
                            {"valid", progress.total},     {"submitted", progress.submitted},
                            {"skipped", progress.skipped}, {"failed", progress.failed},
                            {"pruned", x.pruned_count()},  {"excluded", x.excluded.size()}};
        print_json(ctx, out.dump(2));
    } else {
        ctx.out << fmt::format(
            "sweep '{}': {} valid points: {} submitted now, {} already had a run, {} failed; {} pruned; state {}\n",
            x.spec.name, progress.total, progress.submitted, progress.skipped, progress.failed, x.pruned_count(),
            state.string());
    }
    return progress.failed > 0 ? static_cast<int>(ExitCode::runtime) : 0;
}

int run_sweep(const SweepOptions& opts, Context& ctx) {
    if (opts.file.empty()) throw UsageError("no sweep file given", "trainbench sweep FILE --dry-run");
    if (!(opts.assume_mfu > 0 && opts.assume_mfu <= 1))
        throw UsageError(fmt::format("--assume-mfu {} is not in (0, 1]", opts.assume_mfu), "e.g. --assume-mfu 0.4");
    sweep::Expansion x = load_expansion(opts.file, ctx);
    if (opts.dry_run) return run_dry(opts, ctx, x);
    if (!opts.output.empty()) throw UsageError("-o/--output renders points in a dry run only", "add --dry-run");
    return run_submit(opts, ctx, x);
}

int run_status(const SweepOptions& opts, Context& ctx) {
    sweep::Expansion x = load_expansion(opts.status_file, ctx);
    fs::path root = ctx.runs_root();
    std::map<std::string, pipeline::StateEntry> state = pipeline::read_state(pipeline::state_file(root, x.spec.name));
    std::vector<run::RunInfo> runs;
    std::map<std::string, std::size_t> by_hash;
    for (const sweep::Point& p : x.points) {
        if (!p.valid) continue;
        auto it = state.find(p.hash);
        if (it == state.end() || it->second.run_dir.empty()) continue;
        std::error_code ec;
        if (!fs::is_directory(it->second.run_dir, ec)) continue;
        by_hash[p.hash] = runs.size();
        runs.push_back(run::load_run(it->second.run_dir));
    }
    if (!runs.empty()) run::refresh(runs, run::default_backend_provider(), system_process_runner());
    std::map<std::string, std::size_t> counts;
    ordered_json rows = ordered_json::array();
    std::string text = fmt::format("{:>5}  {:<40}  {:<28}  {:<11}  {}\n", "#", "name", "run", "state", "detail");
    for (const sweep::Point& p : x.points) {
        if (!p.valid) continue;
        auto it = by_hash.find(p.hash);
        std::string state_name = it == by_hash.end() ? "NOT SUBMITTED" : runs[it->second].state();
        std::string run_id = it == by_hash.end() ? "-" : runs[it->second].run_id;
        std::string detail = it == by_hash.end() ? "" : runs[it->second].detail();
        ++counts[state_name];
        rows.push_back({{"index", p.index},
                        {"name", p.name},
                        {"hash", p.hash},
                        {"run_id", run_id},
                        {"state", state_name},
                        {"detail", detail}});
        text += fmt::format("{:>5}  {:<40}  {:<28}  {:<11}  {}\n", p.index, p.name, run_id, state_name, detail);
    }
    std::string summary;
    for (const auto& [k, n] : counts) summary += fmt::format("{}{} {}", summary.empty() ? "" : ", ", n, k);
    if (ctx.options.json) {
        ordered_json c = ordered_json::object();
        for (const auto& [k, n] : counts) c[k] = n;
        print_json(ctx, ordered_json{{"sweep", x.spec.name}, {"points", rows}, {"counts", c}}.dump(2));
    } else {
        ctx.out << text
                << fmt::format("\nsweep '{}': {}\n", x.spec.name, summary.empty() ? "no valid points" : summary);
    }
    return 0;
}

// ---------------------------------------------------------------- report

struct ReportRow {
    std::size_t index = 0;
    std::string name;
    std::string model;
    std::string run_id;
    int nodes = 0;
    int gpus = 0;
    std::optional<double> step_time_s, tokens_per_s, tflops_per_gpu, mfu, scaling;
    std::string note;
};

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
void add_scaling(std::vector<ReportRow>& rows) {
    std::map<std::string, const ReportRow*> base;
    for (const ReportRow& r : rows) {
        if (!r.tokens_per_s || r.gpus <= 0) continue;
        auto it = base.find(r.model);
        if (it == base.end() || r.nodes < it->second->nodes) base[r.model] = &r;
    }
    std::map<std::string, double> per_gpu;
    for (const auto& [m, r] : base) per_gpu[m] = *r->tokens_per_s / r->gpus;
    for (ReportRow& r : rows)
        if (r.tokens_per_s && r.gpus > 0 && per_gpu.count(r.model) && per_gpu[r.model] > 0)
            r.scaling = (*r.tokens_per_s / r.gpus) / per_gpu[r.model];
}

// An SVG plot: tokens/s per GPU against nodes, one polyline per model, with
// the ideal (flat) line of each model's smallest point dashed.
std::string scaling_svg(const std::vector<ReportRow>& rows) {
    const double w = 640, h = 360, l = 70, r = 20, t = 20, b = 50;
    double max_nodes = 1, max_y = 0;
    std::map<std::string, std::vector<std::pair<int, double>>> series;
    for (const ReportRow& x : rows) {
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

int run_report(const SweepOptions& opts, Context& ctx) {
    static const std::vector<std::string> formats = {"table", "json", "csv", "markdown", "html"};
    std::string format = ctx.options.json ? "json" : opts.format;
    if (std::find(formats.begin(), formats.end(), format) == formats.end())
        throw UsageError(fmt::format("unknown report format '{}'", format), did_you_mean(format, formats));
    sweep::Expansion x = load_expansion(opts.report_file, ctx);
    std::map<std::string, pipeline::StateEntry> state =
        pipeline::read_state(pipeline::state_file(ctx.runs_root(), x.spec.name));
    ReportFlags flags;
    std::vector<ReportRow> rows;
    for (const sweep::Point& p : x.points) {
        if (!p.valid) continue;
        ReportRow row;
        row.index = p.index;
        row.name = p.name;
        row.model = p.recipe->model_name;
        row.nodes = p.recipe->nodes;
        row.gpus = p.recipe->total_gpus();
        auto it = state.find(p.hash);
        std::error_code ec;
        if (it == state.end() || it->second.run_dir.empty() || !fs::is_directory(it->second.run_dir, ec)) {
            row.note = "not submitted";
        } else {
            row.run_id = it->second.run_id;
            try {
                analysis::RunSummary s = summarise_run(ctx, it->second.run_dir, flags);
                row.step_time_s = s.stats.mean;
                row.tokens_per_s = s.derived.tokens_per_s;
                row.tflops_per_gpu = s.derived.tflops_per_gpu;
                row.mfu = s.derived.mfu;
            } catch (const Error& e) {
                row.note = e.what();
            }
        }
        rows.push_back(std::move(row));
    }
    add_scaling(rows);

    std::string out;
    if (format == "json") {
        auto num = [](const std::optional<double>& v) { return v ? ordered_json(*v) : ordered_json(nullptr); };
        ordered_json a = ordered_json::array();
        for (const ReportRow& r : rows)
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
        out = ordered_json{{"sweep", x.spec.name},
                           {"scaling_baseline", "tokens/s per GPU of the same model's point with the fewest nodes"},
                           {"points", a}}
                  .dump(2) +
              "\n";
    } else if (format == "csv") {
        out =
            "index,name,model,run_id,nodes,gpus,step_time_s,tokens_per_s,tflops_per_gpu,mfu,scaling_efficiency,note\n";
        for (const ReportRow& r : rows)
            out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}\n", r.index, csv_field(r.name), csv_field(r.model),
                               r.run_id, r.nodes, r.gpus, cell(r.step_time_s, "{:.6g}"), cell(r.tokens_per_s, "{:.6g}"),
                               cell(r.tflops_per_gpu, "{:.6g}"), cell(r.mfu, "{:.6g}"), cell(r.scaling, "{:.6g}"),
                               csv_field(r.note));
    } else if (format == "markdown" || format == "html") {
        std::string table =
            "| # | point | nodes | GPUs | step time (s) | tokens/s | TFLOPS/GPU | MFU | scaling eff. | note |\n"
            "|---:|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
        std::string html_rows;
        for (const ReportRow& r : rows) {
            std::vector<std::string> c = {std::to_string(r.index),          r.name,
                                          std::to_string(r.nodes),          std::to_string(r.gpus),
                                          cell(r.step_time_s, "{:.3f}"),    cell(r.tokens_per_s, "{:.0f}"),
                                          cell(r.tflops_per_gpu, "{:.1f}"), percent_cell(r.mfu, 2),
                                          percent_cell(r.scaling, 1),       r.note};
            table += "| " + fmt::format("{}", fmt::join(c, " | ")) + " |\n";
            html_rows += "<tr>";
            for (const std::string& v : c) html_rows += "<td>" + html_escape(v) + "</td>";
            html_rows += "</tr>\n";
        }
        if (format == "markdown") {
            out = fmt::format(
                "# Sweep {}\n\n{}\nScaling efficiency: tokens/s per GPU against the same model's point with the fewest "
                "nodes.\n",
                x.spec.name, table);
        } else {
            out = fmt::format(
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
                html_escape(x.spec.name), html_rows, scaling_svg(rows));
        }
    } else {
        out = fmt::format("{:>5}  {:<40}  {:>5}  {:>5}  {:>10}  {:>12}  {:>10}  {:>7}  {:>8}  {}\n", "#", "point",
                          "nodes", "gpus", "step (s)", "tokens/s", "TFLOPS/GPU", "MFU", "scaling", "note");
        for (const ReportRow& r : rows)
            out += fmt::format("{:>5}  {:<40}  {:>5}  {:>5}  {:>10}  {:>12}  {:>10}  {:>7}  {:>8}  {}\n", r.index,
                               r.name, r.nodes, r.gpus, cell(r.step_time_s, "{:.3f}"), cell(r.tokens_per_s, "{:.0f}"),
                               cell(r.tflops_per_gpu, "{:.1f}"), percent_cell(r.mfu, 2), percent_cell(r.scaling, 1),
                               r.note);
    }
    if (!opts.html.empty() && format == "html") {
        write_file_atomic(opts.html, out);
        if (!ctx.options.quiet) ctx.err << "wrote " << opts.html << '\n';
    } else {
        ctx.out << out;
    }
    return 0;
}

}  // namespace

void setup_sweep_command(CLI::App& root, Context& ctx) {
    auto opts = std::make_shared<SweepOptions>();
    CLI::App* cmd =
        root.add_subcommand("sweep", "Expand a sweep file into points; --dry-run previews, otherwise submit resumably");
    cmd->add_option("file", opts->file, "Sweep file (base recipe + matrix/zip/exclude)");
    cmd->add_flag("--dry-run", opts->dry_run, "Print every point with estimates and the pruned points; submit nothing");
    cmd->add_option("-o,--output", opts->output,
                    "With --dry-run: render every valid point to DIR/<point name>/<stage>/");
    cmd->add_option("--assume-mfu", opts->assume_mfu,
                    "MFU assumed for the step-time and GPU-hour estimates (default 0.4)");
    cmd->add_option("--max-active", opts->max_active,
                    "Submit while fewer than N of the sweep's runs are unfinished (0: no limit)");
    cmd->add_option("--poll", opts->poll_seconds,
                    "Seconds between checks while --max-active runs are busy (default 10)");
    cmd->add_flag("--no-wait", opts->no_wait,
                  "When another trainbench is submitting this sweep, exit at once (exit code 6) instead of waiting");
    cmd->footer(
        "Examples:\n"
        "  trainbench sweep sweeps/gpt3-sizes.yaml --dry-run\n"
        "  trainbench sweep sweeps/gpt3-5b-p4d-nodes.yaml --dry-run -o /tmp/rendered\n"
        "  trainbench sweep sweeps/local-slurm-tinygpt.yaml --max-active 2\n"
        "  trainbench sweep status sweeps/local-slurm-tinygpt.yaml\n"
        "A second `trainbench sweep FILE` submits only points that have no run yet "
        "(runs/_sweeps/<sweep>/state.jsonl).");
    CLI::App* status = cmd->add_subcommand("status", "One status table of a sweep's points and their runs");
    status->add_option("file", opts->status_file, "Sweep file")->required();
    status->footer("Example:\n  trainbench sweep status sweeps/local-slurm-tinygpt.yaml --json");
    status->callback([opts, &ctx] { ctx.action = [opts, &ctx] { return run_status(*opts, ctx); }; });
    CLI::App* report = cmd->add_subcommand(
        "report", "One summary table of a sweep: step time, tokens/s, TFLOPS/GPU, MFU, scaling efficiency");
    report->add_option("file", opts->report_file, "Sweep file")->required();
    report->add_option("--format", opts->format, "table (default), json, csv, markdown or html (with a scaling plot)");
    report->add_option("-o,--output", opts->html, "--format html: write the page to FILE instead of stdout");
    report->footer(
        "Examples:\n  trainbench sweep report sweeps/gpt3-5b-p4d-nodes.yaml\n"
        "  trainbench sweep report sweeps/gpt3-5b-p4d-nodes.yaml --format html -o scaling.html");
    report->callback([opts, &ctx] { ctx.action = [opts, &ctx] { return run_report(*opts, ctx); }; });
    cmd->callback([opts, &ctx, cmd, status, report] {
        if (cmd->got_subcommand(status) || cmd->got_subcommand(report)) return;
        ctx.action = [opts, &ctx] { return run_sweep(*opts, ctx); };
    });
}

}  // namespace trainbench::cli

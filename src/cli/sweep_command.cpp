// trainbench sweep FILE: expand a sweep (base recipe + axes) into points,
// show them with estimates (--dry-run, -o renders every point), submit the
// valid ones resumably (--max-active), `sweep status FILE` and `sweep report FILE`.
#include "cli/app.hpp"
#include "cli/report_support.hpp"

#include <trainbench/pipeline.hpp>
#include <trainbench/report.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace fs = std::filesystem;

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

int run_dry(const SweepOptions& opts, Context& ctx) {
    const pipeline::SweepDryRun dry = pipeline::preview_sweep(ctx.services(), opts.file, opts.assume_mfu, opts.output);
    if (ctx.options.json)
        print_json(ctx, report::sweep_preview_json(dry.view()).dump(2));
    else
        ctx.out << report::sweep_preview_text(dry.view());
    return 0;
}

int run_submit(const SweepOptions& opts, Context& ctx, const sweep::Expansion& x) {
    if (opts.max_active < 0) throw UsageError("--max-active must be >= 0", "0 means no limit");
    if (!(opts.poll_seconds > 0)) throw UsageError("--poll must be positive");
    pipeline::Services services = ctx.services();
    pipeline::SweepSubmitOptions so;
    so.max_active = static_cast<std::size_t>(opts.max_active);
    so.poll_interval = std::chrono::milliseconds(static_cast<long>(opts.poll_seconds * 1000));
    so.no_wait = opts.no_wait;
    so.processes = &ctx.processes();
    so.on_lock_wait = [&ctx](const std::string& message) { ctx.err << "trainbench: " << message << '\n'; };
    so.on_progress = [&ctx](const pipeline::SubmitProgress& p, const std::string& message) {
        if (ctx.options.quiet) return;
        ctx.err << fmt::format("[{}/{} submitted, {} skipped, {} failed] {}\n", p.submitted + p.skipped, p.total,
                               p.skipped, p.failed, message);
    };
    pipeline::SubmitProgress progress = pipeline::submit_sweep(
        x, services.runs_root,
        [&](const sweep::Point& p, const std::function<void(const run::RunInfo&)>& on_created) {
            return pipeline::submit_point(services, x, p, on_created);
        },
        so);
    fs::path state = pipeline::state_file(services.runs_root, x.spec.name);
    if (ctx.options.json) {
        nlohmann::ordered_json out = {{"sweep", x.spec.name},        {"state_file", state.string()},
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
    if (opts.dry_run) return run_dry(opts, ctx);
    if (!opts.output.empty()) throw UsageError("-o/--output renders points in a dry run only", "add --dry-run");
    return run_submit(opts, ctx, pipeline::load_expansion(ctx.services(), opts.file));
}

int run_status(const SweepOptions& opts, Context& ctx) {
    sweep::Expansion x = pipeline::load_expansion(ctx.services(), opts.status_file);
    std::vector<report::SweepStatusRow> rows = pipeline::sweep_status(x, ctx.runs_root(), ctx.processes());
    if (ctx.options.json)
        print_json(ctx, report::sweep_status_json(x.spec.name, rows).dump(2));
    else
        ctx.out << report::sweep_status_text(x.spec.name, rows);
    return 0;
}

int run_report(const SweepOptions& opts, Context& ctx) {
    const std::vector<std::string>& formats = report::sweep_report_formats();
    std::string format = ctx.options.json ? "json" : opts.format;
    if (std::find(formats.begin(), formats.end(), format) == formats.end())
        throw UsageError(fmt::format("unknown report format '{}'", format), did_you_mean(format, formats));
    sweep::Expansion x = pipeline::load_expansion(ctx.services(), opts.report_file);
    std::vector<report::SweepReportRow> rows =
        pipeline::sweep_report_rows(x, ctx.runs_root(), [services = ctx.services()](const fs::path& run_dir) {
            return pipeline::summarise_run(services, run_dir, pipeline::SummaryOptions{});
        });
    std::string out = report::sweep_report(x.spec.name, std::move(rows), format);
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

// trainbench report RUN|LOGFILE...: step time, throughput, TFLOPS/GPU and MFU
// under a named FLOPs convention, checked against the recipe's expectations.
#include "cli/app.hpp"
#include "cli/report_support.hpp"
#include "cli/results_support.hpp"

#include <trainbench/pipeline.hpp>
#include <trainbench/report.hpp>

#include <fmt/format.h>

namespace trainbench::cli {

namespace {

struct ReportOptions {
    std::vector<std::string> targets;
    ReportFlags flags;
    std::string junit;
    bool record = false;           // bare logs: record the result (a run's report always is)
    bool series = false;           // --json: the per-step series too
    results::ResultLabels labels;  // bare logs: name, target, container to record under
};

// Prints the report in the chosen format (the summary, its cluster validation, or both: one document).
void print_report(const ReportOptions& o, Context& ctx, const pipeline::RunReport& r) {
    if (ctx.options.json) {
        ctx.out << r.json;
        return;
    }
    const std::string_view format = o.flags.csv ? "csv" : (o.flags.markdown ? "markdown" : "table");
    ctx.out << pipeline::report_text(r, format, {ctx.out_colour()});
}

int run_report(ReportOptions o, Context& ctx) {
    pipeline::ReportRequest request;
    request.targets = o.targets;
    request.options = o.flags;
    // (--record keeps the window's per-step times with the result: the series are needed)
    request.options.figures_only = !(ctx.options.json && o.series) && o.flags.html.empty() && !o.record;
    request.html = o.flags.html;
    request.junit = o.junit;
    request.record = o.record;
    request.series = o.series;
    request.json = ctx.options.json;
    request.labels = o.labels;
    const pipeline::RunReport r = pipeline::report_run(ctx.services(), request);
    if (!r.summary) ctx.warn("no training figures: " + r.no_figures);
    print_report(o, ctx, r);
    if (r.recorded && !ctx.options.quiet)
        ctx.err << fmt::format(
            "trainbench: {} result of {} ({}) in {}\n",
            r.recorded->added ? "recorded" : "already recorded:", terminal_safe(r.recorded->short_id),
            terminal_safe(r.recorded->recipe_name), terminal_safe(r.recorded->store));
    if (r.record_error) std::rethrow_exception(r.record_error);
    for (const std::string& w : r.warnings) ctx.warn(w);
    if (r.failure) throw *r.failure;
    return 0;
}

}  // namespace

void setup_report_command(CLI::App& root, Context& ctx) {
    auto opts = std::make_shared<ReportOptions>();
    CLI::App* cmd = root.add_subcommand("report", "Step time, throughput, TFLOPS/GPU and MFU of a run or of log files");
    cmd->add_option("RUN|LOGFILE", opts->targets, "A run directory (or run id), or log files of one run")->required();
    add_report_flags(cmd, opts->flags);
    cmd->add_flag("--conventions", opts->flags.conventions,
                  "Also show the run under every FLOPs convention (TFLOPS/GPU and MFU of each)");
    cmd->add_option("--reference", opts->flags.reference,
                    "Show the run as a percentage of a published row (step time, tokens/s/GPU, TFLOPS under the "
                    "row's convention) and the configuration differences; 'trainbench list references' lists them");
    cmd->add_option("--junit", opts->junit, "Write the expectations as JUnit XML to FILE");
    cmd->add_flag("--series", opts->series, "With --json: add every step's time and loss (the per-step series)");
    cmd->add_flag("--record", opts->record, "Record the result of bare logs in the results database");
    add_record_labels(cmd, opts->labels);
    cmd->footer(R"(Output: a table (default), --json, --csv, --markdown on stdout; --html FILE and --junit FILE
write files. Every format names the FLOPs convention (dated: the formula as one framework
counted it between two dates; a run's default is the one its framework version prints) and
the peak it used. For a run, the
inputs come from its recipe, report/summary.json is written and the result is recorded in
the results database (docs/results.md); for bare logs, flags give what the log does not
declare, and --record records them. Exit 5 when an expectation fails.

Examples:
  trainbench report runs/gpt3-126m-p4d-2n/20261122T020000Z-a1b2c3
  trainbench report dllogger.json --model gpt3-175b --gpus 256 --gpu h100 --precision fp8 \
      --global-batch 2048 --flops gpu-recipes
  trainbench report a1b2c3 --flops megatron --window 20:40 --html report.html --junit expect.xml
  trainbench report a1b2c3 --conventions --reference nemo-24.07-gpt3-175b-h100x512-fp8)");
    cmd->callback([opts, &ctx] { ctx.action = [opts, &ctx] { return run_report(*opts, ctx); }; });
}

}  // namespace trainbench::cli

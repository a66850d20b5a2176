// trainbench compare A B...: runs (or log files) side by side, with the
// relative difference of every figure to the first.
#include "cli/app.hpp"
#include "cli/report_support.hpp"

#include <trainbench/report.hpp>

namespace trainbench::cli {

namespace {

struct CompareOptions {
    std::vector<std::string> targets;
    ReportFlags flags;
};

int run_compare(const CompareOptions& o, Context& ctx) {
    if (o.targets.size() < 2) throw UsageError("compare needs at least two runs or log files");
    std::vector<analysis::RunSummary> runs;
    for (const std::string& t : o.targets) {
        if (auto dir = pipeline::find_run_dir(ctx.runs_root(), t))
            runs.push_back(pipeline::summarise_run(ctx.services(), *dir, o.flags));
        else
            runs.push_back(pipeline::summarise_logs(ctx.services(), {t}, o.flags));
    }
    if (!o.flags.html.empty()) write_file_atomic(o.flags.html, report::render_compare(runs, "html"));
    std::string name = "table";
    if (ctx.options.json)
        name = "json";
    else if (o.flags.csv)
        name = "csv";
    else if (o.flags.markdown)
        name = "markdown";
    ctx.out << report::render_compare(runs, name, {ctx.out_colour()});
    return 0;
}

}  // namespace

void setup_compare_command(CLI::App& root, Context& ctx) {
    auto opts = std::make_shared<CompareOptions>();
    CLI::App* cmd = root.add_subcommand("compare", "Runs or log files side by side, with relative differences");
    cmd->add_option("A B...", opts->targets, "Run directories (or run ids) or log files; the first is the baseline")
        ->required();
    add_report_flags(cmd, opts->flags);
    cmd->footer(R"(Each figure is shown per run with its difference to the first ("+1.23%").
Flags apply to every run (e.g. --flops to compare under one convention).

Examples:
  trainbench compare runs/gpt3-5b/20261122T010000Z-aaaaaa runs/gpt3-5b/20261122T030000Z-bbbbbb
  trainbench compare a.json b.json --model gpt3-175b --gpus 256 --gpu h100 --global-batch 2048 --markdown)");
    cmd->callback([opts, &ctx] { ctx.action = [opts, &ctx] { return run_compare(*opts, ctx); }; });
}

}  // namespace trainbench::cli

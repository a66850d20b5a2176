// trainbench cancel RUN: cancel every unfinished job of a run.
#include "cli/run_support.hpp"

#include <fmt/format.h>

namespace trainbench::cli {

namespace {

struct CancelOptions {
    std::vector<std::string> runs;
};

int run_cancel(const CancelOptions& opts, Context& ctx) {
    std::vector<run::RunInfo> runs = load_runs(ctx, opts.runs);
    pipeline::cancel_runs(ctx.services(), runs, [&ctx](const run::RunInfo& r) {
        ctx.err << fmt::format("trainbench: run {} already ended {}\n", r.short_id, r.state());
    });
    print_run_table(ctx, runs);
    return 0;
}

}  // namespace

void setup_cancel_command(CLI::App& root, Context& ctx) {
    auto opts = std::make_shared<CancelOptions>();
    CLI::App* cmd = root.add_subcommand(
        "cancel", "Cancel a run's unfinished jobs (scancel, kubectl delete, or kill the process group)");
    cmd->add_option("RUN", opts->runs, "Run directories, run ids or short id prefixes")->required();
    cmd->footer(R"TXT(Examples:
  trainbench cancel 3fa2c1
  trainbench cancel runs/tinygpt-local/20261122T023000Z-3fa2c1)TXT");
    cmd->callback([opts, &ctx] { ctx.action = [opts, &ctx] { return run_cancel(*opts, ctx); }; });
}

}  // namespace trainbench::cli

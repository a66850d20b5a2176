// trainbench wait RUN: poll until the run ends; exit 0 only when it completed.
#include "cli/run_support.hpp"

namespace trainbench::cli {

namespace {

struct WaitOptions {
    std::string run;
    double timeout = 0;
    double interval = 2;
};

int run_wait(const WaitOptions& opts, Context& ctx) {
    std::vector<run::RunInfo> runs = load_runs(ctx, {opts.run});
    return wait_for_run(ctx, runs.front(), opts.timeout, opts.interval);
}

}  // namespace

void setup_wait_command(CLI::App& root, Context& ctx) {
    auto opts = std::make_shared<WaitOptions>();
    CLI::App* cmd = root.add_subcommand("wait", "Wait until a run ends (live status line on a terminal)");
    cmd->add_option("RUN", opts->run, "Run directory, run id or short id prefix")->required();
    cmd->add_option("--timeout", opts->timeout, "Give up after SECONDS (exit 4); 0 = never")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--interval", opts->interval, "Seconds between scheduler queries")->check(CLI::PositiveNumber);
    cmd->footer(R"TXT(Examples:
  trainbench wait 3fa2c1
  trainbench wait 3fa2c1 --timeout 3600 --json
Exits 0 when the run COMPLETED, 4 when it ended otherwise or the timeout passed.)TXT");
    cmd->callback([opts, &ctx] { ctx.action = [opts, &ctx] { return run_wait(*opts, ctx); }; });
}

}  // namespace trainbench::cli

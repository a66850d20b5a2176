// trainbench status [RUN...]: the state of runs (all by default), refreshed
// with one scheduler query per backend.
#include "cli/run_support.hpp"

#include <fmt/format.h>

namespace trainbench::cli {

namespace {

struct StatusOptions {
    std::vector<std::string> runs;
    bool no_refresh = false;
    bool active = false;
};

int run_status(const StatusOptions& opts, Context& ctx) {
    std::vector<run::RunInfo> runs = load_runs(ctx, opts.runs);
    int code = 0;
    if (!opts.no_refresh) {
        try {
            pipeline::refresh_runs(ctx.services(), runs);
        } catch (const Error& e) {
            // Show what the journals know, and say why it may be stale.
            ctx.warn(fmt::format("{} (showing the last known states)", e.what()));
            code = static_cast<int>(ExitCode::runtime);
        }
    }
    if (opts.active) std::erase_if(runs, [](const run::RunInfo& r) { return r.is_final(); });
    print_run_table(ctx, runs);
    return code;
}

}  // namespace

void setup_status_command(CLI::App& root, Context& ctx) {
    auto opts = std::make_shared<StatusOptions>();
    CLI::App* cmd = root.add_subcommand("status", "Show the state of runs (all runs by default)");
    cmd->add_option("RUN", opts->runs, "Run directories, run ids or short id prefixes");
    cmd->add_flag("--no-refresh", opts->no_refresh, "Only read the journals; ask no scheduler");
    cmd->add_flag("--active", opts->active, "Only runs that have not ended");
    cmd->footer(R"TXT(Examples:
  trainbench status
  trainbench status 3fa2c1 --json
  trainbench --runs /fsx/runs status --active
States: PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY,
PREEMPTED, UNKNOWN (e.g. submission interrupted), INTERRUPTED (no job reached the scheduler).)TXT");
    cmd->callback([opts, &ctx] { ctx.action = [opts, &ctx] { return run_status(*opts, ctx); }; });
}

}  // namespace trainbench::cli

// trainbench watch RUN: follow a run's training as it goes (step, step time,
// tokens/s, MFU so far, ETA), until the run ends.
#include "cli/run_support.hpp"

namespace trainbench::cli {

namespace {

struct WatchOptions {
    std::string run;
    double timeout = 0;
    double interval = 2;
};

int run_watch(const WatchOptions& opts, Context& ctx) {
    std::vector<run::RunInfo> runs = load_runs(ctx, {opts.run});
    return wait_for_run(ctx, runs.front(), opts.timeout, opts.interval, /*events_to_stdout=*/true);
}

}  // namespace

void setup_watch_command(CLI::App& root, Context& ctx) {
    auto opts = std::make_shared<WatchOptions>();
    CLI::App* cmd = root.add_subcommand("watch", "Follow a run's training live: step, step time, tokens/s, MFU, ETA");
    cmd->add_option("RUN", opts->run, "Run directory, run id or short id prefix")->required();
    cmd->add_option("--timeout", opts->timeout, "Give up after SECONDS (exit 4); 0 = never")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--interval", opts->interval, "Seconds between looks at the scheduler and the log")
        ->check(CLI::PositiveNumber);
    cmd->footer(R"TXT(Reads only what the rank-0 log gained since the last look, with the log format's own
parser. A status line on a terminal, plain 'progress:' lines otherwise, and with --json
one JSON event per line on stdout ({"event": "progress", ...}). Warns when the step time
drifts more than 10% from the recipe's step_time_s expectation or the last run tagged good.

Examples:
  trainbench watch 3fa2c1
  trainbench --json watch 3fa2c1 | jq -c 'select(.event == "progress") | [.step, .mfu]')TXT");
    cmd->callback([opts, &ctx] { ctx.action = [opts, &ctx] { return run_watch(*opts, ctx); }; });
}

}  // namespace trainbench::cli

// trainbench watch RUN: follow a run's training as it goes (step, step time,
// tokens/s, MFU so far, ETA), until the run ends.
#include "cli/run_support.hpp"

namespace trainbench::cli {

void setup_watch_command(CLI::App& root, Context& ctx) {
    auto opts = std::make_shared<WaitArgs>();
    CLI::App* cmd = root.add_subcommand("watch", "Follow a run's training live: step, step time, tokens/s, MFU, ETA");
    add_wait_options(cmd, *opts, "Seconds between looks at the scheduler and the log");
    cmd->footer(R"TXT(Reads only what the rank-0 log gained since the last look, with the log format's own
parser. A status line on a terminal, plain 'progress:' lines otherwise, and with --json
one JSON event per line on stdout ({"event": "progress", ...}). Warns when the step time
drifts more than 10% from the recipe's step_time_s expectation or the last run tagged good.

Examples:
  trainbench watch 3fa2c1
  trainbench --json watch 3fa2c1 | jq -c 'select(.event == "progress") | [.step, .mfu]')TXT");
    cmd->callback([opts, &ctx] {
        ctx.action = [opts, &ctx] { return wait_for_named_run(ctx, *opts, /*events_to_stdout=*/true); };
    });
}

}  // namespace trainbench::cli

// trainbench wait RUN: poll until the run ends; exit 0 only when it completed.
#include "cli/run_support.hpp"

namespace trainbench::cli {

void setup_wait_command(CLI::App& root, Context& ctx) {
    auto opts = std::make_shared<WaitArgs>();
    CLI::App* cmd = root.add_subcommand("wait", "Wait until a run ends (live status line on a terminal)");
    add_wait_options(cmd, *opts, "Seconds between scheduler queries");
    cmd->footer(R"TXT(Examples:
  trainbench wait 3fa2c1
  trainbench wait 3fa2c1 --timeout 3600 --json
Exits 0 when the run COMPLETED, 4 when it ended otherwise or the timeout passed.)TXT");
    cmd->callback([opts, &ctx] {
        ctx.action = [opts, &ctx] { return wait_for_named_run(ctx, *opts, /*events_to_stdout=*/false); };
    });
}

}  // namespace trainbench::cli

#include "cli/stage_reuse.hpp"

#include "cli/run_support.hpp"

#include <fmt/format.h>

namespace trainbench::cli {

void print_reused(Context& ctx, const std::vector<run::StageReuse>& reused) {
    if (ctx.options.quiet) return;  // stderr: --json output on stdout stays one document
    for (const run::StageReuse& u : reused)
        ctx.err << fmt::format("trainbench: stage {}: reused from run {} (job {}, {}: {}); {} forces it\n", u.stage,
                               u.from_run, u.job_id, u.state, u.detail,
                               u.kind == "validate" ? "--revalidate" : "--reprepare");
}

void add_reuse_flags(CLI::App* cmd, run::ReuseFlags& flags) {
    cmd->add_flag("--revalidate", flags.revalidate,
                  "Run the validate stage even when the same nodes passed it recently");
    cmd->add_flag("--reprepare", flags.reprepare, "Run the prepare-data stage even when the same data was prepared");
}

}  // namespace trainbench::cli

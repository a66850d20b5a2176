#include "cli/stage_reuse.hpp"

#include "cli/run_support.hpp"

#include <fmt/format.h>

namespace trainbench::cli {

std::vector<run::StageReuse> plan_stage_reuse(Context& ctx, const recipe::Recipe& r, const run::ReuseFlags& flags,
                                              bool single_stage) {
    if (single_stage) return {};
    std::vector<std::string> notes;
    std::vector<run::StageReuse> reused =
        run::plan_reuse(ctx.runs_root(), r, flags, backend_provider(), system_process_runner(), notes);
    for (const std::string& n : notes) ctx.err << "trainbench: " << n << '\n';
    return reused;
}

void print_reused(Context& ctx, const std::vector<run::StageReuse>& reused) {
    if (ctx.options.quiet) return;  // stderr: --json output on stdout stays one document
    for (const run::StageReuse& u : reused)
        ctx.err << fmt::format("trainbench: stage {}: reused from run {} (job {}, {}: {}); {} forces it\n", u.stage,
                               u.from_run, u.job_id, u.state, u.detail,
                               u.kind == "validate" ? "--revalidate" : "--reprepare");
}

void warn_node_local_store(Context& ctx, const recipe::Recipe& r) {
    if (r.target.scheduler != catalog::Scheduler::slurm) return;
    run::StoreFilesystem fs = run::store_filesystem(ctx.runs_root());
    if (fs.shared) return;
    ctx.warn(fmt::format(
        "the run store '{}' is on a node-local file system ({}): the {}-node job changes into its run directory "
        "on the compute nodes, which cannot see it there; put the store on a shared file system (NFS, Lustre, "
        "GPFS, ...) with --runs DIR or TRAINBENCH_RUNS",
        ctx.runs_root().string(), fs.type, r.nodes));
}

void add_reuse_flags(CLI::App* cmd, run::ReuseFlags& flags) {
    cmd->add_flag("--revalidate", flags.revalidate,
                  "Run the validate stage even when the same nodes passed it recently");
    cmd->add_flag("--reprepare", flags.reprepare, "Run the prepare-data stage even when the same data was prepared");
}

}  // namespace trainbench::cli

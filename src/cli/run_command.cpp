// trainbench run RECIPE: submit, wait with a live status line, then report.
#include "cli/run_support.hpp"
#include "cli/stage_reuse.hpp"

#include <trainbench/cli.hpp>

#include <fmt/format.h>

namespace trainbench::cli {

namespace {

struct RunOptions {
    SubmitArgs submit;
    double timeout = 0;
    double interval = 2;
    bool no_report = false;
};

bool has_command(const char* name) {
    for (const CommandInfo& c : command_table())
        if (std::string_view(c.name) == name) return true;
    return false;
}

int run_run(const RunOptions& opts, Context& ctx) {
    install_interrupt_handlers();
    run::RunInfo info = submit_recipe(ctx, opts.submit);
    if (!ctx.options.quiet)
        ctx.err << fmt::format("trainbench: submitted run {} ({})\n", info.short_id, info.dir.string());
    try {
        (void)wait_for_run(ctx, info, opts.timeout, opts.interval);
    } catch (const InterruptedError&) {
        // A local job runs in the foreground: Ctrl-C ends it. Cluster jobs keep running.
        if (pipeline::cancel_if_jobs_end_with_run(ctx.services(), info)) {
            ctx.err << fmt::format("\ntrainbench: cancelled local run {}\n", info.short_id);
        } else {
            ctx.err << fmt::format("\ntrainbench: stopped waiting; run {} continues ('trainbench wait {}')\n",
                                   info.short_id, info.short_id);
        }
        throw;
    }
    if (opts.no_report || !has_command("report")) {
        ctx.err << fmt::format("trainbench: logs in {}\n", (info.dir / "logs").string());
        return 0;
    }
    std::vector<std::string> args;
    if (ctx.options.json) args.emplace_back("--json");
    // The report sees the same catalog, run store and results database as this run.
    for (const auto& [flag, value] :
         {std::pair{"--recipes", &ctx.options.recipes_dir}, std::pair{"--runs", &ctx.options.runs_dir},
          std::pair{"--results", &ctx.options.results}})
        if (!value->empty()) {
            args.emplace_back(flag);
            args.push_back(*value);
        }
    args.emplace_back("report");
    args.push_back(info.dir.string());
    return trainbench::cli::run(args, ctx.out, ctx.err);
}

}  // namespace

void setup_run_command(CLI::App& root, Context& ctx) {
    auto opts = std::make_shared<RunOptions>();
    CLI::App* cmd = root.add_subcommand("run", "Submit a recipe, wait for it with a live status line, then report");
    cmd->add_option("RECIPE", opts->submit.recipe, "Recipe file")->required();
    cmd->add_option("-s,--set", opts->submit.overrides, "Override a value: -s key=value (repeatable)")
        ->allow_extra_args(false);
    cmd->add_option("--stage", opts->submit.stage, "Run only this stage");
    add_kube_flags(cmd, opts->submit.kube_context, opts->submit.kube_namespace);
    add_reuse_flags(cmd, opts->submit.reuse);
    cmd->add_option("--timeout", opts->timeout, "Stop waiting after SECONDS (exit 4; the run continues)");
    cmd->add_option("--interval", opts->interval, "Seconds between scheduler queries")->check(CLI::PositiveNumber);
    cmd->add_flag("--no-report", opts->no_report, "Do not report when the run ends");
    cmd->footer(R"TXT(Examples:
  trainbench run recipes/local/tinygpt.yaml
  trainbench run recipes/local-slurm/tinygpt-2n.yaml
  trainbench run recipes/aws-p4d/gpt3-126m.yaml -s nodes=2 --timeout 7200
Ctrl-C while waiting ends a local run; a cluster run keeps running ('trainbench wait ID').)TXT");
    cmd->callback([opts, &ctx] { ctx.action = [opts, &ctx] { return run_run(*opts, ctx); }; });
}

}  // namespace trainbench::cli

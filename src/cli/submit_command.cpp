// trainbench submit RECIPE: validate, render into a fresh run directory and
// submit every stage through the target's scheduler, chained by dependencies.
#include "cli/run_support.hpp"
#include "cli/stage_reuse.hpp"

namespace trainbench::cli {

namespace {

int run_submit(const SubmitArgs& args, Context& ctx) {
    install_interrupt_handlers();
    run::RunInfo info = submit_recipe(ctx, args);
    print_submitted(ctx, info);
    return 0;
}

}  // namespace

void setup_submit_command(CLI::App& root, Context& ctx) {
    auto opts = std::make_shared<SubmitArgs>();
    CLI::App* cmd = root.add_subcommand("submit", "Submit a recipe's stages to its scheduler; prints the run id");
    cmd->add_option("RECIPE", opts->recipe, "Recipe file")->required();
    cmd->add_option("-s,--set", opts->overrides, "Override a value: -s key=value (repeatable)")
        ->allow_extra_args(false);
    cmd->add_option("--stage", opts->stage, "Submit only this stage (no dependency)");
    add_kube_flags(cmd, opts->kube_context, opts->kube_namespace);
    add_reuse_flags(cmd, opts->reuse);
    cmd->footer(R"TXT(Examples:
  trainbench submit recipes/local-slurm/tinygpt-2n.yaml
  trainbench submit recipes/aws-p4d/gpt3-126m.yaml -s nodes=4 --json
  trainbench --runs /fsx/runs submit recipes/gcp-a3-mega/gpt3-175b-fp8.yaml --context gke-a3
Creates runs/<recipe>/<UTC time>-<short id>/ (docs/runs.md); follow it with
'trainbench status', 'trainbench wait ID' or 'trainbench logs ID -f'.)TXT");
    cmd->callback([opts, &ctx] { ctx.action = [opts, &ctx] { return run_submit(*opts, ctx); }; });
}

}  // namespace trainbench::cli
